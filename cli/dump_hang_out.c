/* SPDX-License-Identifier: MIT */
/* The hang section of a dump (doc/dump-format.md, "hang"): which rule
 * fired, how long the oldest submission had run, and where it was
 * submitted when the XPTI table knows. */
#include <inttypes.h>

#include "cli/dump_hang.h"
#include "report/json.h"

const char *dump_hang_rule_name(enum hang_rule r)
{
    return r == HANG_RULE_XPTI ? "xpti" : "deadline";
}

static const char *after_name(enum after_hang a)
{
    return a == AFTER_HANG_KILL ? "kill" : "resume";
}

/* A string that may be empty (the table lost it): null then. */
static void json_opt(FILE *f, const char *s)
{
    if (s && *s)
        report_json_str(f, s);
    else
        fputs("null", f);
}

static void json_oldest(FILE *f, const struct dump_hang *h)
{
    const struct xtab_task *t = &h->task;
    if (!h->has_task) {
        fputs("null", f);
        return;
    }
    fputs("{\"kernel\":", f);
    json_opt(f, h->has_site ? h->site.kernel : NULL);
    fputs(",\"file\":", f);
    json_opt(f, h->has_site ? h->site.file : NULL);
    if (h->has_site && h->site.line)
        fprintf(f, ",\"line\":%u", h->site.line);
    else
        fputs(",\"line\":null", f);
    if (h->has_site && h->site.column)
        fprintf(f, ",\"column\":%u", h->site.column);
    else
        fputs(",\"column\":null", f);
    fputs(",\"function\":", f);
    json_opt(f, h->has_site ? h->site.function : NULL);
    if (h->has_site)
        fprintf(f, ",\"site_uid\":\"0x%016" PRIx64 "\"", h->site.uid);
    else
        fputs(",\"site_uid\":null", f);
    fprintf(f,
            ",\"task_uid\":\"0x%016" PRIx64 "\",\"instance\":%" PRIu64 ",\"queue\":\"0x%" PRIx64
            "\",\"begin_ns\":%" PRIu64 ",\"host_tid\":%u}",
            t->uid, t->instance, t->queue, t->begin_ns, t->tid);
}

static void human(FILE *f, const struct dump_hang *h)
{
    if (h->rule == HANG_RULE_DEADLINE) {
        fprintf(f,
                "hang (rule: deadline, no XPTI table): device threads still running %.1f s "
                "after zestub attached (limit %g s; without the table zestub cannot see kernels "
                "end)\n",
                h->running_s, h->limit_s);
    } else {
        fprintf(f,
                "hang (rule: xpti): the oldest of %u submission%s in flight had been running "
                "%.1f s (limit %g s)\n",
                h->in_flight, h->in_flight == 1 ? "" : "s", h->running_s, h->limit_s);
        if (h->has_site)
            fprintf(f, "  kernel %s submitted at %s:%u in %s: ",
                    h->site.kernel[0] ? h->site.kernel : "?", h->site.file[0] ? h->site.file : "?",
                    h->site.line, h->site.function[0] ? h->site.function : "?");
        else
            fputs("  submission site unknown: ", f);
        fprintf(f, "task instance %" PRIu64 " on queue 0x%" PRIx64 " (uid 0x%016" PRIx64 ")\n",
                h->task.instance, h->task.queue, h->task.uid);
    }
    fprintf(f, "after the dump the program is %s\n",
            h->after == AFTER_HANG_KILL ? "killed" : "resumed");
}

void dump_hang_write(FILE *f, bool json, const void *ctx)
{
    const struct dump_hang *h = ctx;
    if (!json) {
        human(f, h);
        return;
    }
    fprintf(f, ",\"hang\":{\"rule\":\"%s\",\"limit_s\":%.3f,\"running_s\":%.3f,",
            dump_hang_rule_name(h->rule), h->limit_s, h->running_s);
    if (h->rule == HANG_RULE_XPTI)
        fprintf(f, "\"in_flight\":%u,\"idle_checks\":null,", h->in_flight);
    else
        fprintf(f, "\"in_flight\":null,\"idle_checks\":%u,", h->checks);
    fputs("\"oldest\":", f);
    json_oldest(f, h);
    fprintf(f, ",\"after\":\"%s\"}", after_name(h->after));
}
