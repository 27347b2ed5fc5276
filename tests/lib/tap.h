/* SPDX-License-Identifier: MIT */
/* A tiny TAP producer for our C tests: automake's tap-driver counts every
 * "ok"/"not ok" line on its own, so one program can hold many checks. */
#ifndef ZESTUB_TESTS_TAP_H
#define ZESTUB_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count_;
static int tap_failed_;
static int tap_planned_ = -1; /* the plan printed first, or -1 */

/* The plan, before the first check. With it, tap_done() turns every
 * planned check that never ran into a failure instead of a shorter count. */
static inline void tap_plan(int n)
{
    tap_planned_ = n;
    printf("1..%d\n", n);
    fflush(stdout);
}

/* Record one check; returns cond so callers can bail out of dependent checks. */
static inline int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    tap_count_++;
    if (!cond)
        tap_failed_++;
    printf("%s %d - ", cond ? "ok" : "not ok", tap_count_);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    return cond;
}

static inline void tap_skip(const char *why)
{
    tap_count_++;
    printf("ok %d # SKIP %s\n", tap_count_, why);
    fflush(stdout);
}

static inline void tap_diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

/* The end of a test: after tap_plan, each planned check that did not run
 * is reported as not ok (and running more than planned fails); without a
 * plan, the plan is printed now (only for tests whose number of checks
 * depends on the data). */
static inline int tap_done(void)
{
    if (tap_planned_ < 0) {
        printf("1..%d\n", tap_count_);
    } else {
        int ran = tap_count_;
        while (tap_count_ < tap_planned_)
            tap_ok(0, "planned check %d of %d never ran (only %d ran)", tap_count_ + 1,
                   tap_planned_, ran);
        if (ran > tap_planned_) {
            tap_failed_++;
            printf("# %d checks ran, %d were planned\n", ran, tap_planned_);
        }
    }
    fflush(stdout);
    return tap_failed_ ? 1 : 0;
}

static inline void tap_bail(const char *why)
{
    printf("Bail out! %s\n", why);
    fflush(stdout);
    exit(1);
}

#endif
