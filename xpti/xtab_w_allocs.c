/* SPDX-License-Identifier: MIT */
/* Allocations: live ones are never overwritten; freed ones are recycled
 * oldest-freed first once the area has been used up. Allocation calls are
 * slow in any runtime (microseconds), so they serialise on the writer lock. */
#include <errno.h>
#include <stdbool.h>

#include "xpti/xtab_writer.h"

static struct xtab_alloc_rec *rec_at(struct xtab_w *w, uint32_t i)
{
    return (struct xtab_alloc_rec *)(w->base + w->g.allocs.offset) + i;
}

static uint32_t addr_hash(uint64_t a)
{
    a ^= a >> 33;
    a *= UINT64_C(0xff51afd7ed558ccd);
    return (uint32_t)(a ^ (a >> 29));
}

/* The private base -> slot index: linear probing, backward-shift removal so
 * churn leaves no tombstones. At most half full (sized 2 x capacity). */
static uint32_t index_pos(struct xtab_w *w, uint64_t base, bool *found)
{
    uint32_t i = addr_hash(base) & w->alloc_index_mask;
    while (w->alloc_keys[i] && w->alloc_keys[i] != base)
        i = (i + 1) & w->alloc_index_mask;
    *found = w->alloc_keys[i] == base;
    return i;
}

static void index_remove(struct xtab_w *w, uint32_t hole)
{
    uint32_t m = w->alloc_index_mask;
    w->alloc_keys[hole] = 0;
    for (uint32_t j = (hole + 1) & m; w->alloc_keys[j]; j = (j + 1) & m) {
        uint32_t home = addr_hash(w->alloc_keys[j]) & m;
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        if (((j - home) & m) >= ((j - hole) & m)) {
            w->alloc_keys[hole] = w->alloc_keys[j];
            w->alloc_slots[hole] = w->alloc_slots[j];
            w->alloc_keys[j] = 0;
            hole = j;
        }
    }
}

static uint64_t begin_write(struct xtab_alloc_rec *r)
{
    /* Only ever written under the lock, so the claim cannot fail. */
    uint64_t seq = __atomic_load_n(&r->seq, __ATOMIC_RELAXED);
    __atomic_store_n(&r->seq, seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return seq;
}

static void end_write(struct xtab_alloc_rec *r, uint64_t seq)
{
    __atomic_store_n(&r->seq, seq + 2, __ATOMIC_RELEASE);
}

static void mark_freed(struct xtab_w *w, uint32_t slot, uint64_t uid, uint32_t site, uint64_t now)
{
    struct xtab_alloc_rec *r = rec_at(w, slot);
    uint64_t seq = begin_write(r);
    __atomic_store_n(&r->free_uid, uid, __ATOMIC_RELAXED);
    __atomic_store_n(&r->free_ns, now ? now : 1, __ATOMIC_RELAXED);
    /* free_site and state share a word with alloc_site and pad. */
    struct xtab_alloc_rec cur;
    xtab_words_load(&cur, r, sizeof(cur));
    cur.free_site = site;
    cur.state = XTAB_ALLOC_FREED;
    xtab_words_store(&r->alloc_site, &cur.alloc_site, 16);
    end_write(r, seq);
    uint32_t cap = w->g.allocs.capacity;
    w->freed[(w->freed_head + w->freed_count) % cap] = slot;
    w->freed_count++;
}

static bool take_slot(struct xtab_w *w, uint32_t *slot)
{
    struct xtab_header *h = w->h;
    uint64_t n = __atomic_load_n(&h->counters.allocs, __ATOMIC_RELAXED);
    if (n < w->g.allocs.capacity) {
        *slot = (uint32_t)n;
        __atomic_store_n(&h->counters.allocs, n + 1, __ATOMIC_RELEASE);
        return true;
    }
    if (!w->freed_count)
        return false;
    *slot = w->freed[w->freed_head];
    w->freed_head = (w->freed_head + 1) % w->g.allocs.capacity;
    w->freed_count--;
    return true;
}

int xtab_w_alloc(struct xtab_w *w, uint64_t base, uint64_t size, uint64_t guard,
                 uint64_t mem_object, uint64_t uid, uint32_t site, uint64_t now_ns)
{
    if (!base)
        return -EINVAL;
    int rc = 0;
    bool found;
    pthread_mutex_lock(&w->lock);
    uint32_t pos = index_pos(w, base, &found);
    if (found) {
        /* The runtime missed a release: the old block is gone. */
        mark_freed(w, w->alloc_slots[pos], 0, XTAB_NONE, now_ns);
        index_remove(w, pos);
    }
    uint32_t slot;
    if (!take_slot(w, &slot)) {
        __atomic_fetch_add(&w->h->counters.allocs_dropped, 1, __ATOMIC_RELAXED);
        rc = -ENOSPC;
        goto out;
    }
    struct xtab_alloc_rec rec = {.base = base,
                                 .size = size,
                                 .guard = guard,
                                 .mem_object = mem_object,
                                 .alloc_uid = uid,
                                 .alloc_ns = now_ns,
                                 .alloc_site = site,
                                 .free_site = XTAB_NONE,
                                 .state = XTAB_ALLOC_LIVE};
    struct xtab_alloc_rec *r = rec_at(w, slot);
    uint64_t seq = begin_write(r);
    xtab_words_store((uint64_t *)r + 1, (const uint64_t *)&rec + 1, sizeof(rec) - 8);
    end_write(r, seq);
    pos = index_pos(w, base, &found);
    w->alloc_keys[pos] = base;
    w->alloc_slots[pos] = slot;
out:
    pthread_mutex_unlock(&w->lock);
    return rc;
}

int xtab_w_release(struct xtab_w *w, uint64_t base, uint64_t uid, uint32_t site, uint64_t now_ns)
{
    bool found = false;
    pthread_mutex_lock(&w->lock);
    uint32_t pos = base ? index_pos(w, base, &found) : 0;
    if (found) {
        mark_freed(w, w->alloc_slots[pos], uid, site, now_ns);
        index_remove(w, pos);
    } else {
        __atomic_fetch_add(&w->h->counters.releases_unmatched, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&w->lock);
    return found ? 0 : -ENOENT;
}
