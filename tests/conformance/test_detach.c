/* SPDX-License-Identifier: MIT */
/* Leaving: zetDebugDetach resumes every thread the session stopped and
 * releases a pending module acknowledgement; a debugger process killed
 * while threads are stopped leaves the application able to finish. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

static const char *const vadd_args[] = {"vadd", "--groups", "2", NULL};

static void detach_with_stopped_threads(ze_device_handle_t dev)
{
    struct conf_app app;
    zet_debug_session_handle_t s;
    zet_debug_event_t ev, stops[64];
    char line[256];
    unsigned threads = 0, simd = 0;
    uint64_t off;

    if (conf_app_start_ready(&app, 1, vadd_args))
        tap_bail("debuggee did not start");
    if (conf_attach(dev, &app, &s))
        return;
    conf_app_send(&app, "go");
    if (!conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &ev)) {
        tap_ok(0, "MODULE_LOAD");
        conf_app_kill(&app);
        return;
    }
    tap_ok(conf_nth_insn(s, ev.info.module.load, 2, &off, NULL) == 0 &&
               conf_plant_bp(s, ev.info.module.load + off) == 0,
           "breakpoint planted at the third instruction");
    zetDebugAcknowledgeEvent(s, &ev);
    if (conf_app_expect(&app, "kernel simd", CONF_DEADLINE_MS, line, sizeof(line)))
        sscanf(line, "kernel simd %u threads %u", &simd, &threads);
    unsigned n =
        conf_collect(s, ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED, threads, CONF_DEADLINE_MS, stops, 64);
    tap_ok(threads > 0 && n == threads, "all %u threads stopped at the breakpoint (%u)", threads,
           n);
    tap_ok(zetDebugDetach(s) == ZE_RESULT_SUCCESS, "detach with threads stopped");
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", CONF_DEADLINE_MS, NULL, 0) &&
               conf_app_finish(&app, CONF_DEADLINE_MS),
           "after detach the threads run on: the application finishes normally");
}

static void detach_with_pending_ack(ze_device_handle_t dev)
{
    struct conf_app app;
    zet_debug_session_handle_t s;
    zet_debug_event_t ev;

    if (conf_app_start_ready(&app, 1, vadd_args))
        tap_bail("debuggee did not start");
    if (conf_attach(dev, &app, &s))
        return;
    conf_app_send(&app, "go");
    tap_ok(conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &ev) &&
               (ev.flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK),
           "MODULE_LOAD with NEED_ACK");
    tap_ok(zetDebugDetach(s) == ZE_RESULT_SUCCESS, "detach without acknowledging it");
    tap_ok(conf_app_expect(&app, "module-created", CONF_DEADLINE_MS, NULL, 0),
           "detach releases the blocked zeModuleCreate");
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", CONF_DEADLINE_MS, NULL, 0) &&
               conf_app_finish(&app, CONF_DEADLINE_MS),
           "the application finishes normally");
}

static void debugger_killed(void)
{
    struct conf_app app, helper;
    char pidbuf[32];
    const char *hargs[] = {"hold", pidbuf, NULL};

    if (conf_app_start_ready(&app, 1, vadd_args))
        tap_bail("debuggee did not start");
    snprintf(pidbuf, sizeof(pidbuf), "%d", (int)app.pid);
    if (conf_helper_start(&helper, hargs) ||
        !tap_ok(conf_app_expect(&helper, "attached", CONF_DEADLINE_MS, NULL, 0),
                "a second debugger process attaches")) {
        conf_app_kill(&helper);
        conf_app_kill(&app);
        return;
    }
    conf_app_send(&app, "go");
    tap_ok(conf_app_expect(&helper, "stopped", CONF_DEADLINE_MS, NULL, 0),
           "it stops a thread at a breakpoint");
    tap_ok(!conf_app_expect(&app, "done", 300, NULL, 0),
           "the application waits for its stopped threads");
    kill(helper.pid, SIGKILL);
    conf_app_kill(&helper);
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", CONF_DEADLINE_MS, NULL, 0) &&
               conf_app_finish(&app, CONF_DEADLINE_MS),
           "debugger killed with SIGKILL: the application's threads resume and it finishes");
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8];
    uint32_t nd = 8;

    conf_init(argc, argv, 120);
    tap_plan(14);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    detach_with_stopped_threads(devs[0]);
    detach_with_pending_ack(devs[0]);
    debugger_killed();
    return tap_done();
}
