/* SPDX-License-Identifier: MIT */
/* The XPTI table's layout in shared memory (see xpti/README.md, "The XPTI
 * table"). Written only by the subscriber (xtab_writer.c), read by zestub
 * (xtab_reader.c), which trusts none of it. Everything is little-endian
 * x86-64 native: writer and reader run on the same host.
 *
 * Every shared word is accessed with __atomic builtins, never through _Atomic
 * types, so both sides can view the same bytes through plain structs and the
 * reader can copy a record word by word without a data race. */
#ifndef ZESTUB_XPTI_XTAB_FORMAT_H
#define ZESTUB_XPTI_XTAB_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define XTAB_MAGIC UINT64_C(0x3142415450585a5a) /* "ZZXPTAB1" read as bytes */
#define XTAB_VERSION 1u
#define XTAB_HEADER_SIZE 256u
/* What the writer names its memfd; /proc/PID/fd shows "/memfd:" + this. */
#define XTAB_MEMFD_NAME "zestub-xpti"
#define XTAB_NONE UINT32_MAX               /* no site */
#define XTAB_STR_LOST UINT32_MAX           /* string dropped: string area full */
#define XTAB_STRING_MAX 4096u              /* longer strings are cut by the writer */
#define XTAB_MAX_TABLE (UINT64_C(1) << 30) /* the reader maps no more than this */

/* One array of fixed-size records. */
struct xtab_area {
    uint64_t offset; /* from the start of the table, 8-aligned */
    uint32_t record_size;
    uint32_t capacity;
};

/* Header counters: only ever increased, by atomic read-modify-write. */
struct xtab_counters {
    uint64_t sites;         /* site slots handed out (may exceed capacity) */
    uint64_t allocs;        /* allocation slots handed out by append (idem) */
    uint64_t task_ticket;   /* next task ticket; its slot is ticket % capacity */
    uint64_t strings_used;  /* bytes of the string area handed out (idem) */
    uint64_t sites_dropped; /* full-table losses, see the README's policy */
    uint64_t strings_dropped;
    uint64_t allocs_dropped;
    uint64_t running_tasks_recycled; /* running tasks overwritten: ring full of them */
    uint64_t task_ends_unmatched;
    uint64_t releases_unmatched;
    uint64_t tasks_dropped; /* ended tasks overwritten by newer ones: older tasks dropped */
};

/* Header flags: the policies this writer follows when an area is full (a
 * reader that sees a flag can say what a full area lost). */
enum {
    /* The task ring overwrites the oldest ended task but skips a site's
     * newest task (and running ones), so every site keeps its latest. */
    XTAB_FLAG_TASKS_KEEP_SITE_NEWEST = 1u << 0,
    /* Live allocations are never overwritten; freed ones are recycled. */
    XTAB_FLAG_ALLOCS_KEEP_LIVE = 1u << 1,
};

/* Written once before the table is published (the memfd is sealed and the
 * magic stored last); only `counters` changes afterwards. */
struct xtab_header {
    uint64_t magic;
    uint32_t version;
    uint32_t header_size;
    uint64_t total_size;
    uint32_t pid;      /* the writer; a forked child inherits the fd, not the table */
    uint32_t flags;    /* XTAB_FLAG_* */
    uint64_t start_ns; /* CLOCK_MONOTONIC at creation, the timestamps' clock */
    struct xtab_area sites, tasks, allocs;
    uint64_t strings_offset;
    uint64_t strings_size;
    struct xtab_counters counters;
};
_Static_assert(sizeof(struct xtab_header) <= XTAB_HEADER_SIZE, "header fits its slot");

/* Records start with `seq`, a seqlock word: 0 = never written, odd = being
 * written, even = stable. A writer takes a slot by moving seq from even to
 * odd with a CAS, fills it, and stores seq + 1 with release ordering; a
 * reader copies the record between two acquire loads of seq and keeps the
 * copy only if both are the same even, non-zero value. */

/* A string in the string area: `length` bytes then a NUL. */
struct xtab_str {
    uint32_t offset; /* from strings_offset; XTAB_STR_LOST if dropped */
    uint32_t length;
};

/* A code location (append-only: written once, never recycled). key1/key2
 * identify the location for every instance (see subscriber_site.c). */
struct xtab_site_rec {
    uint64_t seq;
    uint64_t uid; /* 64-bit id of the first instance seen (the node's) */
    uint64_t key1, key2;
    uint32_t line, column;
    struct xtab_str kernel, function, file, device;
};

/* One task instance (task_begin .. task_end), in a ring. */
struct xtab_task_rec {
    uint64_t seq;
    uint64_t ticket; /* ordering: higher is later */
    uint64_t uid;
    uint64_t instance;
    uint64_t queue;            /* "queue_id" stash tuple, 0 if none */
    uint64_t begin_ns, end_ns; /* end_ns 0 while running */
    uint32_t site;
    uint32_t tid; /* the notifying thread (gettid) */
};

enum { XTAB_ALLOC_LIVE = 1, XTAB_ALLOC_FREED = 2 };

/* One device allocation; a freed record may be recycled, a live one never. */
struct xtab_alloc_rec {
    uint64_t seq;
    uint64_t base, size, guard;
    uint64_t mem_object;
    uint64_t alloc_uid, free_uid;
    uint64_t alloc_ns, free_ns;
    uint32_t alloc_site, free_site;
    uint32_t state;
    uint32_t pad;
};

_Static_assert(sizeof(struct xtab_site_rec) % 8 == 0, "records are whole words");
_Static_assert(sizeof(struct xtab_task_rec) % 8 == 0, "records are whole words");
_Static_assert(sizeof(struct xtab_alloc_rec) % 8 == 0, "records are whole words");

/* Word-wise copies between shared memory and a private record. Relaxed
 * atomics: the seqlock's fences give the ordering. */
static inline void xtab_words_store(void *shared, const void *local, size_t bytes)
{
    uint64_t *d = shared;
    const uint64_t *s = local;
    for (size_t i = 0; i < bytes / 8; i++)
        __atomic_store_n(&d[i], s[i], __ATOMIC_RELAXED);
}

static inline void xtab_words_load(void *local, const void *shared, size_t bytes)
{
    uint64_t *d = local;
    const uint64_t *s = shared;
    for (size_t i = 0; i < bytes / 8; i++)
        d[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
}

#endif
