/* SPDX-License-Identifier: MIT */
/* zestub merge's reading: the per-rank dumps of a job (zestub dump --json
 * 'dump-%r.json' under mpirun or srun), each rank's state (faulted, hung,
 * complete), and every dumped thread grouped into equivalence classes
 * (kernel, source line, stop reason, fault address class). */
#include "merge/merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file as a C string, or NULL with err saying why: it cannot be
 * opened or read (a directory: "Is a directory"), memory ran out, it is
 * empty, or it holds a NUL byte, which no JSON text does (what a crash
 * leaves in a file's last blocks) and which would end the text early. */
static char *slurp(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    const char *nul;
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    for (;;) {
        size_t got;
        if (cap - n < 65536) {
            char *b = realloc(buf, cap + 65536 + 1);
            if (!b) {
                snprintf(err, errlen, "out of memory after reading %zu bytes", n);
                break;
            }
            buf = b;
            cap += 65536;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f) && !err[0])
        snprintf(err, errlen, "%s", strerror(errno));
    fclose(f);
    if (!err[0] && n == 0)
        snprintf(err, errlen, "an empty file (a dump stopped before it wrote anything?)");
    if (!err[0] && (nul = memchr(buf, '\0', n)) != NULL)
        snprintf(err, errlen, "a NUL byte at offset %zu: not a JSON text", (size_t)(nul - buf));
    if (err[0]) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* FILE.partial is what `zestub dump` leaves when it is killed before its
 * record is whole (a job launcher's SIGKILL): say so, and take the rank
 * from its header, written first, so that the report names the rank. */
static void explain_partial(struct merge_rank *r, const char *text)
{
    static const char suffix[] = ".partial";
    size_t n = strlen(r->path), k = sizeof(suffix) - 1;
    const char *at = strstr(text, "\"rank\":");
    if (n < k || strcmp(r->path + n - k, suffix) != 0)
        return;
    snprintf(r->error, sizeof(r->error),
             "an incomplete record: zestub dump was stopped before it finished it "
             "(killed by the job launcher?)");
    if (at) {
        char *end;
        long rank = strtol(at + 7, &end, 10);
        if (end != at + 7 && rank >= 0)
            r->rank = rank;
    }
}

void merge_read_text(struct merge_rank *r, const char *text, size_t index)
{
    const struct jv *threads, *faults, *program;
    r->rank = (long)index;
    r->doc = jv_parse(text, r->error, sizeof(r->error));
    if (!r->doc)
        explain_partial(r, text);
    if (r->doc && strcmp(jv_str(r->doc, "schema", ""), "zestub-dump") != 0) {
        snprintf(r->error, sizeof(r->error), "not a zestub dump (no \"schema\":\"zestub-dump\")");
        jv_free(r->doc);
        r->doc = NULL;
    }
    if (!r->doc)
        return;
    /* No rank (a dump made without a launcher): its place on the command
     * line stands in. */
    r->rank = jv_is(r->doc, "rank", JV_NUMBER) ? (long)jv_int(r->doc, "rank", 0) : (long)index;
    threads = jv_get(r->doc, "threads");
    faults = jv_get(r->doc, "page_faults");
    program = jv_get(r->doc, "program");
    r->complete = jv_is(r->doc, "complete", JV_BOOL) && jv_get(r->doc, "complete")->b;
    r->dumped = threads && threads->n > 0;
    if (jv_is(program, "dumped", JV_BOOL))
        r->dumped = jv_get(program, "dumped")->b;
    r->faulted = faults && faults->n > 0;
    for (size_t i = 0; threads && i < threads->n; i++)
        r->faulted |= !strcmp(jv_str(threads->item[i], "reason", ""), "page-fault");
    r->hang = jv_get(r->doc, "hang");
    r->hung = jv_is(r->doc, "hang", JV_OBJECT);
}

void merge_load(struct merge_rank *r, const char *path, size_t index)
{
    char *text;
    r->path = path;
    text = slurp(r->path, r->error, sizeof(r->error));
    r->rank = (long)index;
    if (!text)
        return;
    merge_read_text(r, text, index);
    free(text);
}

const struct jv *merge_fault_of(const struct jv *doc, const struct jv *t)
{
    const struct jv *faults = jv_get(doc, "page_faults");
    const char *id = jv_str(t, "thread", "");
    long long session = jv_int(t, "session", -1);
    for (size_t i = 0; faults && i < faults->n; i++) {
        const struct jv *f = faults->item[i], *ths = jv_get(f, "threads");
        if (jv_int(f, "session", -2) != session)
            continue;
        for (size_t k = 0; ths && k < ths->n; k++)
            if (ths->item[k]->type == JV_STRING && !strcmp(ths->item[k]->str, id))
                return f;
    }
    return NULL;
}

/* What kind of address the thread faulted on: the same bug hits different
 * addresses in different processes, so the class is the allocation's
 * state and where it was allocated, never the address. */
static void fault_class(const struct jv *doc, const struct jv *fault, char *buf, size_t len)
{
    const struct jv *a = jv_get(fault, "allocation"), *site, *x = jv_get(doc, "xpti");
    bool table = jv_is(x, "table", JV_BOOL) && jv_get(x, "table")->b;
    if (!fault) {
        snprintf(buf, len, "none");
        return;
    }
    if (!a || a->type != JV_OBJECT) {
        snprintf(buf, len, "%s",
                 table ? "outside every recorded allocation" : "unknown (no XPTI table)");
        return;
    }
    site = jv_get(a, "allocated_at");
    snprintf(buf, len, "%s allocation%s", jv_str(a, "state", "unknown"),
             jv_is(a, "in_guard", JV_BOOL) && jv_get(a, "in_guard")->b ? " (guard zone)" : "");
    if (site && jv_str(site, "file", NULL))
        snprintf(buf + strlen(buf), len - strlen(buf), " from %s:%lld", jv_str(site, "file", ""),
                 jv_int(site, "line", 0));
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static struct merge_class *class_for(struct merge *m, const struct jv *t, const char *fclass)
{
    const char *kernel = jv_str(t, "kernel", NULL), *file = jv_str(t, "file", NULL);
    const char *reason = jv_str(t, "reason", "unknown");
    long line = (long)jv_int(t, "line", -1);
    struct merge_class *c;
    for (size_t i = 0; i < m->nclasses; i++) {
        c = &m->classes[i];
        if (same(c->kernel, kernel) && same(c->file, file) && c->line == line &&
            !strcmp(c->reason, reason) && !strcmp(c->fault_class, fclass))
            return c;
    }
    c = realloc(m->classes, (m->nclasses + 1) * sizeof(*c));
    if (!c)
        return NULL;
    m->classes = c;
    c = &m->classes[m->nclasses++];
    memset(c, 0, sizeof(*c));
    c->kernel = kernel;
    c->file = file;
    c->function = jv_str(t, "function", NULL);
    c->line = line;
    c->reason = reason;
    snprintf(c->fault_class, sizeof(c->fault_class), "%s", fclass);
    return c;
}

static void add_rank(struct merge_class *c, long rank)
{
    size_t i = 0;
    long *v;
    while (i < c->nranks && c->ranks[i] < rank)
        i++;
    if (i < c->nranks && c->ranks[i] == rank)
        return;
    v = realloc(c->ranks, (c->nranks + 1) * sizeof(*v));
    if (!v)
        return;
    c->ranks = v;
    memmove(v + i + 1, v + i, (c->nranks - i) * sizeof(*v));
    v[i] = rank;
    c->nranks++;
}

static void add_address(struct merge_class *c, long rank, const struct jv *fault)
{
    char buf[64], **a;
    const char *addr = jv_str(fault, "address", NULL);
    if (!addr)
        return;
    snprintf(buf, sizeof(buf), "%ld:%s", rank, addr);
    for (size_t i = 0; i < c->naddresses; i++)
        if (!strcmp(c->addresses[i], buf))
            return;
    a = realloc(c->addresses, (c->naddresses + 1) * sizeof(*a));
    if (!a)
        return;
    c->addresses = a;
    a[c->naddresses++] = strdup(buf);
}

static void classify(struct merge *m, const struct merge_rank *r)
{
    const struct jv *threads = jv_get(r->doc, "threads");
    for (size_t i = 0; threads && i < threads->n; i++) {
        const struct jv *t = threads->item[i];
        const struct jv *f = merge_fault_of(r->doc, t);
        char fc[160];
        struct merge_class *c;
        fault_class(r->doc, f, fc, sizeof(fc));
        c = class_for(m, t, fc);
        if (!c)
            continue;
        add_rank(c, r->rank);
        c->threads++;
        if (f)
            add_address(c, r->rank, f);
        if (!c->rep_thread || r->rank < c->rep_rank->rank) {
            c->rep_rank = r;
            c->rep_thread = t;
            c->rep_fault = f;
        }
    }
}

static int rank_cmp(const void *a, const void *b)
{
    const struct merge_rank *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Most threads first: the job's main problem leads the report. */
static int class_cmp(const void *a, const void *b)
{
    const struct merge_class *x = a, *y = b;
    if (x->threads != y->threads)
        return x->threads < y->threads ? 1 : -1;
    return (x->ranks[0] > y->ranks[0]) - (x->ranks[0] < y->ranks[0]);
}

void merge_free(struct merge *m)
{
    for (size_t i = 0; i < m->nclasses; i++) {
        for (size_t k = 0; k < m->classes[i].naddresses; k++)
            free(m->classes[i].addresses[k]);
        free(m->classes[i].addresses);
        free(m->classes[i].ranks);
    }
    for (size_t i = 0; i < m->nranks; i++)
        jv_free(m->ranks[i].doc);
    free(m->classes);
    free(m->ranks);
}

void merge_group(struct merge *m)
{
    qsort(m->ranks, m->nranks, sizeof(*m->ranks), rank_cmp);
    for (size_t i = 0; i < m->nranks; i++)
        if (m->ranks[i].doc)
            classify(m, &m->ranks[i]);
    if (m->nclasses)
        qsort(m->classes, m->nclasses, sizeof(*m->classes), class_cmp);
}
