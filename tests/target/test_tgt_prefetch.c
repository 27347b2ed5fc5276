/* SPDX-License-Identifier: MIT */
/* Reading ahead of a client that walks the stopped threads
 * (target/tgt_prefetch.c), seen through the driver calls, counted here by
 * the host thread that makes them: a walk over 2,048 stopped threads that
 * reads each one's r0 (as Intel's GDB's `info threads` reads each one's
 * expedited registers), pausing between threads as GDB does to print a
 * row, has most GRFs read by the reader ahead and none read twice; the
 * client gets the same r0 either way; the cache holds no more GRFs than
 * the client's reads keep plus the window ahead; a jump (not a walk)
 * starts no reading ahead; the reader is stopped before the session ends
 * (the detach and the free, under ASan in CI). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zet_api.h>

#include "regsets/regs.h"
#include "sessions/sess.h"
#include "target/intelgt.h"
#include "target/tgt_int.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

#define REG_BYTES 256
#define WINDOW 64 /* tgt_prefetch.c's PF_AHEAD */

static pthread_t main_thread;
static atomic_ulong grf_main, grf_other;

ze_result_t ZE_APICALL zetDebugReadRegisters(zet_debug_session_handle_t h, ze_device_thread_t th,
                                             uint32_t type, uint32_t start, uint32_t count,
                                             void *buf)
{
    ze_result_t(ZE_APICALL * next)(zet_debug_session_handle_t, ze_device_thread_t, uint32_t,
                                   uint32_t, uint32_t, void *);
    *(void **)&next = dlsym(RTLD_NEXT, "zetDebugReadRegisters");
    if (type == REGS_GRF)
        atomic_fetch_add(pthread_equal(pthread_self(), main_thread) ? &grf_main : &grf_other, 1);
    return next ? next(h, th, type, start, count, buf) : ZE_RESULT_ERROR_UNINITIALIZED;
}

static int read_r0(struct rsp_target *t, uint32_t tid, uint8_t r0[REG_BYTES])
{
    char err[256];
    return t->ops->read_register(t->ctx, 1, tid, 0, r0, REG_BYTES, err, sizeof(err));
}

static void nap_us(long us)
{
    nanosleep(&(struct timespec){0, us * 1000L}, NULL);
}

static void give_up(const char *what, const char *err)
{
    tap_diag("%s: %s", what, err);
    tap_bail(what);
}

int main(int argc, char **argv)
{
    const unsigned groups = 2048;
    struct rsp_target t;
    struct conf_app app;
    struct rsp_event ev;
    struct rsp_process_info pi;
    static uint8_t r0s[2048][REG_BYTES];
    uint8_t again[REG_BYTES];
    char err[256] = "", ngroups[16];
    unsigned read = 0, cached = 0, same = 0;
    unsigned long before;

    main_thread = pthread_self();
    setenv("GTSIM_CONFIG", "platform=xehpc,subslices=16,eus=16,threads=8,pace=2", 1);
    unsetenv("ZESTUB_READ_AHEAD");
    conf_init(argc, argv, 300);
    tap_plan(7);
    snprintf(ngroups, sizeof(ngroups), "%u", groups);
    if (tgt_target_new(&t, err, sizeof(err)) != 0)
        give_up("tgt_target_new", err);
    if (conf_app_start_launched(&app, 1,
                                (const char *const[]){"vadd", "--groups", ngroups, "--group-size",
                                                      "16", "--wait-launch", NULL}))
        give_up("the debuggee did not launch its kernel", "");
    memset(&ev, 0, sizeof(ev));
    if (t.ops->attach(t.ctx, (uint32_t)app.pid, &ev, err, sizeof(err)) != 0 ||
        t.ops->process_at(t.ctx, 0, &pi) != 0 || pi.nthreads > 2048)
        give_up("attach", err);

    /* The walk, 200 us a row. */
    for (uint32_t tid = 1; tid <= pi.nthreads; tid++) {
        if (read_r0(&t, tid, r0s[tid - 1]) == 0)
            read++;
        nap_us(200);
    }
    tap_ok(read == groups, "the walk read r0 of every stopped thread: %u of %u", read, groups);
    tap_ok(grf_main + grf_other == read, "no GRF read twice: %lu reads for %u threads",
           (unsigned long)(grf_main + grf_other), read);
    tap_ok(grf_other >= read / 2,
           "most were read ahead of the client: %lu by the reader, %lu by the client",
           (unsigned long)grf_other, (unsigned long)grf_main);
    for (uint32_t th = 0; th < pi.nthreads; th++)
        cached += sess_regset_cached(((struct tgt *)t.ctx)->m, 0, th, REGS_GRF);
    tap_ok(cached <= TGT_KEPT_SETS + WINDOW,
           "GRFs left in the cache: %u (at most the %u the client keeps and the window of %u)",
           cached, TGT_KEPT_SETS, WINDOW);

    /* Thread 1 again, then 1,000: a jump, nothing read ahead. */
    for (uint32_t tid = 1; tid <= 1000; tid += 999) {
        if (read_r0(&t, tid, again) == 0 && memcmp(again, r0s[tid - 1], REG_BYTES) == 0)
            same++;
    }
    before = grf_other;
    nap_us(50000);
    tap_ok(same == 2, "threads read again give the same r0 (%u of 2)", same);
    tap_ok(grf_other == before, "after a jump nothing is read ahead (%lu reads)",
           (unsigned long)(grf_other - before));
    /* A walk from there, then the detach right away: the reader is
     * stopped first (ASan in CI would see a read into a closed session). */
    for (uint32_t tid = 1001; tid <= 1004; tid++)
        (void)read_r0(&t, tid, again);
    tap_ok(t.ops->detach(t.ctx, 1, err, sizeof(err)) == 0, "detach while reading ahead: %s", err);
    conf_app_finish(&app, 30000);
    conf_app_kill(&app);
    tgt_target_free(&t);
    return tap_done();
}
