/* SPDX-License-Identifier: MIT */
/* Progress of work that can take seconds at very large thread counts (an
 * attach, a thread list of 262,144 threads): lines on the log's stderr at
 * --log-level info, never in the packet stream (a client may be waiting
 * for one reply and would take anything else for it). Silent for work
 * done within a second. */
#ifndef ZESTUB_GDBSTUB_PROGRESS_H
#define ZESTUB_GDBSTUB_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "gdbstub/log.h"

struct rsp_progress {
    const struct rsp_log *log; /* NULL or below info: nothing is said */
    const char *what;
    uint64_t t0_ns, next_ns;
    bool said; /* a line went out: the end is reported too */
};

/* Starts timing `what` (a static string, e.g. "thread list"). */
void rsp_progress_begin(struct rsp_progress *p, const struct rsp_log *log, const char *what);
/* "zestub: info: <what>: <done> of <total> <unit>, N.N s so far", at most
 * once a second from the first second on. Cheap enough to call every few
 * thousand items. */
void rsp_progress_tick(struct rsp_progress *p, uint64_t done, uint64_t total, const char *unit);
/* "<what>: <count> <unit> in N.N s" when the work took a second or more,
 * or when a progress line was printed. */
void rsp_progress_end(struct rsp_progress *p, uint64_t count, const char *unit);

#endif
