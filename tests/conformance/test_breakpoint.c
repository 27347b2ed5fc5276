/* SPDX-License-Identifier: MIT */
/* A breakpoint planted by writing the control bit into the ISA before the
 * module load is acknowledged: every thread stops on it; a stopped thread's
 * registers read and write; it single-steps; continuing with breakpoint
 * suppress lets the launch finish. Also the NOT_AVAILABLE / INVALID_ARGUMENT
 * rules of register and run-control calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

#define GROUPS 3

static int thread_seen(const zet_debug_event_t *evs, unsigned n, ze_device_thread_t t)
{
    for (unsigned i = 0; i < n; i++)
        if (conf_thread_eq(evs[i].info.thread.thread, t))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8];
    uint32_t nd = 8;
    struct conf_app app;
    char gbuf[16], line[256];
    const char *const args[] = {"vadd", "--groups", gbuf, NULL};
    zet_debug_config_t cfg;
    zet_debug_session_handle_t s;
    zet_debug_event_t ev, load, stops[64];
    uint64_t off3 = 0, off4 = 0, isabase = 0;
    unsigned len3 = 0, len4 = 0, threads = 0, simd = 0;
    uint32_t cr[4];
    ze_result_t r;

    conf_init(argc, argv, 120);
    tap_plan(34);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    ze_device_handle_t dev = devs[0];
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zeDeviceGetProperties(dev, &props);
    const char *plat = conf_platform(dev);
    /* The real GRF count (large-GRF mode on Xe-HPG/Xe-HPC), not the 128 the
     * device-level query reports. */
    uint32_t grf_real = plat && strcmp(plat, "gen12lp") == 0 ? 128 : 256;

    snprintf(gbuf, sizeof(gbuf), "%d", GROUPS);
    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    cfg.pid = (uint32_t)app.pid;
    r = zetDebugAttach(dev, &cfg, &s);
    if (r != ZE_RESULT_SUCCESS) {
        tap_ok(0, "attach: %s", conf_result(r));
        conf_app_kill(&app);
        return tap_done();
    }
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY, CONF_DEADLINE_MS, &ev);
    conf_app_send(&app, "go");
    if (!tap_ok(conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &load),
                "MODULE_LOAD")) {
        conf_app_kill(&app);
        return tap_done();
    }
    /* The third instruction: not the entry, and on Gen12LP a compacted
     * one, so both encodings of the breakpoint bit get exercised. */
    tap_ok(conf_nth_insn(s, load.info.module.load, 2, &off3, &len3) == 0 &&
               conf_nth_insn(s, load.info.module.load, 3, &off4, &len4) == 0,
           "decode the ISA at load: third instruction at +0x%llx (%u bytes)",
           (unsigned long long)off3, len3);
    tap_ok(conf_plant_bp(s, load.info.module.load + off3) == 0,
           "write the breakpoint bit through zetDebugWriteMemory and read it back");
    tap_ok(zetDebugAcknowledgeEvent(s, &load) == ZE_RESULT_SUCCESS, "acknowledge MODULE_LOAD");
    if (conf_app_expect(&app, "kernel simd", CONF_DEADLINE_MS, line, sizeof(line)))
        sscanf(line, "kernel simd %u threads %u", &simd, &threads);
    if (threads == 0 || threads > 64)
        tap_bail("the debuggee did not say how many threads it launches");

    unsigned n =
        conf_collect(s, ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED, threads, CONF_DEADLINE_MS, stops, 64);
    tap_ok(n == threads, "every launched thread stops at the breakpoint: %u of %u", n, threads);
    if (n == 0) {
        conf_app_kill(&app);
        return tap_done();
    }
    int distinct = 1;
    for (unsigned i = 0; i < n; i++) {
        if (conf_thread_is_all(stops[i].info.thread.thread) ||
            thread_seen(stops, i, stops[i].info.thread.thread))
            distinct = 0;
    }
    tap_ok(distinct, "THREAD_STOPPED: one event per thread, each naming a single thread");
    tap_ok(!conf_app_expect(&app, "done", 300, NULL, 0),
           "the launch does not complete while threads are stopped");

    ze_device_thread_t t0 = stops[0].info.thread.thread;
    tap_diag("thread %u.%u.%u.%u", t0.slice, t0.subslice, t0.eu, t0.thread);
    int all_bp = 1;
    for (unsigned i = 0; i < n; i++)
        if (conf_read_cr0(s, stops[i].info.thread.thread, cr) != ZE_RESULT_SUCCESS ||
            !(cr[1] & CONF_CR0_1_BREAKPOINT))
            all_bp = 0;
    tap_ok(all_bp, "cr0.1 bit 31 (breakpoint status) set in every stopped thread");
    r = conf_isabase(s, t0, &isabase);
    tap_ok(r == ZE_RESULT_SUCCESS && isabase != 0, "SBA register 4 (instruction base) 0x%llx",
           (unsigned long long)isabase);
    r = conf_read_cr0(s, t0, cr);
    uint32_t ip0 = (uint32_t)(load.info.module.load + off3 - isabase);
    tap_ok(r == ZE_RESULT_SUCCESS && cr[2] == ip0,
           "cr0.2 (IP) = breakpoint address - instruction base = 0x%x (got 0x%x)", ip0, cr[2]);

    /* Register access rules on a stopped thread. */
    uint8_t grf[256 * 64];
    uint8_t pattern[64], back[64];
    for (unsigned i = 0; i < sizeof(pattern); i++)
        pattern[i] = (uint8_t)(0xa5 ^ i);
    tap_ok(zetDebugReadRegisters(s, t0, CONF_REG_GRF, 0, 4, grf) == ZE_RESULT_SUCCESS,
           "read GRF r0..r3");
    r = zetDebugReadRegisters(s, t0, CONF_REG_GRF, grf_real - 1, 1, grf);
    tap_ok(r == ZE_RESULT_SUCCESS, "read the last GRF (r%u): %s", grf_real - 1, conf_result(r));
    r = zetDebugReadRegisters(s, t0, CONF_REG_GRF, grf_real, 1, grf);
    tap_ok(r == ZE_RESULT_ERROR_INVALID_ARGUMENT,
           "GRF start beyond the register count: INVALID_ARGUMENT (got %s)", conf_result(r));
    r = zetDebugReadRegisters(s, t0, CONF_REG_GRF, 1, grf_real, grf);
    tap_ok(r == ZE_RESULT_ERROR_INVALID_ARGUMENT,
           "GRF start+count beyond the register count: INVALID_ARGUMENT (got %s)", conf_result(r));
    uint32_t ce = 0;
    r = zetDebugReadRegisters(s, t0, CONF_REG_CE, 0, 1, &ce);
    tap_ok(r == ZE_RESULT_SUCCESS, "read CE (0x%x)", ce);
    r = zetDebugWriteRegisters(s, t0, CONF_REG_CE, 0, 1, &ce);
    tap_ok(r == ZE_RESULT_ERROR_INVALID_ARGUMENT,
           "write the read-only CE set: INVALID_ARGUMENT (got %s)", conf_result(r));
    uint64_t sba[9];
    zetDebugReadRegisters(s, t0, CONF_REG_SBA, 0, 9, sba);
    r = zetDebugWriteRegisters(s, t0, CONF_REG_SBA, 0, 9, sba);
    tap_ok(r == ZE_RESULT_ERROR_INVALID_ARGUMENT,
           "write the read-only SBA set: INVALID_ARGUMENT (got %s)", conf_result(r));
    /* r100 lies far above the few registers vadd uses, so changing it
     * cannot change how the kernel ends on a real GPU either. */
    size_t grf_bytes = plat && strcmp(plat, "xehpc") == 0 ? 64 : 32;
    r = zetDebugWriteRegisters(s, t0, CONF_REG_GRF, 100, 1, pattern);
    memset(back, 0, sizeof(back));
    ze_result_t r2 = zetDebugReadRegisters(s, t0, CONF_REG_GRF, 100, 1, back);
    tap_ok(r == ZE_RESULT_SUCCESS && r2 == ZE_RESULT_SUCCESS &&
               memcmp(pattern, back, grf_bytes) == 0,
           "write r100 and read it back (%s, %s)", conf_result(r), conf_result(r2));
    uint8_t isa[16];
    r = conf_read_mem(s, t0, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, load.info.module.load, 16, isa);
    tap_ok(r == ZE_RESULT_SUCCESS, "default-space read in a stopped thread's context: %s",
           conf_result(r));
    r = zetDebugInterrupt(s, t0);
    tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
           "interrupting a thread that is already stopped: NOT_AVAILABLE (got %s)", conf_result(r));

    /* A thread that was never dispatched: the device's last one. */
    ze_device_thread_t idle = {props.numSlices - 1, props.numSubslicesPerSlice - 1,
                               props.numEUsPerSubslice - 1, props.numThreadsPerEU - 1};
    if (!thread_seen(stops, n, idle)) {
        r = zetDebugReadRegisters(s, idle, CONF_REG_CR, 0, 1, cr);
        tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
               "registers of a thread that never ran: NOT_AVAILABLE (got %s)", conf_result(r));
        r = zetDebugResume(s, idle);
        tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
               "resuming a thread that is not stopped: NOT_AVAILABLE (got %s)", conf_result(r));
    } else {
        tap_skip("the device's last thread ran");
        tap_skip("the device's last thread ran");
    }

    /* Single step over the breakpoint instruction (suppress lets it run
     * once), then over the next one (no breakpoint there). */
    conf_read_cr0(s, t0, cr);
    cr[0] |= CONF_CR0_0_BP_SUPPRESS;
    cr[1] |= CONF_CR0_1_BREAKPOINT;
    tap_ok(conf_write_cr0(s, t0, cr) == ZE_RESULT_SUCCESS, "write cr0 (step + suppress)");
    tap_ok(zetDebugResume(s, t0) == ZE_RESULT_SUCCESS, "resume for a single step");
    r = conf_read_event(s, CONF_DEADLINE_MS, &ev);
    tap_ok(r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED &&
               conf_thread_eq(ev.info.thread.thread, t0),
           "the stepped thread stops again (%s, %s)", conf_result(r), conf_event_name(ev.type));
    conf_read_cr0(s, t0, cr);
    tap_ok(cr[2] == ip0 + len3, "one step advanced IP by %u to 0x%x (got 0x%x)", len3, ip0 + len3,
           cr[2]);
    cr[1] |= CONF_CR0_1_BREAKPOINT;
    conf_write_cr0(s, t0, cr);
    zetDebugResume(s, t0);
    r = conf_read_event(s, CONF_DEADLINE_MS, &ev);
    conf_read_cr0(s, t0, cr);
    tap_ok(r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED &&
               conf_thread_eq(ev.info.thread.thread, t0) && cr[2] == ip0 + len3 + len4,
           "a second step advances IP by %u to 0x%x (got 0x%x)", len4, ip0 + len3 + len4, cr[2]);

    /* Continue: t0 is past the breakpoint, just clear the step bit. */
    cr[1] &= ~CONF_CR0_1_BREAKPOINT;
    conf_write_cr0(s, t0, cr);
    tap_ok(zetDebugResume(s, t0) == ZE_RESULT_SUCCESS, "continue the stepped thread");
    /* Keep the last stopped thread stopped until the checks on a resumed
     * one are done: the launch (and the debuggee) cannot finish meanwhile. */
    int all_ok = 1;
    for (unsigned i = 1; i + 1 < n; i++)
        if (conf_continue_past_bp(s, stops[i].info.thread.thread) != ZE_RESULT_SUCCESS)
            all_ok = 0;
    if (n > 2) {
        ze_device_thread_t t1 = stops[1].info.thread.thread;
        /* Resumed: running or already finished, either way not stopped. */
        r = zetDebugResume(s, t1);
        tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
               "resuming a thread that was just resumed: NOT_AVAILABLE (got %s)", conf_result(r));
        r = zetDebugReadRegisters(s, t1, CONF_REG_CR, 0, 1, cr);
        tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
               "registers of a resumed thread: NOT_AVAILABLE (got %s)", conf_result(r));
    } else {
        tap_skip("fewer than three threads stopped: no resumed thread to probe safely");
        tap_skip("fewer than three threads stopped");
    }
    if (n > 1 && conf_continue_past_bp(s, stops[n - 1].info.thread.thread) != ZE_RESULT_SUCCESS)
        all_ok = 0;
    tap_ok(all_ok, "the other threads continue past the breakpoint (status cleared, suppress)");
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", CONF_DEADLINE_MS, NULL, 0),
           "the launch completes after continuing");
    tap_ok(conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_DETACHED, CONF_DEADLINE_MS, &ev),
           "DETACHED once the debuggee exits");
    tap_ok(conf_app_finish(&app, CONF_DEADLINE_MS), "debuggee exits 0");
    zetDebugDetach(s);
    return tap_done();
}
