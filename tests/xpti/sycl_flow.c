/* SPDX-License-Identifier: MIT */
#include "tests/xpti/sycl_flow.h"

#include <stdbool.h>
#include <string.h>

static void check(struct sycl_flow *f, bool ok)
{
    f->api_failures += !ok;
}

static xpti_object_id_t string_value(const char *s)
{
    return xptiRegisterObject(s, strlen(s), XPTI_MD_STRING);
}

static xpti_object_id_t int_value(int64_t v)
{
    return xptiRegisterObject((const char *)&v, sizeof(v), XPTI_MD_SIGNED_INTEGER);
}

/* What the runtime attaches to a kernel node (the seed's node_create table). */
static void add_kernel_metadata(struct sycl_flow *f, struct xpti_event *ev)
{
    check(f, xptiAddMetadata(ev, "kernel_name", string_value(SYCL_FLOW_KERNEL)) ==
                 XPTI_RESULT_SUCCESS);
    check(f, xptiAddMetadata(ev, "sym_source_file_name", string_value(SYCL_FLOW_FILE)) ==
                 XPTI_RESULT_SUCCESS);
    check(f, xptiAddMetadata(ev, "sym_function_name", string_value(SYCL_FLOW_FUNCTION)) ==
                 XPTI_RESULT_SUCCESS);
    check(f, xptiAddMetadata(ev, "sym_line_no", int_value(SYCL_FLOW_LINE)) == XPTI_RESULT_SUCCESS);
    check(f,
          xptiAddMetadata(ev, "sym_column_no", int_value(SYCL_FLOW_COLUMN)) == XPTI_RESULT_SUCCESS);
    check(f, xptiAddMetadata(ev, "sycl_device", string_value(SYCL_FLOW_DEVICE)) ==
                 XPTI_RESULT_SUCCESS);
    check(f, xptiAddMetadata(ev, "from_source", int_value(1)) == XPTI_RESULT_SUCCESS);
}

static bool notified(xpti_result_t rc)
{
    return rc == XPTI_RESULT_SUCCESS || (rc == XPTI_RESULT_FALSE && !xptiTraceEnabled());
}

static struct xpti_event *graph_event(struct sycl_flow *f, xpti_stream_id_t s)
{
    struct xpti_payload p = {.name = "SYCL", .flags = XPTI_PAYLOAD_NAME_AVAILABLE};
    uint64_t instance = 0;
    struct xpti_event *g =
        xptiMakeEvent("SYCL", &p, XPTI_EV_GRAPH, XPTI_ACTIVITY_ACTIVE, &instance);
    check(f, g != NULL);
    if (g)
        check(f, notified(xptiNotifySubscribers(s, XPTI_TP_GRAPH_CREATE, NULL, g, instance, NULL)));
    return g;
}

static struct xpti_event *copy_node(struct sycl_flow *f, xpti_stream_id_t s,
                                    struct xpti_event *graph)
{
    struct xpti_tracepoint_if *tp =
        xptiCreateTracepoint("memory_transfer_node", SYCL_FLOW_FILE, SYCL_FLOW_LINE - 2, 3, NULL);
    struct xpti_event *ev = xpti_if_tracepoint_event(tp);
    check(f, ev != NULL);
    if (ev) {
        check(f, xptiAddMetadata(ev, "memory_object", int_value(0x1000)) == XPTI_RESULT_SUCCESS);
        check(f, notified(xptiNotifySubscribers(s, XPTI_TP_NODE_CREATE, graph, ev, ev->instance_id,
                                                "memory_transfer_node")));
    }
    return ev;
}

static void edge(struct sycl_flow *f, xpti_stream_id_t s, struct xpti_event *graph,
                 struct xpti_event *from, struct xpti_event *to)
{
    struct xpti_payload p = {.name = "edge", .flags = XPTI_PAYLOAD_NAME_AVAILABLE};
    uint64_t instance = 0;
    struct xpti_event *e =
        xptiMakeEvent("edge", &p, XPTI_EV_GRAPH, XPTI_ACTIVITY_ACTIVE, &instance);
    check(f, e != NULL);
    if (!e)
        return;
    e->source_id = from->unique_id;
    e->target_id = to->unique_id;
    e->flags |= XPTI_EVENT_SOURCE_UID_AVAILABLE | XPTI_EVENT_TARGET_UID_AVAILABLE;
    check(f, xptiAddMetadata(e, "access_mode", string_value("read")) == XPTI_RESULT_SUCCESS);
    check(f, notified(xptiNotifySubscribers(s, XPTI_TP_EDGE_CREATE, graph, e, instance, NULL)));
    f->edge_uid = e->unique_id;
}

/* One queue.submit() of the kernel: the same code location every time. */
static void submit(struct sycl_flow *f, xpti_stream_id_t s, struct xpti_event *graph,
                   struct xpti_event *dependency)
{
    static const char device_event[] = "device event";
    struct xpti_tracepoint_if *tp = xptiCreateTracepoint(SYCL_FLOW_FUNCTION, SYCL_FLOW_FILE,
                                                         SYCL_FLOW_LINE, SYCL_FLOW_COLUMN, NULL);
    struct xpti_event *ev = xpti_if_tracepoint_event(tp);
    check(f, ev != NULL);
    if (!ev)
        return;
    xptiSetTracepointScopeData(tp);
    add_kernel_metadata(f, ev);
    uint64_t instance = ev->instance_id;
    if (instance == 1) {
        /* The runtime announces a node only the first time a site is seen. */
        f->node_uid = ev->unique_id;
        check(f, notified(xptiNotifySubscribers(s, XPTI_TP_NODE_CREATE, graph, ev, instance,
                                                "command_group_node")));
        edge(f, s, graph, dependency, ev);
    }
    check(f, notified(xptiNotifySubscribers(s, XPTI_TP_TASK_BEGIN, graph, ev, instance, NULL)));
    check(f, notified(xptiNotifySubscribers(s, XPTI_TP_SIGNAL, graph, ev, instance, device_event)));
    check(f, notified(xptiNotifySubscribers(s, XPTI_TP_TASK_END, graph, ev, instance, NULL)));
    xptiUnsetTracepointScopeData();

    uint64_t wait_instance = xptiGetUniqueId();
    f->last_wait_instance = wait_instance;
    check(f, notified(xptiNotifySubscribers(s, XPTI_TP_WAIT_BEGIN, NULL, ev, wait_instance,
                                            "queue.wait")));
    check(f, notified(xptiNotifySubscribers(s, XPTI_TP_WAIT_END, NULL, ev, wait_instance,
                                            "queue.wait")));
}

int sycl_flow_run(struct sycl_flow *f)
{
    xpti_stream_id_t s = xptiRegisterStream("sycl");
    check(f, s != XPTI_INVALID_STREAM_ID);
    check(f, xptiInitialize("sycl", 1, 0, "sycl 1.0") == XPTI_RESULT_SUCCESS);
    struct xpti_event *graph = graph_event(f, s);
    struct xpti_event *copy = graph ? copy_node(f, s, graph) : NULL;
    f->graph_uid = graph ? graph->unique_id : 0;
    f->copy_uid = copy ? copy->unique_id : 0;
    for (int i = 0; graph && copy && i < f->submissions; i++)
        submit(f, s, graph, copy);
    xptiFinalize("sycl");
    return f->api_failures ? -1 : 0;
}
