/* SPDX-License-Identifier: MIT */
#include "cli/dump_xpti.h"

#include <inttypes.h>
#include <string.h>

#include "report/json.h"

/* Empty table strings (unknown, or lost to a full table) print as null. */
static void json_text(FILE *f, const char *s)
{
    report_json_str(f, s && s[0] ? s : NULL);
}

void dump_xpti_section(FILE *f, bool json, struct sess_xpti *x, const char *note)
{
    struct xtab_stats st;
    if (x)
        sess_xpti_stats(x, &st);
    if (json) {
        fputs(",\"xpti\":{\"table\":", f);
        fputs(x ? "true" : "false", f);
        fputs(",\"note\":", f);
        report_json_str(f, x ? NULL : note);
        if (x)
            fprintf(f,
                    ",\"sites\":%" PRIu64 ",\"tasks\":%" PRIu64 ",\"allocations\":%" PRIu64
                    ",\"sites_dropped\":%" PRIu64 ",\"allocs_dropped\":%" PRIu64
                    ",\"running_tasks_recycled\":%" PRIu64 ",\"tasks_dropped\":%" PRIu64
                    ",\"bad_records\":%" PRIu64,
                    st.sites, st.tasks, st.allocs, st.sites_dropped, st.allocs_dropped,
                    st.running_tasks_recycled, st.tasks_dropped, st.bad_records);
        fputc('}', f);
    } else if (x) {
        fprintf(f, "XPTI table: %" PRIu64 " sites, %" PRIu64 " tasks, %" PRIu64 " allocations",
                st.sites, st.tasks, st.allocs);
        /* The ring keeps the newest tasks and each site's latest. */
        if (st.tasks_dropped)
            fprintf(f, " (older tasks dropped: %" PRIu64 ")", st.tasks_dropped);
        fputc('\n', f);
    } else {
        fprintf(f, "note: %s\n", note);
    }
}

/* A code location as `"file":..,"line":..,"column":..,"function":..`. */
static void json_site_fields(FILE *f, const struct xtab_site *s)
{
    fputs("\"file\":", f);
    json_text(f, s ? s->file : NULL);
    if (s && s->line)
        fprintf(f, ",\"line\":%u", s->line);
    else
        fputs(",\"line\":null", f);
    if (s && s->column)
        fprintf(f, ",\"column\":%u", s->column);
    else
        fputs(",\"column\":null", f);
    fputs(",\"function\":", f);
    json_text(f, s ? s->function : NULL);
}

static void json_task(FILE *f, const struct sess_xpti_candidate *c)
{
    if (!c || !c->has_task) {
        fputs("\"task_uid\":null,\"instance\":null,\"queue\":null", f);
        return;
    }
    fprintf(f,
            "\"task_uid\":\"0x%" PRIx64 "\",\"instance\":%" PRIu64 ",\"queue\":\"0x%" PRIx64 "\"",
            c->task.uid, c->task.instance, c->task.queue);
}

static const char *how_name(enum sess_xpti_how h)
{
    return h == SESS_XPTI_UNIQUE ? "unique" : h == SESS_XPTI_AMBIGUOUS ? "ambiguous" : "site-only";
}

/* The one site every listed candidate shares, or NULL. */
static const struct xtab_site *common_site(const struct sess_xpti_submission *s)
{
    if (s->ncand == 0 || s->ncand < s->total)
        return NULL;
    for (size_t i = 1; i < s->ncand; i++)
        if (s->cand[i].site != s->cand[0].site)
            return NULL;
    return s->cand[0].site;
}

static void json_submission(FILE *f, const struct sess_xpti_submission *s)
{
    const struct xtab_site *site = common_site(s);
    fprintf(f, ",\"submitted_at\":{\"attribution\":\"%s\",", how_name(s->how));
    json_site_fields(f, site);
    fputs(",\"site_uid\":", f);
    if (site)
        fprintf(f, "\"0x%" PRIx64 "\"", site->uid);
    else
        fputs("null", f);
    fputc(',', f);
    json_task(f, s->how == SESS_XPTI_UNIQUE ? &s->cand[0] : NULL);
    fprintf(f, ",\"candidates_total\":%zu,\"other_device_sites\":%zu,\"candidates\":[", s->total,
            s->other_device_sites);
    for (size_t i = 0; i < s->ncand; i++) {
        const struct sess_xpti_candidate *c = &s->cand[i];
        fputs(i ? ",{" : "{", f);
        fputs("\"kernel\":", f);
        json_text(f, c->site->kernel);
        fputc(',', f);
        json_site_fields(f, c->site);
        fputs(",\"device\":", f);
        json_text(f, c->site->device);
        fprintf(f, ",\"site_uid\":\"0x%" PRIx64 "\",", c->site->uid);
        json_task(f, c);
        if (c->has_task)
            fprintf(f, ",\"begin_ns\":%" PRIu64 ",\"host_tid\":%u", c->task.begin_ns, c->task.tid);
        fputc('}', f);
    }
    fputs("]}", f);
}

