/* SPDX-License-Identifier: MIT */
#include "sessions/sess_xpti.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Answers per (session, kernel): every thread of one kernel on one device
 * gets the same answer, and a stop can have thousands of threads. */
struct cached {
    struct cached *next;
    unsigned session;
    char *kernel;
    struct sess_xpti_submission *sub; /* NULL: the table knows no site */
};

struct sess_xpti {
    struct xtab *t;
    struct cached *cache;
};

struct sess_xpti *sess_xpti_open(uint32_t pid, char *note, size_t notelen)
{
    char err[256];
    struct sess_xpti *x = calloc(1, sizeof(*x));
    if (!x) {
        snprintf(note, notelen, "XPTI table not read: out of memory");
        return NULL;
    }
    x->t = xtab_open((pid_t)pid, err, sizeof(err));
    if (!x->t) {
        free(x);
        snprintf(note, notelen, "%.200s: no submission sites or allocations", err);
        return NULL;
    }
    if (notelen)
        note[0] = 0;
    return x;
}

static void drop_cache(struct sess_xpti *x)
{
    while (x->cache) {
        struct cached *c = x->cache;
        x->cache = c->next;
        free(c->kernel);
        free(c->sub);
        free(c);
    }
}

void sess_xpti_close(struct sess_xpti *x)
{
    if (!x)
        return;
    drop_cache(x);
    xtab_close(x->t);
    free(x);
}

void sess_xpti_new_stop(struct sess_xpti *x)
{
    if (!x)
        return;
    drop_cache(x);
    /* A table that went bad stays open and answers nothing; the reader
     * counts it, so the result needs no handling here. */
    (void)xtab_refresh(x->t, NULL, 0);
}

size_t sess_xpti_count(struct sess_xpti *x, enum xtab_kind kind)
{
    return x ? xtab_count(x->t, kind) : 0;
}

int sess_xpti_site_at(struct sess_xpti *x, size_t i, struct xtab_site *out)
{
    return xtab_site_at(x->t, i, out);
}

int sess_xpti_task_at(struct sess_xpti *x, size_t i, struct xtab_task *out)
{
    return xtab_task_at(x->t, i, out);
}

int sess_xpti_alloc_at(struct sess_xpti *x, size_t i, struct xtab_alloc *out)
{
    return xtab_alloc_at(x->t, i, out);
}

int sess_xpti_site_of(struct sess_xpti *x, uint32_t index, struct xtab_site *out)
{
    if (!x || index == UINT32_MAX)
        return -ENOENT;
    return xtab_site_at(x->t, index, out) == 0 ? 0 : -ENOENT;
}

int sess_xpti_kernel_sites(struct sess_xpti *x, const char *name, struct xtab_site *sites,
                           size_t max)
{
    int n = x ? xtab_find_kernel(x->t, name, sites, max, NULL, NULL) : 0;
    return n > 0 ? n : 0;
}

int sess_xpti_site_of_uid(struct sess_xpti *x, uint64_t uid, struct xtab_site *out)
{
    return x && xtab_find_uid(x->t, uid, out) == 0 ? 0 : -ENOENT;
}

bool sess_xpti_task_running(const struct xtab_task *t, uint64_t at_ns)
{
    if (t->begin_ns == 0)
        return false;
    if (at_ns == 0)
        return t->end_ns == 0;
    return t->begin_ns <= at_ns && (t->end_ns == 0 || t->end_ns > at_ns);
}

bool sess_xpti_alloc_live(const struct xtab_alloc *a)
{
    return a->live && a->size != 0 && a->base + a->size >= a->base;
}

int sess_xpti_oldest_running(struct sess_xpti *x, struct xtab_task *oldest, unsigned *in_flight,
                             unsigned *unreadable)
{
    size_t n = sess_xpti_count(x, XTAB_TASKS);
    struct xtab_task task;
    *in_flight = *unreadable = 0;
    for (size_t i = 0; i < n; i++) {
        if (xtab_task_at(x->t, i, &task) != 0) {
            (*unreadable)++;
            continue;
        }
        if (!sess_xpti_task_running(&task, 0))
            continue;
        if (!(*in_flight)++ || task.begin_ns < oldest->begin_ns)
            *oldest = task;
    }
    return *in_flight ? 0 : -ENOENT;
}

void sess_xpti_stats(struct sess_xpti *x, struct xtab_stats *out)
{
    xtab_stats(x->t, out);
}

/* A site's device string names a device other than this session's, and
 * that other device is attached: its tasks cannot be on this device. Any
 * other string (empty, an opaque runtime id, the same name as ours) tells
 * nothing, so the site is kept. */
