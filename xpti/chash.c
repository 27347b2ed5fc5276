/* SPDX-License-Identifier: MIT */
#include "xpti/chash.h"

#include <errno.h>
#include <stdlib.h>

#include "xpti/arena.h"

/* Empty buckets are NULL (all-zero bits here), so arena memory, zeroed,
 * needs no initialising pass. */
static struct chash_table *table_new(struct chash *h, struct arena *mem, unsigned bits)
{
    size_t n = (size_t)1 << bits, bytes = sizeof(struct chash_table) + n * sizeof(void *);
    struct chash_table *t =
        mem ? arena_alloc_zeroed_shared(mem, h->mem_lock, bytes) : malloc(bytes);
    if (!t)
        return NULL;
    t->bits = bits;
    t->older = NULL;
    if (!mem)
        for (size_t i = 0; i < n; i++)
            atomic_init(&t->bucket[i], NULL);
    return t;
}

static void table_free(struct chash *h, struct chash_table *t)
{
    if (!h->mem)
        free(t);
}

int chash_init_in(struct chash *h, unsigned initial_bits, struct arena *mem)
{
    h->mem = mem;
    h->mem_lock = NULL;
    struct chash_table *t = table_new(h, mem, initial_bits);
    if (!t)
        return -ENOMEM;
    atomic_init(&h->table, t);
    h->count = 0;
    h->retired = NULL;
    return 0;
}

int chash_init(struct chash *h, unsigned initial_bits)
{
    return chash_init_in(h, initial_bits, NULL);
}

static void free_retired(struct chash *h)
{
    while (h->retired) {
        struct chash_table *t = h->retired;
        h->retired = t->older;
        table_free(h, t);
    }
}

void chash_destroy(struct chash *h)
{
    table_free(h, atomic_load_explicit(&h->table, memory_order_relaxed));
    atomic_store_explicit(&h->table, NULL, memory_order_relaxed);
    free_retired(h);
    h->count = 0;
}

int chash_clear(struct chash *h, unsigned initial_bits)
{
    struct chash_table *t = atomic_load_explicit(&h->table, memory_order_relaxed);
    if (!t || t->bits < initial_bits) {
        pthread_mutex_t *mem_lock = h->mem_lock;
        chash_destroy(h);
        int rc = chash_init_in(h, initial_bits, h->mem);
        h->mem_lock = mem_lock;
        return rc;
    }
    /* Keep the grown table, emptied: refilling it then needs no doubling
     * and lands in memory already faulted in (xptiReset, then the same
     * workload again). */
    free_retired(h);
    size_t n = (size_t)1 << t->bits;
    for (size_t i = 0; i < n; i++)
        atomic_store_explicit(&t->bucket[i], NULL, memory_order_relaxed);
    h->count = 0;
    return 0;
}

/* Relink every node into a table twice the size. Readers still on the old
 * table follow next pointers into the new chains: they may miss but never
 * loop, because a node is only ever prepended to chains it is not in. Out of
 * line: it runs once per doubling, and inlined it would make every insert
 * save the registers its loops use. */
static __attribute__((noinline)) int grow(struct chash *h)
{
    struct chash_table *old = atomic_load_explicit(&h->table, memory_order_relaxed);
    struct chash_table *t = table_new(h, h->mem, old->bits + 1);
    if (!t)
        return -ENOMEM;
    size_t n = (size_t)1 << old->bits;
    for (size_t i = 0; i < n; i++) {
        struct chash_node *node = atomic_load_explicit(&old->bucket[i], memory_order_relaxed);
        while (node) {
            struct chash_node *next = atomic_load_explicit(&node->next, memory_order_relaxed);
            uint64_t hash = atomic_load_explicit(&node->hash, memory_order_relaxed);
            size_t b = chash_bucket_of(hash, t->bits);
            atomic_store_explicit(&node->next,
                                  atomic_load_explicit(&t->bucket[b], memory_order_relaxed),
                                  memory_order_release);
            atomic_store_explicit(&t->bucket[b], node, memory_order_release);
            node = next;
        }
    }
    atomic_store_explicit(&h->table, t, memory_order_release);
    /* Old tables are small next to the live one (sizes halve), so keeping
     * them until chash_clear bounds the waste by the table's own size. */
    old->older = h->retired;
    h->retired = old;
    return 0;
}

int chash_insert(struct chash *h, struct chash_node *n, uint64_t hash)
{
    struct chash_table *t = atomic_load_explicit(&h->table, memory_order_relaxed);
    if (h->count >= ((size_t)1 << t->bits) && t->bits < 40) {
        int rc = grow(h);
        if (rc)
            return rc;
        t = atomic_load_explicit(&h->table, memory_order_relaxed);
    }
    size_t b = chash_bucket_of(hash, t->bits);
    atomic_store_explicit(&n->hash, hash, memory_order_relaxed);
    atomic_store_explicit(&n->next, atomic_load_explicit(&t->bucket[b], memory_order_relaxed),
                          memory_order_relaxed);
    /* Release: a reader that sees the node sees its contents. */
    atomic_store_explicit(&t->bucket[b], n, memory_order_release);
    h->count++;
    return 0;
}

void chash_remove(struct chash *h, struct chash_node *n)
{
    struct chash_table *t = atomic_load_explicit(&h->table, memory_order_relaxed);
    uint64_t hash = atomic_load_explicit(&n->hash, memory_order_relaxed);
    _Atomic(struct chash_node *) *link = &t->bucket[chash_bucket_of(hash, t->bits)];
    for (;;) {
        struct chash_node *cur = atomic_load_explicit(link, memory_order_relaxed);
        if (!cur)
            return;
        if (cur == n) {
            /* n keeps its next pointer so a reader standing on it walks on. */
            atomic_store_explicit(link, atomic_load_explicit(&n->next, memory_order_relaxed),
                                  memory_order_release);
            h->count--;
            return;
        }
        link = &cur->next;
    }
}
