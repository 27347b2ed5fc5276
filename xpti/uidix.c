/* SPDX-License-Identifier: MIT */
#include "xpti/uidix.h"

#include <errno.h>
#include <stdlib.h>

#include "xpti/arena.h"

/* Empty slots are 0, so arena memory (zeroed) needs no initialising pass. */
static struct uidix_table *table_new(struct uidix *ix, struct arena *mem, unsigned bits)
{
    size_t n = (size_t)1 << bits, bytes = sizeof(struct uidix_table) + n * sizeof(uint64_t);
    struct uidix_table *t =
        mem ? arena_alloc_zeroed_shared(mem, ix->mem_lock, bytes) : malloc(bytes);
    if (!t)
        return NULL;
    t->bits = bits;
    t->older = NULL;
    if (!mem)
        for (size_t i = 0; i < n; i++)
            atomic_init(&t->slot[i], 0);
    return t;
}

static void table_free(struct uidix *ix, struct uidix_table *t)
{
    if (!ix->mem)
        free(t);
}

int uidix_init_in(struct uidix *ix, unsigned initial_bits, struct arena *mem)
{
    ix->mem = mem;
    ix->mem_lock = NULL;
    struct uidix_table *t = table_new(ix, mem, initial_bits);
    if (!t)
        return -ENOMEM;
    atomic_init(&ix->table, t);
    ix->count = 0;
    ix->retired = NULL;
    return 0;
}

int uidix_init(struct uidix *ix, unsigned initial_bits)
{
    return uidix_init_in(ix, initial_bits, NULL);
}

static void free_retired(struct uidix *ix)
{
    while (ix->retired) {
        struct uidix_table *t = ix->retired;
        ix->retired = t->older;
        table_free(ix, t);
    }
}

void uidix_destroy(struct uidix *ix)
{
    table_free(ix, atomic_load_explicit(&ix->table, memory_order_relaxed));
    atomic_store_explicit(&ix->table, NULL, memory_order_relaxed);
    free_retired(ix);
    ix->count = 0;
}

int uidix_clear(struct uidix *ix, unsigned initial_bits)
{
    struct uidix_table *t = atomic_load_explicit(&ix->table, memory_order_relaxed);
    if (!t || t->bits < initial_bits) {
        pthread_mutex_t *mem_lock = ix->mem_lock;
        uidix_destroy(ix);
        int rc = uidix_init_in(ix, initial_bits, ix->mem);
        ix->mem_lock = mem_lock;
        return rc;
    }
    /* Kept at its grown size: the same workload after an xptiReset refills
     * it without growing, in memory already faulted in. */
    free_retired(ix);
    for (size_t i = 0, n = (size_t)1 << t->bits; i < n; i++)
        atomic_store_explicit(&t->slot[i], 0, memory_order_relaxed);
    ix->count = 0;
    return 0;
}

/* How far the entry at slot i sits from its home slot. */
static size_t dist(uint64_t e, size_t i, unsigned bits)
{
    return (i - uidix_home((uint32_t)(e >> 32), bits)) & (((size_t)1 << bits) - 1);
}

/* Writer only: Robin Hood insertion from slot i, where the entry would sit
 * d slots from its home: it takes the first slot that is empty or whose
 * entry sits nearer its own home, and that entry moves on the same way.
 * Every entry then sits about as far from home as every other, so the
 * newest (the ones a tracer looks up most) are not left at the ends of
 * long runs. An entry in transit is briefly in no slot: a lock-free reader
 * may miss it and retries under the lock. */
/* Inline: on every new instance's path, where a call would save registers. */
static inline __attribute__((always_inline)) void place_from(struct uidix_table *t, uint64_t entry,
                                                             size_t i, size_t d)
{
    size_t mask = ((size_t)1 << t->bits) - 1;
    for (;; i = (i + 1) & mask, d++) {
        uint64_t e = atomic_load_explicit(&t->slot[i], memory_order_relaxed);
        if (e && dist(e, i, t->bits) >= d)
            continue;
        /* Release: a reader that sees the entry sees the instance behind it. */
        atomic_store_explicit(&t->slot[i], entry, memory_order_release);
        if (!e)
            return;
        entry = e;
        d = dist(e, i, t->bits);
    }
}

static void place(struct uidix_table *t, uint64_t entry)
{
    place_from(t, entry, uidix_home((uint32_t)(entry >> 32), t->bits), 0);
}

