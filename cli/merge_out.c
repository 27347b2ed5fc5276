/* SPDX-License-Identifier: MIT */
/* zestub merge's two formats: text for a person, and the zestub-merge JSON
 * document (doc/merge-format.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "cli/merge.h"

void merge_ranges(FILE *f, const long *v, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        if (j == i)
            fprintf(f, "%s%ld", i ? "," : "", v[i]);
        else
            fprintf(f, "%s%ld-%ld", i ? "," : "", v[i], v[j]);
        i = j + 1;
    }
}

/* The ranks of m whose `faulted` is want (and that could be read). */
static size_t ranks_where(const struct merge *m, bool want, long *out)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nranks; i++)
        if (m->ranks[i].doc && m->ranks[i].faulted == want &&
            (n == 0 || out[n - 1] != m->ranks[i].rank))
            out[n++] = m->ranks[i].rank;
    return n;
}

/* The ranks of m with a hang dump. */
static size_t ranks_hung(const struct merge *m, long *out)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nranks; i++)
        if (m->ranks[i].doc && m->ranks[i].hung && (n == 0 || out[n - 1] != m->ranks[i].rank))
            out[n++] = m->ranks[i].rank;
    return n;
}

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

void merge_print_human(FILE *f, const struct merge *m)
{
    /* One slot per file: a job may have many thousands of ranks. */
    long *list = calloc(m->nranks + 1, sizeof(*list));
    size_t n, unread = 0;
    if (!list)
        return;
    for (size_t i = 0; i < m->nranks; i++)
        unread += m->ranks[i].doc == NULL;
    fprintf(f, "zestub merge: %zu rank%s", m->nranks - unread, m->nranks - unread == 1 ? "" : "s");
    if (unread)
        fprintf(f, " (%zu file%s not readable)", unread, unread == 1 ? "" : "s");
    n = ranks_where(m, true, list);
    fprintf(f, "\nfaulted: %s", n ? "" : "none");
    merge_ranges(f, list, n);
    n = ranks_where(m, false, list);
    fprintf(f, "\ndid not fault: %s", n ? "" : "none");
    merge_ranges(f, list, n);
    if ((n = ranks_hung(m, list)) > 0) {
        fputs("\nhung: ", f);
        merge_ranges(f, list, n);
    }
    fputc('\n', f);
    human_hangs(f, m);
    for (size_t i = 0; i < m->nranks; i++)
        if (m->ranks[i].doc && !m->ranks[i].complete)
            fprintf(f, "rank %ld: incomplete dump (%s)\n", m->ranks[i].rank, m->ranks[i].path);
    for (size_t k = 0; k < m->nclasses; k++)
        human_class(f, k, &m->classes[k]);
    free(list);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_ranks(FILE *f, const long *v, size_t n)
{
    fputs("{\"ranges\":\"", f);
    merge_ranges(f, v, n);
    fputs("\",\"list\":[", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%ld", i ? "," : "", v[i]);
    fputs("]}", f);
}

/* Writes v back as JSON (the representative's records are copied as they
 * were). */
static void json_value(FILE *f, const struct jv *v)
{
    if (!v) {
        fputs("null", f);
        return;
    }
    switch (v->type) {
    case JV_NULL:
        fputs("null", f);
        break;
    case JV_BOOL:
        fputs(v->b ? "true" : "false", f);
        break;
    case JV_NUMBER:
        fputs(v->str ? v->str : "0", f);
        break;
    case JV_STRING:
        report_json_str(f, v->str);
        break;
    case JV_ARRAY:
    case JV_OBJECT:
        fputc(v->type == JV_ARRAY ? '[' : '{', f);
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                fputc(',', f);
            if (v->type == JV_OBJECT) {
                report_json_str(f, v->key[i]);
                fputc(':', f);
            }
            json_value(f, v->item[i]);
        }
        fputc(v->type == JV_ARRAY ? ']' : '}', f);
        break;
    }
}

static void json_str_or_null(FILE *f, const char *s)
{
    if (s)
        report_json_str(f, s);
    else
        fputs("null", f);
}

static void json_class(FILE *f, const struct merge_class *c)
{
    fputs("{\"kernel\":", f);
    json_str_or_null(f, c->kernel);
    fputs(",\"function\":", f);
    json_str_or_null(f, c->function);
    fputs(",\"file\":", f);
    json_str_or_null(f, c->file);
    if (c->line >= 0)
        fprintf(f, ",\"line\":%ld", c->line);
    else
        fputs(",\"line\":null", f);
    fputs(",\"reason\":", f);
    report_json_str(f, c->reason);
    fputs(",\"fault_class\":", f);
    report_json_str(f, c->fault_class);
    fputs(",\"ranks\":", f);
    json_ranks(f, c->ranks, c->nranks);
    fprintf(f, ",\"threads\":%u,\"fault_addresses\":[", c->threads);
    for (size_t i = 0; i < c->naddresses; i++) {
        const char *colon = strchr(c->addresses[i], ':');
        fprintf(f, "%s{\"rank\":%.*s,\"address\":", i ? "," : "", (int)(colon - c->addresses[i]),
                c->addresses[i]);
        report_json_str(f, colon + 1);
        fputc('}', f);
    }
    fputs("],\"allocation\":", f);
    json_value(f, jv_get(c->rep_fault, "allocation"));
    fputs(",\"submitted_at\":", f);
    json_value(f, jv_get(c->rep_thread, "submitted_at"));
    fprintf(f, ",\"representative\":{\"rank\":%ld,\"file\":", c->rep_rank->rank);
    report_json_str(f, c->rep_rank->path);
    fputs(",\"host\":", f);
    json_value(f, jv_get(c->rep_rank->doc, "host"));
    fputs(",\"pid\":", f);
    json_value(f, jv_get(c->rep_rank->doc, "pid"));
    fputs(",\"thread\":", f);
    json_value(f, c->rep_thread);
    fputs("}}", f);
}

void merge_print_json(FILE *f, const struct merge *m)
{
    long *list = calloc(m->nranks + 1, sizeof(*list));
    size_t n;
    if (!list)
        return;
    fputs("{\"schema\":\"zestub-merge\",\"version\":1,\"files\":[", f);
    for (size_t i = 0; i < m->nranks; i++) {
        const struct merge_rank *r = &m->ranks[i];
        fputs(i ? ",{\"path\":" : "{\"path\":", f);
        report_json_str(f, r->path);
        if (!r->doc) {
            fputs(",\"error\":", f);
            report_json_str(f, r->error);
            fputc('}', f);
            continue;
        }
        fprintf(f, ",\"rank\":%ld,\"faulted\":%s,\"hung\":%s,\"complete\":%s,\"status\":", r->rank,
                r->faulted ? "true" : "false", r->hung ? "true" : "false",
                r->complete ? "true" : "false");
        json_value(f, jv_get(r->doc, "status"));
        fputs(",\"hang\":", f);
        json_value(f, r->hung ? r->hang : NULL);
        fputs(",\"program\":", f);
        json_value(f, jv_get(r->doc, "program"));
        fputc('}', f);
    }
    n = ranks_where(m, true, list);
    fputs("],\"faulted\":", f);
    json_ranks(f, list, n);
    n = ranks_where(m, false, list);
    fputs(",\"not_faulted\":", f);
    json_ranks(f, list, n);
    n = ranks_hung(m, list);
    fputs(",\"hung\":", f);
    json_ranks(f, list, n);
    fputs(",\"classes\":[", f);
    for (size_t k = 0; k < m->nclasses; k++) {
        if (k)
            fputc(',', f);
        json_class(f, &m->classes[k]);
    }
    fputs("]}\n", f);
    free(list);
}
