/* SPDX-License-Identifier: MIT */
/* The dispatch floor: the least any XPTI dispatcher can do for one
 * notification with one subscriber. It has xptiNotifySubscribers' signature
 * and lives in a shared object of its own, so the benchmark reaches it the
 * way it reaches the framework (a call through the PLT), and it makes one
 * indirect call to a callback that does nothing, as the framework calls the
 * no-op subscriber's. No checks, no table: what Notify costs beyond this is
 * the framework's own work. */
#include "bench/xpti/floor.h"

static void no_op(uint16_t type, struct xpti_event *parent, struct xpti_event *object,
                  uint64_t instance, const void *user_data)
{
    (void)type, (void)parent, (void)object, (void)instance, (void)user_data;
}

/* volatile: loaded on every call, as the framework loads its table entry. */
static xpti_callback_fn volatile floor_callback = no_op;

xpti_result_t xpti_bench_floor_notify(xpti_stream_id_t stream, uint16_t trace_type,
                                      struct xpti_event *parent, struct xpti_event *object,
                                      uint64_t instance, const void *user_data)
{
    (void)stream;
    floor_callback(trace_type, parent, object, instance, user_data);
    return XPTI_RESULT_SUCCESS;
}
