/* SPDX-License-Identifier: MIT */
/* zestub merge's grouping: every dumped thread of every rank into
 * equivalence classes (kernel, source line, stop reason, fault address
 * class), one rank at a time. A class keeps copies of what the report
 * prints (its strings, its representative thread, each rank's fault
 * address), so a rank's document can be dropped once it is grouped: memory
 * grows with the classes and the number of ranks, not with the dumps. The
 * report reads as if the ranks had been grouped in rank order, whatever
 * the order of the files. */
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"

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
        snprintf(buf, len, "%s", table ? "outside every recorded allocation" : MERGE_NO_TABLE);
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

/* v (n items of size bytes, room for *cap) with room for one more, or NULL
 * when memory ran out (v is then unchanged). */
static void *room_for_one(void *v, size_t *cap, size_t n, size_t size)
{
    size_t want = *cap ? *cap * 2 : 4;
    void *p;
    if (n < *cap)
        return v;
    p = realloc(v, want * size);
    if (p)
        *cap = want;
    return p;
}

/* A copy of s, NULL for NULL; *failed when memory ran out. */
static char *copy(const char *s, bool *failed)
{
    char *d = s ? strdup(s) : NULL;
    *failed |= s && !d;
    return d;
}

static void class_free(struct merge_class *c)
{
    for (size_t k = 0; k < c->naddresses; k++)
        free(c->addresses[k].text);
    free(c->addresses);
    free(c->ranks);
    free(c->kernel);
    free(c->file);
    free(c->function);
    free(c->reason);
    jv_free(c->rep_thread);
    jv_free(c->rep_allocation);
}

static struct merge_class *class_for(struct merge *m, const struct jv *t, const char *fclass)
{
    const char *kernel = jv_str(t, "kernel", NULL), *file = jv_str(t, "file", NULL);
    const char *reason = jv_str(t, "reason", "unknown");
    long line = (long)jv_int(t, "line", -1);
    struct merge_class *c;
    bool failed = false;
    for (size_t i = 0; i < m->nclasses; i++) {
        c = &m->classes[i];
        if (same(c->kernel, kernel) && same(c->file, file) && c->line == line &&
            !strcmp(c->reason, reason) && !strcmp(c->fault_class, fclass))
            return c;
    }
    if (m->nclasses == 0 || (m->nclasses >= 4 && !(m->nclasses & (m->nclasses - 1)))) {
        c = realloc(m->classes, (m->nclasses < 4 ? 4 : m->nclasses * 2) * sizeof(*c));
        if (!c)
            return NULL;
        m->classes = c;
    }
    c = &m->classes[m->nclasses];
    memset(c, 0, sizeof(*c));
    c->kernel = copy(kernel, &failed);
    c->file = copy(file, &failed);
    c->reason = copy(reason, &failed);
    c->line = line;
    snprintf(c->fault_class, sizeof(c->fault_class), "%s", fclass);
    if (failed) {
        class_free(c);
        return NULL;
    }
    m->nclasses++;
    return c;
}

/* One entry per file: merge_finish sorts them and drops repeats. */
static void add_rank(struct merge_class *c, long rank)
{
    long *v;
    if (c->nranks && c->ranks[c->nranks - 1] == rank)
        return;
    v = room_for_one(c->ranks, &c->ranks_cap, c->nranks, sizeof(*v));
    if (!v)
        return;
    c->ranks = v;
    v[c->nranks++] = rank;
}

static void add_address(struct merge_class *c, const struct merge_rank *r, size_t thread,
                        const struct jv *fault)
{
    char buf[64];
    struct merge_address *a;
    const char *addr = jv_str(fault, "address", NULL);
    if (!addr)
        return;
    snprintf(buf, sizeof(buf), "%ld:%s", r->rank, addr);
    /* This file's addresses are the last ones; another file of the same
     * rank is for merge_finish. */
    for (size_t i = c->naddresses; i-- > 0 && c->addresses[i].index == r->index;)
        if (!strcmp(c->addresses[i].text, buf))
            return;
    a = room_for_one(c->addresses, &c->addresses_cap, c->naddresses, sizeof(*a));
    if (!a)
        return;
    c->addresses = a;
    a = &c->addresses[c->naddresses];
    a->text = strdup(buf);
    if (!a->text)
        return;
    a->rank = r->rank;
    a->index = r->index;
    a->thread = thread;
    c->naddresses++;
}

/* Thread number k of rank r becomes c's representative when it comes
 * first in rank order: a copy of it, its function and its allocation. */
static void consider_rep(struct merge_class *c, const struct merge_rank *r, size_t k,
                         const struct jv *t, const struct jv *fault)
{
    const struct jv *alloc = jv_get(fault, "allocation");
    struct jv *thread, *allocation;
    char *function;
    bool failed = false;
    if (c->rep_thread &&
        (c->rep_rank_no < r->rank || (c->rep_rank_no == r->rank && c->rep_index <= r->index)))
        return;
    thread = jv_clone(t);
    allocation = jv_clone(alloc);
    function = copy(jv_str(t, "function", NULL), &failed);
    if (failed || !thread || (alloc && !allocation)) {
        jv_free(thread);
        jv_free(allocation);
        free(function);
        return;
    }
    jv_free(c->rep_thread);
    jv_free(c->rep_allocation);
    free(c->function);
    c->rep_thread = thread;
    c->rep_allocation = allocation;
    c->function = function;
    c->rep_rank_no = r->rank;
    c->rep_index = r->index;
    c->rep_thread_no = k;
}