/* "file:line in function" */
static void human_site(FILE *f, const struct xtab_site *s)
{
    fprintf(f, "%s:%u", s->file[0] ? s->file : "(unknown file)", s->line);
    if (s->function[0])
        fprintf(f, " in %s", s->function);
}

static void human_task(FILE *f, const struct sess_xpti_candidate *c)
{
    human_site(f, c->site);
    if (c->has_task)
        fprintf(f, ": task instance %" PRIu64 " on queue 0x%" PRIx64 " (uid 0x%" PRIx64 ")",
                c->task.instance, c->task.queue, c->task.uid);
}

static void human_submission(FILE *f, const struct sess_xpti_submission *s)
{
    if (s->how == SESS_XPTI_UNIQUE) {
        fputs("      submitted at ", f);
        human_task(f, &s->cand[0]);
        fputc('\n', f);
        return;
    }
    if (s->how == SESS_XPTI_AMBIGUOUS)
        fprintf(f, "      submitted by one of %zu running tasks (the table cannot tell which):\n",
                s->total);
    else
        fprintf(f, "      submitted from %zu site%s (no task of it was running):\n", s->total,
                s->total == 1 ? "" : "s");
    for (size_t i = 0; i < s->ncand; i++) {
        fputs("        ", f);
        human_task(f, &s->cand[i]);
        fputc('\n', f);
    }
    if (s->ncand < s->total)
        fprintf(f, "        ... and %zu more\n", s->total - s->ncand);
}

void dump_xpti_submission(FILE *f, bool json, const struct sess_xpti_submission *s)
{
    if (json) {
        if (s)
            json_submission(f, s);
        else
            fputs(",\"submitted_at\":null", f);
    } else if (s) {
        human_submission(f, s);
    }
}

/* A site object with the event's id; null when neither is known. */
static void json_alloc_site(FILE *f, bool has, const struct xtab_site *s, uint64_t uid)
{
    if (!has && !uid) {
        fputs("null", f);
        return;
    }
    fputc('{', f);
    json_site_fields(f, has ? s : NULL);
    fprintf(f, ",\"uid\":\"0x%" PRIx64 "\"}", uid);
}

void dump_xpti_allocation(FILE *f, bool json, struct sess_xpti *x, uint64_t addr)
{
    struct sess_xpti_alloc al;
    bool have = x && sess_xpti_allocation(x, addr, &al) == 0;
    const struct xtab_alloc *a = &al.a;
    if (json) {
        if (!have) {
            fputs(",\"allocation\":null", f);
            return;
        }
        fprintf(f,
                ",\"allocation\":{\"base\":\"0x%" PRIx64 "\",\"size\":%" PRIu64
                ",\"offset\":%" PRIu64 ",\"in_guard\":%s,\"state\":\"%s\",\"allocated_at\":",
                a->base, a->size, addr - a->base, a->in_guard ? "true" : "false",
                a->live ? "live" : "freed");
        json_alloc_site(f, al.has_alloc_site, &al.alloc_site, a->alloc_uid);
        fputs(",\"freed_at\":", f);
        if (a->live)
            fputs("null", f);
        else
            json_alloc_site(f, al.has_free_site, &al.free_site, a->free_uid);
        fputc('}', f);
        return;
    }
    if (!have)
        return;
    fprintf(f, "  in %s allocation 0x%" PRIx64 " (%" PRIu64 " bytes) at offset %" PRIu64 "%s\n",
            a->live ? "live" : "freed", a->base, a->size, addr - a->base,
            a->in_guard ? " (guard zone)" : "");
    if (al.has_alloc_site) {
        fputs("    allocated at ", f);
        human_site(f, &al.alloc_site);
        fputc('\n', f);
    }
    if (!a->live && al.has_free_site) {
        fputs("    freed at ", f);
        human_site(f, &al.free_site);
        fputc('\n', f);
    }
}
