/* SPDX-License-Identifier: MIT */
/* The client's register reads keep a bounded part of the per-stop cache
 * (target/tgt_regkeep.c): a client that reads r0 of every stopped thread,
 * as Intel's GDB does for `info threads`, leaves at most TGT_KEPT_SETS
 * GRFs cached. Seen through the driver calls, counted here as in
 * test_tgt_breakcycle: the walk reads each thread's GRF once; a second
 * read of the last thread costs nothing (kept); a second read of the first
 * thread costs one zetDebugReadRegisters (forgotten) and gives the same
 * value. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zet_api.h>

#include "regsets/regs.h"
#include "target/intelgt.h"
#include "target/tgt_int.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

/* Room for any one register (a GRF register is 64 bytes on xehpc). */
#define REG_BYTES 256

static unsigned long grf_reads;

ze_result_t ZE_APICALL zetDebugReadRegisters(zet_debug_session_handle_t h, ze_device_thread_t th,
                                             uint32_t type, uint32_t start, uint32_t count,
                                             void *buf)
{
    ze_result_t(ZE_APICALL * next)(zet_debug_session_handle_t, ze_device_thread_t, uint32_t,
                                   uint32_t, uint32_t, void *);
    *(void **)&next = dlsym(RTLD_NEXT, "zetDebugReadRegisters");
    if (type == REGS_GRF)
        grf_reads++;
    return next ? next(h, th, type, start, count, buf) : ZE_RESULT_ERROR_UNINITIALIZED;
}

/* r0 (register 0 of the catalog, the GRF's first) of thread tid. */
static int read_r0(struct rsp_target *t, uint32_t tid, uint8_t r0[REG_BYTES])
{
    char err[256];
    return t->ops->read_register(t->ctx, 1, tid, 0, r0, REG_BYTES, err, sizeof(err));
}

static void give_up(const char *what, const char *err)
{
    tap_diag("%s: %s", what, err);
    tap_bail(what);
}

int main(int argc, char **argv)
{
    /* 2,048 hardware threads, one work-group each, slow enough to be
     * running when the attach stops them all. */
    const unsigned groups = 2048;
    struct rsp_target t;
    struct conf_app app;
    struct rsp_event ev;
    struct rsp_process_info pi;
    static uint8_t first[REG_BYTES], again[REG_BYTES], last[REG_BYTES];
    char err[256] = "", ngroups[16];
    uint32_t first_tid = 0, last_tid = 0;
    unsigned read = 0;
    unsigned long walk, after_last, after_first;

    setenv("GTSIM_CONFIG", "platform=xehpc,subslices=16,eus=16,threads=8,pace=2", 1);
    conf_init(argc, argv, 300);
    tap_plan(5);
    snprintf(ngroups, sizeof(ngroups), "%u", groups);
    if (tgt_target_new(&t, err, sizeof(err)) != 0)
        give_up("tgt_target_new", err);
    if (conf_app_start_launched(&app, 1,
                                (const char *const[]){"vadd", "--groups", ngroups, "--group-size",
                                                      "16", "--wait-launch", NULL}))
        give_up("the debuggee did not launch its kernel", "");
    memset(&ev, 0, sizeof(ev));
    if (t.ops->attach(t.ctx, (uint32_t)app.pid, &ev, err, sizeof(err)) != 0 ||
        t.ops->process_at(t.ctx, 0, &pi) != 0)
        give_up("attach", err);

    grf_reads = 0;
    for (uint32_t tid = 1; tid <= pi.nthreads; tid++) {
        uint8_t r0[REG_BYTES] = {0};
        if (read_r0(&t, tid, r0) != 0)
            continue;
        if (!first_tid) {
            first_tid = tid;
            memcpy(first, r0, sizeof(first));
        }
        last_tid = tid;
        read++;
    }
    walk = grf_reads;
    tap_ok(read > TGT_KEPT_SETS + 64, "more stopped threads than sets kept: %u read, %u kept", read,
           TGT_KEPT_SETS);
    tap_ok(walk == read, "the walk read each thread's GRF once: %lu reads for %u threads", walk,
           read);
    grf_reads = 0;
    after_last = read_r0(&t, last_tid, last) == 0 ? grf_reads : 999;
    tap_ok(after_last == 0, "the last thread's GRF is still cached (%lu reads)", after_last);
    grf_reads = 0;
    after_first = read_r0(&t, first_tid, again) == 0 ? grf_reads : 999;
    tap_ok(after_first == 1, "the first thread's GRF was let go: read again once (%lu reads)",
           after_first);
    tap_ok(after_first == 1 && memcmp(first, again, sizeof(first)) == 0,
           "and it gives the same r0");

    (void)t.ops->detach(t.ctx, 1, err, sizeof(err));
    conf_app_finish(&app, 30000);
    conf_app_kill(&app);
    tgt_target_free(&t);
    return tap_done();
}
