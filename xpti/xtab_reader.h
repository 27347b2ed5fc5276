/* SPDX-License-Identifier: MIT */
/* Reading an application's XPTI table (xpti/README.md, "The XPTI table").
 * Needs neither the XPTI dispatcher nor the subscriber: sessions/ links only
 * libxtab. The table is written by another process which may be buggy,
 * crashed or hostile, so nothing read from it is trusted: every offset,
 * length, count and index is checked, every record is copied before it is
 * looked at, and every string handed out is a bounded, NUL-terminated copy.
 *
 * One struct xtab may be used by one thread at a time. */
#ifndef ZESTUB_XPTI_XTAB_READER_H
#define ZESTUB_XPTI_XTAB_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct xtab;

#define XTAB_ERR_PREFIX "XPTI table unusable: "

/* Opens the table of process `pid` (found among /proc/PID/fd as the memfd
 * "zestub-xpti" whose header names that pid), mapped read-only.
 * Returns NULL with `err` set to either
 *   "no XPTI table for pid N (application not instrumented)",
 *   "no XPTI table for pid N (no such process)" or
 *   "XPTI table unusable: <reason>" (unreadable /proc, bad header, ...).
 * `err` may be NULL. */
struct xtab *xtab_open(pid_t pid, char *err, size_t errlen);

/* Same checks on an open descriptor (the caller keeps it; the table must be
 * a sealed memfd). Errors as xtab_open's "unusable" form. */
struct xtab *xtab_open_fd(int fd, char *err, size_t errlen);

/* A private copy of `len` bytes as a table: for tests, the fuzz target and
 * post-mortem copies. No seal is required (the copy cannot shrink). */
struct xtab *xtab_open_buffer(const void *buf, size_t len, char *err, size_t errlen);

/* Rechecks the header (magic, version, geometry unchanged). The counters are
 * read afresh by every query anyway. Returns 0, or -EPROTO with `err` set to
 * "XPTI table unusable: <reason>"; a table that fails stays open and every
 * query then finds nothing. */
int xtab_refresh(struct xtab *t, char *err, size_t errlen);

void xtab_close(struct xtab *t);

#define XTAB_KERNEL_MAX 512
#define XTAB_FUNCTION_MAX 512
#define XTAB_FILE_MAX 1024
#define XTAB_DEVICE_MAX 256

/* A code location. Empty strings when unknown or lost to a full table. */
struct xtab_site {
    uint32_t index; /* in the table, for xtab_site_at */
    uint64_t uid;   /* 64-bit id of its first instance */
    uint64_t key1, key2;
    uint32_t line, column;
    char kernel[XTAB_KERNEL_MAX];
    char function[XTAB_FUNCTION_MAX];
    char file[XTAB_FILE_MAX];
    char device[XTAB_DEVICE_MAX];
};

struct xtab_task {
    uint64_t ticket; /* higher is later */
    uint64_t uid, instance, queue;
    uint64_t begin_ns, end_ns; /* CLOCK_MONOTONIC of the host; end_ns 0: running */
    uint32_t site;             /* index or UINT32_MAX */
    uint32_t tid;
};

struct xtab_alloc {
    uint64_t base, size, guard, mem_object;
    int live;     /* 1 live, 0 freed */
    int in_guard; /* xtab_find_alloc: the address is in the guard zone */
    uint64_t alloc_uid, free_uid;
    uint64_t alloc_ns, free_ns;
    uint32_t alloc_site, free_site; /* index or UINT32_MAX */
};

struct xtab_stats {
    pid_t pid;
    uint64_t start_ns;
    uint32_t site_capacity, task_capacity, alloc_capacity;
    uint64_t string_capacity;
    uint64_t sites, tasks, allocs, strings_used; /* as the writer counts them */
    uint64_t sites_dropped, strings_dropped, allocs_dropped;
    uint64_t running_tasks_recycled, task_ends_unmatched, releases_unmatched;
    uint64_t bad_records;   /* records this reader rejected so far */
    uint32_t flags;         /* the writer's XTAB_FLAG_* policies */
    uint64_t tasks_dropped; /* ended tasks the ring overwrote (older tasks dropped) */
};

void xtab_stats(struct xtab *t, struct xtab_stats *out);

enum xtab_kind { XTAB_SITES, XTAB_TASKS, XTAB_ALLOCS };

/* Slots to iterate for xtab_*_at: 0 .. count-1. */
size_t xtab_count(struct xtab *t, enum xtab_kind kind);

/* One record by slot. Return 0; -ENOENT when the slot is empty, being
 * written (retry later) or corrupt; -ERANGE when i >= xtab_count. */
int xtab_site_at(struct xtab *t, size_t i, struct xtab_site *out);
int xtab_task_at(struct xtab *t, size_t i, struct xtab_task *out);
int xtab_alloc_at(struct xtab *t, size_t i, struct xtab_alloc *out);

/* Submission sites of kernel `name` (exact match). Fills up to `max` sites
 * and returns how many match in all (0: none; -EINVAL for NULL args). If
 * `latest` is not NULL it receives the latest running task of any matching
 * site or, when none runs, the latest ended one; *have_latest says whether
 * there was one. */
int xtab_find_kernel(struct xtab *t, const char *name, struct xtab_site *sites, size_t max,
                     struct xtab_task *latest, int *have_latest);

/* The allocation containing `addr` (guard zone included): a live one first,
 * otherwise the most recently freed. Returns 0 or -ENOENT. */
int xtab_find_alloc(struct xtab *t, uint64_t addr, struct xtab_alloc *out);

/* The site a 64-bit id belongs to: a site's own uid, else a task or an
 * allocation carrying it. Returns 0 or -ENOENT. */
int xtab_find_uid(struct xtab *t, uint64_t uid, struct xtab_site *out);

#endif
