/* SPDX-License-Identifier: MIT */
/* Interrupt and resume: interrupting with nothing running gives
 * THREAD_UNAVAILABLE; interrupting all while threads run stops each with
 * the external-halt bit, answered by one THREAD_STOPPED naming "all" and
 * no event per thread (the real driver's answer), and resuming all lets
 * the launch finish; an
 * application killed with SIGKILL mid-kernel gives DETACHED, not a hang.
 * The kernel is the debuggee's `loop` (spin.cl): on a device that executes
 * it (a real GPU, gtsim with exec=1) it runs until the test writes 0 to its
 * flag through zetDebugWriteMemory, as Intel's suite does with its loop
 * kernel; gtsim's paced model (pace 20) walks it in a second or two. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

static void nap_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Which threads are stopped: those whose cr0 reads (at most max kept). */
static unsigned stopped_threads(ze_device_handle_t dev, zet_debug_session_handle_t s,
                                zet_debug_event_t *out, unsigned max)
{
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    unsigned n = 0;
    uint32_t cr[4];
    if (zeDeviceGetProperties(dev, &p) != ZE_RESULT_SUCCESS)
        return 0;
    for (uint32_t sl = 0; sl < p.numSlices; sl++)
        for (uint32_t ss = 0; ss < p.numSubslicesPerSlice; ss++)
            for (uint32_t eu = 0; eu < p.numEUsPerSubslice; eu++)
                for (uint32_t th = 0; th < p.numThreadsPerEU; th++) {
                    ze_device_thread_t t = {sl, ss, eu, th};
                    if (conf_read_cr0(s, t, cr) != ZE_RESULT_SUCCESS)
                        continue;
                    if (n < max)
                        out[n].info.thread.thread = t;
                    n++;
                }
    return n;
}

static void interrupt_and_resume(ze_device_handle_t dev)
{
    struct conf_app app;
    const char *const args[] = {"loop", "--groups", "2", "--wait-launch", NULL};
    zet_debug_session_handle_t s;
    zet_debug_event_t ev, stops[64];
    ze_device_thread_t one = {0, 0, 0, 0};
    char line[256];
    unsigned threads = 0, simd = 0;
    uint32_t cr[4];
    uint64_t flag = 0;
    ze_result_t r;

    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    if (conf_attach(dev, &app, &s))
        return;
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY, CONF_DEADLINE_MS, &ev);

    /* Nothing has been launched yet. */
    r = zetDebugInterrupt(s, conf_all_threads);
    tap_ok(r == ZE_RESULT_SUCCESS, "interrupt all with nothing running: %s", conf_result(r));
    r = conf_read_event(s, CONF_DEADLINE_MS, &ev);
    tap_ok(r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_UNAVAILABLE &&
               conf_thread_is_all(ev.info.thread.thread),
           "-> one THREAD_UNAVAILABLE for the thread requested, all (got %s)",
           conf_event_name(ev.type));
    r = conf_read_event(s, 300, &ev);
    tap_ok(r == ZE_RESULT_NOT_READY, "and nothing else (%s)", conf_result(r));
    r = zetDebugInterrupt(s, one);
    r = r == ZE_RESULT_SUCCESS ? conf_read_event(s, CONF_DEADLINE_MS, &ev) : r;
    tap_ok(r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_UNAVAILABLE &&
               conf_thread_eq(ev.info.thread.thread, one),
           "interrupt of thread 0.0.0.0 with nothing running -> THREAD_UNAVAILABLE 0.0.0.0 "
           "(%s, %s)",
           conf_result(r), conf_event_name(ev.type));

    conf_app_send(&app, "go");
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &ev);
    uint64_t isa = ev.info.module.load;
    zetDebugAcknowledgeEvent(s, &ev);
    if (conf_app_expect(&app, "kernel simd", CONF_DEADLINE_MS, line, sizeof(line)))
        sscanf(line, "kernel simd %u threads %u", &simd, &threads);
    flag = conf_app_loop_flag(&app);
    if (!conf_app_expect(&app, "armed", CONF_DEADLINE_MS, NULL, 0) || threads == 0 ||
        threads > 64 || flag == 0)
        tap_bail("the debuggee did not get to its launch");
    conf_app_send(&app, "launch");
    conf_app_expect(&app, "launched", CONF_DEADLINE_MS, NULL, 0);
    nap_ms(300); /* inside the ~1-2 s a paced thread walks; an executed one loops */

    r = zetDebugInterrupt(s, conf_all_threads);
    tap_ok(r == ZE_RESULT_SUCCESS, "interrupt all while the kernel runs: %s", conf_result(r));
    /* The driver's answer (compute-runtime's DebugSessionImp): one event
     * with the requested id, none per interrupted thread. */
    r = conf_read_event(s, CONF_DEADLINE_MS, &ev);
    tap_ok(r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED &&
               conf_thread_is_all(ev.info.thread.thread),
           "-> one THREAD_STOPPED for the thread requested, all (got %s)",
           conf_event_name(ev.type));
    r = conf_read_event(s, 300, &ev);
    tap_ok(r == ZE_RESULT_NOT_READY, "and no event per interrupted thread (%s)", conf_result(r));
    unsigned n = stopped_threads(dev, s, stops, 64);
    tap_ok(n == threads, "the stopped threads are found by reading them: %u of %u", n, threads);
    int halted = n > 0;
    for (unsigned i = 0; i < n; i++)
        if (conf_read_cr0(s, stops[i].info.thread.thread, cr) != ZE_RESULT_SUCCESS ||
            !(cr[1] & CONF_CR0_1_EXT_HALT))
            halted = 0;
    tap_ok(halted, "cr0.1 bit 30 (external halt) set in each");
    tap_ok(!conf_app_expect(&app, "done", 500, NULL, 0),
           "the launch does not complete while interrupted");
    if (n > 0) {
        r = zetDebugInterrupt(s, stops[0].info.thread.thread);
        tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
               "interrupting one thread that is already stopped: NOT_AVAILABLE (got %s)",
               conf_result(r));
    }
    r = zetDebugResume(s, conf_all_threads);
    tap_ok(r == ZE_RESULT_SUCCESS, "resume all: %s", conf_result(r));
    if (n > 0) {
        ze_device_thread_t t0 = stops[0].info.thread.thread;
        uint8_t buf[16];
        r = zetDebugReadRegisters(s, t0, CONF_REG_CR, 0, 1, cr);
        tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
               "registers of a running thread: NOT_AVAILABLE (got %s)", conf_result(r));
        r = conf_read_mem(s, t0, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, isa, sizeof(buf), buf);
        tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
               "default-space read with a single running thread: NOT_AVAILABLE (got %s)",
               conf_result(r));
        r = zetDebugResume(s, t0);
        tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
               "resuming a running thread: NOT_AVAILABLE (got %s)", conf_result(r));
        /* One running thread: its answer is the event naming it. */
        r = zetDebugInterrupt(s, t0);
        r = r == ZE_RESULT_SUCCESS ? conf_read_event(s, CONF_DEADLINE_MS, &ev) : r;
        tap_ok(r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED &&
                   conf_thread_eq(ev.info.thread.thread, t0),
               "interrupt of one running thread -> one THREAD_STOPPED naming it (%s, %s)",
               conf_result(r), conf_event_name(ev.type));
        r = conf_read_event(s, 300, &ev);
        tap_ok(r == ZE_RESULT_NOT_READY, "and nothing else (%s)", conf_result(r));
        r = zetDebugResume(s, t0);
        tap_ok(r == ZE_RESULT_SUCCESS, "resume it: %s", conf_result(r));
    }
    r = conf_end_loop(s, flag);
    tap_ok(r == ZE_RESULT_SUCCESS, "the debugger writes 0 to the loop's flag: %s", conf_result(r));
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", CONF_DEADLINE_MS, NULL, 0),
           "after resume all and the write the launch completes");
    tap_ok(conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_DETACHED, CONF_DEADLINE_MS, &ev),
           "DETACHED once the debuggee exits");
    tap_ok(conf_app_finish(&app, CONF_DEADLINE_MS), "debuggee exits 0");
    zetDebugDetach(s);
}

