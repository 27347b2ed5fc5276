/* SPDX-License-Identifier: MIT */
/* The XPTI framework C ABI (generation G3) as zestub implements it, for C users.
 * Names are ours; layouts, values and symbol names match what a SYCL runtime
 * compiled against the upstream C++ headers expects (doc/xpti-facts.md). */
#ifndef ZESTUB_XPTI_XPTI_H
#define ZESTUB_XPTI_XPTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; only this ABI is exported. */
#define XPTI_API __attribute__((visibility("default")))

typedef int32_t xpti_result_t;
typedef uint8_t xpti_stream_id_t;
typedef uint32_t xpti_string_id_t;
typedef int32_t xpti_object_id_t;

/* result_t values: COM-style failure codes, hence the negative int32 values. */
#define XPTI_RESULT_SUCCESS ((xpti_result_t)0)
#define XPTI_RESULT_FALSE ((xpti_result_t)1)
#define XPTI_RESULT_FAIL ((xpti_result_t)INT32_C(-2147467263))       /* 0x80004001 */
#define XPTI_RESULT_NOTIMPL ((xpti_result_t)INT32_C(-2147467262))    /* 0x80004002 */
#define XPTI_RESULT_DUPLICATE ((xpti_result_t)INT32_C(-2147467261))  /* 0x80004003 */
#define XPTI_RESULT_NOTFOUND ((xpti_result_t)INT32_C(-2147467260))   /* 0x80004004 */
#define XPTI_RESULT_UNDELETE ((xpti_result_t)INT32_C(-2147467259))   /* 0x80004005 */
#define XPTI_RESULT_INVALIDARG ((xpti_result_t)INT32_C(-2147467258)) /* 0x80004006 */

/* invalid_id<T> is the maximum value of T; 0 is never a valid 64-bit id. */
#define XPTI_INVALID_STRING_ID ((xpti_string_id_t)0xFFFFFFFFu)
#define XPTI_INVALID_STREAM_ID ((xpti_stream_id_t)0xFFu)
#define XPTI_INVALID_OBJECT_ID ((xpti_object_id_t)0x7FFFFFFF)
#define XPTI_INVALID_UID ((uint64_t)0)

#define XPTI_EVENT(v) (v)
#define XPTI_TRACE_POINT_BEGIN(v) ((uint16_t)((v) << 1))
#define XPTI_TRACE_POINT_END(v) ((uint16_t)(((v) << 1) | 1))
#define XPTI_PACK08_RET16(a, b) ((uint16_t)(((uint16_t)(a) << 8) | (uint8_t)(b)))
#define XPTI_PACK16_RET32(a, b) ((uint32_t)(((uint32_t)(a) << 16) | (uint16_t)(b)))
#define XPTI_PACK32_RET64(a, b) ((uint64_t)(((uint64_t)(a) << 32) | (uint32_t)(b)))
#define XPTI_EXTRACT_USER_DEFINED_ID(v) ((v)&0x7f)
#define XPTI_TOOL_ID(v) (((v) >> 8) & 0xff)

