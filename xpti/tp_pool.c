/* SPDX-License-Identifier: MIT */
/* Instance memory: slabs of doubling size, recycled through a free list,
 * kept through an xptiReset (tp_pool_empty) and returned to the system only
 * by tp_pool_free_all. Keeping it mapped is what lets lock-free readers and
 * pointer validation run without hazard pointers. */
#include <stddef.h>

#include "xpti/arena.h"
#include "xpti/tracepoints.h"

#define FIRST_SLAB 64
#define LARGEST_SLAB 65536
/* A slot's reference packs its index below TP_REF_SLAB_SHIFT bits; a slab
 * grows past LARGEST_SLAB by at most the rest of its last huge page. */
_Static_assert(LARGEST_SLAB + ARENA_HUGE_PAGE / sizeof(struct tp_inst) <
                   ((size_t)1 << TP_REF_SLAB_SHIFT),
               "slot references need a wider index");
_Static_assert(offsetof(struct tp_inst, index_id) % 16 == 0 &&
                   offsetof(struct tp_inst, live) < offsetof(struct tp_inst, index_id) + 16 &&
                   sizeof(struct tp_inst) % 16 == 0,
               "an id lookup reads index_id and live from one cache line");

/* Slabs of 1 MiB and more come in huge pages (xpti_huge_map), grown to fill
 * their last 2 MiB: otherwise every 12th new instance lands on a fresh
 * 4 KiB page. */
static struct tp_inst *slab_alloc(size_t *n, size_t *bytes)
{
    *bytes = *n * sizeof(struct tp_inst);
    struct tp_inst *base = xpti_huge_map(bytes);
    if (base)
        *n = *bytes / sizeof(struct tp_inst);
    return base;
}

struct tp_inst *tp_pool_take(struct tp_pool *pool)
{
    if (pool->free) {
        struct tp_inst *inst = tp_pool_at(pool, pool->free);
        pool->free = inst->next_free;
        return inst;
    }
    size_t n = atomic_load_explicit(&pool->nslabs, memory_order_relaxed);
    /* Slabs kept through a reset are used up before a new one is made. */
    while (n > 0 && pool->used_in_cur == pool->slab[pool->cur].n && pool->cur + 1 < n) {
        pool->cur++;
        pool->used_in_cur = 0;
    }
    if (n == 0 || pool->used_in_cur == pool->slab[pool->cur].n) {
        if (n == TP_POOL_SLABS)
            return NULL;
        /* A program with a few instances keeps a small first slab; past it
         * the second slab is already one huge page (6,241 instances): the
         * doubling steps between would each fault in their own 4 KiB pages. */
        size_t size = n == 0 ? FIRST_SLAB : 2 * pool->slab[n - 1].n;
        if (size * sizeof(struct tp_inst) < ARENA_HUGE_PAGE && n > 0)
            size = ARENA_HUGE_PAGE / sizeof(struct tp_inst);
        if (size > LARGEST_SLAB)
            size = LARGEST_SLAB;
        size_t bytes;
        struct tp_inst *base = slab_alloc(&size, &bytes);
        if (!base)
            return NULL;
        pool->slab[n] = (struct tp_slab){.base = base, .n = size, .bytes = bytes};
        pool->cur = n;
        pool->used_in_cur = 0;
        /* Release: validators that see the count see the slab. */
        atomic_store_explicit(&pool->nslabs, n + 1, memory_order_release);
    }
    struct tp_inst *inst = &pool->slab[pool->cur].base[pool->used_in_cur];
    inst->ref = (uint32_t)(pool->cur << TP_REF_SLAB_SHIFT | pool->used_in_cur) + 1;
    pool->used_in_cur++;
    return inst;
}

void tp_pool_give(struct tp_pool *pool, struct tp_inst *inst)
{
    inst->next_free = pool->free;
    pool->free = inst->ref;
}

bool tp_pool_owns(const struct tp_pool *pool, uintptr_t p)
{
    size_t n = atomic_load_explicit(&pool->nslabs, memory_order_acquire);
    for (size_t i = 0; i < n; i++) {
        uintptr_t base = (uintptr_t)pool->slab[i].base;
        uintptr_t end = base + pool->slab[i].n * sizeof(struct tp_inst);
        if (p >= base && p < end)
            return (p - base) % sizeof(struct tp_inst) == 0;
    }
    return false;
}

void tp_pool_free_all(struct tp_pool *pool)
{
    size_t n = atomic_load_explicit(&pool->nslabs, memory_order_relaxed);
    for (size_t i = 0; i < n; i++)
        xpti_huge_unmap(pool->slab[i].base, pool->slab[i].bytes);
    atomic_store_explicit(&pool->nslabs, 0, memory_order_relaxed);
    tp_pool_empty(pool);
}

void tp_pool_empty(struct tp_pool *pool)
{
    pool->cur = 0;
    pool->used_in_cur = 0;
    pool->free = 0;
}
