/* SPDX-License-Identifier: MIT */
/* zetDebugInterrupt from a signal handler, as Intel's gdbserver calls it on
 * ^C (its SIGIO handler), while the interrupted thread is inside another
 * zetDebug* call of the same session. Intel's runtime only queues the
 * request under a mutex of its own that no other call takes, so this
 * returns at once; a driver whose interrupt waits for the lock of the
 * call it interrupted deadlocks here, and the alarm() watchdog ends the
 * program with checks missing. The register read is made slow
 * (GTSIM_DEBUG_LATENCY_US, read by gtsim on the debugger side only) so
 * the signal lands while it is in flight. The kernel is the debuggee's
 * `loop`, ended by writing its flag (see test_runcontrol.c). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

/* glibc before 2.35 does not name this field of struct sigevent. */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static zet_debug_session_handle_t session;
static volatile sig_atomic_t handler_ran;
static volatile sig_atomic_t handler_result = -1;
static volatile sig_atomic_t in_call;         /* the main thread is inside its slow call */
static volatile sig_atomic_t handler_in_call; /* in_call when the handler ran */

static void nap_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void on_sigusr1(int sig)
{
    (void)sig;
    handler_in_call = in_call;
    handler_result = (sig_atomic_t)zetDebugInterrupt(session, conf_all_threads);
    handler_ran = 1;
}

/* A timer that signals this thread (not whichever thread the kernel
 * picks) 300 ms from now: the kernel delivers it, so a busy machine that
 * delays other threads does not move it out of the 900 ms call. */
static int arm_signal(timer_t *timer)
{
    struct sigevent sev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1};
    struct itimerspec its = {.it_value = {.tv_sec = 0, .tv_nsec = 300 * 1000000L}};
    sev.sigev_notify_thread_id = gettid();
    if (timer_create(CLOCK_MONOTONIC, &sev, timer) != 0)
        return -1;
    return timer_settime(*timer, 0, &its, NULL);
}

static void in_signal_handler(ze_device_handle_t dev)
{
    struct conf_app app;
    const char *const args[] = {"loop", "--groups", "2", "--wait-launch", NULL};
    struct sigaction sa;
    zet_debug_event_t ev;
    ze_device_thread_t t0 = {0, 0, 0, 0};
    timer_t timer;
    uint32_t cr[4];
    uint64_t start, took, flag;
    ze_result_t r;

    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    if (conf_attach(dev, &app, &session))
        return;
    conf_wait_event(session, ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY, CONF_DEADLINE_MS, &ev);
    conf_app_send(&app, "go");
    conf_wait_event(session, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &ev);
    zetDebugAcknowledgeEvent(session, &ev);
    flag = conf_app_loop_flag(&app);
    if (!conf_app_expect(&app, "armed", CONF_DEADLINE_MS, NULL, 0) || !flag)
        tap_bail("the debuggee did not get to its launch");
    conf_app_send(&app, "launch");
    conf_app_expect(&app, "launched", CONF_DEADLINE_MS, NULL, 0);
    nap_ms(200);

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigusr1;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    alarm(30);   /* the bound: a deadlock ends here, with checks missing */
    in_call = 1; /* from here: the read follows at once */
    if (arm_signal(&timer) != 0)
        tap_bail("timer_create failed");
    start = conf_now_ms();
    /* Thread 0 runs, so the answer is NOT_AVAILABLE, after the latency
     * (which the signal may cut short). */
    r = zetDebugReadRegisters(session, t0, CONF_REG_CR, 0, 1, cr);
    in_call = 0;
    took = conf_now_ms() - start;
    while (!handler_ran && conf_now_ms() - start < 5000)
        nap_ms(10); /* the timer missed the call: the check below says so */
    timer_delete(timer);
    tap_ok(handler_ran && handler_in_call,
           "the signal came during zetDebugReadRegisters, which returned %s after %llu ms",
           conf_result(r), (unsigned long long)took);
    tap_ok(handler_result == ZE_RESULT_SUCCESS,
           "zetDebugInterrupt(all) in the signal handler returned SUCCESS (%s)",
           conf_result((ze_result_t)handler_result));
    r = conf_read_event(session, CONF_DEADLINE_MS, &ev);
    tap_ok(r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED &&
               conf_thread_is_all(ev.info.thread.thread),
           "its answer: THREAD_STOPPED naming all (%s, %s)", conf_result(r),
           conf_event_name(ev.type));
    alarm(60);
    r = zetDebugResume(session, conf_all_threads);
    tap_ok(r == ZE_RESULT_SUCCESS, "resume all: %s", conf_result(r));
    r = conf_end_loop(session, flag);
    tap_ok(r == ZE_RESULT_SUCCESS, "the debugger writes 0 to the loop's flag: %s", conf_result(r));
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", CONF_DEADLINE_MS, NULL, 0),
           "the launch completes");
    tap_ok(conf_wait_event(session, ZET_DEBUG_EVENT_TYPE_DETACHED, CONF_DEADLINE_MS, &ev),
           "DETACHED once the debuggee exits");
    tap_ok(conf_app_finish(&app, CONF_DEADLINE_MS), "debuggee exits 0");
    zetDebugDetach(session);
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8];
    uint32_t nd = 8;

    conf_init(argc, argv, 120);
    tap_plan(9);
    conf_set_pace(20);
    /* Every register and memory access of this process takes 0.9 s (gtsim
     * takes at most 999,999 us). */
    setenv("GTSIM_DEBUG_LATENCY_US", "900000", 1);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    in_signal_handler(devs[0]);
    return tap_done();
}