/* trace_point_type_t (uint16), G3 numbering. */
enum {
    XPTI_TP_UNKNOWN = 0,
    XPTI_TP_GRAPH_CREATE = 2,
    XPTI_TP_NODE_CREATE = 4,
    XPTI_TP_EDGE_CREATE = 6,
    XPTI_TP_REGION_BEGIN = 8,
    XPTI_TP_REGION_END = 9,
    XPTI_TP_TASK_BEGIN = 10,
    XPTI_TP_TASK_END = 11,
    XPTI_TP_BARRIER_BEGIN = 12,
    XPTI_TP_BARRIER_END = 13,
    XPTI_TP_LOCK_BEGIN = 14,
    XPTI_TP_LOCK_END = 15,
    XPTI_TP_SIGNAL = 16,
    XPTI_TP_TRANSFER_BEGIN = 18,
    XPTI_TP_TRANSFER_END = 19,
    XPTI_TP_THREAD_BEGIN = 20,
    XPTI_TP_THREAD_END = 21,
    XPTI_TP_WAIT_BEGIN = 22,
    XPTI_TP_WAIT_END = 23,
    XPTI_TP_FUNCTION_BEGIN = 24,
    XPTI_TP_FUNCTION_END = 25,
    XPTI_TP_METADATA = 26,
    XPTI_TP_FUNCTION_WITH_ARGS_BEGIN = 28,
    XPTI_TP_FUNCTION_WITH_ARGS_END = 29,
    XPTI_TP_MEM_ALLOC_BEGIN = 32,
    XPTI_TP_MEM_ALLOC_END = 33,
    XPTI_TP_MEM_RELEASE_BEGIN = 34,
    XPTI_TP_MEM_RELEASE_END = 35,
    XPTI_TP_OFFLOAD_ALLOC_MEMORY_OBJECT_CONSTRUCT = 36,
    XPTI_TP_OFFLOAD_ALLOC_MEMORY_OBJECT_DESTRUCT = 37,
    XPTI_TP_OFFLOAD_ALLOC_MEMORY_OBJECT_ASSOCIATE = 38,
    XPTI_TP_OFFLOAD_ALLOC_MEMORY_OBJECT_RELEASE = 39,
    XPTI_TP_OFFLOAD_ALLOC_ACCESSOR = 40,
    XPTI_TP_QUEUE_CREATE = 42,
    XPTI_TP_QUEUE_DESTROY = 43,
    XPTI_TP_DIAGNOSTICS = 126,
    XPTI_TP_USER_DEFINED = 128
};

/* trace_event_type_t (uint16). */
enum {
    XPTI_EV_UNKNOWN = 0,
    XPTI_EV_GRAPH = 1,
    XPTI_EV_ALGORITHM = 2,
    XPTI_EV_BARRIER = 3,
    XPTI_EV_SCHEDULER = 4,
    XPTI_EV_ASYNC = 5,
    XPTI_EV_LOCK = 6,
    XPTI_EV_OFFLOAD_READ = 7,
    XPTI_EV_OFFLOAD_WRITE = 8,
    XPTI_EV_OFFLOAD_MEMORY_OBJECT = 9,
    XPTI_EV_OFFLOAD_ACCESSOR = 10,
    XPTI_EV_USER_DEFINED = 128
};

/* trace_activity_type_t (passed as int). */
enum {
    XPTI_ACTIVITY_UNKNOWN = 0,
    XPTI_ACTIVITY_ACTIVE = 1,
    XPTI_ACTIVITY_OVERHEAD = 2,
    XPTI_ACTIVITY_BACKGROUND = 4,
    XPTI_ACTIVITY_SLEEP = 8
};

/* metadata_type_t: the type hint stored with a registered object. */
enum {
    XPTI_MD_BINARY = 0,
    XPTI_MD_STRING = 1,
    XPTI_MD_SIGNED_INTEGER = 2,
    XPTI_MD_UNSIGNED_INTEGER = 3,
    XPTI_MD_FLOATING = 4,
    XPTI_MD_BOOLEAN = 5
};

/* payload_flag_t: bits of xpti_payload.flags. */
#define XPTI_PAYLOAD_NAME_AVAILABLE 0x1u
#define XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE 0x2u
#define XPTI_PAYLOAD_CODE_POINTER_AVAILABLE 0x4u
#define XPTI_PAYLOAD_LINE_INFO_AVAILABLE 0x8u
#define XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE 0x10u
#define XPTI_PAYLOAD_STACK_TRACE_AVAILABLE 0x20u
#define XPTI_PAYLOAD_REGISTERED 0x8000u
#define XPTI_PAYLOAD_HASH_AVAILABLE 0x20000u

/* trace_event_flag_t: bits of xpti_event.flags. */
#define XPTI_EVENT_UID_AVAILABLE 0x1u
#define XPTI_EVENT_SOURCE_UID_AVAILABLE 0x2u
#define XPTI_EVENT_TARGET_UID_AVAILABLE 0x4u
#define XPTI_EVENT_TYPE_AVAILABLE 0x8u
#define XPTI_EVENT_ACTIVITY_TYPE_AVAILABLE 0x10u
#define XPTI_EVENT_PAYLOAD_AVAILABLE 0x20u

