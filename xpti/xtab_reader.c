/* SPDX-License-Identifier: MIT */
/* Opening, validating and closing a table. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xpti/xtab_int.h"

void xtab_unusable(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    int n = snprintf(err, errlen, "%s", XTAB_ERR_PREFIX);
    if (n < 0 || (size_t)n >= errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

/* An array of `cap` records of `rs` bytes that the header claims. */
static int check_area(const char *name, const struct xtab_area *a, uint32_t rs, uint64_t total,
                      char *why, size_t whylen)
{
    if (a->record_size != rs) {
        snprintf(why, whylen, "%s records are %u bytes, expected %u", name, a->record_size, rs);
        return -1;
    }
    if (a->capacity == 0 || a->offset % 8 || a->offset < XTAB_HEADER_SIZE || a->offset > total ||
        (uint64_t)a->capacity * rs > total - a->offset) {
        snprintf(why, whylen, "%s area (offset %llu, %u records) outside the table of %llu bytes",
                 name, (unsigned long long)a->offset, a->capacity, (unsigned long long)total);
        return -1;
    }
    return 0;
}

static bool overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return a < b + blen && b < a + alen;
}

static int check_geometry(const struct xtab_geom *g, char *why, size_t whylen)
{
    if (check_area("site", &g->sites, sizeof(struct xtab_site_rec), g->total_size, why, whylen) ||
        check_area("task", &g->tasks, sizeof(struct xtab_task_rec), g->total_size, why, whylen) ||
        check_area("allocation", &g->allocs, sizeof(struct xtab_alloc_rec), g->total_size, why,
                   whylen))
        return -1;
    if (g->strings_offset < XTAB_HEADER_SIZE || g->strings_offset > g->total_size ||
        g->strings_size > g->total_size - g->strings_offset || g->strings_size >= UINT32_MAX) {
        snprintf(why, whylen, "string area outside the table");
        return -1;
    }
    const struct xtab_area *ar[3] = {&g->sites, &g->tasks, &g->allocs};
    uint64_t len[4],
        off[4] = {g->sites.offset, g->tasks.offset, g->allocs.offset, g->strings_offset};
    for (int i = 0; i < 3; i++)
        len[i] = (uint64_t)ar[i]->capacity * ar[i]->record_size;
    len[3] = g->strings_size;
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (overlap(off[i], len[i], off[j], len[j])) {
                snprintf(why, whylen, "areas overlap");
                return -1;
            }
    return 0;
}

int xtab_validate(const unsigned char *base, size_t size, struct xtab_geom *g, char *why,
                  size_t whylen)
{
    struct xtab_header h = {0};
    if (size < XTAB_HEADER_SIZE) {
        snprintf(why, whylen, "truncated: %zu bytes, the header alone needs %u", size,
                 XTAB_HEADER_SIZE);
        return -1;
    }
    /* The magic first, with acquire: it is published after the rest. */
    h.magic = __atomic_load_n((const uint64_t *)base, __ATOMIC_ACQUIRE);
    xtab_words_load((uint64_t *)&h + 1, (const uint64_t *)base + 1, sizeof(h) - 8);
    if (h.magic != XTAB_MAGIC) {
        snprintf(why, whylen, "bad magic (not a zestub XPTI table, or not yet initialised)");
        return -1;
    }
    if (h.version != XTAB_VERSION) {
        snprintf(why, whylen, "format version %u, this zestub reads %u", h.version, XTAB_VERSION);
        return -1;
    }
    if (h.header_size != XTAB_HEADER_SIZE) {
        snprintf(why, whylen, "header size %u, expected %u", h.header_size, XTAB_HEADER_SIZE);
        return -1;
    }
    if (h.total_size > size || h.total_size < XTAB_HEADER_SIZE) {
        snprintf(why, whylen, "truncated: header says %llu bytes, %zu available",
                 (unsigned long long)h.total_size, size);
        return -1;
    }
    *g = (struct xtab_geom){.total_size = h.total_size,
                            .pid = (pid_t)h.pid,
                            .start_ns = h.start_ns,
                            .sites = h.sites,
                            .tasks = h.tasks,
                            .allocs = h.allocs,
                            .strings_offset = h.strings_offset,
                            .strings_size = h.strings_size,
                            .flags = h.flags};
    return check_geometry(g, why, whylen);
}

/* The writer never counts past an area's capacity (xtab_format.h): a
 * counter beyond it means someone overwrote the header, and every figure
 * drawn from it (9.2e18 sites) would be a lie. The ticket counter of the
 * task ring grows without bound by design and is not checked. */
static int counters_sane(const unsigned char *base, const struct xtab_geom *g, char *why,
                         size_t whylen)
{
    const struct xtab_counters *c = (const void *)(base + offsetof(struct xtab_header, counters));
    uint64_t sites = __atomic_load_n(&c->sites, __ATOMIC_ACQUIRE);
    uint64_t allocs = __atomic_load_n(&c->allocs, __ATOMIC_ACQUIRE);
    uint64_t strings = __atomic_load_n(&c->strings_used, __ATOMIC_ACQUIRE);
    if (sites > g->sites.capacity)
        snprintf(why, whylen, "its site counter (%llu) exceeds the site capacity (%u)",
                 (unsigned long long)sites, (unsigned)g->sites.capacity);
    else if (allocs > g->allocs.capacity)
        snprintf(why, whylen, "its allocation counter (%llu) exceeds the capacity (%u)",
                 (unsigned long long)allocs, (unsigned)g->allocs.capacity);
    else if (strings > g->strings_size)
        snprintf(why, whylen, "its string counter (%llu) exceeds the string area (%llu bytes)",
                 (unsigned long long)strings, (unsigned long long)g->strings_size);
    else
        return 0;
    return -1;
}

