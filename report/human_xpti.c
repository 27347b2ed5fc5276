/* SPDX-License-Identifier: MIT */
/* The XPTI parts of the human dump (report/xpti_text.h). */
#include <inttypes.h>

#include "report/safe_text.h"
#include "report/xpti_text.h"

/* "file:line in function": the names are the application's, written
 * terminal-safe (report/safe_text.h). */
static void human_site(FILE *f, const struct xtab_site *s)
{
    report_put_safe(f, s->file[0] ? s->file : "(unknown file)");
    fprintf(f, ":%u", s->line);
    if (s->function[0]) {
        fputs(" in ", f);
        report_put_safe(f, s->function);
    }
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

void human_xpti_section(FILE *f, const struct xtab_stats *st, const char *note)
{
    if (!st) {
        fputs("note: ", f);
        report_put_safe(f, note); /* may quote the table's damaged text */
        fputc('\n', f);
        return;
    }
    fprintf(f, "XPTI table: %" PRIu64 " sites, %" PRIu64 " tasks, %" PRIu64 " allocations",
            st->sites, st->tasks, st->allocs);
    /* The ring keeps the newest tasks and each site's latest. */
    if (st->tasks_dropped)
        fprintf(f, " (older tasks dropped: %" PRIu64 ")", st->tasks_dropped);
    fputc('\n', f);
}

void human_xpti_submission(FILE *f, const struct sess_xpti_submission *s)
{
    if (s)
        human_submission(f, s);
}

void human_xpti_allocation(FILE *f, const struct report_fault *fa)
{
    const struct sess_xpti_alloc *al = &fa->alloc;
    const struct xtab_alloc *a = &al->a;
    if (!fa->has_alloc)
        return;
    fprintf(f, "  in %s allocation 0x%" PRIx64 " (%" PRIu64 " bytes) at offset %" PRIu64 "%s\n",
            a->live ? "live" : "freed", a->base, a->size, fa->addr - a->base,
            a->in_guard ? " (guard zone)" : "");
    if (al->has_alloc_site) {
        fputs("    allocated at ", f);
        human_site(f, &al->alloc_site);
        fputc('\n', f);
    }
    if (!a->live && al->has_free_site) {
        fputs("    freed at ", f);
        human_site(f, &al->free_site);
        fputc('\n', f);
    }
}