/* Out of line: once per growth. Readers still on the old table may miss
 * what is inserted from now on; they retry under the lock.
 *
 * A growth quadruples the table (from half full to an eighth): every entry
 * is moved at each growth, a few ns each, so growing in steps of 4 moves
 * each entry a third of a time over the table's life instead of once
 * (steps of 2), and the emptier table shortens the probes of the
 * collision check every new instance makes. The price is memory: 16 to 64
 * bytes of table per live instance instead of 16 to 32, which with tables
 * in huge pages (uidix_init_in) is mostly memory already resident
 * (bench/README.md, issue 14 evening). */
#define GROWTH_BITS 2

static __attribute__((noinline)) int grow(struct uidix *ix)
{
    struct uidix_table *old = atomic_load_explicit(&ix->table, memory_order_relaxed);
    struct uidix_table *t = table_new(ix, ix->mem, old->bits + GROWTH_BITS);
    if (!t)
        return -ENOMEM;
    for (size_t i = 0, n = (size_t)1 << old->bits; i < n; i++) {
        uint64_t e = atomic_load_explicit(&old->slot[i], memory_order_relaxed);
        if (e)
            place(t, e);
    }
    atomic_store_explicit(&ix->table, t, memory_order_release);
    old->older = ix->retired;
    ix->retired = old;
    return 0;
}

int uidix_claim(struct uidix *ix, uint64_t id, uint32_t ref, uidix_match_fn taken, const void *ctx)
{
    struct uidix_table *t = atomic_load_explicit(&ix->table, memory_order_relaxed);
    /* At most half full. Linear probing's runs grow fast past that, and
     * the newest entries, which a tracer looks up most, sit at their ends:
     * at 3/4 a lookup of a recent id walked 4.7 slots on average, a loop
     * whose exit the branch predictor cannot guess. */
    if (2 * (ix->count + 1) > ((size_t)1 << t->bits) && t->bits < 40) {
        int rc = grow(ix);
        if (rc)
            return rc;
        t = atomic_load_explicit(&ix->table, memory_order_relaxed);
    }
    /* The check walks the whole run (to an empty slot) rather than
     * trusting the Robin Hood order to stop early: a missed duplicate would
     * hand out an id twice. On the way it notes where the entry will go
     * (the first slot whose entry sits nearer its home than this one
     * would), so the insert does not walk the run again. */
    size_t mask = ((size_t)1 << t->bits) - 1;
    uint32_t tag = uidix_tag(id);
    size_t i = uidix_home(tag, t->bits), d = 0, at = 0, at_d = 0;
    bool placed = false;
    for (;; i = (i + 1) & mask, d++) {
        uint64_t e = atomic_load_explicit(&t->slot[i], memory_order_relaxed);
        if (!e)
            break;
        if ((uint32_t)(e >> 32) == tag && taken((uint32_t)e, id, ctx))
            return 1;
        if (!placed && dist(e, i, t->bits) < d) {
            placed = true;
            at = i;
            at_d = d;
        }
    }
    place_from(t, (uint64_t)tag << 32 | ref, placed ? at : i, placed ? at_d : d);
    ix->count++;
    return 0;
}

void uidix_remove(struct uidix *ix, uint64_t id, uint32_t ref)
{
    struct uidix_table *t = atomic_load_explicit(&ix->table, memory_order_relaxed);
    size_t mask = ((size_t)1 << t->bits) - 1;
    uint64_t want = (uint64_t)uidix_tag(id) << 32 | ref;
    size_t hole = uidix_home(uidix_tag(id), t->bits);
    for (;; hole = (hole + 1) & mask) {
        uint64_t e = atomic_load_explicit(&t->slot[hole], memory_order_relaxed);
        if (!e)
            return;
        if (e == want)
            break;
    }
    /* Backward shift: each following entry that is not at its home moves
     * one slot back, which keeps the Robin Hood order and leaves no
     * tombstones under a release-heavy load. The removed entry is
     * overwritten, not cleared first, so a reader sees an empty slot only
     * where the run now ends. */
    for (size_t j = (hole + 1) & mask;; hole = j, j = (j + 1) & mask) {
        uint64_t e = atomic_load_explicit(&t->slot[j], memory_order_relaxed);
        if (!e || dist(e, j, t->bits) == 0)
            break;
        atomic_store_explicit(&t->slot[hole], e, memory_order_release);
    }
    atomic_store_explicit(&t->slot[hole], 0, memory_order_release);
    ix->count--;
}
