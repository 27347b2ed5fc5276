/* SPDX-License-Identifier: MIT */
/* The XPTI table's writer: appends code locations, task instances and
 * allocations to a table in memory (xtab_format.h) from any number of
 * application threads. Used by the subscriber library and by tests; the
 * reader must not depend on it. */
#ifndef ZESTUB_XPTI_XTAB_WRITER_H
#define ZESTUB_XPTI_XTAB_WRITER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "xpti/xtab_format.h"

struct xtab_caps {
    uint32_t sites, tasks, allocs; /* record capacities, each >= 1 */
    uint32_t strings;              /* bytes */
};

/* Capacities for a real application: about 7 MiB of address space, of which
 * only the pages touched are ever allocated. */
#define XTAB_DEFAULT_CAPS                                                                          \
    ((struct xtab_caps){.sites = 4096, .tasks = 65536, .allocs = 16384, .strings = 1u << 20})

/* What the writer knows of a code location when it first records it. NULL
 * strings are stored as empty. */
struct xtab_site_in {
    uint64_t uid, key1, key2;
    uint32_t line, column;
    const char *kernel, *function, *file, *device;
};

/* The writer's private state (never in the shared table). `lock` guards
 * site and string appends and the allocation bookkeeping below; tasks take
 * no lock. */
/* The table's layout as the writer made it. The shared header holds the
 * same values for readers, but any process of the user can write to the
 * table: the writer never reads its layout back from shared memory, so a
 * changed offset or capacity cannot steer its writes or divide by zero. */
struct xtab_w_geom {
    struct xtab_area sites, tasks, allocs;
    uint64_t strings_offset, strings_size, total_size;
};

struct xtab_w {
    unsigned char *base;
    struct xtab_header *h;
    struct xtab_w_geom g;
    pthread_mutex_t lock;
    uint32_t *site_index; /* open addressing on the site key: site + 1, 0 = empty */
    uint32_t site_index_mask;
    uint64_t *alloc_keys; /* open addressing on base address -> slot, live only */
    uint32_t *alloc_slots;
    uint32_t alloc_index_mask;
    uint64_t *site_newest; /* per site: ticket + 1 of its newest task, 0 = none */
    uint32_t *freed;       /* FIFO of freed slots, oldest first: the recycling order */
    uint32_t freed_head, freed_count;
    int fd; /* the memfd, or -1 */
};

/* Bytes a table with these capacities needs; 0 if a capacity is 0 or the
 * total exceeds XTAB_MAX_TABLE. */
size_t xtab_w_size(const struct xtab_caps *caps);

/* Lays a table out in `mem` (xtab_w_size bytes, zeroed, 8-aligned) and
 * publishes its header (magic last). Returns 0, -EINVAL for bad capacities
 * or a short buffer, -ENOMEM. */
int xtab_w_init(struct xtab_w *w, void *mem, size_t size, const struct xtab_caps *caps);

/* Creates a sealed memfd named XTAB_MEMFD_NAME (close-on-exec), maps it and
 * lays the table out in it. Returns 0 or a negative errno; `err` says what
 * failed. */
int xtab_w_create_memfd(struct xtab_w *w, const struct xtab_caps *caps, char *err, size_t errlen);

/* Frees the private state; unmaps and closes the memfd if it made one. */
void xtab_w_destroy(struct xtab_w *w);

/* The site index for a key, or XTAB_NONE. Lock-free. */
uint32_t xtab_w_site_find(struct xtab_w *w, uint64_t key1, uint64_t key2);

/* Records a code location unless its key is known; returns its index, or
 * XTAB_NONE when the site area is full (counted in sites_dropped). */
uint32_t xtab_w_site_add(struct xtab_w *w, const struct xtab_site_in *in);

/* A task instance began. Never fails: a full ring recycles (README). */
void xtab_w_task_begin(struct xtab_w *w, uint64_t uid, uint64_t instance, uint32_t site,
                       uint64_t queue, uint64_t now_ns);

/* The task (uid, instance) ended; counted in task_ends_unmatched if the ring
 * no longer holds it. Found at once when the same thread began it recently,
 * else by a scan of the ring, newest first. */
void xtab_w_task_end(struct xtab_w *w, uint64_t uid, uint64_t instance, uint64_t now_ns);

/* A device allocation [base, base + size) with `guard` guard bytes after it.
 * Returns 0, or -ENOSPC when every slot holds a live allocation (counted in
 * allocs_dropped). Re-recording a live base first releases the old one. */
int xtab_w_alloc(struct xtab_w *w, uint64_t base, uint64_t size, uint64_t guard,
                 uint64_t mem_object, uint64_t uid, uint32_t site, uint64_t now_ns);

/* The allocation at `base` is released. Returns 0, or -ENOENT (counted in
 * releases_unmatched) when no live allocation starts there. */
int xtab_w_release(struct xtab_w *w, uint64_t base, uint64_t uid, uint32_t site, uint64_t now_ns);

#endif
