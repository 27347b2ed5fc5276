/* SPDX-License-Identifier: MIT */
#include "report/dump_classes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "regsets/regs.h"
#include "report/safe_text.h"

/* A run of threads with consecutive positions in one session's table
 * (positions follow the hardware order, so a run is every thread between
 * its two ends). */
struct run {
    unsigned session;
    uint32_t first, last;
    struct zd_thread first_id, last_id;
};

struct class
{
    bool own_reason; /* stopped for a reason of its own, not by an interrupt */
    char *key;
    char *title; /* "page-fault in oob (oob.cl:7)" */
    unsigned device;
    uint64_t count;
    struct run *runs;
    size_t nruns, cap_runs;
    char *record; /* the representative's, in full */
    size_t order; /* first seen */
};

struct dump_classes {
    struct class *classes;
    size_t n, cap;
    /* Open addressing over classes by key: index + 1, 0 empty. */
    size_t *slots;
    size_t nslots;
    size_t last; /* the class of the last dump_classes_add */
};

/* Only this many runs are listed per class; the rest are counted. */
#define RUNS_SHOWN 24

struct dump_classes *dump_classes_new(void)
{
    return calloc(1, sizeof(struct dump_classes));
}

void dump_classes_free(struct dump_classes *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->classes[i].key);
        free(c->classes[i].title);
        free(c->classes[i].runs);
        free(c->classes[i].record);
    }
    free(c->classes);
    free(c->slots);
    free(c);
}

size_t dump_classes_count(const struct dump_classes *c)
{
    return c ? c->n : 0;
}

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The class's key and its title: the place, by source line when known. */
static int describe(const struct dump_thread *t, unsigned device, char **key, char **title)
{
    const struct sym_location *l = &t->loc;
    const char *reason = isa_stop_reason_name(t->reason);
    char *k = NULL, *ti = NULL;
    int rc;
    if (t->has_location && l->has_line) {
        const char *fn = l->function ? l->function : l->kernel;
        rc = asprintf(&k, "%u|%u|%s|%s|%s|%u", device, t->session, reason, fn, l->file, l->line);
        if (rc >= 0)
            rc = asprintf(&ti, "%s in %s (%s:%u)", reason, fn, l->file, l->line);
    } else if (t->has_pc) {
        rc = asprintf(&k, "%u|%u|%s|pc=%" PRIx64, device, t->session, reason, t->pc);
        if (rc >= 0)
            rc = t->has_location ? asprintf(&ti, "%s at pc 0x%" PRIx64 " in %s", reason, t->pc,
                                            l->function ? l->function : l->kernel)
                                 : asprintf(&ti, "%s at pc 0x%" PRIx64, reason, t->pc);
    } else {
        rc = asprintf(&k, "%u|%u|%s|nopc", device, t->session, reason);
        if (rc >= 0)
            rc = asprintf(&ti, "%s, pc unknown", reason);
    }
    if (rc < 0) {
        free(k);
        return -1;
    }
    *key = k;
    *title = ti;
    return 0;
}

static int grow_slots(struct dump_classes *c)
{
    size_t n = c->nslots ? c->nslots * 2 : 64;
    size_t *s = calloc(n, sizeof(*s));
    if (!s)
        return -1;
    for (size_t i = 0; i < c->n; i++) {
        size_t h = (size_t)hash(c->classes[i].key) & (n - 1);
        while (s[h])
            h = (h + 1) & (n - 1);
        s[h] = i + 1;
    }
    free(c->slots);
    c->slots = s;
    c->nslots = n;
    return 0;
}

static void add_run(struct class *k, const struct dump_thread *t, uint32_t index)
{
    struct run *r = k->nruns ? &k->runs[k->nruns - 1] : NULL;
    if (r && r->session == t->session && r->last + 1 == index) {
        r->last = index;
        r->last_id = t->id;
        return;
    }
    if (k->nruns == k->cap_runs) {
        size_t cap = k->cap_runs ? k->cap_runs * 2 : 4;
        struct run *nr = realloc(k->runs, cap * sizeof(*nr));
        if (!nr)
            return; /* the thread is still counted */
        k->runs = nr;
        k->cap_runs = cap;
    }
    k->runs[k->nruns++] = (struct run){t->session, index, index, t->id, t->id};
}