static void killed_mid_kernel(ze_device_handle_t dev)
{
    struct conf_app app;
    const char *const args[] = {"loop", "--groups", "2", NULL};
    zet_debug_session_handle_t s;
    zet_debug_event_t ev;
    ze_result_t r;

    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    if (conf_attach(dev, &app, &s))
        return;
    conf_app_send(&app, "go");
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &ev);
    zetDebugAcknowledgeEvent(s, &ev);
    tap_ok(conf_app_expect(&app, "launched", CONF_DEADLINE_MS, NULL, 0), "kernel launched");
    nap_ms(200);
    kill(app.pid, SIGKILL);
    conf_app_kill(&app); /* reaps */
    uint64_t t0 = conf_now_ms();
    int got = conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_DETACHED, CONF_DEADLINE_MS, &ev);
    tap_ok(got && ev.info.detached.reason == ZET_DEBUG_DETACH_REASON_HOST_EXIT,
           "application killed with SIGKILL mid-kernel: DETACHED, reason HOST_EXIT (%llu ms)",
           (unsigned long long)(conf_now_ms() - t0));
    t0 = conf_now_ms();
    r = conf_read_event(s, 200, &ev);
    r = r == ZE_RESULT_SUCCESS ? conf_read_event(s, 200, &ev) : r;
    tap_ok(r != ZE_RESULT_SUCCESS && conf_now_ms() - t0 < 5000,
           "later reads fail or time out without hanging (%s)", conf_result(r));
    tap_ok(zetDebugDetach(s) == ZE_RESULT_SUCCESS, "zetDebugDetach still succeeds");
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8];
    uint32_t nd = 8;

    conf_init(argc, argv, 120);
    tap_plan(28);
    conf_set_pace(20);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    interrupt_and_resume(devs[0]);
    killed_mid_kernel(devs[0]);
    return tap_done();
}
