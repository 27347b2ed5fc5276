/* SPDX-License-Identifier: MIT */
/* zetDebugInterrupt's contract as Intel's runtime implements it
 * (compute-runtime, DebugSessionImp::interrupt): the call only queues the
 * request and returns at once; its answer comes later as an event.
 * ERROR_NOT_AVAILABLE when every requested thread is already reported
 * stopped (all of the device's, an EU's, one), NOT_READY while the same request is still pending,
 * SUCCESS otherwise, and threads a resume let go count as running again as soon as the resume
 * returns. On gtsim the debuggee is given interrupt_spread_ms so the answer of an interrupt that
 * stops threads is held back for seconds: long enough to see the request pending. The kernel is
 * the debuggee's `loop`, ended by writing its flag (see test_runcontrol.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

#define SPREAD_MS 3000

static void nap_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Marks in stopped[] (slice-major order) the threads whose cr0 reads. */
static unsigned find_stopped(const ze_device_properties_t *p, zet_debug_session_handle_t s,
                             uint8_t *stopped, ze_device_thread_t *first)
{
    unsigned n = 0, i = 0;
    uint32_t cr[4];
    for (uint32_t sl = 0; sl < p->numSlices; sl++)
        for (uint32_t ss = 0; ss < p->numSubslicesPerSlice; ss++)
            for (uint32_t eu = 0; eu < p->numEUsPerSubslice; eu++)
                for (uint32_t th = 0; th < p->numThreadsPerEU; th++, i++) {
                    ze_device_thread_t t = {sl, ss, eu, th};
                    stopped[i] = conf_read_cr0(s, t, cr) == ZE_RESULT_SUCCESS;
                    if (stopped[i] && n++ == 0)
                        *first = t;
                }
    return n;
}

/* An EU whose every thread is stopped, as {slice, subslice, eu, all}. */
static int full_eu(const ze_device_properties_t *p, const uint8_t *stopped, ze_device_thread_t *eu)
{
    uint32_t per = p->numThreadsPerEU, i = 0;
    for (uint32_t sl = 0; sl < p->numSlices; sl++)
        for (uint32_t ss = 0; ss < p->numSubslicesPerSlice; ss++)
            for (uint32_t e = 0; e < p->numEUsPerSubslice; e++, i += per) {
                uint32_t k = 0;
                while (k < per && stopped[i + k])
                    k++;
                if (k == per) {
                    *eu = (ze_device_thread_t){sl, ss, e, UINT32_MAX};
                    return 1;
                }
            }
    return 0;
}