bool dump_classes_add(struct dump_classes *c, const struct dump_thread *t, unsigned device,
                      uint32_t index)
{
    char *key, *title;
    size_t h;
    struct class *k;
    if (describe(t, device, &key, &title) != 0)
        return false;
    if ((c->n + 1) * 2 > c->nslots && grow_slots(c) != 0) {
        free(key);
        free(title);
        return false;
    }
    for (h = (size_t)hash(key) & (c->nslots - 1); c->slots[h]; h = (h + 1) & (c->nslots - 1)) {
        k = &c->classes[c->slots[h] - 1];
        if (strcmp(k->key, key) == 0) {
            free(key);
            free(title);
            k->count++;
            add_run(k, t, index);
            c->last = c->slots[h] - 1;
            return false;
        }
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        struct class *nc = realloc(c->classes, cap * sizeof(*nc));
        if (!nc) {
            free(key);
            free(title);
            return false;
        }
        c->classes = nc;
        c->cap = cap;
    }
    k = &c->classes[c->n];
    memset(k, 0, sizeof(*k));
    k->key = key;
    k->title = title;
    k->device = device;
    k->own_reason = isa_stop_is_own(t->reason);
    k->count = 1;
    k->order = c->n;
    add_run(k, t, index);
    c->slots[h] = ++c->n;
    c->last = c->n - 1;
    return true;
}

void dump_classes_set_record(struct dump_classes *c, char *text)
{
    if (!c->n) {
        free(text);
        return;
    }
    free(c->classes[c->last].record);
    c->classes[c->last].record = text;
}

/* Threads that stopped for a reason of their own (a fault, a breakpoint)
 * first: they say why the dump was taken; the threads the dump interrupted
 * after them. Then largest first. */
static int by_size(const void *a, const void *b)
{
    const struct class *x = a, *y = b;
    if (x->own_reason != y->own_reason)
        return x->own_reason ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static void print_id(FILE *f, const struct zd_thread *id)
{
    fprintf(f, "%u.%u.%u.%u", id->slice, id->subslice, id->eu, id->thread);
}

void dump_classes_print(struct dump_classes *c, FILE *f)
{
    if (!c || !c->n)
        return;
    qsort(c->classes, c->n, sizeof(*c->classes), by_size);
    free(c->slots); /* the order changed: the index is no longer valid */
    c->slots = NULL;
    c->nslots = 0;
    fprintf(f,
            "stopped threads by where they stopped: %zu class%s (--all-threads: one line per "
            "thread)\n",
            c->n, c->n == 1 ? "" : "es");
    for (size_t i = 0; i < c->n; i++) {
        const struct class *k = &c->classes[i];
        uint64_t listed = 0;
        fprintf(f, "class %zu: %" PRIu64 " thread%s on device %u: ", i + 1, k->count,
                k->count == 1 ? "" : "s", k->device);
        report_put_safe(f, k->title); /* holds the kernel's function and file names */
        fputc('\n', f);
        fputs("  threads ", f);
        for (size_t r = 0; r < k->nruns && r < RUNS_SHOWN; r++) {
            const struct run *run = &k->runs[r];
            fputs(r ? ", " : "", f);
            print_id(f, &run->first_id);
            if (run->last != run->first) {
                fputc('-', f);
                print_id(f, &run->last_id);
            }
            listed += run->last - run->first + 1;
        }
        if (k->count > listed)
            fprintf(f, "%s... and %" PRIu64 " more", k->nruns ? ", " : "", k->count - listed);
        fputc('\n', f);
        if (k->record) {
            fputs("  representative:\n", f);
            fputs(k->record, f);
        }
    }
    for (size_t i = 0; i < c->n; i++) {
        free(c->classes[i].key);
        free(c->classes[i].title);
        free(c->classes[i].runs);
        free(c->classes[i].record);
    }
    c->n = 0;
}