/* stream_detail_level_t (uint8). */
enum {
    XPTI_DETAIL_NONE = 0,
    XPTI_DETAIL_BASIC = 1,
    XPTI_DETAIL_NORMAL = 2,
    XPTI_DETAIL_VERBOSE = 3
};

/* uid128_t: the 128-bit key of a tracepoint plus its instance and 64-bit id. */
struct xpti_uid128 {
    uint64_t p1; /* file id << 32 | function id */
    uint64_t p2; /* column << 32 | line */
    uint64_t instance;
    uint64_t uid64;
};

/* The legacy uid_t carried inside payload_t. */
struct xpti_legacy_uid {
    uint64_t p1, p2, p3;
};

/* payload_t: where a tracepoint is. */
struct xpti_payload {
    const char *name;
    const char *stack_trace;
    const char *source_file;
    uint32_t line_no;   /* 0xFFFFFFFF when unknown */
    uint32_t column_no; /* 0xFFFFFFFF when unknown */
    const void *code_ptr_va;
    uint64_t internal; /* the 64-bit id once registered */
    uint64_t flags;    /* XPTI_PAYLOAD_* */
    struct xpti_legacy_uid uid;
};

/* trace_event_data_t. reserved.metadata is a C++ std::unordered_map in the
 * upstream ABI; zestub keeps metadata elsewhere and fills these bytes with
 * the image of a libstdc++ map, empty until xptiQueryMetadata builds it
 * from the event's items (see xpti/README.md). */
struct xpti_event {
    uint64_t unique_id;
    uint64_t data_id;
    uint64_t instance_id;
    uint16_t event_type;
    uint16_t activity_type;
    uint32_t unused;
    uint64_t source_id;
    uint64_t target_id;
    struct {
        struct xpti_payload *payload;
        unsigned char metadata[56];
    } reserved;
    void *global_user_data;
    uint64_t flags; /* XPTI_EVENT_* */
};

/* tracepoint_data_t. */
struct xpti_tracepoint_data {
    struct xpti_uid128 uid;
    struct xpti_payload *payload;
    struct xpti_event *event;
    uint64_t uid64;
};

/* object_data_t: what xptiLookupObject returns (by value). */
struct xpti_object_data {
    size_t size;
    const char *data;
    uint8_t type; /* XPTI_MD_* */
};

/* Per-notification user data of the SYCL streams. */
struct xpti_function_with_args {
    uint32_t function_id;
    const char *function_name;
    void *args_data;
    void *ret_data;
    void *user_data;
};

struct xpti_offload_buffer_data {
    uintptr_t user_object_handle;
    uintptr_t host_object_handle;
    const char *element_type;
    uint32_t element_size;
    uint32_t dim;
    size_t range[3];
};

/* std::optional<uint32_t> as libstdc++ lays it out. */
struct xpti_optional_u32 {
    uint32_t value;
    bool engaged;
};

struct xpti_offload_image_data {
    uintptr_t user_object_handle;
    uintptr_t host_object_handle;
    uint32_t dim;
    size_t range[3];
    uint32_t format;
    struct xpti_optional_u32 addressing;
    struct xpti_optional_u32 coordinate_normalization;
    struct xpti_optional_u32 filtering;
};

struct xpti_offload_accessor_data {
    uintptr_t buffer_handle;
    uintptr_t accessor_handle;
    uint32_t target;
    uint32_t mode;
};

struct xpti_offload_image_accessor_data {
    uintptr_t image_handle;
    uintptr_t accessor_handle;
    struct xpti_optional_u32 target;
    struct xpti_optional_u32 mode;
    const char *element_type;
    uint32_t element_size;
};

struct xpti_offload_association_data {
    uintptr_t user_object_handle;
    uintptr_t mem_object_handle;
};

