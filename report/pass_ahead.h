/* SPDX-License-Identifier: MIT */
/* Reading ahead of the pass from several host threads. The pass emits its
 * records one at a time, in order; what each record reads from the device
 * (the thread's cr0, which says whether it is stopped at all, and the sets
 * every record of its device wants) does not depend on the records before
 * it, and the debug API answers calls from several host threads at once
 * (Intel's runtime takes no session lock for register reads). So readers
 * fill the session's cache a window ahead of the pass, and the pass finds
 * its sets there. Each set is still read once: the driver calls are the
 * same, only in flight together. Internal to report/. */
#ifndef ZESTUB_REPORT_PASS_AHEAD_H
#define ZESTUB_REPORT_PASS_AHEAD_H

#include <stdint.h>

#include "report/pass.h"

struct pass_ahead;

/* Starts the readers for p's threads, every session's in order, with
 * sets[k] (catalogue set bits) to read of each stopped thread of session
 * k. NULL: read nothing ahead (one reader or none asked for, or no memory,
 * or no thread could start); the pass reads as records come. */
struct pass_ahead *pass_ahead_start(struct report_pass *p, const uint32_t *sets);
/* Waits until item i (counted over every session's threads, in order) was
 * read ahead; returns the catalogue sets the reader put in the cache for
 * it, which the pass drops once the record has passed. */
uint32_t pass_ahead_wait(struct pass_ahead *a, uint64_t i);
/* Item i has passed: its window slot may take the next. */
void pass_ahead_passed(struct pass_ahead *a, uint64_t i);
/* Stops and joins the readers (a reader in a driver call finishes it). */
void pass_ahead_stop(struct pass_ahead *a);

#endif
