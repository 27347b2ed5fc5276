/* SPDX-License-Identifier: MIT */
/* Per-thread target descriptions (target/tgt_tdesc.c, sessions/
 * sess_layout.c) through the rsp_target_ops, on gtsim under any loader:
 * this program defines zetDebugGetThreadRegisterSetProperties itself (the
 * API 1.5 query zetdebug looks up at run time), answering the device's
 * sets with 256 GRF registers for threads whose hardware thread number is
 * odd and the device's 128 for the others, and refusing a thread that is
 * not stopped as the driver does (by reading its cr0). gtsim keeps 256
 * GRF registers per thread on xehpc, so the large layout can be read.
 *
 * Checked: an even thread keeps the device's description (id 1), an odd
 * one gets one of its own (same id for every odd thread) whose GRF goes to
 * r255; its r255 reads and writes, a register number past the device's
 * catalogue is refused on an even thread; the query is made once per stop
 * (two driver calls: count, then fill). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zet_api.h>

#include "regsets/regs.h"
#include "target/intelgt.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

#define REG_BYTES 256
#define GRF_TYPE 1 /* ZET_DEBUG_REGSET_TYPE_GRF_INTEL_GPU */
#define CR_TYPE 6  /* ZET_DEBUG_REGSET_TYPE_CR_INTEL_GPU */

static unsigned long queries;

static ze_device_handle_t first_device(void)
{
    static ze_device_handle_t dev;
    uint32_t n = 1;
    ze_driver_handle_t drv;
    if (!dev && zeDriverGet(&n, &drv) == ZE_RESULT_SUCCESS && n > 0) {
        n = 1;
        if (zeDeviceGet(drv, &n, &dev) != ZE_RESULT_SUCCESS)
            dev = NULL;
    }
    return dev;
}

ze_result_t ZE_APICALL zetDebugGetThreadRegisterSetProperties(zet_debug_session_handle_t s,
                                                              ze_device_thread_t th,
                                                              uint32_t *count,
                                                              zet_debug_regset_properties_t *props);
ze_result_t ZE_APICALL zetDebugGetThreadRegisterSetProperties(zet_debug_session_handle_t s,
                                                              ze_device_thread_t th,
                                                              uint32_t *count,
                                                              zet_debug_regset_properties_t *props)
{
    uint8_t cr0[64];
    ze_result_t r;
    queries++;
    /* Stopped, or the driver's own refusal. */
    r = zetDebugReadRegisters(s, th, CR_TYPE, 0, 1, cr0);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    r = zetDebugGetRegisterSetProperties(first_device(), count, props);
    if (r != ZE_RESULT_SUCCESS || !props)
        return r;
    for (uint32_t i = 0; i < *count; i++)
        if (props[i].type == GRF_TYPE)
            props[i].count = (th.thread & 1) ? 256 : 128;
    return ZE_RESULT_SUCCESS;
}

/* Queries the first thread_info of each thread cost (-1: not looked at). */
#define MAX_TIDS 256
static long first_cost[MAX_TIDS + 1];

static int info(struct rsp_target *t, uint32_t tid, struct rsp_thread_info *ti)
{
    unsigned long before = queries;
    int rc = t->ops->thread_info(t->ctx, 1, tid, ti);
    if (tid <= MAX_TIDS && first_cost[tid] < 0)
        first_cost[tid] = (long)(queries - before);
    return rc;
}

static void give_up(const char *what, const char *err)
{
    tap_diag("%s: %s", what, err);
    tap_bail(what);
}

/* A stopped thread (its r0 reads) whose hardware thread number has this
 * parity, other than not_tid; 0 if none. */
