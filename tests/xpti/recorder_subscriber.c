/* SPDX-License-Identifier: MIT */
/* A test subscriber: subscribes to the "sycl" stream's graph, node, edge,
 * task, signal and wait notifications and records each with its decoded
 * metadata. Its log is process-global because a subscriber's entry points
 * (xptiTraceInit and the callbacks) carry no context. */
#include <stdio.h>
#include <string.h>

#include "tests/xpti/recorder.h"
#include "xpti/xpti.h"

/* Exported entry points of the subscriber protocol. */
void xptiTraceInit(unsigned maj, unsigned min, const char *version, const char *stream);
void xptiTraceFinish(const char *stream);
bool xptiQuerySubscriberStreamDetailLevel(const char *stream, uint8_t *level);
const struct recorder_log *recorder_log(void);

static struct recorder_log log_;

static void text_of(const struct xpti_event *ev, const char *key, char *out, size_t n)
{
    xpti_object_id_t id;
    out[0] = 0;
    if (xpti_metadata_get(ev, key, &id) != XPTI_RESULT_SUCCESS)
        return;
    struct xpti_object_data d = xptiLookupObject(id);
    if (d.data && d.type == XPTI_MD_STRING)
        snprintf(out, n, "%.*s", (int)d.size, d.data);
}

static int64_t integer_of(const struct xpti_event *ev, const char *key)
{
    xpti_object_id_t id;
    if (xpti_metadata_get(ev, key, &id) != XPTI_RESULT_SUCCESS)
        return -1;
    struct xpti_object_data d = xptiLookupObject(id);
    if (d.type != XPTI_MD_SIGNED_INTEGER && d.type != XPTI_MD_UNSIGNED_INTEGER &&
        d.type != XPTI_MD_BOOLEAN)
        return -1;
    if (d.size == sizeof(int64_t)) {
        int64_t v;
        memcpy(&v, d.data, sizeof(v));
        return v;
    }
    if (d.size == sizeof(int32_t)) {
        int32_t v;
        memcpy(&v, d.data, sizeof(v));
        return v;
    }
    return d.size == 1 ? (int64_t)(unsigned char)d.data[0] : -1;
}

static void on_sycl(uint16_t type, struct xpti_event *parent, struct xpti_event *ev,
                    uint64_t instance, const void *user_data)
{
    if (log_.n == RECORDER_MAX_NOTES)
        return;
    struct recorded_note *r = &log_.notes[log_.n++];
    *r = (struct recorded_note){.type = type,
                                .uid = ev ? ev->unique_id : 0,
                                .parent_uid = parent ? parent->unique_id : 0,
                                .instance = instance,
                                .user_data = user_data};
    text_of(ev, "kernel_name", r->kernel_name, sizeof(r->kernel_name));
    text_of(ev, "sym_source_file_name", r->source_file, sizeof(r->source_file));
    text_of(ev, "sym_function_name", r->function, sizeof(r->function));
    text_of(ev, "sycl_device", r->device, sizeof(r->device));
    r->line = integer_of(ev, "sym_line_no");
    r->column = integer_of(ev, "sym_column_no");
    r->from_source = integer_of(ev, "from_source");
}

void xptiTraceInit(unsigned maj, unsigned min, const char *version, const char *stream)
{
    static const uint16_t types[] = {XPTI_TP_GRAPH_CREATE, XPTI_TP_NODE_CREATE, XPTI_TP_EDGE_CREATE,
                                     XPTI_TP_TASK_BEGIN,   XPTI_TP_TASK_END,    XPTI_TP_SIGNAL,
                                     XPTI_TP_WAIT_BEGIN,   XPTI_TP_WAIT_END};
    if (strcmp(stream, "xpti.framework") == 0) {
        log_.default_inits++;
        return;
    }
    if (strcmp(stream, "sycl") != 0)
        return;
    log_.sycl_inits++;
    log_.major = maj;
    log_.minor = min;
    snprintf(log_.version, sizeof(log_.version), "%s", version);
    xpti_stream_id_t id = xptiRegisterStream(stream);
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        xptiRegisterCallback(id, types[i], on_sycl);
}

void xptiTraceFinish(const char *stream)
{
    if (strcmp(stream, "sycl") == 0)
        log_.sycl_finishes++;
}

bool xptiQuerySubscriberStreamDetailLevel(const char *stream, uint8_t *level)
{
    if (strcmp(stream, "sycl") != 0)
        return false;
    *level = XPTI_DETAIL_VERBOSE;
    return true;
}

const struct recorder_log *recorder_log(void)
{
    return &log_;
}
