/* SPDX-License-Identifier: MIT */
/* The writer's table layout, code locations and strings. Sites and strings
 * are rare (one per submission site), so they serialise on the writer's
 * lock; lookups of known sites, on every task, take none. */
#include "xpti/xtab_writer.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static uint64_t align64(uint64_t v)
{
    return (v + 63) & ~(uint64_t)63;
}

static uint32_t pow2_at_least(uint64_t v)
{
    uint32_t p = 16;
    while (p < v)
        p <<= 1;
    return p;
}

/* Offsets of the four areas, each on its own cache line. */
static uint64_t layout(const struct xtab_caps *c, uint64_t *sites, uint64_t *tasks,
                       uint64_t *allocs, uint64_t *strings)
{
    *sites = XTAB_HEADER_SIZE;
    *tasks = align64(*sites + (uint64_t)c->sites * sizeof(struct xtab_site_rec));
    *allocs = align64(*tasks + (uint64_t)c->tasks * sizeof(struct xtab_task_rec));
    *strings = align64(*allocs + (uint64_t)c->allocs * sizeof(struct xtab_alloc_rec));
    return align64(*strings + c->strings);
}

size_t xtab_w_size(const struct xtab_caps *c)
{
    uint64_t s, t, a, str;
    if (!c || !c->sites || !c->tasks || !c->allocs || !c->strings)
        return 0;
    uint64_t total = layout(c, &s, &t, &a, &str);
    return total > XTAB_MAX_TABLE ? 0 : (size_t)total;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int private_state(struct xtab_w *w, const struct xtab_caps *c)
{
    w->site_index_mask = pow2_at_least((uint64_t)c->sites * 2) - 1;
    w->alloc_index_mask = pow2_at_least((uint64_t)c->allocs * 2) - 1;
    w->site_index = calloc((size_t)w->site_index_mask + 1, sizeof(*w->site_index));
    w->alloc_keys = calloc((size_t)w->alloc_index_mask + 1, sizeof(*w->alloc_keys));
    w->alloc_slots = calloc((size_t)w->alloc_index_mask + 1, sizeof(*w->alloc_slots));
    w->freed = calloc(c->allocs, sizeof(*w->freed));
    w->site_newest = calloc(c->sites, sizeof(*w->site_newest));
    if (!w->site_index || !w->alloc_keys || !w->alloc_slots || !w->freed || !w->site_newest)
        return -ENOMEM;
    return pthread_mutex_init(&w->lock, NULL) ? -ENOMEM : 0;
}

int xtab_w_init(struct xtab_w *w, void *mem, size_t size, const struct xtab_caps *c)
{
    uint64_t s, t, a, str;
    size_t need = xtab_w_size(c);
    if (!need || size < need || ((uintptr_t)mem & 7))
        return -EINVAL;
    *w = (struct xtab_w){.base = mem, .h = mem, .fd = -1};
    if (private_state(w, c)) {
        free(w->site_index);
        free(w->alloc_keys);
        free(w->alloc_slots);
        free(w->freed);
        free(w->site_newest);
        *w = (struct xtab_w){.fd = -1};
        return -ENOMEM;
    }
    layout(c, &s, &t, &a, &str);
    struct xtab_header *h = w->h;
    h->version = XTAB_VERSION;
    h->header_size = XTAB_HEADER_SIZE;
    h->total_size = need;
    h->pid = (uint32_t)getpid();
    h->start_ns = now_ns();
    h->flags = XTAB_FLAG_TASKS_KEEP_SITE_NEWEST | XTAB_FLAG_ALLOCS_KEEP_LIVE;
    h->sites = (struct xtab_area){s, sizeof(struct xtab_site_rec), c->sites};
    h->tasks = (struct xtab_area){t, sizeof(struct xtab_task_rec), c->tasks};
    h->allocs = (struct xtab_area){a, sizeof(struct xtab_alloc_rec), c->allocs};
    h->strings_offset = str;
    h->strings_size = c->strings;
    w->g = (struct xtab_w_geom){h->sites, h->tasks, h->allocs, str, c->strings, need};
    /* A reader that sees the magic sees the geometry above. */
    __atomic_store_n(&h->magic, XTAB_MAGIC, __ATOMIC_RELEASE);
    return 0;
}

void xtab_w_destroy(struct xtab_w *w)
{
    if (w->fd >= 0) {
        munmap(w->base, (size_t)w->g.total_size);
        close(w->fd);
        w->fd = -1;
    }
    pthread_mutex_destroy(&w->lock);
    free(w->site_index);
    free(w->alloc_keys);
    free(w->alloc_slots);
    free(w->freed);
    free(w->site_newest);
    w->site_newest = NULL;
    w->site_index = NULL;
    w->alloc_keys = NULL;
    w->alloc_slots = NULL;
    w->freed = NULL;
    w->base = NULL;
    w->h = NULL;
}

static uint32_t key_hash(uint64_t a, uint64_t b)
{
    uint64_t x = a * UINT64_C(0x9e3779b97f4a7c15) ^ (b + UINT64_C(0x632be59bd9b4e019));
    x ^= x >> 31;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    return (uint32_t)(x ^ (x >> 29));
}

static struct xtab_site_rec *site_rec(struct xtab_w *w, uint32_t i)
{
    return (struct xtab_site_rec *)(w->base + w->g.sites.offset) + i;
}

uint32_t xtab_w_site_find(struct xtab_w *w, uint64_t key1, uint64_t key2)
{
    for (uint32_t i = key_hash(key1, key2);; i++) {
        uint32_t v = __atomic_load_n(&w->site_index[i & w->site_index_mask], __ATOMIC_ACQUIRE);
        if (!v)
            return XTAB_NONE;
        const struct xtab_site_rec *r = site_rec(w, v - 1);
        /* Written before the index entry was published (release above). */
        if (__atomic_load_n(&r->key1, __ATOMIC_RELAXED) == key1 &&
            __atomic_load_n(&r->key2, __ATOMIC_RELAXED) == key2)
            return v - 1;
    }
}

/* Under the lock. Cuts at XTAB_STRING_MAX; a full area loses the string. */
static struct xtab_str put_string(struct xtab_w *w, const char *s)
{
    struct xtab_header *h = w->h;
    size_t len = s ? strnlen(s, XTAB_STRING_MAX) : 0;
    uint64_t used = __atomic_load_n(&h->counters.strings_used, __ATOMIC_RELAXED);
    /* `used` lives in shared memory: a huge value must not wrap the check. */
    if (used > w->g.strings_size || len + 1 > w->g.strings_size - used) {
        __atomic_fetch_add(&h->counters.strings_dropped, 1, __ATOMIC_RELAXED);
        return (struct xtab_str){XTAB_STR_LOST, 0};
    }
    char *dst = (char *)w->base + w->g.strings_offset + used;
    memcpy(dst, s ? s : "", len);
    dst[len] = 0;
    __atomic_store_n(&h->counters.strings_used, used + len + 1, __ATOMIC_RELAXED);
    return (struct xtab_str){(uint32_t)used, (uint32_t)len};
}

static uint32_t append_site(struct xtab_w *w, const struct xtab_site_in *in)
{
    struct xtab_header *h = w->h;
    uint64_t n = __atomic_load_n(&h->counters.sites, __ATOMIC_RELAXED);
    if (n >= w->g.sites.capacity) {
        __atomic_fetch_add(&h->counters.sites_dropped, 1, __ATOMIC_RELAXED);
        return XTAB_NONE;
    }
    struct xtab_site_rec rec = {
        .uid = in->uid,
        .key1 = in->key1,
        .key2 = in->key2,
        .line = in->line,
        .column = in->column,
        .kernel = put_string(w, in->kernel),
        .function = put_string(w, in->function),
        .file = put_string(w, in->file),
        .device = put_string(w, in->device),
    };
    struct xtab_site_rec *r = site_rec(w, (uint32_t)n);
    __atomic_store_n(&r->seq, 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    xtab_words_store((uint64_t *)r + 1, (const uint64_t *)&rec + 1, sizeof(rec) - 8);
    __atomic_store_n(&r->seq, 2, __ATOMIC_RELEASE);
    __atomic_store_n(&h->counters.sites, n + 1, __ATOMIC_RELEASE);
    return (uint32_t)n;
}

uint32_t xtab_w_site_add(struct xtab_w *w, const struct xtab_site_in *in)
{
    pthread_mutex_lock(&w->lock);
    uint32_t site = xtab_w_site_find(w, in->key1, in->key2);
    if (site == XTAB_NONE) {
        site = append_site(w, in);
        if (site != XTAB_NONE) {
            uint32_t i = key_hash(in->key1, in->key2);
            while (w->site_index[i & w->site_index_mask])
                i++;
            __atomic_store_n(&w->site_index[i & w->site_index_mask], site + 1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&w->lock);
    return site;
}
