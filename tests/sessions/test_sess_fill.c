/* SPDX-License-Identifier: MIT */
/* sess_fill_regsets, the dump's readers' call (report/pass_ahead.c), in
 * driver calls on a small gtsim device with a quarter of its threads
 * running a kernel and the rest idle, after a stop-all: a stopped thread
 * gets every asked set in the cache (SBA and unknown types skipped) with
 * one read each; an idle one costs one read and is known idle after; a
 * second call reads nothing; what it filled is what a read through the
 * cache gives after the set is dropped; bad sessions and threads, and a
 * resumed thread, read nothing. */
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
#define GROUPS 32 /* one hardware thread each */
#define PLAN 15

int main(int argc, char **argv)
{
    static const uint32_t types[] = {REGS_CR, REGS_GRF, REGS_CE, REGS_SBA, 0xbad};
    const size_t ntypes = sizeof(types) / sizeof(types[0]);
    const uint32_t all_three = 1u << 0 | 1u << 1 | 1u << 2;
    struct conf_app app;
    struct zd *zd = NULL;
    struct sess_manager *m = NULL;
    struct sess_options opt = {true, true};
    struct zd_error err;
    char groups[16];
    uint32_t nth = 0, full = 0, none = 0, other = 0, first = UINT32_MAX, idle = UINT32_MAX;
    uint64_t r0;
    bool states_right = true, cached_right = true;

    conf_init(argc, argv, 120);
    if (getenv("GTSIM_LIB") && !getenv("GTSIM_CONFIG"))
        setenv("GTSIM_CONFIG", "platform=xehpc,slices=1,subslices=2,eus=8,threads=8", 1);
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
    if (!tap_ok(nth > GROUPS && sess_test_launch(&app, m, DEADLINE_MS) == 0,
                "%u groups running on %u threads", GROUPS, nth))
        goto out;
    sess_stop_all(m, &err);

    /* Every thread once: CR, GRF, CE filled for a stopped one; one read
     * (its CR) for an idle one. */
    r0 = sess_test_reads(zd);
    for (uint32_t t = 0; t < nth; t++) {
        uint32_t got = sess_fill_regsets(m, 0, t, types, ntypes);
        if (got == all_three) {
            full++;
            first = first == UINT32_MAX ? t : first;
        } else if (got == 0) {
            none++;
            idle = idle == UINT32_MAX ? t : idle;
        } else {
            other++;
        }
    }
    tap_ok(full == GROUPS && none == nth - GROUPS && other == 0,
           "%u threads filled with CR, GRF and CE, %u with nothing, %u otherwise", full, none,
           other);
    tap_ok(sess_test_reads(zd) - r0 == 3u * GROUPS + (nth - GROUPS),
           "three reads a stopped thread, one an idle one (SBA and the unknown type skipped, no "
           "second try on an idle thread): %llu",
           (unsigned long long)(sess_test_reads(zd) - r0));
    for (uint32_t t = 0; t < nth; t++) {
        bool unread;
        enum sess_thread_state st = sess_thread_state_known(m, 0, t, &unread);
        bool stopped = sess_regset_cached(m, 0, t, REGS_GRF);
        if (unread || (stopped ? !sess_state_stopped(st) : st != SESS_T_UNAVAILABLE))
            states_right = false;
        if (stopped != sess_regset_cached(m, 0, t, REGS_CE) ||
            stopped != sess_regset_cached(m, 0, t, REGS_CR))
            cached_right = false;
    }
    tap_ok(states_right, "after it every thread's state is known: stopped if filled, else idle");
    tap_ok(cached_right, "a filled thread has all three sets cached, an idle one none");
    if (!tap_ok(first != UINT32_MAX && idle != UINT32_MAX, "a stopped and an idle thread found"))
        goto out;

    r0 = sess_test_reads(zd);
    tap_ok(sess_fill_regsets(m, 0, first, types, ntypes) == 0 &&
               sess_fill_regsets(m, 0, idle, types, ntypes) == 0 && sess_test_reads(zd) == r0,
           "a second call reads nothing, for a stopped thread or an idle one");

    {
        /* What was filled is what a read gives once the set is dropped. */
        const uint8_t *data;
        size_t size, size2;
        uint8_t *copy = NULL;
        bool same = false;
        if (sess_read_regset(m, 0, first, REGS_GRF, &data, &size, &err) == 0 &&
            (copy = malloc(size))) {
            memcpy(copy, data, size);
            sess_forget_regset(m, 0, first, REGS_GRF);
            r0 = sess_test_reads(zd);
            same = sess_fill_regsets(m, 0, first, types, 2) == 1u << 1 &&
                   sess_test_reads(zd) == r0 + 1 &&
                   sess_read_regset(m, 0, first, REGS_GRF, &data, &size2, &err) == 0 &&
                   size2 == size && memcmp(copy, data, size) == 0 && sess_test_reads(zd) == r0 + 1;
        }
        tap_ok(same,
               "GRF dropped and filled again: one read (CR still cached), the same %zu "
               "bytes a read through the cache gives",
               copy ? size : (size_t)0);
        free(copy);
    }
    {
        uint64_t pc;
        r0 = sess_test_reads(zd);
        tap_ok(sess_thread_pc(m, 0, first, &pc, &err) == 0 && sess_test_reads(zd) <= r0 + 1,
               "the pc of a filled thread: its cr0 from the cache (at most SBA read): %llu",
               (unsigned long long)(sess_test_reads(zd) - r0));
    }

    r0 = sess_test_reads(zd);
    tap_ok(sess_fill_regsets(m, 99, 0, types, ntypes) == 0 &&
               sess_fill_regsets(m, 0, nth, types, ntypes) == 0 &&
               sess_fill_regsets(m, 0, UINT32_MAX, types, ntypes) == 0 &&
               sess_fill_regsets(m, 0, first, types, 0) == 0 && sess_test_reads(zd) == r0,
           "no session, no such thread, no types: nothing read");

    tap_ok(sess_resume_all(m, &err) == 0, "resume all: %s", err.msg);
    r0 = sess_test_reads(zd);
    tap_ok(sess_fill_regsets(m, 0, first, types, ntypes) == 0 && sess_test_reads(zd) == r0 &&
               !sess_regset_cached(m, 0, first, REGS_GRF),
           "a resumed thread: nothing read, nothing cached");
out:
    if (m)
        sess_resume_all(m, &err);
    sess_detach_all(m);
    conf_app_kill(&app);
    zd_close(zd);
    return tap_done();
}