static void contract(ze_device_handle_t dev)
{
    struct conf_app app;
    /* One work-group per hardware thread: every thread of the device runs. */
    char groups[16];
    const char *const args[] = {"loop", "--groups", groups, "--wait-launch", NULL};
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zet_debug_session_handle_t s;
    zet_debug_event_t ev;
    ze_device_thread_t one = {0, 0, 0, 0}, eu;
    uint8_t *stopped;
    char line[256];
    unsigned threads = 0, simd = 0, n, all;
    uint64_t t0, flag;
    ze_result_t r;

    if (zeDeviceGetProperties(dev, &p) != ZE_RESULT_SUCCESS)
        tap_bail("zeDeviceGetProperties failed");
    all = p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice * p.numThreadsPerEU;
    snprintf(groups, sizeof(groups), "%u", all);
    stopped = calloc(all, 1);
    if (!stopped)
        tap_bail("out of memory");
    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    if (conf_attach(dev, &app, &s))
        return;
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY, CONF_DEADLINE_MS, &ev);
    conf_app_send(&app, "go");
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &ev);
    zetDebugAcknowledgeEvent(s, &ev);
    if (conf_app_expect(&app, "kernel simd", CONF_DEADLINE_MS, line, sizeof(line)))
        sscanf(line, "kernel simd %u threads %u", &simd, &threads);
    flag = conf_app_loop_flag(&app);
    if (!conf_app_expect(&app, "armed", CONF_DEADLINE_MS, NULL, 0) || threads == 0 || !flag)
        tap_bail("the debuggee did not get to its launch");
    conf_app_send(&app, "launch");
    conf_app_expect(&app, "launched", CONF_DEADLINE_MS, NULL, 0);
    nap_ms(300);

    t0 = conf_now_ms();
    r = zetDebugInterrupt(s, conf_all_threads);
    tap_ok(r == ZE_RESULT_SUCCESS, "interrupt all while the kernel runs: %s (returned in %llu ms)",
           conf_result(r), (unsigned long long)(conf_now_ms() - t0));
    r = zetDebugInterrupt(s, conf_all_threads);
    tap_ok(r == ZE_RESULT_NOT_READY, "the same request again while it is pending: NOT_READY (%s)",
           conf_result(r));
    r = conf_read_event(s, 100, &ev);
    tap_ok(r == ZE_RESULT_NOT_READY, "its answer is not there yet: the call did not wait (%s)",
           conf_result(r));
    r = conf_read_event(s, CONF_DEADLINE_MS, &ev);
    tap_ok(r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED &&
               conf_thread_is_all(ev.info.thread.thread),
           "then comes one THREAD_STOPPED naming all (%s, %s, %llu ms after the request)",
           conf_result(r), conf_event_name(ev.type), (unsigned long long)(conf_now_ms() - t0));

    n = find_stopped(&p, s, stopped, &one);
    tap_ok(n == threads && n == all,
           "the interrupt stopped every thread of the launch, and of the device: %u of %u (%u)", n,
           threads, all);
    r = zetDebugInterrupt(s, conf_all_threads);
    tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
           "interrupt all with every thread reported stopped: NOT_AVAILABLE (%s)", conf_result(r));
    r = zetDebugInterrupt(s, one);
    tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
           "interrupt of one stopped thread %u.%u.%u.%u: NOT_AVAILABLE (%s)", one.slice,
           one.subslice, one.eu, one.thread, conf_result(r));
    if (full_eu(&p, stopped, &eu)) {
        r = zetDebugInterrupt(s, eu);
        tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
               "interrupt of EU %u.%u.%u, all of whose threads are stopped: NOT_AVAILABLE (%s)",
               eu.slice, eu.subslice, eu.eu, conf_result(r));
    } else {
        tap_ok(0, "an EU with every thread stopped to interrupt (none among %u threads)", n);
    }

    r = zetDebugResume(s, conf_all_threads);
    tap_ok(r == ZE_RESULT_SUCCESS, "resume all: %s", conf_result(r));
    /* The runtime forgets the resumed threads were stopped before resume
     * returns, whatever events are still on their way. */
    r = zetDebugInterrupt(s, one);
    tap_ok(r == ZE_RESULT_SUCCESS, "interrupt of that thread right after the resume: %s",
           conf_result(r));
    r = conf_read_event(s, CONF_DEADLINE_MS, &ev);
    tap_ok(r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED &&
               conf_thread_eq(ev.info.thread.thread, one),
           "-> THREAD_STOPPED naming it (%s, %s)", conf_result(r), conf_event_name(ev.type));
    r = zetDebugResume(s, one);
    tap_ok(r == ZE_RESULT_SUCCESS, "resume it: %s", conf_result(r));
    r = conf_end_loop(s, flag);
    tap_ok(r == ZE_RESULT_SUCCESS, "the debugger writes 0 to the loop's flag: %s", conf_result(r));
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", CONF_DEADLINE_MS, NULL, 0),
           "the launch completes");
    tap_ok(conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_DETACHED, CONF_DEADLINE_MS, &ev),
           "DETACHED once the debuggee exits");
    r = zetDebugInterrupt(s, conf_all_threads);
    tap_ok(r == ZE_RESULT_ERROR_DEVICE_LOST, "interrupt after that: DEVICE_LOST (%s)",
           conf_result(r));
    tap_ok(conf_app_finish(&app, CONF_DEADLINE_MS), "debuggee exits 0");
    zetDebugDetach(s);
    free(stopped);
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8];
    uint32_t nd = 8;
    const char *cfg;
    char buf[1024];

    conf_init(argc, argv, 120);
    tap_plan(18);
    conf_set_pace(20);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    /* For the debuggee only (this process has read its configuration): the
     * answer of an interrupt that stops threads waits SPREAD_MS. */
    cfg = getenv("GTSIM_CONFIG");
    if (getenv("GTSIM_LIB") && !(cfg && strstr(cfg, "interrupt_spread_ms="))) {
        snprintf(buf, sizeof(buf), "%s%sinterrupt_spread_ms=%d", cfg ? cfg : "",
                 cfg && *cfg ? "," : "", SPREAD_MS);
        setenv("GTSIM_CONFIG", buf, 1);
    }
    contract(devs[0]);
    return tap_done();
}
