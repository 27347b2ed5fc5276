/* SPDX-License-Identifier: MIT */
/* The sessions target's handle on the application's XPTI table (issue 8):
 * opened lazily, because an application may create its table after the
 * debugger attached, and kept until detach. Looking for it scans
 * /proc/PID/fd, so a missing table is looked for again at most once per
 * stop and once per second, or whenever a monitor command asks. Also the
 * per-thread names of qXfer:threads:read ("vadd @ vadd.cl:6"), cached per
 * stop and bounded because GDB lists the threads after every stop. */
#ifndef ZESTUB_TARGET_TGT_XPTI_H
#define ZESTUB_TARGET_TGT_XPTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tgt_xpti;
struct sess_manager;
struct sess_xpti;
struct sess_xpti_submission;
struct xtab_site;

/* For the application with host pid host_pid; NULL only without memory. */
struct tgt_xpti *tgt_xpti_new(uint32_t host_pid);
void tgt_xpti_free(struct tgt_xpti *xp);

/* The threads were stopped (a stop reported to the client): answers about
 * running tasks and thread names are computed afresh, and a missing table
 * may be looked for again. */
void tgt_xpti_stopped(struct tgt_xpti *xp);

/* The table, or NULL (then tgt_xpti_note says why). now: look for a
 * missing table at once (a user command), else only if allowed again. */
struct sess_xpti *tgt_xpti_table(struct tgt_xpti *xp, bool now);
/* One sentence on why there is no table ("no XPTI table for pid N
 * (application not instrumented): ..."). */
const char *tgt_xpti_note(const struct tgt_xpti *xp);
uint32_t tgt_xpti_pid(const struct tgt_xpti *xp);
/* CLOCK_MONOTONIC of the last stop, 0 before the first. */
uint64_t tgt_xpti_stop_ns(const struct tgt_xpti *xp);

/* sess_xpti_submission at the last stop; NULL without a table or a site. */
const struct sess_xpti_submission *tgt_xpti_submission(struct tgt_xpti *xp, struct sess_manager *m,
                                                       unsigned session, const char *kernel);
/* The one site every candidate of s shares (the submitting line is known
 * even when the task is not), or NULL. */
const struct xtab_site *tgt_xpti_common_site(const struct sess_xpti_submission *s);

/* A stopped thread's name: "KERNEL @ FILE:LINE", plus " (HOSTFILE:LINE)"
 * when the XPTI table names one submitting line (base names only, to stay
 * short). 0 and buf filled, or -ENOENT (not stopped, no PC, no known
 * kernel, or more than 4,096 threads of the device stopped: their PC
 * reads would cost seconds on every stop). m's thread must be valid. */
int tgt_xpti_thread_name(struct tgt_xpti *xp, struct sess_manager *m, unsigned session,
                         uint32_t thread, char *buf, size_t len);

#endif
