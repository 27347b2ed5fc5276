/* SPDX-License-Identifier: MIT */
/* Exported ABI: callback registration and notification (the hot path). */
#include "xpti/framework.h"

xpti_result_t xptiRegisterCallback(xpti_stream_id_t stream, uint16_t trace_type,
                                   xpti_callback_fn cb)
{
    if (!cb)
        return XPTI_RESULT_INVALIDARG;
    return cbs_register(&xpti_fw_get()->callbacks, stream, trace_type, cb);
}

xpti_result_t xptiUnregisterCallback(xpti_stream_id_t stream, uint16_t trace_type,
                                     xpti_callback_fn cb)
{
    if (!cb)
        return XPTI_RESULT_INVALIDARG;
    return cbs_unregister(&xpti_fw_get()->callbacks, stream, trace_type, cb);
}

bool xptiCheckTraceEnabled(xpti_stream_id_t stream, uint16_t trace_type)
{
    struct xpti_fw *fw = xpti_fw_get();
    if (!atomic_load_explicit(&fw->trace_enabled, memory_order_relaxed) || stream == 0)
        return false;
    if (trace_type == 0)
        return cbs_stream_active(&fw->callbacks, stream);
    return cbs_active(&fw->callbacks, stream, trace_type) != NULL;
}

/* Types whose notifications carry everything in user_data, so `object` may
 * be NULL. Type 0 passes too: upstream's allow-list is zero-padded. */
static bool object_optional(uint16_t type)
{
    switch (type) {
    case 0:
    case XPTI_TP_FUNCTION_BEGIN:
    case XPTI_TP_FUNCTION_END:
    case XPTI_TP_FUNCTION_WITH_ARGS_BEGIN:
    case XPTI_TP_FUNCTION_WITH_ARGS_END:
    case XPTI_TP_MEM_ALLOC_BEGIN:
    case XPTI_TP_MEM_ALLOC_END:
    case XPTI_TP_MEM_RELEASE_BEGIN:
    case XPTI_TP_MEM_RELEASE_END:
    case XPTI_TP_OFFLOAD_ALLOC_MEMORY_OBJECT_CONSTRUCT:
    case XPTI_TP_OFFLOAD_ALLOC_MEMORY_OBJECT_DESTRUCT:
    case XPTI_TP_OFFLOAD_ALLOC_MEMORY_OBJECT_ASSOCIATE:
    case XPTI_TP_OFFLOAD_ALLOC_MEMORY_OBJECT_RELEASE:
    case XPTI_TP_OFFLOAD_ALLOC_ACCESSOR:
    case XPTI_TP_DIAGNOSTICS:
        return true;
    default:
        return false;
    }
}

/* Two or more callbacks, or a task_end: out of line, so that the common
 * single-callback path below needs no callee-saved registers and no loop.
 * After a task_end's callbacks (they may still read the event) the event
 * joins its key's ended instances, which the registry recycles beyond a few
 * per key. With nobody listening to task_end there is no such notification
 * worth the hot path's time, and instances stay until released. */
static __attribute__((noinline)) xpti_result_t
notify_all(const struct cb_list *cbs, uint16_t trace_type, struct xpti_event *parent,
           struct xpti_event *object, uint64_t instance, const void *user_data)
{
    for (size_t i = 0; i < cbs->n; i++)
        cbs->fn[i](trace_type, parent, object, instance, user_data);
    /* The framework exists: this is a notification it dispatched. */
    if (trace_type == XPTI_TP_TASK_END && object)
        tpreg_task_ended(&xpti_fw_peek()->tracepoints, object);
    return XPTI_RESULT_SUCCESS;
}

static inline xpti_result_t dispatch(struct xpti_fw *fw, xpti_stream_id_t stream,
                                     uint16_t trace_type, struct xpti_event *parent,
                                     struct xpti_event *object, uint64_t instance,
                                     const void *user_data)
{
    if (!atomic_load_explicit(&fw->trace_enabled, memory_order_relaxed))
        return XPTI_RESULT_FALSE;
    if (!object && (!user_data || !object_optional(trace_type)))
        return XPTI_RESULT_INVALIDARG;
    const struct cb_list *cbs = cbs_active(&fw->callbacks, stream, trace_type);
    if (!cbs)
        return XPTI_RESULT_SUCCESS;
    /* A published list is never empty (callbacks.c publishes NULL instead). */
    if (!cbs->direct)
        return notify_all(cbs, trace_type, parent, object, instance, user_data);
    cbs->fn[0](trace_type, parent, object, instance, user_data);
    return XPTI_RESULT_SUCCESS;
}

/* The first call of the process: create the framework, then dispatch. */
static __attribute__((noinline)) xpti_result_t
dispatch_creating(xpti_stream_id_t stream, uint16_t trace_type, struct xpti_event *parent,
                  struct xpti_event *object, uint64_t instance, const void *user_data)
{
    return dispatch(xpti_fw_get(), stream, trace_type, parent, object, instance, user_data);
}

/* Everything but the fast path below: out of line, so that path saves no
 * registers. */
static __attribute__((noinline)) xpti_result_t
dispatch_full(xpti_stream_id_t stream, uint16_t trace_type, struct xpti_event *parent,
              struct xpti_event *object, uint64_t instance, const void *user_data)
{
    /* Not xpti_fw_get(): its creating call would make every notification
     * save and restore the arguments; here that call is a tail call. */
    struct xpti_fw *fw = xpti_fw_peek();
    if (!fw)
        return dispatch_creating(stream, trace_type, parent, object, instance, user_data);
    return dispatch(fw, stream, trace_type, parent, object, instance, user_data);
}

xpti_result_t xptiNotifySubscribers(xpti_stream_id_t stream, uint16_t trace_type,
                                    struct xpti_event *parent, struct xpti_event *object,
                                    uint64_t instance, const void *user_data)
{
    /* The common case: an object, a standard type, tracing on and one
     * callback with nothing to do after it. cbs_hot holds that callback
     * only while all of this framework's conditions hold (callbacks.h), so
     * one load decides; an object also makes the argument check pass. */
    if (__builtin_expect(object && trace_type < 256, 1)) {
        xpti_callback_fn fn = cbs_hot_fn(stream, trace_type);
        if (__builtin_expect(fn != NULL, 1)) {
            fn(trace_type, parent, object, instance, user_data);
            return XPTI_RESULT_SUCCESS;
        }
    }
    return dispatch_full(stream, trace_type, parent, object, instance, user_data);
}