static bool names_other_device(struct sess_manager *m, unsigned session, const char *dev)
{
    if (!dev[0] || !strcmp(dev, sess_device(m, session)->name))
        return false;
    for (unsigned k = 0; k < sess_count(m); k++)
        if (!strcmp(sess_device(m, k)->name, dev))
            return true;
    return false;
}

/* Device names are recorded once per site (the first submission), so a
 * filter that leaves nothing is more likely wrong than the device: then no
 * site is dropped. */
static void filter_sites(struct sess_xpti_submission *s, struct sess_manager *m, unsigned session)
{
    size_t keep = 0;
    for (size_t i = 0; i < s->nsites; i++)
        keep += !names_other_device(m, session, s->sites[i].device);
    if (keep == 0 || keep == s->nsites)
        return;
    size_t j = 0;
    for (size_t i = 0; i < s->nsites; i++)
        if (!names_other_device(m, session, s->sites[i].device))
            s->sites[j++] = s->sites[i];
    s->other_device_sites = s->nsites - j;
    s->nsites = j;
}

/* Keeps the latest tasks (highest ticket) first. */
static void add_candidate(struct sess_xpti_submission *s, const struct xtab_site *site,
                          const struct xtab_task *task)
{
    size_t pos = s->ncand;
    s->total++;
    while (pos > 0 && s->cand[pos - 1].task.ticket < task->ticket)
        pos--;
    if (pos >= SESS_XPTI_MAX_CANDIDATES)
        return;
    size_t last = s->ncand < SESS_XPTI_MAX_CANDIDATES ? s->ncand : SESS_XPTI_MAX_CANDIDATES - 1;
    memmove(&s->cand[pos + 1], &s->cand[pos], (last - pos) * sizeof(s->cand[0]));
    s->cand[pos] = (struct sess_xpti_candidate){.site = site, .has_task = true, .task = *task};
    if (s->ncand < SESS_XPTI_MAX_CANDIDATES)
        s->ncand++;
}

static struct sess_xpti_submission *compute(struct sess_xpti *x, struct sess_manager *m,
                                            unsigned session, const char *kernel, uint64_t stop_ns)
{
    struct sess_xpti_submission *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    int n = xtab_find_kernel(x->t, kernel, s->sites, SESS_XPTI_MAX_SITES, NULL, NULL);
    if (n <= 0) {
        free(s);
        return NULL;
    }
    s->nsites = (size_t)n < SESS_XPTI_MAX_SITES ? (size_t)n : SESS_XPTI_MAX_SITES;
    filter_sites(s, m, session);
    size_t ntasks = xtab_count(x->t, XTAB_TASKS);
    for (size_t i = 0; i < ntasks; i++) {
        struct xtab_task task;
        if (xtab_task_at(x->t, i, &task) || !sess_xpti_task_running(&task, stop_ns))
            continue;
        for (size_t j = 0; j < s->nsites; j++)
            if (s->sites[j].index == task.site) {
                add_candidate(s, &s->sites[j], &task);
                break;
            }
    }
    if (s->total == 0) {
        s->how = SESS_XPTI_SITE_ONLY;
        s->total = s->nsites;
        for (size_t j = 0; j < s->nsites && s->ncand < SESS_XPTI_MAX_CANDIDATES; j++)
            s->cand[s->ncand++] = (struct sess_xpti_candidate){.site = &s->sites[j]};
    } else {
        s->how = s->total == 1 ? SESS_XPTI_UNIQUE : SESS_XPTI_AMBIGUOUS;
    }
    return s;
}

const struct sess_xpti_submission *sess_xpti_submission(struct sess_xpti *x, struct sess_manager *m,
                                                        unsigned session, const char *kernel,
                                                        uint64_t stop_ns)
{
    if (!x || !kernel)
        return NULL;
    for (struct cached *c = x->cache; c; c = c->next)
        if (c->session == session && !strcmp(c->kernel, kernel))
            return c->sub;
    struct cached *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->kernel = strdup(kernel);
    if (!c->kernel) {
        free(c);
        return NULL;
    }
    c->session = session;
    c->sub = compute(x, m, session, kernel, stop_ns);
    c->next = x->cache;
    x->cache = c;
    return c->sub;
}

int sess_xpti_allocation(struct sess_xpti *x, uint64_t addr, struct sess_xpti_alloc *out)
{
    memset(out, 0, sizeof(*out));
    if (!x || xtab_find_alloc(x->t, addr, &out->a) != 0)
        return -ENOENT;
    out->has_alloc_site = out->a.alloc_site != UINT32_MAX &&
                          xtab_site_at(x->t, out->a.alloc_site, &out->alloc_site) == 0;
    out->has_free_site = !out->a.live && out->a.free_site != UINT32_MAX &&
                         xtab_site_at(x->t, out->a.free_site, &out->free_site) == 0;
    return 0;
}
