/* SPDX-License-Identifier: MIT */
/* zestub dump --on hang=DURATION: when is a program hung, and what the
 * report says about it (doc/dump-format.md, "Hang dumps").
 *
 * The debug API has no "kernel completed" event, so zestub cannot watch
 * kernels end. Two rules, the first that applies:
 *   xpti      the application's XPTI table (looked for at every poll) has
 *             submissions in flight (task_begin, no task_end): the trigger
 *             fires when the oldest is older than DURATION;
 *   deadline  no table: DURATION after zestub attached, and every DURATION
 *             after that, zestub interrupts every device; the trigger
 *             fires when at least one device thread was running (an idle
 *             device is resumed, nothing is dumped, and the next check is
 *             DURATION later). */
#ifndef ZESTUB_CLI_DUMP_HANG_H
#define ZESTUB_CLI_DUMP_HANG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/dump.h"
#include "sessions/sess.h"
#include "sessions/sess_xpti.h"

enum hang_rule { HANG_RULE_XPTI, HANG_RULE_DEADLINE };

struct dump_hang {
    uint32_t pid;
    double limit_s; /* DURATION */
    enum after_hang after;
    double attached_s;   /* dump_now_s() at attach: the deadline rule's start */
    double next_check;   /* deadline rule: when to look next */
    struct sess_xpti *x; /* the table once found (owned) */
    /* Polls in a row with unreadable task records; once there were too
     * many the table is not trusted again (the deadline rule watches). */
    unsigned unreadable_polls;
    bool xpti_damaged;
    /* Deadline rule: the driver refused the interrupt that is its only
     * look at the device (its words): the watch ends, the hang unjudged. */
    char interrupt_error[256];
    /* Set when the trigger fired: */
    enum hang_rule rule;
    double running_s;   /* age of the oldest submission, or time since attach */
    double trigger_s;   /* dump_now_s() when it fired */
    unsigned in_flight; /* xpti: submissions begun and not ended */
    unsigned checks;    /* deadline: interrupts that found the device idle */
    bool has_task, has_site;
    struct xtab_task task;
    struct xtab_site site;
};

/* Parses DURATION with cli_parse_duration (cli/duration.h): a number with
 * an optional unit ms, s, m or h (seconds when none), 0 < value <= 24 h.
 * 0, or -1 (caller prints the usage). */
int dump_hang_parse(const char *text, double *seconds);
void dump_hang_init(struct dump_hang *h, uint32_t pid, double limit_s);
void dump_hang_fini(struct dump_hang *h);
/* Waits for a hang (or the end of the program) while releasing module
 * loads: 0 triggered (h says which rule and the facts), 3 deadline passed,
 * 4 every session gone, 5 WAKE_FD readable (-1: none). */
int dump_wait_hang(struct dump_hang *h, struct sess_manager *m, double deadline, int wake_fd);
/* What follows dump_wait_hang's rc: 0, the hang section and the dump
 * (every device stopped, written, resumed); 3, the current state dumped,
 * as for the other triggers. Returns the exit status: DUMP_EXIT_HANG,
 * DUMP_EXIT_TIMEOUT (also when a device ended mid-dump) or rc. */
int dump_hang_take(struct dump_hang *h, int rc, struct dump_out *out, struct sess_manager *m,
                   const struct dump_opts *o, uint32_t pid);
/* With ZESTUB_DUMP_TIMING set: one line on stderr, from the trigger to
 * every thread stopped and to the report closed at written_s (bench/hang). */
void dump_hang_timing(const struct dump_hang *h, double written_s);

#endif
