/* SPDX-License-Identifier: MIT */
/* The XPTI join: what the application's SYCL runtime published in its XPTI
 * table (xpti/README.md, "The XPTI table"), joined with what the device
 * reports. A stopped thread's kernel (from its PC, via symbols/) becomes
 * the submission site(s) of that kernel and the task instance(s) that were
 * running on the thread's device when it stopped; a fault address becomes
 * the allocation that contains (or contained) it and where it was made and
 * freed.
 *
 * The table names kernels, not hardware threads, so the join can only be as
 * precise as the table: when several running tasks fit (same kernel on two
 * devices that the table cannot tell apart, or two instances of one site in
 * flight) every candidate is returned and the answer says it is ambiguous.
 *
 * One struct sess_xpti may be used by one thread at a time. */
#ifndef ZESTUB_SESS_XPTI_H
#define ZESTUB_SESS_XPTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sessions/sess.h"
#include "xpti/xtab_reader.h"

struct sess_xpti;

/* Opens the XPTI table of process pid. NULL when there is none or it is
 * unusable; `note` then holds one sentence for the user, e.g. "no XPTI
 * table for pid 42 (application not instrumented): no submission sites or
 * allocations". */
struct sess_xpti *sess_xpti_open(uint32_t pid, char *note, size_t notelen);
void sess_xpti_close(struct sess_xpti *x);
void sess_xpti_stats(struct sess_xpti *x, struct xtab_stats *out);

/* For a long-lived struct sess_xpti (the GDB server keeps one per attach):
 * the threads stopped again, so the cached answers of sess_xpti_submission
 * (tasks running at the last stop) are dropped and the table's header is
 * checked again. */
void sess_xpti_new_stop(struct sess_xpti *x);

/* The table's records, for listings: slots 0 .. count-1 of a kind; an
 * empty, half-written or corrupt slot is -ENOENT (skip it), i >= count
 * -ERANGE. The table is read as it is now. */
size_t sess_xpti_count(struct sess_xpti *x, enum xtab_kind kind);
int sess_xpti_site_at(struct sess_xpti *x, size_t i, struct xtab_site *out);
int sess_xpti_task_at(struct sess_xpti *x, size_t i, struct xtab_task *out);
int sess_xpti_alloc_at(struct sess_xpti *x, size_t i, struct xtab_alloc *out);
/* The site of a task or allocation (its `site`, `alloc_site` or
 * `free_site` index; UINT32_MAX: none). 0, or -ENOENT. */
int sess_xpti_site_of(struct sess_xpti *x, uint32_t index, struct xtab_site *out);
/* Up to max submission sites of kernel `name`; how many the table has in
 * all (0: none). */
int sess_xpti_kernel_sites(struct sess_xpti *x, const char *name, struct xtab_site *sites,
                           size_t max);
/* The site a 64-bit id belongs to (a site's, a task's or an allocation's
 * uid). 0, or -ENOENT. */
int sess_xpti_site_of_uid(struct sess_xpti *x, uint64_t uid, struct xtab_site *out);

/* A running task: the one definition every answer uses. A task runs from
 * its task_begin until its task_end; at_ns 0 means now (no end yet), else
 * the host CLOCK_MONOTONIC instant asked about (a stop). A task whose begin
 * was never recorded runs for nobody. */
bool sess_xpti_task_running(const struct xtab_task *t, uint64_t at_ns);
/* A live allocation: not freed, not empty, not wrapping the address space
 * (only those are worth reading from the device). */
bool sess_xpti_alloc_live(const struct xtab_alloc *a);

/* The oldest submission running now: 0 with *oldest and *in_flight (tasks
 * running), -ENOENT when none runs. *unreadable counts the task slots in
 * use that could not be read (a record being written, or a damaged one:
 * a seqlock word left odd, a site index outside the table): a caller that
 * sees them again and again cannot trust an absence of running tasks. */
int sess_xpti_oldest_running(struct sess_xpti *x, struct xtab_task *oldest, unsigned *in_flight,
                             unsigned *unreadable);

enum sess_xpti_how {
    SESS_XPTI_UNIQUE = 1, /* exactly one task was running: it is the thread's */
    SESS_XPTI_AMBIGUOUS,  /* several running tasks fit: all are candidates */
    SESS_XPTI_SITE_ONLY,  /* the kernel's site(s) are known, no task was running */
};

#define SESS_XPTI_MAX_SITES 16
#define SESS_XPTI_MAX_CANDIDATES 8

struct sess_xpti_candidate {
    const struct xtab_site *site; /* into the submission's sites */
    bool has_task;                /* false for SESS_XPTI_SITE_ONLY */
    struct xtab_task task;
};

struct sess_xpti_submission {
    enum sess_xpti_how how;
    /* Candidates found in all; only the first SESS_XPTI_MAX_CANDIDATES
     * (latest task first) are listed. */
    size_t total, ncand;
    struct sess_xpti_candidate cand[SESS_XPTI_MAX_CANDIDATES];
    /* Sites dropped because their device names another attached device. */
    size_t other_device_sites;
    size_t nsites;
    struct xtab_site sites[SESS_XPTI_MAX_SITES];
};

/* Where the kernel a thread of `session` runs was submitted. `stop_ns` is
 * CLOCK_MONOTONIC when the threads were known stopped (the table's clock):
 * a task counts as running if it began before and had not ended by then.
 * Returns NULL when the table knows no site of `kernel` (or on no memory).
 * The result is cached per (session, kernel) and lives as long as x, so
 * open one sess_xpti per stop: later calls reuse the first call's stop_ns. */
const struct sess_xpti_submission *sess_xpti_submission(struct sess_xpti *x, struct sess_manager *m,
                                                        unsigned session, const char *kernel,
                                                        uint64_t stop_ns);

struct sess_xpti_alloc {
    struct xtab_alloc a;
    bool has_alloc_site, has_free_site;
    struct xtab_site alloc_site, free_site;
};

/* The allocation containing addr: a live one, else the most recently freed
 * (guard zone included). 0, or -ENOENT. */
int sess_xpti_allocation(struct sess_xpti *x, uint64_t addr, struct sess_xpti_alloc *out);

#endif
