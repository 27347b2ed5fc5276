/* SPDX-License-Identifier: MIT */
/* An emitter: one output format of the record model (report/record.h).
 * The document (report/dump_out.c) and the pass over the stopped threads
 * call every active emitter's functions in this order:
 *
 *   header [launch] [devices] [hang] [xpti faults threads_begin
 *   (wants thread)* threads_end] end | abort
 *
 * Each emitter formats; none reads the device (the pass read it) nor looks
 * at another's format. A NULL function is a part the format has not. A new
 * output format is one emitter file and one place that chooses it. */
#ifndef ZESTUB_REPORT_EMITTER_H
#define ZESTUB_REPORT_EMITTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/record.h"
#include "sessions/sess.h"

struct report_emitter_ops {
    void (*header)(void *ctx, uint32_t pid, const char *trigger);
    /* Launch mode: the job rank (-1: none) and host. */
    void (*launch)(void *ctx, long rank, const char *host);
    void (*devices)(void *ctx, struct sess_manager *m);
    void (*hang)(void *ctx, const struct report_hang *h);
    /* st NULL: no XPTI table, note says why. */
    void (*xpti)(void *ctx, const struct xtab_stats *st, const char *note);
    void (*faults)(void *ctx, const struct report_fault *f, size_t n);
    /* Before the first thread, with each device's register catalogue and
     * the registers a record prints (--registers).
     * 0, or -1: the emitter has failed (said on its log) and gets no more
     * threads; threads_end still comes. */
    int (*threads_begin)(void *ctx, struct sess_manager *m, struct regs_catalog *const *cats,
                         unsigned ncats, enum dump_regs regs);
    /* The register sets (bits of catalogue set indices) it needs of t. */
    uint32_t (*wants)(void *ctx, const struct dump_thread *t);
    /* After threads_begin: the sets `wants` will name for every stopped
     * thread with catalogue cat, whatever came before it, so the pass may
     * read them ahead (pass_ahead.h). NULL: not known before the record
     * (the human format reads a class's first thread only). */
    uint32_t (*wants_ahead)(void *ctx, const struct regs_catalog *cat);
    void (*thread)(void *ctx, const struct dump_thread *t);
    /* After the last thread: 0, or -1 when its output failed. */
    int (*threads_end)(void *ctx, struct sess_manager *m);
    void (*end)(void *ctx, const struct report_end *e);
    /* From the watchdog: close whatever is open (the process ends next). */
    void (*abort)(void *ctx, const struct report_end *e);
    void (*free)(void *ctx);
};

struct report_emitter {
    const struct report_emitter_ops *ops;
    void *ctx;
};

/* The human format onto f; grouped: threads in classes (dump_classes.h). */
struct report_emitter report_human_new(FILE *f, bool grouped);
/* The JSON document of doc/dump-format.md onto f. */
struct report_emitter report_json_new(FILE *f);
/* Both: ctx NULL when out of memory. */

#endif
