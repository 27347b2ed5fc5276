/* SPDX-License-Identifier: MIT */
/* sess_fill_regsets, the dump's readers' call (report/pass_ahead.c), in
 * driver calls on a small gtsim device with a quarter of its threads
 * running a kernel and the rest idle, after a stop-all: a stopped thread
 * gets every asked set in the cache (SBA and unknown types skipped) with
 * one read each; an idle one costs one read and is known idle after; a
 * second call reads nothing; what it filled is what a read through the
 * cache gives after the set is dropped; bad sessions and threads, and a
 * resumed thread, read nothing. And the race of a reader on another host
 * thread with a register write, made to happen: the test defines
 * zetDebugReadRegisters (passed on to the loader's with dlsym(RTLD_NEXT))
 * and holds one GRF read, after the driver answered, until the main
 * thread has written the thread's r0: the fill keeps nothing of that read,
 * and a read through the cache (sess_read_regset, one set) reads again
 * and gives the written value. */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zet_api.h>

#include "regsets/regs.h"
#include "sessions/sess.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"
#include "tests/sessions/sess_launch.h"

#define DEADLINE_MS 20000
#define GROUPS 32 /* one hardware thread each */
#define PLAN 18

/* One GRF read, once armed, is held after the driver's answer until the
 * main thread says go. */
static atomic_int hold_armed;
static sem_t held, go;

ze_result_t ZE_APICALL zetDebugReadRegisters(zet_debug_session_handle_t h, ze_device_thread_t th,
                                             uint32_t type, uint32_t start, uint32_t count,
                                             void *buf)
{
    ze_result_t(ZE_APICALL * next)(zet_debug_session_handle_t, ze_device_thread_t, uint32_t,
                                   uint32_t, uint32_t, void *);
    ze_result_t r;
    *(void **)&next = dlsym(RTLD_NEXT, "zetDebugReadRegisters");
    r = next ? next(h, th, type, start, count, buf) : ZE_RESULT_ERROR_UNINITIALIZED;
    if (type == REGS_GRF && atomic_exchange(&hold_armed, 0)) {
        sem_post(&held);
        sem_wait(&go);
    }
    return r;
}

/* A reader on another host thread: sess_fill_regsets of the GRF, or
 * (single) sess_read_regset, which copies out the first register. */
struct racer {
    struct sess_manager *m;
    uint32_t thread;
    bool single;
    uint32_t filled;
    int rc;
    uint8_t r0[16];
};

static void *race_read(void *arg)
{
    struct racer *r = arg;
    const uint32_t grf = REGS_GRF;
    if (r->single) {
        const uint8_t *data;
        size_t size;
        struct zd_error err;
        r->rc = sess_read_regset(r->m, 0, r->thread, REGS_GRF, &data, &size, &err);
        if (r->rc == 0)
            memcpy(r->r0, data, size < sizeof(r->r0) ? size : sizeof(r->r0));
    } else {
        r->filled = sess_fill_regsets(r->m, 0, r->thread, &grf, 1);
    }
    return NULL;
}

/* Runs race_read with the GRF read held until r0 of thread was written
 * with value (16 bytes); false when the read never came (2 s). */
static bool race_write(struct racer *r, const uint8_t value[16])
{
    struct timespec dl;
    struct zd_error err;
    pthread_t th;
    bool came;
    sess_forget_regset(r->m, 0, r->thread, REGS_GRF);
    atomic_store(&hold_armed, 1);
    if (pthread_create(&th, NULL, race_read, r) != 0)
        return false;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 2;
    came = sem_timedwait(&held, &dl) == 0;
    if (came)
        came = sess_write_registers(r->m, 0, r->thread, REGS_GRF, 0, 1, value, &err) == 0;
    atomic_store(&hold_armed, 0);
    sem_post(&go);
    pthread_join(th, NULL);
    return came;
}

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

    {
        /* A register write while another host thread's read of the same
         * set is in flight: what that read got is not kept. */
        struct racer fill = {.m = m, .thread = first}, single = {.m = m, .thread = first};
        uint8_t v1[64] = {0}, v2[64] = {0};
        const uint8_t *data;
        size_t size;
        bool wrote, got;
        memset(v1, 0xa5, 16);
        memset(v2, 0x5a, 16);
        sem_init(&held, 0, 0);
        sem_init(&go, 0, 0);
        wrote = race_write(&fill, v1);
        r0 = sess_test_reads(zd);
        tap_ok(wrote && fill.filled == 0 && !sess_regset_cached(m, 0, first, REGS_GRF),
               "sess_fill_regsets across a register write of the thread keeps nothing "
               "(filled 0x%x)",
               fill.filled);
        got = sess_read_regset(m, 0, first, REGS_GRF, &data, &size, &err) == 0 &&
              memcmp(data, v1, 16) == 0;
        tap_ok(got && sess_test_reads(zd) == r0 + 1,
               "the next read goes to the device (%llu read) and gives the written r0",
               (unsigned long long)(sess_test_reads(zd) - r0));
        single.single = true;
        r0 = sess_test_reads(zd);
        wrote = race_write(&single, v2);
        tap_ok(wrote && single.rc == 0 && memcmp(single.r0, v2, 16) == 0 &&
                   sess_test_reads(zd) == r0 + 2,
               "sess_read_regset across a register write reads again (%llu reads) and gives the "
               "written r0, not the one read before it",
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
