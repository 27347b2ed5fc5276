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

xpti_result_t xptiNotifySubscribers(xpti_stream_id_t stream, uint16_t trace_type,
                                    struct xpti_event *parent, struct xpti_event *object,
                                    uint64_t instance, const void *user_data)
{
    struct xpti_fw *fw = xpti_fw_get();
    if (!atomic_load_explicit(&fw->trace_enabled, memory_order_relaxed))
        return XPTI_RESULT_FALSE;
    if (!object && (!user_data || !object_optional(trace_type)))
        return XPTI_RESULT_INVALIDARG;
    const struct cb_list *cbs = cbs_active(&fw->callbacks, stream, trace_type);
    if (cbs)
        for (size_t i = 0; i < cbs->n; i++)
            cbs->fn[i](trace_type, parent, object, instance, user_data);
    return XPTI_RESULT_SUCCESS;
}