struct xpti_offload_kernel_enqueue_data {
    size_t global_size[3];
    size_t local_size[3];
    size_t offset[3];
    size_t args_num;
};

struct xpti_offload_kernel_arg_data {
    int type;
    void *pointer;
    int size;
    int index;
};

struct xpti_mem_alloc_data {
    uintptr_t mem_object_handle;
    uintptr_t alloc_pointer;
    size_t alloc_size;
    size_t guard_zone_size;
    void *reserved;
};

/* The four C++ interfaces (xpti_payload_t, xpti_metadata_t, xpti_trace_event_t,
 * xpti_tracepoint_t): an object whose first word points into an Itanium-ABI
 * virtual table. C callers use the plain functions below instead. */
struct xpti_payload_if {
    const void *vptr;
};
struct xpti_metadata_if {
    const void *vptr;
};
struct xpti_event_if {
    const void *vptr;
};
struct xpti_tracepoint_if {
    const void *vptr;
};

typedef void (*xpti_callback_fn)(uint16_t trace_type, struct xpti_event *parent,
                                 struct xpti_event *event, uint64_t instance,
                                 const void *user_data);

/* Life cycle and streams. */
XPTI_API void xptiFrameworkInitialize(void);
XPTI_API void xptiFrameworkFinalize(void);
XPTI_API xpti_result_t xptiInitialize(const char *stream, uint32_t maj, uint32_t min,
                                      const char *version);
XPTI_API void xptiFinalize(const char *stream);
XPTI_API xpti_stream_id_t xptiRegisterStream(const char *stream);
XPTI_API xpti_result_t xptiUnregisterStream(const char *stream);
XPTI_API bool xptiTraceEnabled(void);
XPTI_API bool xptiCheckTraceEnabled(xpti_stream_id_t stream, uint16_t trace_type);
XPTI_API void xptiForceSetTraceEnabled(bool enabled);
XPTI_API void xptiReset(void);
XPTI_API uint8_t xptiGetEffectiveStreamDetailLevel(xpti_stream_id_t stream);

/* Thread-local state. */
XPTI_API uint64_t xptiGetUniversalId(void);
XPTI_API void xptiSetUniversalId(uint64_t uid);
XPTI_API xpti_result_t xptiStashTuple(const char *key, uint64_t value);
XPTI_API xpti_result_t xptiGetStashedTuple(char **key, uint64_t *value);
XPTI_API void xptiUnstashTuple(void);
XPTI_API const struct xpti_tracepoint_if *xptiGetTracepointScopeData(void);
XPTI_API xpti_result_t xptiSetTracepointScopeData(struct xpti_tracepoint_if *tp);
XPTI_API void xptiUnsetTracepointScopeData(void);

/* Tables, ids and defaults. */
XPTI_API uint64_t xptiGetUniqueId(void);
XPTI_API xpti_string_id_t xptiRegisterString(const char *string, char **table_string);
XPTI_API const char *xptiLookupString(xpti_string_id_t id);
XPTI_API xpti_object_id_t xptiRegisterObject(const char *data, size_t size, uint8_t type);
XPTI_API struct xpti_object_data xptiLookupObject(xpti_object_id_t id);
XPTI_API uint16_t xptiRegisterUserDefinedTracePoint(const char *tool_name, uint8_t user_tp);
XPTI_API uint16_t xptiRegisterUserDefinedEventType(const char *tool_name, uint8_t user_ev);
XPTI_API xpti_stream_id_t xptiGetDefaultStreamID(void);
XPTI_API xpti_result_t xptiSetDefaultStreamID(xpti_stream_id_t stream);
XPTI_API uint16_t xptiGetDefaultEventType(void);
XPTI_API xpti_result_t xptiSetDefaultEventType(uint16_t event_type);
XPTI_API uint16_t xptiGetDefaultTraceType(void);
XPTI_API xpti_result_t xptiSetDefaultTraceType(uint16_t trace_type);
XPTI_API void xptiEnableTracepointScopeNotification(bool enable);
XPTI_API bool xptiCheckTracepointScopeNotification(void);

