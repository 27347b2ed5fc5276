/* SPDX-License-Identifier: MIT */
/* Each table starts with the two words that precede the address a vptr holds
 * (offset to the top of the complete object, then type info, which we do not
 * provide: dynamic_cast and typeid on these objects are not supported), then
 * the complete-object and deleting destructors, then the methods in
 * declaration order. Methods take the sub-object as `this`. The destructors
 * do nothing: instances belong to the framework (xptiDeleteTracepoint,
 * xptiReleaseEvent). */
#include "xpti/cxx_interfaces.h"

#include <stddef.h>

#include "xpti/tracepoints.h"

#define INST_OF(ptr, member) ((struct tp_inst *)((char *)(ptr)-offsetof(struct tp_inst, member)))
#define TOP_OFFSET(member) (-(ptrdiff_t)offsetof(struct tp_inst, member))

typedef void (*dtor_fn)(void *self);

static void no_op_dtor(void *self) {}

/* xpti_payload_t */
#define PL(self) INST_OF(self, payload_if)

static const char *pl_name(struct xpti_payload_if *self)
{
    return PL(self)->payload.name;
}
static const char *pl_source_file(struct xpti_payload_if *self)
{
    return PL(self)->payload.source_file;
}
static uint32_t pl_line_no(struct xpti_payload_if *self)
{
    return PL(self)->payload.line_no;
}
static uint32_t pl_column_no(struct xpti_payload_if *self)
{
    return PL(self)->payload.column_no;
}
static uint64_t pl_flags(struct xpti_payload_if *self)
{
    return PL(self)->payload.flags;
}
static int32_t pl_name_string_id(struct xpti_payload_if *self)
{
    /* The id inside the key, as upstream: the FNV-1a hash, or the string
     * id in strict mode (XPTI_USE_STRICT_HASH). */
    return (int32_t)PL(self)->key->name_id;
}
static int32_t pl_file_string_id(struct xpti_payload_if *self)
{
    return (int32_t)PL(self)->key->file_id;
}
static uint64_t pl_uid64(struct xpti_payload_if *self)
{
    return tp_inst_uid64(PL(self));
}
static bool pl_is_valid(struct xpti_payload_if *self)
{
    return tp_payload_valid(&PL(self)->payload);
}
static struct xpti_payload *pl_payload_ref(struct xpti_payload_if *self)
{
    return &PL(self)->payload;
}

static const struct {
    ptrdiff_t top;
    const void *rtti;
    dtor_fn dtor, deleting_dtor;
    const char *(*name)(struct xpti_payload_if *);
    const char *(*source_file)(struct xpti_payload_if *);
    uint32_t (*line_no)(struct xpti_payload_if *);
    uint32_t (*column_no)(struct xpti_payload_if *);
    uint64_t (*payload_flags)(struct xpti_payload_if *);
    int32_t (*name_string_id)(struct xpti_payload_if *);
    int32_t (*file_string_id)(struct xpti_payload_if *);
    uint64_t (*uid64)(struct xpti_payload_if *);
    bool (*is_valid)(struct xpti_payload_if *);
    struct xpti_payload *(*payload_ref)(struct xpti_payload_if *);
} payload_vtable = {
    TOP_OFFSET(payload_if), NULL,       no_op_dtor,   no_op_dtor,    pl_name,
    pl_source_file,         pl_line_no, pl_column_no, pl_flags,      pl_name_string_id,
    pl_file_string_id,      pl_uid64,   pl_is_valid,  pl_payload_ref};

/* xpti_metadata_t */
#define MD(self) INST_OF(self, metadata_if)

static xpti_result_t md_if_first(struct xpti_metadata_if *self, char **key, xpti_object_id_t *value)
{
    return md_first(tp_md(MD(self)), (const char **)key, value);
}
static xpti_result_t md_if_next(struct xpti_metadata_if *self, char **key, xpti_object_id_t *value)
{
    return md_next(tp_md(MD(self)), (const char **)key, value);
}
static xpti_result_t md_if_add(struct xpti_metadata_if *self, const char *key,
                               xpti_object_id_t value)
{
    return tp_add_metadata(MD(self), key, value);
}
static size_t md_if_count(struct xpti_metadata_if *self)
{
    return md_count(tp_md(MD(self)));
}

static const struct {
    ptrdiff_t top;
    const void *rtti;
    dtor_fn dtor, deleting_dtor;
    xpti_result_t (*first_item)(struct xpti_metadata_if *, char **, xpti_object_id_t *);
    xpti_result_t (*next_item)(struct xpti_metadata_if *, char **, xpti_object_id_t *);
    xpti_result_t (*add_item)(struct xpti_metadata_if *, const char *, xpti_object_id_t);
    size_t (*count)(struct xpti_metadata_if *);
} metadata_vtable = {TOP_OFFSET(metadata_if),
                     NULL,
                     no_op_dtor,
                     no_op_dtor,
                     md_if_first,
                     md_if_next,
                     md_if_add,
                     md_if_count};

/* xpti_trace_event_t */
#define EV(self) INST_OF(self, event_if)