struct xtab *xtab_wrap(const unsigned char *base, size_t size, void *map, void *copy, char *err,
                       size_t errlen)
{
    char why[256];
    struct xtab_geom g;
    if (xtab_validate(base, size, &g, why, sizeof(why)) ||
        counters_sane(base, &g, why, sizeof(why))) {
        xtab_unusable(err, errlen, "%s", why);
        return NULL;
    }
    struct xtab *t = calloc(1, sizeof(*t));
    if (!t) {
        xtab_unusable(err, errlen, "out of memory");
        return NULL;
    }
    *t = (struct xtab){.base = base, .size = size, .map = map, .copy = copy, .g = g};
    return t;
}

struct xtab *xtab_open_buffer(const void *buf, size_t len, char *err, size_t errlen)
{
    if (!buf && len) {
        xtab_unusable(err, errlen, "no buffer");
        return NULL;
    }
    /* Whole words, so the word-wise copies never read past the end. */
    void *copy = calloc(1, (len + 8) & ~(size_t)7);
    if (!copy) {
        xtab_unusable(err, errlen, "out of memory");
        return NULL;
    }
    if (len)
        memcpy(copy, buf, len);
    struct xtab *t = xtab_wrap(copy, len, NULL, copy, err, errlen);
    if (!t)
        free(copy);
    return t;
}

struct xtab *xtab_open_fd(int fd, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        xtab_unusable(err, errlen, "fstat: %s", strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        xtab_unusable(err, errlen, "not a memory file");
        return NULL;
    }
    /* Without this seal the writer could shrink the file under our mapping
     * and turn our next read into SIGBUS. */
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
        xtab_unusable(err, errlen, "the table is not sealed against shrinking");
        return NULL;
    }
    if (st.st_size < (off_t)XTAB_HEADER_SIZE || (uint64_t)st.st_size > XTAB_MAX_TABLE) {
        xtab_unusable(err, errlen, "size %lld out of range", (long long)st.st_size);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        xtab_unusable(err, errlen, "mmap: %s", strerror(errno));
        return NULL;
    }
    struct xtab *t = xtab_wrap(map, size, map, NULL, err, errlen);
    if (!t)
        munmap(map, size);
    return t;
}

static bool same_area(const struct xtab_area *a, const struct xtab_area *b)
{
    return a->offset == b->offset && a->record_size == b->record_size && a->capacity == b->capacity;
}

/* Field by field: the struct has padding, which memcmp would compare. */
static bool same_geometry(const struct xtab_geom *a, const struct xtab_geom *b)
{
    return a->total_size == b->total_size && a->pid == b->pid && a->start_ns == b->start_ns &&
           same_area(&a->sites, &b->sites) && same_area(&a->tasks, &b->tasks) &&
           same_area(&a->allocs, &b->allocs) && a->strings_offset == b->strings_offset &&
           a->strings_size == b->strings_size;
}

int xtab_refresh(struct xtab *t, char *err, size_t errlen)
{
    char why[256];
    struct xtab_geom g;
    if (xtab_validate(t->base, t->size, &g, why, sizeof(why))) {
        t->broken = true;
        xtab_unusable(err, errlen, "%s", why);
        return -EPROTO;
    }
    if (!same_geometry(&g, &t->g)) {
        t->broken = true;
        xtab_unusable(err, errlen, "the header changed under the reader");
        return -EPROTO;
    }
    if (counters_sane(t->base, &t->g, why, sizeof(why))) {
        t->broken = true;
        xtab_unusable(err, errlen, "%s", why);
        return -EPROTO;
    }
    return 0;
}

void xtab_close(struct xtab *t)
{
    if (!t)
        return;
    if (t->map)
        munmap(t->map, t->size);
    free(t->copy);
    free(t);
}

uint64_t xtab_counter(const struct xtab *t, size_t field)
{
    if (t->broken)
        return 0;
    const unsigned char *c = t->base + offsetof(struct xtab_header, counters) + field;
    return __atomic_load_n((const uint64_t *)c, __ATOMIC_ACQUIRE);
}

#define COUNTER(t, f) xtab_counter(t, offsetof(struct xtab_counters, f))

void xtab_stats(struct xtab *t, struct xtab_stats *s)
{
    *s = (struct xtab_stats){
        .pid = t->g.pid,
        .start_ns = t->g.start_ns,
        .site_capacity = t->g.sites.capacity,
        .task_capacity = t->g.tasks.capacity,
        .alloc_capacity = t->g.allocs.capacity,
        .string_capacity = t->g.strings_size,
        .sites = COUNTER(t, sites),
        .tasks = COUNTER(t, task_ticket),
        .allocs = COUNTER(t, allocs),
        .strings_used = COUNTER(t, strings_used),
        .sites_dropped = COUNTER(t, sites_dropped),
        .strings_dropped = COUNTER(t, strings_dropped),
        .allocs_dropped = COUNTER(t, allocs_dropped),
        .running_tasks_recycled = COUNTER(t, running_tasks_recycled),
        .task_ends_unmatched = COUNTER(t, task_ends_unmatched),
        .releases_unmatched = COUNTER(t, releases_unmatched),
        .bad_records = t->bad_records,
        .flags = t->g.flags,
        .tasks_dropped = COUNTER(t, tasks_dropped),
    };
}
