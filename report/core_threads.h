/* SPDX-License-Identifier: MIT */
/* Which stopped threads a GPU core holds and in which order
 * (doc/core-format.md, "Signals and thread order"). */
#ifndef ZESTUB_REPORT_CORE_THREADS_H
#define ZESTUB_REPORT_CORE_THREADS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/core_out.h"
#include "regsets/regs.h"
#include "sessions/sess.h"

/* Ranks of stop reasons: page fault, illegal instruction, software
 * exception, breakpoint, then the rest (interrupted by zestub). */
#define CORE_RANKS 5

struct core_thread {
    uint32_t thread; /* the device's hardware thread index */
    enum isa_stop_reason reason;
};

struct core_threads {
    struct core_thread *t;
    size_t n;
    size_t count[CORE_RANKS]; /* stopped threads per rank, before any limit */
};

/* Every stopped thread of session k, by rank, device order within a rank.
 * 0, or -1 when out of memory. */
int core_threads_select(struct sess_manager *m, unsigned k, struct core_threads *th);
/* --core-threads: keeps the threads that stopped for their own reason
 * (all when none did, said on log) and at most opts->max_threads. */
void core_threads_limit(struct core_threads *th, const struct core_opts *opts, FILE *log);
/* The order Intel's GDB needs (current thread first, signal last); call
 * with th->n > 0 once the list is final. */
void core_threads_order_for_gdb(struct core_threads *th);
void core_threads_free(struct core_threads *th);

/* The Linux signal number of a stop reason; 0 for none. */
int core_host_signal(enum isa_stop_reason r);

#endif
