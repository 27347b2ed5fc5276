/* SPDX-License-Identifier: MIT */
/* Callback registration results, trace checks and notification rules
 * (xpti-facts.md sections 2 and 7). */
#include <stdlib.h>

#include "tests/lib/tap.h"
#include "xpti/xpti.h"

struct call {
    int who;
    uint16_t type;
    uint64_t instance;
    const void *user_data;
};

/* Callbacks have no context argument, so the log is file-scope test state. */
static struct call calls[64];
static int ncalls;

static void record(int who, uint16_t type, uint64_t instance, const void *ud)
{
    if (ncalls < 64)
        calls[ncalls++] = (struct call){who, type, instance, ud};
}

static void cb_one(uint16_t type, struct xpti_event *parent, struct xpti_event *ev,
                   uint64_t instance, const void *ud)
{
    record(1, type, instance, ud);
}

static void cb_two(uint16_t type, struct xpti_event *parent, struct xpti_event *ev,
                   uint64_t instance, const void *ud)
{
    record(2, type, instance, ud);
}

static void test_registration(void)
{
    xpti_stream_id_t s = xptiRegisterStream("cb.reg");
    tap_ok(xptiRegisterCallback(s, XPTI_TP_TASK_BEGIN, NULL) == XPTI_RESULT_INVALIDARG,
           "registering NULL is INVALIDARG");
    tap_ok(xptiUnregisterCallback(s, XPTI_TP_TASK_BEGIN, NULL) == XPTI_RESULT_INVALIDARG,
           "unregistering NULL is INVALIDARG");
    tap_ok(xptiRegisterCallback(s, XPTI_TP_TASK_BEGIN, cb_one) == XPTI_RESULT_SUCCESS,
           "register: SUCCESS");
    tap_ok(xptiRegisterCallback(s, XPTI_TP_TASK_BEGIN, cb_one) == XPTI_RESULT_DUPLICATE,
           "register again: DUPLICATE");
    tap_ok(xptiUnregisterCallback(s, XPTI_TP_TASK_END, cb_one) == XPTI_RESULT_NOTFOUND,
           "unregister on another type: NOTFOUND");
    tap_ok(xptiUnregisterCallback(s, XPTI_TP_TASK_BEGIN, cb_one) == XPTI_RESULT_SUCCESS,
           "unregister: SUCCESS");
    tap_ok(xptiUnregisterCallback(s, XPTI_TP_TASK_BEGIN, cb_one) == XPTI_RESULT_DUPLICATE,
           "unregister again: DUPLICATE");
    tap_ok(xptiRegisterCallback(s, XPTI_TP_TASK_BEGIN, cb_one) == XPTI_RESULT_UNDELETE,
           "register after unregister: UNDELETE");
}

static void test_check_trace_enabled(void)
{
    xpti_stream_id_t s = xptiRegisterStream("cb.check");
    xptiRegisterCallback(s, XPTI_TP_REGION_BEGIN, cb_one);
    tap_ok(!xptiCheckTraceEnabled(s, XPTI_TP_REGION_BEGIN), "false while tracing is off");
    xptiForceSetTraceEnabled(true);
    tap_ok(xptiTraceEnabled(), "forced on");
    tap_ok(xptiCheckTraceEnabled(s, 0), "type 0: the stream has an active callback");
    tap_ok(xptiCheckTraceEnabled(s, XPTI_TP_REGION_BEGIN), "true for the registered type");
    tap_ok(!xptiCheckTraceEnabled(s, XPTI_TP_REGION_END), "false for another type");
    tap_ok(!xptiCheckTraceEnabled(0, 0) && !xptiCheckTraceEnabled(0, XPTI_TP_REGION_BEGIN),
           "false for stream 0");
    tap_ok(!xptiCheckTraceEnabled(200, 0), "false for an unknown stream");
    xptiUnregisterCallback(s, XPTI_TP_REGION_BEGIN, cb_one);
    tap_ok(!xptiCheckTraceEnabled(s, 0) && !xptiCheckTraceEnabled(s, XPTI_TP_REGION_BEGIN),
           "false again once unregistered");
    xptiForceSetTraceEnabled(false);
}

static const uint16_t all_types[] = {XPTI_TP_GRAPH_CREATE,
                                     XPTI_TP_NODE_CREATE,
                                     XPTI_TP_EDGE_CREATE,
                                     XPTI_TP_REGION_BEGIN,
                                     XPTI_TP_REGION_END,
                                     XPTI_TP_TASK_BEGIN,
                                     XPTI_TP_TASK_END,
                                     XPTI_TP_BARRIER_BEGIN,
                                     XPTI_TP_BARRIER_END,
                                     XPTI_TP_LOCK_BEGIN,
                                     XPTI_TP_LOCK_END,
                                     XPTI_TP_SIGNAL,
                                     XPTI_TP_TRANSFER_BEGIN,
                                     XPTI_TP_TRANSFER_END,
                                     XPTI_TP_THREAD_BEGIN,
                                     XPTI_TP_THREAD_END,
                                     XPTI_TP_WAIT_BEGIN,
                                     XPTI_TP_WAIT_END,
                                     XPTI_TP_FUNCTION_BEGIN,
                                     XPTI_TP_FUNCTION_END,
                                     XPTI_TP_METADATA,
                                     XPTI_TP_FUNCTION_WITH_ARGS_BEGIN,
                                     XPTI_TP_FUNCTION_WITH_ARGS_END,
                                     XPTI_TP_MEM_ALLOC_BEGIN,
                                     XPTI_TP_MEM_ALLOC_END,
                                     XPTI_TP_MEM_RELEASE_BEGIN,
                                     XPTI_TP_MEM_RELEASE_END,
                                     XPTI_TP_OFFLOAD_ALLOC_MEMORY_OBJECT_CONSTRUCT,
                                     XPTI_TP_OFFLOAD_ALLOC_ACCESSOR,
                                     XPTI_TP_QUEUE_CREATE,
                                     XPTI_TP_DIAGNOSTICS,
                                     XPTI_TP_USER_DEFINED};

