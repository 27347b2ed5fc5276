/* SPDX-License-Identifier: MIT */
/* zestub dump --core FILE: a GPU core file per device that Intel's GDB
 * opens with `target core FILE` (format: doc/core-format.md). */
#ifndef ZESTUB_REPORT_CORE_OUT_H
#define ZESTUB_REPORT_CORE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sessions/sess.h"
#include "report/emitter.h"
#include "sessions/sess_xpti.h"

/* What goes into a core besides the notes every core has. */
struct core_opts {
    uint64_t mem_limit;     /* bytes of device memory besides code; 0: none */
    size_t max_threads;     /* at most this many threads, in core order; 0: all */
    bool faulting_only;     /* only threads that stopped for a reason of their own */
    uint64_t size_limit;    /* the whole file at most this many bytes; 0: no bound */
    struct sess_xpti *xpti; /* the application's XPTI table (allocations), or NULL */
    FILE *log;              /* messages; NULL: stderr */
};

/* The default memory budget (--core-memory). */
#define CORE_DEFAULT_MEM_LIMIT (64ull << 20)
/* The default bound on a core's whole size (--core-size): every thread of
 * a 65,536-thread Xe-HPC device (about 17 KB of registers each) and the
 * default memory fit. */
#define CORE_DEFAULT_SIZE_LIMIT (2ull << 30)

/* The core emitter (emit_core.c): one core per device with stopped
 * threads, while they are still stopped: PATH for a single device, PATH.N
 * (N the device's position in the dump) when there are several, each
 * through report/outfile.h (NAME exists afterwards only when it is this
 * run's and whole). Its threads' registers come from the pass's records.
 * x: the XPTI table for the memory plan (NULL: none). ctx NULL when out of
 * memory. Its threads_end is 0, or -1 with the reason on the log. */
struct report_emitter report_core_new(const char *path, const struct core_opts *opts,
                                      struct sess_xpti *x);
/* The cores alone (monitor core): a pass with only the core emitter, the
 * XPTI table opts->xpti. 0, or -1 with the reason on the log. */
int core_write_all(struct sess_manager *m, const char *path, const struct core_opts *opts);

/* "0", "none", "4096", "512K", "64M", "2G" (powers of 1024) to bytes.
 * 0, or -1 when it does not parse. */
int core_parse_size(const char *s, uint64_t *bytes);
/* --core-size: a size of at least 4K, or "unlimited" (0). 0, or -1. */
int core_parse_size_limit(const char *s, uint64_t *bytes);
/* "all", "faulting" or a number of threads N > 0 into opts (faulting_only,
 * max_threads). 0, or -1 when it does not parse. */
int core_parse_threads(const char *s, struct core_opts *opts);

#endif
