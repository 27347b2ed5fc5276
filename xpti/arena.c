/* SPDX-License-Identifier: MIT */
#include "xpti/arena.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_FROM ((size_t)1 << 20)
/* The first chunk is 64 KiB, so a process with a handful of strings keeps
 * its memory small; every later one is a huge page (or more, for a record
 * that large): steps between would each fault in their own 4 KiB pages. */
#define FIRST_CHUNK ((size_t)64 << 10)

struct arena_chunk {
    struct arena_chunk *next; /* older chunk (a->chunks order) */
    struct arena_chunk *newer;
    size_t size; /* the whole mapping, header included */
    bool reused; /* handed out before a rewind: no longer all zero */
};

void *xpti_huge_map(size_t *bytes)
{
    if (*bytes < HUGE_FROM)
        return calloc(1, *bytes);
    size_t n = (*bytes + ARENA_HUGE_PAGE - 1) & ~(ARENA_HUGE_PAGE - 1);
    /* Over-map by one huge page and trim both ends, so the start is aligned. */
    char *raw =
        mmap(NULL, n + ARENA_HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *base =
        (char *)(((uintptr_t)raw + ARENA_HUGE_PAGE - 1) & ~(uintptr_t)(ARENA_HUGE_PAGE - 1));
    if (base > raw)
        munmap(raw, (size_t)(base - raw));
    if (base + n < raw + n + ARENA_HUGE_PAGE)
        munmap(base + n, (size_t)(raw + n + ARENA_HUGE_PAGE - (base + n)));
    /* Only advice: without transparent huge pages these are plain pages. */
    (void)madvise(base, n, MADV_HUGEPAGE);
    *bytes = n;
    return base;
}

void xpti_huge_unmap(void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes < HUGE_FROM)
        free(p);
    else
        munmap(p, bytes);
}

void arena_init(struct arena *a)
{
    *a = (struct arena){0};
}

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* The next chunk: one kept from before a rewind, else a new one at least
 * twice the last (and big enough for `bytes`). */
static struct arena_chunk *next_chunk(struct arena *a, size_t bytes)
{
    size_t need = align8(sizeof(struct arena_chunk)) + bytes;
    if (a->cur && a->cur->newer && a->cur->newer->size >= need)
        return a->cur->newer;
    size_t size = a->chunks ? ARENA_HUGE_PAGE : FIRST_CHUNK;
    if (size < need)
        size = need;
    struct arena_chunk *c = xpti_huge_map(&size);
    if (!c)
        return NULL;
    c->size = size;
    c->reused = false;
    /* A chunk too small to be reused in order is never reached again
     * (next_chunk only steps to cur->newer); it is freed with the rest. */
    c->next = a->chunks;
    c->newer = NULL;
    if (a->chunks)
        a->chunks->newer = c;
    a->chunks = c;
    return c;
}

/* The offset in chunk c from `from` on at which an address is a multiple
 * of `align` (a power of two): chunks from malloc are only 16-aligned. */
static size_t aligned_at(const struct arena_chunk *c, size_t from, size_t align)
{
    uintptr_t p = ((uintptr_t)c + from + align - 1) & ~(uintptr_t)(align - 1);
    return (size_t)(p - (uintptr_t)c);
}

/* `align` is 8 or a larger power of two. */
static void *alloc_aligned(struct arena *a, size_t bytes, size_t align)
{
    size_t head = align8(sizeof(struct arena_chunk));
    bytes = align8(bytes);
    size_t at = a->cur ? aligned_at(a->cur, a->used, align) : 0;
    if (!a->cur || at + bytes > a->cur->size) {
        struct arena_chunk *c = next_chunk(a, bytes + align);
        if (!c)
            return NULL;
        a->cur = c;
        at = aligned_at(c, head, align);
    }
    void *p = (char *)a->cur + at;
    a->used = at + bytes;
    return p;
}

void *arena_alloc(struct arena *a, size_t bytes)
{
    return alloc_aligned(a, bytes, 8);
}

void *arena_alloc_zeroed(struct arena *a, size_t bytes)
{
    void *p = alloc_aligned(a, bytes, 64);
    if (p && a->cur->reused)
        memset(p, 0, bytes);
    return p;
}

void *arena_alloc_zeroed_shared(struct arena *a, pthread_mutex_t *lock, size_t bytes)
{
    if (!lock)
        return arena_alloc_zeroed(a, bytes);
    pthread_mutex_lock(lock);
    void *p = arena_alloc_zeroed(a, bytes);
    pthread_mutex_unlock(lock);
    return p;
}

void arena_rewind(struct arena *a)
{
    /* Back to the oldest chunk; fills resume through the newer links. */
    struct arena_chunk *c = a->chunks;
    while (c && c->next) {
        c->reused = true;
        c = c->next;
    }
    if (c)
        c->reused = true;
    a->cur = c;
    a->used = align8(sizeof(struct arena_chunk));
}

void arena_destroy(struct arena *a)
{
    while (a->chunks) {
        struct arena_chunk *c = a->chunks;
        a->chunks = c->next;
        xpti_huge_unmap(c, c->size);
    }
    arena_init(a);
}