static void test_notify(void)
{
    xpti_stream_id_t s = xptiRegisterStream("cb.notify");
    int ud = 5;
    struct xpti_payload p = {.name = "n", .flags = XPTI_PAYLOAD_NAME_AVAILABLE};
    uint64_t inst;
    struct xpti_event *ev = xptiMakeEvent("n", &p, XPTI_EV_ALGORITHM, 1, &inst);
    xptiRegisterCallback(s, XPTI_TP_TASK_BEGIN, cb_one);
    xptiRegisterCallback(s, XPTI_TP_TASK_BEGIN, cb_two);
    xptiRegisterCallback(s, XPTI_TP_FUNCTION_BEGIN, cb_one);
    tap_ok(xptiNotifySubscribers(s, XPTI_TP_TASK_BEGIN, NULL, ev, 1, NULL) == XPTI_RESULT_FALSE &&
               ncalls == 0,
           "FALSE and no call while tracing is off");
    xptiForceSetTraceEnabled(true);
    bool all_invalid = true;
    for (size_t i = 0; i < sizeof(all_types) / sizeof(all_types[0]); i++)
        all_invalid = all_invalid && xptiNotifySubscribers(s, all_types[i], NULL, NULL, 0, NULL) ==
                                         XPTI_RESULT_INVALIDARG;
    tap_ok(all_invalid, "NULL object and NULL user data is INVALIDARG on every type");
    tap_ok(xptiNotifySubscribers(s, XPTI_TP_TASK_BEGIN, NULL, NULL, 0, &ud) ==
               XPTI_RESULT_INVALIDARG,
           "task_begin needs an object even with user data");
    tap_ok(xptiNotifySubscribers(s, XPTI_TP_FUNCTION_BEGIN, NULL, NULL, 9, &ud) ==
                   XPTI_RESULT_SUCCESS &&
               ncalls == 1 && calls[0].who == 1 && calls[0].user_data == &ud &&
               calls[0].instance == 9,
           "function_begin without an object: SUCCESS, user data reaches the callback");
    ncalls = 0;
    tap_ok(xptiNotifySubscribers(s, XPTI_TP_TASK_BEGIN, NULL, ev, 3, NULL) == XPTI_RESULT_SUCCESS &&
               ncalls == 2 && calls[0].who == 1 && calls[1].who == 2 &&
               calls[0].type == XPTI_TP_TASK_BEGIN,
           "callbacks run in registration order");
    ncalls = 0;
    xptiUnregisterCallback(s, XPTI_TP_TASK_BEGIN, cb_one);
    xptiNotifySubscribers(s, XPTI_TP_TASK_BEGIN, NULL, ev, 3, NULL);
    tap_ok(ncalls == 1 && calls[0].who == 2, "an unregistered callback is not called");
    ncalls = 0;
    tap_ok(xptiNotifySubscribers(s, XPTI_TP_TASK_END, NULL, ev, 3, NULL) == XPTI_RESULT_SUCCESS &&
               ncalls == 0,
           "a type without callbacks: SUCCESS, nothing called");
    tap_ok(xptiNotifySubscribers(s + 1, XPTI_TP_TASK_BEGIN, NULL, ev, 3, NULL) ==
                   XPTI_RESULT_SUCCESS &&
               ncalls == 0,
           "another stream's callbacks are not called");
    uint16_t user_tp = xptiRegisterUserDefinedTracePoint("cbTool", 0);
    xptiRegisterCallback(s, user_tp, cb_one);
    xptiNotifySubscribers(s, user_tp, NULL, ev, 4, NULL);
    tap_ok(ncalls == 1 && calls[0].type == user_tp, "user-defined trace types are dispatched");
    ncalls = 0;

    tap_ok(xptiUnregisterStream("cb.notify") == XPTI_RESULT_SUCCESS,
           "unregistering a stream with callbacks succeeds");
    xptiNotifySubscribers(s, XPTI_TP_TASK_BEGIN, NULL, ev, 3, NULL);
    xptiNotifySubscribers(s, user_tp, NULL, ev, 3, NULL);
    tap_ok(ncalls == 0, "and disables all of them");
    tap_ok(xptiRegisterCallback(s, XPTI_TP_TASK_BEGIN, cb_two) == XPTI_RESULT_UNDELETE,
           "re-registering after that is UNDELETE");

    xpti_stream_id_t f = xptiRegisterStream("cb.final");
    xptiRegisterCallback(f, XPTI_TP_SIGNAL, cb_one);
    xptiFinalize("cb.final");
    xptiNotifySubscribers(f, XPTI_TP_SIGNAL, NULL, ev, 1, NULL);
    tap_ok(ncalls == 0, "xptiFinalize disables the stream's callbacks");

    xptiReset();
    tap_ok(!xptiCheckTraceEnabled(s, 0), "reset drops all callbacks");
    xptiForceSetTraceEnabled(false);
}

int main(void)
{
    tap_plan(30);
    unsetenv("XPTI_SUBSCRIBERS");
    test_registration();
    xptiReset();
    test_check_trace_enabled();
    xptiReset();
    test_notify();
    return tap_done();
}
