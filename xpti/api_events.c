/* SPDX-License-Identifier: MIT */
/* Exported ABI: payloads, events, tracepoints and metadata. */
#include <stddef.h>

#include "xpti/framework.h"

#define INST_MEMBER(m) offsetof(struct tp_inst, m)

static struct tpreg *registry(void)
{
    return &xpti_fw_get()->tracepoints;
}

static struct tp_inst *inst_of_event(const struct xpti_event *event)
{
    return tpreg_validate(registry(), event, INST_MEMBER(event));
}

uint64_t xptiRegisterPayload(struct xpti_payload *payload)
{
    struct xpti_fw *fw = xpti_fw_get();
    struct tp_inst *inst = tpreg_create(&fw->tracepoints, payload,
                                        atomic_load(&fw->default_event_type), XPTI_ACTIVITY_ACTIVE);
    if (!inst)
        return XPTI_INVALID_UID;
    /* As upstream: the caller's payload learns its key (the legacy uid)
     * and that it is registered, besides the id. */
    payload->internal = tp_inst_uid64(inst);
    payload->uid = inst->payload.uid;
    payload->flags |= XPTI_PAYLOAD_REGISTERED;
    return tp_inst_uid64(inst);
}

struct xpti_event *xptiMakeEvent(const char *name, struct xpti_payload *payload,
                                 uint16_t event_type, int activity, uint64_t *instance_no)
{
    if (!instance_no)
        return NULL;
    struct tp_inst *inst = tpreg_create(registry(), payload, event_type, (uint16_t)activity);
    if (!inst)
        return NULL;
    *instance_no = inst->instance;
    return &inst->event;
}

const struct xpti_event *xptiFindEvent(uint64_t uid)
{
    struct tp_inst *inst = tpreg_find(registry(), uid);
    return inst ? &inst->event : NULL;
}

const struct xpti_payload *xptiQueryPayload(struct xpti_event *event)
{
    const uint64_t needed = XPTI_EVENT_UID_AVAILABLE | XPTI_EVENT_PAYLOAD_AVAILABLE;
    if (!event || (event->flags & needed) != needed)
        return NULL;
    return event->reserved.payload;
}

const struct xpti_payload *xptiQueryPayloadByUID(uint64_t uid)
{
    struct tp_inst *inst = tpreg_find(registry(), uid);
    return inst ? &inst->payload : NULL;
}

const struct xpti_payload_if *xptiLookupPayload(uint64_t uid)
{
    struct tp_inst *inst = tpreg_find(registry(), uid);
    return inst ? &inst->payload_if : NULL;
}

const struct xpti_event_if *xptiLookupEvent(uint64_t uid)
{
    struct tp_inst *inst = tpreg_find(registry(), uid);
    return inst ? &inst->event_if : NULL;
}

struct xpti_tracepoint_if *xptiCreateTracepoint(const char *func_name, const char *file_name,
                                                uint32_t line, uint32_t column, void *code_ptr_va)
{
    struct xpti_fw *fw = xpti_fw_get();
    struct xpti_payload p =
        tp_payload_from_location(func_name, file_name, line, column, code_ptr_va);
    struct tp_inst *inst = tpreg_create(&fw->tracepoints, &p, atomic_load(&fw->default_event_type),
                                        XPTI_ACTIVITY_ACTIVE);
    return inst ? &inst->tracepoint_if : NULL;
}

xpti_result_t xptiDeleteTracepoint(struct xpti_tracepoint_if *tp)
{
    struct tpreg *r = registry();
    struct tp_inst *inst = tpreg_validate(r, tp, INST_MEMBER(tracepoint_if));
    if (!inst)
        return XPTI_RESULT_INVALIDARG;
    tpreg_release(r, inst);
    return XPTI_RESULT_SUCCESS;
}

struct xpti_event *xpti_tracepoint_event(const struct xpti_tracepoint_if *tp)
{
    struct tp_inst *inst = tpreg_validate(registry(), tp, INST_MEMBER(tracepoint_if));
    return inst ? &inst->event : NULL;
}

void xptiReleaseEvent(struct xpti_event *event)
{
    struct tp_inst *inst = inst_of_event(event);
    if (inst)
        tpreg_release(inst->key->owner, inst);
}

xpti_result_t xptiAddMetadata(struct xpti_event *event, const char *key, xpti_object_id_t value)
{
    if (!event || !key || !*key)
        return XPTI_RESULT_INVALIDARG;
    struct tp_inst *inst = inst_of_event(event);
    if (!inst)
        return XPTI_RESULT_INVALIDARG; /* only framework-made events carry metadata */
    return tp_add_metadata(inst, key, value);
}

/* Our events get their map built from the stored items here, on demand:
 * only C++ subscribers read it, and the runtime's many xptiAddMetadata
 * calls then cost nothing extra. */
void *xptiQueryMetadata(struct xpti_event *event)
{
    struct tp_inst *inst = inst_of_event(event);
    if (inst)
        md_build_map_image(tp_md(inst), event->reserved.metadata);
    return event ? event->reserved.metadata : NULL;
}

size_t xpti_metadata_count(const struct xpti_event *event)
{
    struct tp_inst *inst = inst_of_event(event);
    return inst ? md_count(tp_md(inst)) : 0;
}

xpti_result_t xpti_metadata_get(const struct xpti_event *event, const char *key,
                                xpti_object_id_t *value)
{
    if (!key || !value)
        return XPTI_RESULT_INVALIDARG;
    struct tp_inst *inst = inst_of_event(event);
    return inst ? md_get(tp_md(inst), key, value) : XPTI_RESULT_INVALIDARG;
}

xpti_result_t xpti_metadata_at(const struct xpti_event *event, size_t index, const char **key,
                               xpti_object_id_t *value)
{
    struct tp_inst *inst = inst_of_event(event);
    return inst ? md_at(tp_md(inst), index, key, value) : XPTI_RESULT_INVALIDARG;
}
