/* SPDX-License-Identifier: MIT */
/* zestub merge's report as text for a person (merge_report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge_report.h"

static void site_text(FILE *f, const struct jv *site)
{
    if (!site || site->type != JV_OBJECT || !jv_str(site, "file", NULL)) {
        fputs("unknown", f);
        return;
    }
    fprintf(f, "%s:%lld", jv_str(site, "file", ""), jv_int(site, "line", 0));
    if (jv_str(site, "function", NULL))
        fprintf(f, " in %s", jv_str(site, "function", ""));
}

/* One line per hung rank: the rule, and the oldest submission in flight. */
static void human_hangs(FILE *f, const struct merge *m)
{
    for (size_t i = 0; i < m->nranks; i++) {
        const struct jv *h = m->ranks[i].hang, *old = jv_get(h, "oldest");
        if (!m->ranks[i].doc || !m->ranks[i].hung)
            continue;
        fprintf(f, "rank %ld: hang (rule %s)", m->ranks[i].rank, jv_str(h, "rule", "?"));
        if (old && old->type == JV_OBJECT) {
            fprintf(f, ": oldest submission %s at ", jv_str(old, "kernel", "(unknown kernel)"));
            site_text(f, old);
        }
        fprintf(f, ", running %s s (limit %s s)\n",
                jv_is(h, "running_s", JV_NUMBER) ? jv_get(h, "running_s")->str : "?",
                jv_is(h, "limit_s", JV_NUMBER) ? jv_get(h, "limit_s")->str : "?");
    }
}

static void human_class(FILE *f, size_t k, const struct merge_class *c)
{
    const struct jv *t = c->rep_thread, *regs = jv_get(t, "registers");
    const struct jv *sub = jv_get(t, "submitted_at");
    const struct jv *alloc = jv_get(c->rep_fault, "allocation");
    fprintf(f, "\nclass %zu: %u thread%s on rank%s ", k + 1, c->threads, c->threads == 1 ? "" : "s",
            c->nranks == 1 ? "" : "s");
    merge_ranges(f, c->ranks, c->nranks);
    fprintf(f, "\n  %s in %s at %s:%ld\n", c->reason, c->kernel ? c->kernel : "(unknown kernel)",
            c->file ? c->file : "(unknown file)", c->line);
    if (strcmp(c->fault_class, "none") != 0)
        fprintf(f, "  fault address: %s\n", c->fault_class);
    if (alloc && alloc->type == JV_OBJECT) {
        fprintf(f, "  allocation: %lld bytes at %s, allocated at ", jv_int(alloc, "size", 0),
                jv_str(alloc, "base", "?"));
        site_text(f, jv_get(alloc, "allocated_at"));
        fputs(", freed at ", f);
        site_text(f, jv_get(alloc, "freed_at"));
        fputc('\n', f);
    }
    if (sub && sub->type == JV_OBJECT) {
        fputs("  submitted at ", f);
        site_text(f, sub);
        fputc('\n', f);
    }
    for (size_t i = 0; i < c->naddresses; i++)
        fprintf(f, "%s%s", i ? ", " : "  fault addresses (rank:address): ", c->addresses[i]);
    if (c->naddresses)
        fputc('\n', f);
    fprintf(f, "  representative: rank %ld (%s), device %lld, thread %s, pc %s\n",
            c->rep_rank->rank, c->rep_rank->path, jv_int(t, "device", -1), jv_str(t, "thread", "?"),
            jv_str(t, "pc", "?"));
    for (size_t i = 0; regs && regs->type == JV_OBJECT && i < regs->n; i++)
        fprintf(f, "      %-10s %s\n", regs->key[i],
                regs->item[i]->type == JV_STRING ? regs->item[i]->str : "?");
}

static void human_ranks(FILE *f, const char *label, const struct merge_rank_list *l)
{
    fprintf(f, "\n%s: %s", label, l->n ? "" : "none");
    merge_ranges(f, l->v, l->n);
}

void merge_emit_human(FILE *f, const struct merge_report *r)
{
    const struct merge *m = r->m;
    fprintf(f, "zestub merge: %zu rank%s", r->read, r->read == 1 ? "" : "s");
    if (r->unread)
        fprintf(f, " (%zu file%s not readable)", r->unread, r->unread == 1 ? "" : "s");
    human_ranks(f, "faulted", &r->faulted);
    human_ranks(f, "did not fault", &r->not_faulted);
    if (r->hung.n > 0) {
        fputs("\nhung: ", f);
        merge_ranges(f, r->hung.v, r->hung.n);
    }
    fputc('\n', f);
    human_hangs(f, m);
    for (size_t i = 0; i < m->nranks; i++)
        if (m->ranks[i].doc && !m->ranks[i].complete)
            fprintf(f, "rank %ld: incomplete dump (%s)\n", m->ranks[i].rank, m->ranks[i].path);
    for (size_t k = 0; k < m->nclasses; k++)
        human_class(f, k, &m->classes[k]);
}