void merge_add(struct merge *m, size_t i)
{
    /* What the emitters read of a rank's own document. */
    static const char *const keep[] = {"status", "program", "host", "pid", "hang", NULL};
    struct merge_rank *r = &m->ranks[i];
    const struct jv *threads = jv_get(r->doc, "threads");
    for (size_t k = 0; threads && k < threads->n; k++) {
        const struct jv *t = threads->item[k];
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
            add_address(c, r, k, f);
        consider_rep(c, r, k, t, f);
    }
    if (r->doc) {
        /* The summary is copied out and the whole document, one pool, freed:
         * the summary alone must not hold the pool. */
        struct jv *summary = jv_clone_only(r->doc, keep);
        if (summary) {
            jv_free(r->doc);
            r->doc = summary;
            r->hang = jv_get(summary, "hang");
        }
    }
}

static int order(long a, long b)
{
    return (a > b) - (a < b);
}

static int order_size(size_t a, size_t b)
{
    return (a > b) - (a < b);
}

/* Rank order: the rank, then the place on the command line. */
static int rank_cmp(const void *a, const void *b)
{
    const struct merge_rank *x = a, *y = b;
    return x->rank != y->rank ? order(x->rank, y->rank) : order_size(x->index, y->index);
}

static int long_cmp(const void *a, const void *b)
{
    return order(*(const long *)a, *(const long *)b);
}

static int address_cmp(const void *a, const void *b)
{
    const struct merge_address *x = a, *y = b;
    if (x->rank != y->rank)
        return order(x->rank, y->rank);
    return x->index != y->index ? order_size(x->index, y->index) : order_size(x->thread, y->thread);
}

/* Most threads first: the job's main problem leads the report; then the
 * class met first in rank order. */
static int class_cmp(const void *a, const void *b)
{
    const struct merge_class *x = a, *y = b;
    if (x->threads != y->threads)
        return x->threads < y->threads ? 1 : -1;
    if (x->rep_rank_no != y->rep_rank_no)
        return order(x->rep_rank_no, y->rep_rank_no);
    return x->rep_index != y->rep_index ? order_size(x->rep_index, y->rep_index)
                                        : order_size(x->rep_thread_no, y->rep_thread_no);
}

/* The class's ranks sorted and unique, its addresses in rank order with
 * one entry per rank and address. */
static void finish_class(struct merge_class *c)
{
    size_t n = 0, run = 0;
    /* qsort and bsearch must not be given a NULL array, even an empty
     * one (a class of a dump without fault addresses has none). */
    if (c->nranks)
        qsort(c->ranks, c->nranks, sizeof(*c->ranks), long_cmp);
    for (size_t i = 0; i < c->nranks; i++)
        if (n == 0 || c->ranks[n - 1] != c->ranks[i])
            c->ranks[n++] = c->ranks[i];
    c->nranks = n;
    if (c->naddresses)
        qsort(c->addresses, c->naddresses, sizeof(*c->addresses), address_cmp);
    n = 0;
    for (size_t i = 0; i < c->naddresses; i++) {
        bool seen = false;
        if (n > 0 && c->addresses[n - 1].rank != c->addresses[i].rank)
            run = n; /* the kept addresses of this rank start here */
        for (size_t k = run; k < n && !seen; k++)
            seen = !strcmp(c->addresses[k].text, c->addresses[i].text);
        if (seen)
            free(c->addresses[i].text);
        else
            c->addresses[n++] = c->addresses[i];
    }
    c->naddresses = n;
}

void merge_finish(struct merge *m)
{
    if (m->nranks)
        qsort(m->ranks, m->nranks, sizeof(*m->ranks), rank_cmp);
    for (size_t i = 0; i < m->nclasses; i++) {
        struct merge_class *c = &m->classes[i];
        struct merge_rank key;
        finish_class(c);
        key.rank = c->rep_rank_no;
        key.index = c->rep_index;
        c->rep_rank =
            m->nranks ? bsearch(&key, m->ranks, m->nranks, sizeof(*m->ranks), rank_cmp) : NULL;
    }
    if (m->nclasses)
        qsort(m->classes, m->nclasses, sizeof(*m->classes), class_cmp);
}

void merge_group(struct merge *m)
{
    for (size_t i = 0; i < m->nranks; i++)
        merge_add(m, i);
    merge_finish(m);
}

void merge_free(struct merge *m)
{
    for (size_t i = 0; i < m->nclasses; i++)
        class_free(&m->classes[i]);
    for (size_t i = 0; i < m->nranks; i++)
        jv_free(m->ranks[i].doc);
    free(m->classes);
    free(m->ranks);
}