static uint32_t stopped_with_parity(struct rsp_target *t, uint32_t nthreads, unsigned parity,
                                    uint32_t not_tid)
{
    char err[256];
    uint8_t buf[REG_BYTES];
    for (uint32_t tid = 1; tid <= nthreads; tid++) {
        struct rsp_thread_info ti;
        if (tid == not_tid || info(t, tid, &ti) != 0 || (ti.thread & 1) != parity)
            continue;
        if (t->ops->read_register(t->ctx, 1, tid, 0, buf, sizeof(buf), err, sizeof(err)) == 0)
            return tid;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct rsp_target t;
    struct conf_app app;
    struct rsp_event ev;
    struct rsp_process_info pi;
    struct rsp_thread_info even_ti, odd_ti, odd2_ti;
    struct rsp_tdesc dev_td = {0}, odd_td = {0};
    const struct regs_reg *r255 = NULL, *r200 = NULL;
    uint8_t buf[REG_BYTES], pattern[REG_BYTES];
    char err[256] = "";
    uint32_t even = 0, odd = 0, odd2 = 0;
    unsigned long before, first, second;
    size_t ndev = 0, nodd = 0;
    int rc;

    setenv("GTSIM_CONFIG", "platform=xehpc,subslices=2,eus=2,threads=4,pace=2", 1);
    conf_init(argc, argv, 240);
    tap_plan(8);
    for (int i = 0; i <= MAX_TIDS; i++)
        first_cost[i] = -1;
    if (tgt_target_new(&t, err, sizeof(err)) != 0)
        give_up("tgt_target_new", err);
    if (conf_app_start_launched(&app, 1,
                                (const char *const[]){"vadd", "--groups", "64", "--group-size",
                                                      "16", "--wait-launch", NULL}))
        give_up("the debuggee did not launch its kernel", "");
    memset(&ev, 0, sizeof(ev));
    if (t.ops->attach(t.ctx, (uint32_t)app.pid, &ev, err, sizeof(err)) != 0 ||
        t.ops->process_at(t.ctx, 0, &pi) != 0)
        give_up("attach", err);

    even = stopped_with_parity(&t, pi.nthreads, 0, 0);
    odd = stopped_with_parity(&t, pi.nthreads, 1, 0);
    odd2 = stopped_with_parity(&t, pi.nthreads, 1, odd);
    if (pi.nthreads > MAX_TIDS)
        give_up("more threads than this test tracks", "");
    if (!tap_ok(even && odd && odd2, "stopped threads of even and odd hardware number: %u, %u, %u",
                even, odd, odd2))
        goto out;

    t.ops->thread_info(t.ctx, 1, even, &even_ti);
    rc = t.ops->thread_info(t.ctx, 1, odd, &odd_ti);
    t.ops->thread_info(t.ctx, 1, odd2, &odd2_ti);
    tap_ok(rc == 0 && even_ti.tdesc == 1 && odd_ti.tdesc > 1 && odd2_ti.tdesc == odd_ti.tdesc,
           "the even thread has the device's description (%u), the odd ones one of their own "
           "(%u, %u)",
           even_ti.tdesc, odd_ti.tdesc, odd2_ti.tdesc);
    first = (unsigned long)(first_cost[even] + first_cost[odd] + first_cost[odd2]);

    if (t.ops->tdesc(t.ctx, 1, &dev_td) == 0 && t.ops->tdesc(t.ctx, odd_ti.tdesc, &odd_td) == 0 &&
        dev_td.regs && odd_td.regs) {
        ndev = regs_catalog_count(dev_td.regs);
        nodd = regs_catalog_count(odd_td.regs);
        r255 = regs_catalog_find(odd_td.regs, "r255");
        r200 = regs_catalog_find(odd_td.regs, "r200");
    }
    tap_ok(odd_td.pid == 1 && r255 && r200 && !regs_catalog_find(dev_td.regs, "r255") &&
               nodd == ndev + 128,
           "its description is the device's with GRF r0..r255: %zu registers, the device's %zu",
           nodd, ndev);

    rc = r200
             ? t.ops->read_register(t.ctx, 1, odd, r200->regnum, buf, sizeof(buf), err, sizeof(err))
             : -1;
    {
        int nonzero = 0;
        for (size_t i = 0; rc == 0 && i < r200->byte_size; i++)
            nonzero |= buf[i];
        tap_ok(rc == 0 && nonzero, "r200 of the odd thread reads (%d%s%s)", rc, rc ? ": " : "",
               rc ? err : "");
    }
    memset(pattern, 0x5a, sizeof(pattern));
    rc = r255 ? t.ops->write_register(t.ctx, 1, odd, r255->regnum, pattern, r255->byte_size, err,
                                      sizeof(err))
              : -1;
    if (rc == 0)
        rc = t.ops->read_register(t.ctx, 1, odd, r255->regnum, buf, sizeof(buf), err, sizeof(err));
    tap_ok(rc == 0 && memcmp(buf, pattern, r255->byte_size) == 0,
           "r255 of the odd thread is written and read back (%d%s%s)", rc, rc ? ": " : "",
           rc ? err : "");
    rc = t.ops->read_register(t.ctx, 1, even, (uint32_t)(nodd - 1), buf, sizeof(buf), err,
                              sizeof(err));
    tap_ok(rc == -EINVAL && nodd > ndev,
           "register %zu (in the odd thread's description only) is refused on the even thread "
           "(%d: %s)",
           nodd - 1, rc, err);

    before = queries;
    t.ops->thread_info(t.ctx, 1, odd, &odd_ti);
    t.ops->thread_info(t.ctx, 1, even, &even_ti);
    second = queries - before;
    tap_ok(first == 6,
           "the first look at each of three stopped threads: 2 queries each (count, fill): %lu",
           first);
    tap_ok(second == 0, "looking again in the same stop: no query (%lu)", second);

out:
    (void)t.ops->detach(t.ctx, 1, err, sizeof(err));
    conf_app_kill(&app);
    tgt_target_free(&t);
    return tap_done();
}