/* Tracepoints, events and payloads. */
XPTI_API uint64_t xptiRegisterPayload(struct xpti_payload *payload);
XPTI_API struct xpti_event *xptiMakeEvent(const char *name, struct xpti_payload *payload,
                                          uint16_t event_type, int activity, uint64_t *instance_no);
XPTI_API const struct xpti_event *xptiFindEvent(uint64_t uid);
XPTI_API const struct xpti_payload *xptiQueryPayload(struct xpti_event *event);
XPTI_API const struct xpti_payload *xptiQueryPayloadByUID(uint64_t uid);
XPTI_API const struct xpti_payload_if *xptiLookupPayload(uint64_t uid);
XPTI_API const struct xpti_event_if *xptiLookupEvent(uint64_t uid);
XPTI_API struct xpti_tracepoint_if *xptiCreateTracepoint(const char *func_name,
                                                         const char *file_name, uint32_t line,
                                                         uint32_t column, void *code_ptr_va);
XPTI_API xpti_result_t xptiDeleteTracepoint(struct xpti_tracepoint_if *tp);
XPTI_API const struct xpti_tracepoint_if *
xptiRegisterTracepointScope(const char *func_name, const char *file_name, uint32_t line,
                            uint32_t column, void *code_ptr_va);
XPTI_API void xptiReleaseEvent(struct xpti_event *event);

/* Metadata. xptiQueryMetadata returns the reserved.metadata bytes (an empty
 * map image), kept for ABI completeness; read metadata with the xpti_metadata_*
 * accessors or the xpti_metadata_if interface. */
XPTI_API xpti_result_t xptiAddMetadata(struct xpti_event *event, const char *key,
                                       xpti_object_id_t value);
XPTI_API void *xptiQueryMetadata(struct xpti_event *event);

/* Callbacks and notification. */
XPTI_API xpti_result_t xptiRegisterCallback(xpti_stream_id_t stream, uint16_t trace_type,
                                            xpti_callback_fn cb);
XPTI_API xpti_result_t xptiUnregisterCallback(xpti_stream_id_t stream, uint16_t trace_type,
                                              xpti_callback_fn cb);
XPTI_API xpti_result_t xptiNotifySubscribers(xpti_stream_id_t stream, uint16_t trace_type,
                                             struct xpti_event *parent, struct xpti_event *object,
                                             uint64_t instance, const void *user_data);

/* zestub extensions (not part of the upstream ABI). */

/* The event behind a tracepoint from xptiCreateTracepoint or
 * xptiRegisterTracepointScope (what the C++ method event_ref() returns);
 * NULL for anything else. */
XPTI_API struct xpti_event *xpti_tracepoint_event(const struct xpti_tracepoint_if *tp);

/* Metadata of a framework-made event, for C subscribers. */
XPTI_API size_t xpti_metadata_count(const struct xpti_event *event);
XPTI_API xpti_result_t xpti_metadata_get(const struct xpti_event *event, const char *key,
                                         xpti_object_id_t *value);
XPTI_API xpti_result_t xpti_metadata_at(const struct xpti_event *event, size_t index,
                                        const char **key, xpti_object_id_t *value);

/* The 128-bit key a payload gets in default (FNV-1a) mode; instance and uid64
 * are 0. Pure: the same in every process. */
XPTI_API struct xpti_uid128 xpti_make_key(const char *func_name, const char *file_name,
                                          uint32_t line, uint32_t column);
/* The 64-bit id of (key, instance): `attempt` is 0 unless the first candidate
 * collided with a live id in this process (see xpti/README.md). */
XPTI_API uint64_t xpti_uid64_derive(uint64_t p1, uint64_t p2, uint64_t instance, uint32_t attempt);

#ifdef __cplusplus
}
#endif

