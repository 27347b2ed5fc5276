/* SPDX-License-Identifier: MIT */
/* sessions/ at scale, in driver calls (counts, not times): on a
 * 4,096-thread device with half its threads running a kernel and half
 * idle, a stop-all makes one interrupt and no register read; reading a
 * few threads costs one read each (plus SBA once per device); a
 * resume-all touches only threads that were read; a full pass over every
 * thread reads each once and a second pass reads nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "regsets/regs.h"
#include "sessions/sess.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"
#include "tests/sessions/sess_launch.h"

#define DEADLINE_MS 20000
#define GROUPS 2048 /* one hardware thread each: half the device */
#define LOOKED_AT 10
#define PLAN 16

/* Every thread's state through the public call (which reads an unread
 * thread): how many are stopped and unavailable. */
static void census(struct sess_manager *m, uint32_t *stopped, uint32_t *idle)
{
    *stopped = *idle = 0;
    for (uint32_t t = 0; t < sess_thread_count(m, 0); t++) {
        enum sess_thread_state st = sess_thread_state(m, 0, t);
        *stopped += sess_state_stopped(st);
        *idle += st == SESS_T_UNAVAILABLE;
    }
}

int main(int argc, char **argv)
{
    struct conf_app app;
    struct zd *zd = NULL;
    struct sess_manager *m = NULL;
    struct sess_options opt = {true, true};
    struct zd_error err;
    struct zd_stats s0, s1;
    char groups[16];
    uint32_t nth = 0, stopped, idle;
    uint64_t r0, pc;
    int n;

    conf_init(argc, argv, 120);
    if (getenv("GTSIM_LIB") && !getenv("GTSIM_CONFIG"))
        setenv("GTSIM_CONFIG", "platform=xehpc,slices=4,subslices=8,eus=8,threads=16", 1);
    conf_set_pace(1);
    snprintf(groups, sizeof(groups), "%u", GROUPS);
    tap_plan(PLAN);
    if (!tap_ok(zd_open(&zd, &err) == 0, "zd_open: %s", err.msg))
        return tap_done();
    if (!tap_ok(
            conf_app_start_ready(&app, 1,
                                 (const char *const[]){"vadd", "--groups", groups, "--group-size",
                                                       "32", "--wait-launch", NULL}) == 0,
            "debuggee ready"))
        return tap_done();
    if (!tap_ok(sess_attach(zd, (uint32_t)app.pid, &opt, &m, &err) == 0 && sess_count(m) == 1,
                "attach: %s", err.msg))
        goto out;
    nth = sess_thread_count(m, 0);
    if (!tap_ok(nth >= 2 * GROUPS && sess_test_launch(&app, m, DEADLINE_MS) == 0,
                "%u groups running on %u threads", GROUPS, nth))
        goto out;

    zd_get_stats(zd, &s0);
    n = sess_stop_all(m, &err);
    zd_get_stats(zd, &s1);
    tap_ok(s1.interrupt == s0.interrupt + 1, "stop-all: one interrupt (%llu)",
           (unsigned long long)(s1.interrupt - s0.interrupt));
    tap_ok(s1.read_registers == s0.read_registers, "stop-all: no register read (%llu)",
           (unsigned long long)(s1.read_registers - s0.read_registers));
    tap_ok(n == (int)nth, "every thread may be stopped until read: %d of %u", n, nth);

    r0 = sess_test_reads(zd);
    for (uint32_t t = 0; t < nth; t++) {
        bool unread;
        sess_thread_state_known(m, 0, t, &unread);
    }
    tap_ok(sess_test_reads(zd) == r0, "known states of every thread: no register read");
    for (uint32_t t = 0; t < LOOKED_AT; t++)
        sess_thread_pc(m, 0, t, &pc, &err);
    tap_ok(sess_test_reads(zd) - r0 <= LOOKED_AT + 1,
           "PCs of %u threads: %llu reads (one each + isabase)", LOOKED_AT,
           (unsigned long long)(sess_test_reads(zd) - r0));
    r0 = sess_test_reads(zd);
    for (uint32_t t = 0; t < LOOKED_AT; t++)
        sess_thread_pc(m, 0, t, &pc, &err);
    tap_ok(sess_test_reads(zd) == r0, "the same PCs again: no read");
    for (uint32_t t = 0; t < LOOKED_AT; t++) {
        const uint8_t *sba;
        size_t size;
        sess_read_regset(m, 0, t, REGS_SBA, &sba, &size, &err);
    }
    tap_ok(sess_test_reads(zd) == r0, "their SBA registers: no read (one copy per device)");

    zd_get_stats(zd, &s0);
    tap_ok(sess_resume_all(m, &err) == 0, "resume all: %s", err.msg);
    zd_get_stats(zd, &s1);
    tap_ok(s1.read_registers == s0.read_registers &&
               s1.write_registers - s0.write_registers <= LOOKED_AT && s1.resume == s0.resume + 1,
           "resume-all: %llu reads, %llu cr0 writes (only threads that were read), %llu resume",
           (unsigned long long)(s1.read_registers - s0.read_registers),
           (unsigned long long)(s1.write_registers - s0.write_registers),
           (unsigned long long)(s1.resume - s0.resume));

    r0 = sess_test_reads(zd);
    sess_stop_all(m, &err);
    tap_ok(sess_test_reads(zd) == r0, "the next stop-all: no register read");
    census(m, &stopped, &idle);
    tap_ok(stopped == GROUPS && idle == nth - GROUPS,
           "reading every thread: %u stopped, %u idle, %llu reads", stopped, idle,
           (unsigned long long)(sess_test_reads(zd) - r0));
    r0 = sess_test_reads(zd);
    census(m, &stopped, &idle);
    tap_ok(sess_test_reads(zd) == r0 && stopped == GROUPS, "a second pass reads nothing (%llu)",
           (unsigned long long)(sess_test_reads(zd) - r0));
out:
    if (m)
        sess_resume_all(m, &err);
    sess_detach_all(m);
    conf_app_kill(&app);
    zd_close(zd);
    return tap_done();
}
