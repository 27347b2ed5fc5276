/* SPDX-License-Identifier: MIT */
/* Exported ABI: string and object tables, unique ids, user-defined types,
 * framework defaults. */
#include "xpti/framework.h"

uint64_t xptiGetUniqueId(void)
{
    return atomic_fetch_add_explicit(&xpti_fw_get()->last_unique_id, 1, memory_order_relaxed) + 1;
}

xpti_string_id_t xptiRegisterString(const char *string, char **table_string)
{
    if (!table_string)
        return XPTI_INVALID_STRING_ID;
    /* The ABI hands out char * for historical reasons; the copy is shared
     * and must not be written. */
    return strtab_intern(&xpti_fw_get()->strings, string, (const char **)table_string);
}

const char *xptiLookupString(xpti_string_id_t id)
{
    return strtab_lookup(&xpti_fw_get()->strings, id);
}

xpti_object_id_t xptiRegisterObject(const char *data, size_t size, uint8_t type)
{
    return objtab_add(&xpti_fw_get()->objects, data, size, type);
}

struct xpti_object_data xptiLookupObject(xpti_object_id_t id)
{
    return objtab_get(&xpti_fw_get()->objects, id);
}

/* (vendor id << 8) | 0x80 | type: bit 7 marks user-defined values. */
static uint16_t user_defined(const char *tool_name, uint8_t value)
{
    uint8_t vendor = nametab_register(&xpti_fw_get()->vendors, tool_name);
    if (vendor == NAMETAB_INVALID)
        return 0;
    return XPTI_PACK08_RET16(vendor, value | 0x80);
}

uint16_t xptiRegisterUserDefinedTracePoint(const char *tool_name, uint8_t user_tp)
{
    return user_defined(tool_name, user_tp);
}

uint16_t xptiRegisterUserDefinedEventType(const char *tool_name, uint8_t user_ev)
{
    return user_defined(tool_name, user_ev);
}

xpti_stream_id_t xptiGetDefaultStreamID(void)
{
    return atomic_load(&xpti_fw_get()->default_stream);
}

xpti_result_t xptiSetDefaultStreamID(xpti_stream_id_t stream)
{
    /* 128 and above are rejected as upstream does; 0 (never a registered
     * stream's id) is accepted, as upstream accepts it. */
    if (stream >= 128)
        return XPTI_RESULT_INVALIDARG;
    atomic_store(&xpti_fw_get()->default_stream, stream);
    return XPTI_RESULT_SUCCESS;
}

uint16_t xptiGetDefaultEventType(void)
{
    return atomic_load(&xpti_fw_get()->default_event_type);
}

xpti_result_t xptiSetDefaultEventType(uint16_t event_type)
{
    if (event_type == XPTI_EV_UNKNOWN)
        return XPTI_RESULT_INVALIDARG;
    atomic_store(&xpti_fw_get()->default_event_type, event_type);
    return XPTI_RESULT_SUCCESS;
}

uint16_t xptiGetDefaultTraceType(void)
{
    return atomic_load(&xpti_fw_get()->default_trace_type);
}

xpti_result_t xptiSetDefaultTraceType(uint16_t trace_type)
{
    if (trace_type == XPTI_TP_UNKNOWN)
        return XPTI_RESULT_INVALIDARG;
    atomic_store(&xpti_fw_get()->default_trace_type, trace_type);
    return XPTI_RESULT_SUCCESS;
}

void xptiEnableTracepointScopeNotification(bool enable)
{
    atomic_store(&xpti_fw_get()->scope_notification, enable);
}

bool xptiCheckTracepointScopeNotification(void)
{
    return atomic_load(&xpti_fw_get()->scope_notification);
}