/* Layouts the upstream ABI fixes (x86-64, measured with the real headers). */
#ifndef __cplusplus
#define XPTI_LAYOUT_(type, member, off)                                                            \
    _Static_assert(offsetof(type, member) == (off), #type "." #member " offset")
_Static_assert(sizeof(struct xpti_uid128) == 32, "uid128_t size");
_Static_assert(sizeof(struct xpti_legacy_uid) == 24, "uid_t size");
_Static_assert(sizeof(struct xpti_payload) == 80, "payload_t size");
XPTI_LAYOUT_(struct xpti_payload, source_file, 16);
XPTI_LAYOUT_(struct xpti_payload, line_no, 24);
XPTI_LAYOUT_(struct xpti_payload, column_no, 28);
XPTI_LAYOUT_(struct xpti_payload, code_ptr_va, 32);
XPTI_LAYOUT_(struct xpti_payload, internal, 40);
XPTI_LAYOUT_(struct xpti_payload, flags, 48);
XPTI_LAYOUT_(struct xpti_payload, uid, 56);
_Static_assert(sizeof(struct xpti_event) == 128, "trace_event_data_t size");
XPTI_LAYOUT_(struct xpti_event, data_id, 8);
XPTI_LAYOUT_(struct xpti_event, instance_id, 16);
XPTI_LAYOUT_(struct xpti_event, event_type, 24);
XPTI_LAYOUT_(struct xpti_event, activity_type, 26);
XPTI_LAYOUT_(struct xpti_event, source_id, 32);
XPTI_LAYOUT_(struct xpti_event, target_id, 40);
XPTI_LAYOUT_(struct xpti_event, reserved.payload, 48);
XPTI_LAYOUT_(struct xpti_event, reserved.metadata, 56);
XPTI_LAYOUT_(struct xpti_event, global_user_data, 112);
XPTI_LAYOUT_(struct xpti_event, flags, 120);
_Static_assert(sizeof(struct xpti_tracepoint_data) == 56, "tracepoint_data_t size");
XPTI_LAYOUT_(struct xpti_tracepoint_data, payload, 32);
XPTI_LAYOUT_(struct xpti_tracepoint_data, event, 40);
XPTI_LAYOUT_(struct xpti_tracepoint_data, uid64, 48);
_Static_assert(sizeof(struct xpti_object_data) == 24, "object_data_t size");
XPTI_LAYOUT_(struct xpti_object_data, data, 8);
XPTI_LAYOUT_(struct xpti_object_data, type, 16);
_Static_assert(sizeof(struct xpti_function_with_args) == 40, "function_with_args_t size");
XPTI_LAYOUT_(struct xpti_function_with_args, function_name, 8);
XPTI_LAYOUT_(struct xpti_function_with_args, user_data, 32);
_Static_assert(sizeof(struct xpti_offload_buffer_data) == 56, "offload_buffer_data_t size");
XPTI_LAYOUT_(struct xpti_offload_buffer_data, element_size, 24);
XPTI_LAYOUT_(struct xpti_offload_buffer_data, dim, 28);
XPTI_LAYOUT_(struct xpti_offload_buffer_data, range, 32);
_Static_assert(sizeof(struct xpti_offload_image_data) == 80, "offload_image_data_t size");
_Static_assert(sizeof(struct xpti_offload_accessor_data) == 24, "offload_accessor_data_t size");
_Static_assert(sizeof(struct xpti_offload_association_data) == 16,
               "offload_association_data_t size");
_Static_assert(sizeof(struct xpti_offload_kernel_enqueue_data) == 80,
               "offload_kernel_enqueue_data_t size");
_Static_assert(sizeof(struct xpti_offload_kernel_arg_data) == 24, "offload_kernel_arg_data_t size");
XPTI_LAYOUT_(struct xpti_offload_kernel_arg_data, pointer, 8);
XPTI_LAYOUT_(struct xpti_offload_kernel_arg_data, size, 16);
XPTI_LAYOUT_(struct xpti_offload_kernel_arg_data, index, 20);
_Static_assert(sizeof(struct xpti_mem_alloc_data) == 40, "mem_alloc_data_t size");
#undef XPTI_LAYOUT_
#endif

#endif
