/* SPDX-License-Identifier: MIT */
/* The one pass over the stopped threads: each thread's record (its place,
 * its XPTI submission, the register sets any emitter wants, each read once)
 * built and handed to every active emitter, one record at a time. A record's
 * register sets leave the session's cache once it has passed, so that a dump
 * of every thread's registers reuses one thread's worth of memory instead of
 * keeping them all (at 65,536 threads half a GiB of GRF, and most of the
 * dump's time went into the kernel clearing those fresh pages); what was
 * cached before the record (cr0, read to locate every thread) stays. */
#ifndef ZESTUB_REPORT_PASS_H
#define ZESTUB_REPORT_PASS_H

#include <pthread.h>
#include <stdio.h>

#include "report/emitter.h"

#define REPORT_PASS_MAX_EMITTERS 8

struct report_pass {
    struct sess_manager *m;
    struct report_emitter *em;
    size_t nem;
    /* Held while an emitter writes (the watchdog may end the document
     * between records), never while the device is read. NULL: none. */
    pthread_mutex_t *lock;
    struct regs_catalog *const *cats; /* one per session */
    unsigned ncats;
    enum dump_regs regs;
    struct sess_xpti *x; /* NULL: no table */
    uint64_t stop_ns;    /* when every thread was stopped (XPTI's clock) */
    /* A line there once a second while it takes longer than one (NULL:
     * none): "N of M threads looked at". */
    FILE *progress;
    /* Out: records passed; per emitter, records with a set it wanted that
     * could not be read, and the last such reason. */
    unsigned nthreads;
    unsigned reg_failures[REPORT_PASS_MAX_EMITTERS];
    char reg_error[256];
};

/* threads_begin, every stopped thread of every device, threads_end. 0, or
 * -1 when an emitter failed. *nthreads_io is the count before (progress). */
int report_pass_run(struct report_pass *p);

/* The page faults of every device with the threads stopped at them and
 * their XPTI allocations. *out (free with report_faults_free), 0 or -1. */
int report_faults_collect(struct sess_manager *m, struct sess_xpti *x, struct report_fault **out,
                          size_t *n);
void report_faults_free(struct report_fault *f, size_t n);

/* One register catalogue per session of m (an entry NULL when its sets
 * make none); free with report_catalogs_free. NULL when out of memory. */
struct regs_catalog **report_catalogs_new(struct sess_manager *m, unsigned *n);
void report_catalogs_free(struct regs_catalog **cats, unsigned n);

#endif
