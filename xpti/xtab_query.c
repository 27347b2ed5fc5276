/* SPDX-License-Identifier: MIT */
/* The questions zestub asks: kernel -> sites and latest task, address ->
 * allocation, id -> site. Linear scans over the copied records: tables hold
 * thousands of records and a debugger asks when a thread stops. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xpti/xtab_int.h"

/* Is `cand` a better answer than `best` for "latest task": running beats
 * ended, then the later ticket wins. */
static int later(const struct xtab_task *cand, const struct xtab_task *best)
{
    int cr = cand->end_ns == 0, br = best->end_ns == 0;
    return cr != br ? cr > br : cand->ticket > best->ticket;
}

int xtab_find_kernel(struct xtab *t, const char *name, struct xtab_site *sites, size_t max,
                     struct xtab_task *latest, int *have_latest)
{
    if (!t || !name || (max && !sites))
        return -EINVAL;
    if (have_latest)
        *have_latest = 0;
    size_t nsites = xtab_count(t, XTAB_SITES);
    unsigned char *match = calloc(nsites + 1, 1);
    struct xtab_site *s = malloc(sizeof(*s));
    if (!match || !s) {
        free(match);
        free(s);
        return -ENOMEM;
    }
    int found = 0;
    for (size_t i = 0; i < nsites; i++) {
        if (xtab_site_at(t, i, s) || strcmp(s->kernel, name) != 0)
            continue;
        match[i] = 1;
        if ((size_t)found < max)
            sites[found] = *s;
        found++;
    }
    free(s);
    if (found && latest && have_latest) {
        size_t ntasks = xtab_count(t, XTAB_TASKS);
        struct xtab_task task;
        for (size_t i = 0; i < ntasks; i++) {
            if (xtab_task_at(t, i, &task) || task.site >= nsites || !match[task.site])
                continue;
            if (!*have_latest || later(&task, latest)) {
                *latest = task;
                *have_latest = 1;
            }
        }
    }
    free(match);
    return found;
}

/* addr in [base, base + size + guard), without overflowing. */
static int contains(const struct xtab_alloc *a, uint64_t addr, int *in_guard)
{
    if (addr < a->base)
        return 0;
    uint64_t off = addr - a->base;
    if (off < a->size) {
        *in_guard = 0;
        return 1;
    }
    if (off - a->size < a->guard) {
        *in_guard = 1;
        return 1;
    }
    return 0;
}

int xtab_find_alloc(struct xtab *t, uint64_t addr, struct xtab_alloc *out)
{
    size_t n = xtab_count(t, XTAB_ALLOCS);
    struct xtab_alloc a;
    int have = 0, guard;
    for (size_t i = 0; i < n; i++) {
        if (xtab_alloc_at(t, i, &a) || !contains(&a, addr, &guard))
            continue;
        /* Live wins; among freed blocks the latest release is the likelier culprit. */
        if (!have || (a.live && !out->live) ||
            (a.live == out->live && !a.live && a.free_ns > out->free_ns)) {
            *out = a;
            out->in_guard = guard;
            have = 1;
        }
    }
    return have ? 0 : -ENOENT;
}

int xtab_find_uid(struct xtab *t, uint64_t uid, struct xtab_site *out)
{
    if (uid == 0) /* XPTI's invalid id; records use it for "none" */
        return -ENOENT;
    size_t n = xtab_count(t, XTAB_SITES);
    for (size_t i = 0; i < n; i++)
        if (xtab_site_at(t, i, out) == 0 && out->uid == uid)
            return 0;
    n = xtab_count(t, XTAB_TASKS);
    struct xtab_task task;
    for (size_t i = 0; i < n; i++)
        if (xtab_task_at(t, i, &task) == 0 && task.uid == uid && task.site != XTAB_NONE)
            return xtab_site_at(t, task.site, out) == 0 ? 0 : -ENOENT;
    n = xtab_count(t, XTAB_ALLOCS);
    struct xtab_alloc a;
    for (size_t i = 0; i < n; i++) {
        if (xtab_alloc_at(t, i, &a))
            continue;
        uint32_t site = a.alloc_uid == uid  ? a.alloc_site
                        : a.free_uid == uid ? a.free_site
                                            : XTAB_NONE;
        if (site != XTAB_NONE && xtab_site_at(t, site, out) == 0)
            return 0;
    }
    return -ENOENT;
}