static struct xpti_payload_if *ev_payload(struct xpti_event_if *self)
{
    return &EV(self)->payload_if;
}
static struct xpti_metadata_if *ev_metadata(struct xpti_event_if *self)
{
    return &EV(self)->metadata_if;
}
static uint64_t ev_uid64(struct xpti_event_if *self)
{
    return tp_inst_uid64(EV(self));
}
static uint64_t ev_instance(struct xpti_event_if *self)
{
    return EV(self)->instance;
}
static uint16_t ev_event_type(struct xpti_event_if *self)
{
    return EV(self)->event.event_type;
}
static uint16_t ev_activity_type(struct xpti_event_if *self)
{
    return EV(self)->event.activity_type;
}
static uint64_t ev_source_uid64(struct xpti_event_if *self)
{
    return EV(self)->event.source_id;
}
static uint64_t ev_target_uid64(struct xpti_event_if *self)
{
    return EV(self)->event.target_id;
}
static uint64_t ev_flags(struct xpti_event_if *self)
{
    return EV(self)->event.flags;
}
static void ev_set_activity_type(struct xpti_event_if *self, int activity)
{
    EV(self)->event.activity_type = (uint16_t)activity;
    EV(self)->event.flags |= XPTI_EVENT_ACTIVITY_TYPE_AVAILABLE;
}
static void ev_set_event_type(struct xpti_event_if *self, uint16_t type)
{
    EV(self)->event.event_type = type;
    EV(self)->event.flags |= XPTI_EVENT_TYPE_AVAILABLE;
}
static struct xpti_payload *ev_payload_ref(struct xpti_event_if *self)
{
    return &EV(self)->payload;
}
static struct xpti_event *ev_event_ref(struct xpti_event_if *self)
{
    return &EV(self)->event;
}

static const struct {
    ptrdiff_t top;
    const void *rtti;
    dtor_fn dtor, deleting_dtor;
    struct xpti_payload_if *(*payload)(struct xpti_event_if *);
    struct xpti_metadata_if *(*metadata)(struct xpti_event_if *);
    uint64_t (*uid64)(struct xpti_event_if *);
    uint64_t (*instance)(struct xpti_event_if *);
    uint16_t (*event_type)(struct xpti_event_if *);
    uint16_t (*activity_type)(struct xpti_event_if *);
    uint64_t (*source_uid64)(struct xpti_event_if *);
    uint64_t (*target_uid64)(struct xpti_event_if *);
    uint64_t (*event_flags)(struct xpti_event_if *);
    void (*set_activity_type)(struct xpti_event_if *, int);
    void (*set_event_type)(struct xpti_event_if *, uint16_t);
    struct xpti_payload *(*payload_ref)(struct xpti_event_if *);
    struct xpti_event *(*event_ref)(struct xpti_event_if *);
} event_vtable = {TOP_OFFSET(event_if),
                  NULL,
                  no_op_dtor,
                  no_op_dtor,
                  ev_payload,
                  ev_metadata,
                  ev_uid64,
                  ev_instance,
                  ev_event_type,
                  ev_activity_type,
                  ev_source_uid64,
                  ev_target_uid64,
                  ev_flags,
                  ev_set_activity_type,
                  ev_set_event_type,
                  ev_payload_ref,
                  ev_event_ref};

/* xpti_tracepoint_t */
#define TP(self) INST_OF(self, tracepoint_if)

static struct xpti_payload_if *tp_payload(struct xpti_tracepoint_if *self)
{
    return &TP(self)->payload_if;
}
static struct xpti_metadata_if *tp_metadata(struct xpti_tracepoint_if *self)
{
    return &TP(self)->metadata_if;
}
static struct xpti_event_if *tp_event(struct xpti_tracepoint_if *self)
{
    return &TP(self)->event_if;
}
static uint64_t tp_uid64(struct xpti_tracepoint_if *self)
{
    return tp_inst_uid64(TP(self));
}
static uint64_t tp_instance(struct xpti_tracepoint_if *self)
{
    return TP(self)->instance;
}
static struct xpti_event *tp_event_ref(struct xpti_tracepoint_if *self)
{
    return &TP(self)->event;
}
static struct xpti_payload *tp_payload_ref(struct xpti_tracepoint_if *self)
{
    return &TP(self)->payload;
}

static const struct {
    ptrdiff_t top;
    const void *rtti;
    dtor_fn dtor, deleting_dtor;
    struct xpti_payload_if *(*payload)(struct xpti_tracepoint_if *);
    struct xpti_metadata_if *(*metadata)(struct xpti_tracepoint_if *);
    struct xpti_event_if *(*event)(struct xpti_tracepoint_if *);
    uint64_t (*uid64)(struct xpti_tracepoint_if *);
    uint64_t (*instance)(struct xpti_tracepoint_if *);
    struct xpti_event *(*event_ref)(struct xpti_tracepoint_if *);
    struct xpti_payload *(*payload_ref)(struct xpti_tracepoint_if *);
} tracepoint_vtable = {TOP_OFFSET(tracepoint_if),
                       NULL,
                       no_op_dtor,
                       no_op_dtor,
                       tp_payload,
                       tp_metadata,
                       tp_event,
                       tp_uid64,
                       tp_instance,
                       tp_event_ref,
                       tp_payload_ref};

void cxx_attach_interfaces(struct tp_inst *inst)
{
    /* A vptr addresses the first destructor slot, past top and rtti. */
    inst->payload_if.vptr = &payload_vtable.dtor;
    inst->metadata_if.vptr = &metadata_vtable.dtor;
    inst->event_if.vptr = &event_vtable.dtor;
    inst->tracepoint_if.vptr = &tracepoint_vtable.dtor;
}
