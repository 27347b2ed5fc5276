/* SPDX-License-Identifier: MIT */
/* Instance memory: slabs of doubling size, handed to threads in runs and
 * recycled through a free list,
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

/* A thread's run of fresh slots: one pool lock per run, not per instance.
 * Doubling from 1, so a thread that makes a few instances takes (and, when
 * it ends, strands) few slots. */
#define RUN_MAX 32

struct tp_run {
    const struct tp_pool *pool;
    uint64_t gen;
    uint32_t next, end; /* slot references, consecutive within one slab */
    uint32_t size;      /* of the next run */
};
static _Thread_local struct tp_run thread_run;

/* Pools made or emptied so far in the process: a pool's gen is unique, so
 * a run from before a reset, or from a pool since destroyed and made again
 * at the same address, is never taken for a current one. */
static _Atomic uint64_t generations;

void tp_pool_init(struct tp_pool *pool)
{
    pool->gen = atomic_fetch_add_explicit(&generations, 1, memory_order_relaxed) + 1;
}

/* The slab handing out fresh slots, made if needed; NULL at the limit or
 * without memory. Under pool->lock. */
static struct tp_slab *current_slab(struct tp_pool *pool)
{
    size_t n = atomic_load_explicit(&pool->nslabs, memory_order_relaxed);
    /* Slabs kept through a reset are used up before a new one is made. */
    while (n > 0 && pool->used_in_cur == pool->slab[pool->cur].n && pool->cur + 1 < n) {
        pool->cur++;
        pool->used_in_cur = 0;
    }
    if (n > 0 && pool->used_in_cur < pool->slab[pool->cur].n)
        return &pool->slab[pool->cur];
    if (n == TP_POOL_SLABS)
        return NULL;
    /* A program with a few instances keeps a small first slab; past it
     * the second slab is already one huge page (7,281 instances): the
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
    return &pool->slab[n];
}

/* Out of line: once per run. A new run in the calling thread's `run`,
 * false at the limit or without memory. */
static __attribute__((noinline)) bool refill(struct tp_pool *pool, struct tp_run *run)
{
    if (run->pool != pool || run->gen != pool->gen)
        *run = (struct tp_run){.pool = pool, .gen = pool->gen, .size = 1};
    pthread_mutex_lock(&pool->lock);
    struct tp_slab *slab = current_slab(pool);
    if (slab) {
        size_t n = run->size, left = slab->n - pool->used_in_cur;
        n = n < left ? n : left;
        run->next = (uint32_t)(pool->cur << TP_REF_SLAB_SHIFT | pool->used_in_cur) + 1;
        run->end = run->next + (uint32_t)n;
        pool->used_in_cur += n;
    }
    pthread_mutex_unlock(&pool->lock);
    if (run->size < RUN_MAX)
        run->size *= 2;
    return slab != NULL;
}

/* The first free slot, or NULL. */
static struct tp_inst *take_free(struct tp_pool *pool)
{
    struct tp_inst *inst = NULL;
    pthread_mutex_lock(&pool->lock);
    uint32_t ref = atomic_load_explicit(&pool->free, memory_order_relaxed);
    if (ref) {
        inst = tp_pool_at(pool, ref);
        atomic_store_explicit(&pool->free, inst->next_free, memory_order_relaxed);
    }
    pthread_mutex_unlock(&pool->lock);
    return inst;
}

struct tp_inst *tp_pool_take(struct tp_pool *pool)
{
    if (atomic_load_explicit(&pool->free, memory_order_relaxed)) {
        struct tp_inst *inst = take_free(pool);
        if (inst)
            return inst;
    }
    /* One look-up of the thread's variable (a call in a shared library);
     * the empty asm keeps the compiler from repeating the call rather than
     * keeping the address in a register. */
    struct tp_run *my = &thread_run;
    __asm__("" : "+r"(my));
    if ((my->next == my->end || my->pool != pool || my->gen != pool->gen) && !refill(pool, my))
        return NULL;
    uint32_t ref = my->next++;
    struct tp_inst *inst = tp_pool_at(pool, ref);
    inst->ref = ref;
    return inst;
}

void tp_pool_give(struct tp_pool *pool, struct tp_inst *inst)
{
    pthread_mutex_lock(&pool->lock);
    inst->next_free = atomic_load_explicit(&pool->free, memory_order_relaxed);
    atomic_store_explicit(&pool->free, inst->ref, memory_order_relaxed);
    pthread_mutex_unlock(&pool->lock);
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
    atomic_store_explicit(&pool->free, 0, memory_order_relaxed);
    tp_pool_init(pool);
}
