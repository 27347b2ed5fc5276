/* SPDX-License-Identifier: MIT */
/* zestub merge's report as text for a person (merge_report.h). Every
 * string that came from a dump file goes through report_put_safe
 * (safe_text.h): a dump is untrusted input and this text goes to a
 * terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge_report.h"
#include "report/safe_text.h"

/* A dump's string s between before and after. */
static void put(FILE *f, const char *before, const char *s, const char *after)
{
    fputs(before, f);
    report_put_safe(f, s);
    fputs(after, f);
}

static void site_text(FILE *f, const struct jv *site)
{
    if (!site || site->type != JV_OBJECT || !jv_str(site, "file", NULL)) {
        fputs("unknown", f);
        return;
    }
    put(f, "", jv_str(site, "file", ""), "");
    fprintf(f, ":%lld", jv_int(site, "line", 0));
    if (jv_str(site, "function", NULL))
        put(f, " in ", jv_str(site, "function", ""), "");
}

/* A number's text as the dump wrote it, or "?". */
static const char *number(const struct jv *obj, const char *key)
{
    return jv_is(obj, key, JV_NUMBER) ? jv_get(obj, key)->str : "?";
}

/* One line per hung rank: the rule, and the oldest submission in flight. */
static void human_hangs(FILE *f, const struct merge *m)
{
    for (size_t i = 0; i < m->nranks; i++) {
        const struct jv *h = m->ranks[i].hang, *old = jv_get(h, "oldest");
        if (!m->ranks[i].doc || !m->ranks[i].hung)
            continue;
        fprintf(f, "rank %ld: hang (rule ", m->ranks[i].rank);
        put(f, "", jv_str(h, "rule", "?"), ")");
        if (old && old->type == JV_OBJECT) {
            put(f, ": oldest submission ", jv_str(old, "kernel", "(unknown kernel)"), " at ");
            site_text(f, old);
        }
        put(f, ", running ", number(h, "running_s"), " s");
        put(f, " (limit ", number(h, "limit_s"), " s)\n");
    }
}

/* What kind of memory the class faulted on. Without an XPTI table the
 * address is known (listed next) but not the allocation holding it. */
static void human_fault_class(FILE *f, const struct merge_class *c)
{
    if (!strcmp(c->fault_class, "none"))
        return;
    if (!strcmp(c->fault_class, MERGE_NO_TABLE))
        fputs("  fault address: in an unknown allocation (no XPTI table)\n", f);
    else
        put(f, "  fault address: ", c->fault_class, "\n");
}

static void human_allocation(FILE *f, const struct jv *alloc)
{
    if (!alloc || alloc->type != JV_OBJECT)
        return;
    fprintf(f, "  allocation: %lld bytes at ", jv_int(alloc, "size", 0));
    put(f, "", jv_str(alloc, "base", "?"), ", allocated at ");
    site_text(f, jv_get(alloc, "allocated_at"));
    fputs(", freed at ", f);
    site_text(f, jv_get(alloc, "freed_at"));
    fputc('\n', f);
}

static void human_representative(FILE *f, const struct merge_class *c)
{
    const struct jv *t = c->rep_thread, *regs = jv_get(t, "registers");
    fprintf(f, "  representative: rank %ld (", c->rep_rank->rank);
    report_put_safe(f, c->rep_rank->path);
    fprintf(f, "), device %lld, thread ", jv_int(t, "device", -1));
    put(f, "", jv_str(t, "thread", "?"), ", pc ");
    put(f, "", jv_str(t, "pc", "?"), "\n");
    for (size_t i = 0; regs && regs->type == JV_OBJECT && i < regs->n; i++) {
        /* As "%-10s": the name padded to 10 columns. */
        size_t len = strlen(regs->key[i]);
        put(f, "      ", regs->key[i], "");
        fprintf(f, "%*s ", len < 10 ? (int)(10 - len) : 0, "");
        put(f, "", regs->item[i]->type == JV_STRING ? regs->item[i]->str : "?", "\n");
    }
}

static void human_class(FILE *f, size_t k, const struct merge_class *c)
{
    const struct jv *sub = jv_get(c->rep_thread, "submitted_at");
    fprintf(f, "\nclass %zu: %u thread%s on rank%s ", k + 1, c->threads, c->threads == 1 ? "" : "s",
            c->nranks == 1 ? "" : "s");
    merge_ranges(f, c->ranks, c->nranks);
    put(f, "\n  ", c->reason, " in ");
    put(f, "", c->kernel ? c->kernel : "(unknown kernel)", " at ");
    report_put_safe(f, c->file ? c->file : "(unknown file)");
    fprintf(f, ":%ld\n", c->line);
    human_fault_class(f, c);
    human_allocation(f, c->rep_allocation);
    if (sub && sub->type == JV_OBJECT) {
        fputs("  submitted at ", f);
        site_text(f, sub);
        fputc('\n', f);
    }
    for (size_t i = 0; i < c->naddresses; i++)
        put(f, i ? ", " : "  fault addresses (rank:address): ", c->addresses[i].text, "");
    if (c->naddresses)
        fputc('\n', f);
    human_representative(f, c);
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
        if (m->ranks[i].doc && !m->ranks[i].complete) {
            fprintf(f, "rank %ld: incomplete dump (", m->ranks[i].rank);
            put(f, "", m->ranks[i].path, ")\n");
        }
    for (size_t i = 0; i < m->nranks; i++)
        if (m->ranks[i].unrenamed) {
            fprintf(f, "rank %ld: ", m->ranks[i].rank);
            put(f, "", m->ranks[i].path,
                " is a whole record: zestub dump was stopped after writing it, before "
                "renaming it\n");
        }
    for (size_t k = 0; k < m->nclasses; k++)
        human_class(f, k, &m->classes[k]);
}
