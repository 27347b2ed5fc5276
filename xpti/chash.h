/* SPDX-License-Identifier: MIT */
/* An intrusive chained hash map with lock-free readers and one writer at a
 * time (the owner serialises inserts and removals with its own lock).
 *
 * Readers never block and never touch freed memory as long as the owner keeps
 * removed nodes' memory alive until chash_clear (the string table and key
 * table never remove; the tracepoint registry recycles nodes in a pool). A
 * reader racing with a resize or a removal can miss an entry; callers that
 * must not miss retry under the writer lock. */
#ifndef ZESTUB_XPTI_CHASH_H
#define ZESTUB_XPTI_CHASH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct chash_node {
    _Atomic(struct chash_node *) next;
    _Atomic uint64_t hash;
};

struct arena;

struct chash {
    _Atomic(struct chash_table *) table;
    size_t count;                /* writer only */
    struct chash_table *retired; /* older tables readers may still walk */
    struct arena *mem;           /* where tables come from; NULL: malloc */
    /* Taken around allocations from mem when several indexes share it,
     * each under its own writer's lock; NULL: the writer's lock covers mem. */
    pthread_mutex_t *mem_lock;
};

/* Does node n hold key? May be NULL when the hash alone identifies a node. */
typedef bool (*chash_match_fn)(const struct chash_node *n, const void *key);

/* Chains longer than this on the lock-free path mean a concurrent resize or
 * node reuse; the caller should retry under its lock. */
#define CHASH_READER_HOPS 256
#define CHASH_UNBOUNDED ((size_t)-1)

int chash_init(struct chash *h, unsigned initial_bits);
/* Tables from `mem`, under the owner's lock as our writes are: never freed
 * one by one (retired tables stay until the owner destroys mem), and a
 * grow meets memory in huge pages instead of fresh 4 KiB pages. */
int chash_init_in(struct chash *h, unsigned initial_bits, struct arena *mem);
void chash_destroy(struct chash *h);
/* Forget every node (their memory belongs to the caller). The current table
 * is kept, emptied, when it has at least initial_bits (its size is what the
 * last workload needed); older tables are freed. */
int chash_clear(struct chash *h, unsigned initial_bits);

struct chash_table {
    unsigned bits;
    struct chash_table *older;
    _Atomic(struct chash_node *) bucket[];
};

static inline size_t chash_bucket_of(uint64_t hash, unsigned bits)
{
    /* Fibonacci hashing: keys such as pointers or small ids have poor low bits. */
    return (size_t)((hash * 0x9E3779B97F4A7C15u) >> (64 - bits));
}

/* Inline because it is on every lookup path (keys, ids, strings) and the
 * match function, a constant at each call site, then inlines too. */
static inline struct chash_node *chash_find(const struct chash *h, uint64_t hash,
                                            chash_match_fn match, const void *key, size_t max_hops)
{
    const struct chash_table *t = atomic_load_explicit(&h->table, memory_order_acquire);
    struct chash_node *n =
        atomic_load_explicit(&t->bucket[chash_bucket_of(hash, t->bits)], memory_order_acquire);
    for (size_t hops = 0; n && hops < max_hops; hops++) {
        if (atomic_load_explicit(&n->hash, memory_order_relaxed) == hash &&
            (!match || match(n, key)))
            return n;
        n = atomic_load_explicit(&n->next, memory_order_acquire);
    }
    return NULL;
}
/* Writer side: caller holds its lock. Returns 0 or -ENOMEM. */
int chash_insert(struct chash *h, struct chash_node *n, uint64_t hash);
void chash_remove(struct chash *h, struct chash_node *n);

#endif
