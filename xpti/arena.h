/* SPDX-License-Identifier: MIT */
/* Memory that is written once per new string, key or instance and read
 * lock-free afterwards: a bump arena for records never freed one by one,
 * and large zeroed mappings in transparent huge pages.
 *
 * Why: every new record otherwise lands, sooner or later, on a fresh 4 KiB
 * page, and a first touch costs microseconds on a loaded VM (bench/README.md,
 * "Hot paths"); one 2 MiB fault serves thousands of records. A worker thread
 * would also get its own malloc arena, so records made after an xptiReset
 * on another thread faulted in fresh pages again; an arena rewound at the
 * reset keeps its memory warm for whoever comes next. */
#ifndef ZESTUB_XPTI_ARENA_H
#define ZESTUB_XPTI_ARENA_H

#include <pthread.h>
#include <stddef.h>

#define ARENA_HUGE_PAGE ((size_t)2 << 20)

/* Zeroed memory of *bytes; at 1 MiB and above it is 2 MiB-aligned, advised
 * as huge and *bytes grows to the next 2 MiB. NULL when out of memory.
 * Freed with xpti_huge_unmap(p, *bytes as returned). */
void *xpti_huge_map(size_t *bytes);
void xpti_huge_unmap(void *p, size_t bytes);

struct arena_chunk;

/* Not thread-safe: the owner allocates under its own lock. */
struct arena {
    struct arena_chunk *chunks; /* newest first */
    struct arena_chunk *cur;    /* the chunk being filled; later ones are
                                   kept, empty, from before a rewind */
    size_t used;                /* bytes of cur handed out */
};

void arena_init(struct arena *a);
/* 8-aligned, uninitialised, NULL when out of memory. */
void *arena_alloc(struct arena *a, size_t bytes);
/* Zeroed and 64-aligned (a cache line), NULL when out of memory: for
 * index tables. Memory no rewind has handed out before is zero already
 * (fresh mappings), so it is not written again here: the table's pages
 * are first touched by the entries placed in it. */
void *arena_alloc_zeroed(struct arena *a, size_t bytes);
/* arena_alloc_zeroed under `lock` when it is not NULL: for an arena that
 * writers under different locks share (the registry's index tables). */
void *arena_alloc_zeroed_shared(struct arena *a, pthread_mutex_t *lock, size_t bytes);
/* Everything handed out is forgotten; the chunks stay for reuse. */
void arena_rewind(struct arena *a);
void arena_destroy(struct arena *a);

#endif
