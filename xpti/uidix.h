/* SPDX-License-Identifier: MIT */
/* The id index: 64-bit instance ids to 32-bit instance references, an
 * open-addressing table (linear probing in Robin Hood order) of one atomic
 * word per entry,
 * `tag << 32 | ref`, where the tag is the id's high half.
 *
 * Why not chash: every new instance checks its id against the live ones and
 * then inserts it. In a chained table that is a random bucket load plus, as
 * often as not, a load of some other instance's node to compare its hash;
 * here the tags sit in the table itself, so a check and the insert after it
 * touch one cache line, and another instance is only read when its tag
 * matches (about one in 2^32 slots looked at).
 *
 * Readers take no lock. One writer at a time (the owner's lock). A reader
 * racing with a grow, an insert (which may move entries on) or a removal
 * (which shifts later entries back) may miss an entry, never read freed memory (replaced tables are
 * kept until uidix_clear); callers that must not miss retry under the lock, and every hit is
 * confirmed against the instance itself, so a torn view of a moving entry can only cost a retry. */
#ifndef ZESTUB_XPTI_UIDIX_H
#define ZESTUB_XPTI_UIDIX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uidix_table {
    unsigned bits;
    struct uidix_table *older;
    _Atomic uint64_t slot[]; /* 0 = empty; refs are never 0 */
};

struct arena;

struct uidix {
    _Atomic(struct uidix_table *) table;
    size_t count;                /* writer only */
    struct uidix_table *retired; /* older tables readers may still walk */
    struct arena *mem;           /* where tables come from; NULL: malloc */
    /* Taken around allocations from mem when several indexes share it,
     * each under its own writer's lock; NULL: the writer's lock covers mem. */
    pthread_mutex_t *mem_lock;
};

int uidix_init(struct uidix *ix, unsigned initial_bits);
/* Tables from `mem` (its owner's lock covers it, as it covers our writes):
 * never freed one by one, so retired tables stay in it until the owner
 * destroys it, and growth meets memory in huge pages rather than a fresh
 * 4 KiB page per 512 entries. */
int uidix_init_in(struct uidix *ix, unsigned initial_bits, struct arena *mem);
void uidix_destroy(struct uidix *ix);
/* Forget every entry; the current table is kept, emptied (as chash_clear). */
int uidix_clear(struct uidix *ix, unsigned initial_bits);

static inline uint32_t uidix_tag(uint64_t id)
{
    return (uint32_t)(id >> 32);
}

/* The home slot from the tag alone, so a removal can tell where each later
 * entry belongs without looking at its instance. Fibonacci hashing spreads
 * tags that share low bits. */
static inline size_t uidix_home(uint32_t tag, unsigned bits)
{
    return (size_t)(((uint64_t)tag * 0x9E3779B97F4A7C15u) >> (64 - bits));
}

/* Does reference ref name the live instance with this id? */
typedef bool (*uidix_match_fn)(uint32_t ref, uint64_t id, const void *ctx);

/* The reference stored for id, or 0. Inline with its match function, as
 * chash_find, because every new instance runs it. */
static inline uint32_t uidix_find(const struct uidix *ix, uint64_t id, uidix_match_fn match,
                                  const void *ctx)
{
    const struct uidix_table *t = atomic_load_explicit(&ix->table, memory_order_acquire);
    size_t mask = ((size_t)1 << t->bits) - 1;
    uint32_t tag = uidix_tag(id);
    /* A table is at most half full, so an empty slot ends every probe; the
     * bound only guards a reader against a table that changes under it. */
    for (size_t i = uidix_home(tag, t->bits), n = 0; n <= mask; i = (i + 1) & mask, n++) {
        uint64_t e = atomic_load_explicit(&t->slot[i], memory_order_acquire);
        if (!e)
            return 0;
        if ((uint32_t)(e >> 32) == tag && match((uint32_t)e, id, ctx))
            return (uint32_t)e;
    }
    return 0;
}

/* Writer side, under the owner's lock.
 *
 * claim: insert (id, ref) unless an entry that `taken` confirms already
 * holds id: 0 when inserted, 1 when taken, -ENOMEM. One probe serves the
 * check and the insert (a uidix_find and then an insert would walk the
 * same slots twice). remove: no-op when (id, ref) is absent. */
int uidix_claim(struct uidix *ix, uint64_t id, uint32_t ref, uidix_match_fn taken, const void *ctx);
void uidix_remove(struct uidix *ix, uint64_t id, uint32_t ref);

#endif
