/* SPDX-License-Identifier: MIT */
#include "examples/sycl_rt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "xpti/xpti.h"
#include "xpti/xpti_if.h"

/* Set once by rt_init, before any other thread exists. */
static xpti_stream_id_t sycl_stream, mem_stream;
static struct xpti_event *graph;

void rt_init(void)
{
    struct xpti_payload p = {.name = "SYCL", .flags = XPTI_PAYLOAD_NAME_AVAILABLE};
    uint64_t instance = 0;
    xptiFrameworkInitialize();
    sycl_stream = xptiRegisterStream("sycl");
    mem_stream = xptiRegisterStream("sycl.experimental.mem_alloc");
    /* Subscribers named in XPTI_SUBSCRIBERS hear about each stream here. */
    xptiInitialize("sycl", 1, 0, "sycl 1.0");
    xptiInitialize("sycl.experimental.mem_alloc", 1, 0, "sycl 1.0");
    graph = xptiMakeEvent("SYCL", &p, XPTI_EV_GRAPH, XPTI_ACTIVITY_ACTIVE, &instance);
    if (graph)
        xptiNotifySubscribers(sycl_stream, XPTI_TP_GRAPH_CREATE, NULL, graph, instance, NULL);
}

void rt_fini(void)
{
    xptiFinalize("sycl.experimental.mem_alloc");
    xptiFinalize("sycl");
    xptiFrameworkFinalize();
}

int rt_queue_create(struct rt_queue *q, struct l0_env *env, unsigned device, uint64_t id)
{
    ze_command_queue_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    q->env = env;
    q->device = device;
    q->id = id;
    L0_CHECK(zeCommandQueueCreate(env->context, env->device, &desc, &q->q));
    return 0;
}

void rt_queue_destroy(struct rt_queue *q)
{
    zeCommandQueueDestroy(q->q);
}

/* Each call is a new instance of the location's tracepoint, as the
 * runtime makes one per API call. Its event comes from the tracepoint's C++
 * interface (event_ref()), as in the runtime: only the public ABI, so this
 * runs on any conforming framework. */
static struct xpti_event *event_at(struct rt_loc loc)
{
    return xpti_if_tracepoint_event(
        xptiCreateTracepoint(loc.function, loc.file, loc.line, 0, NULL));
}

static void mem_notify(uint16_t type, struct xpti_event *ev, void *p, size_t bytes)
{
    struct xpti_mem_alloc_data d = {.alloc_pointer = (uintptr_t)p, .alloc_size = bytes};
    if (ev)
        xptiNotifySubscribers(mem_stream, type, NULL, ev, ev->instance_id, &d);
}

void *rt_malloc_device(struct l0_env *env, size_t bytes, struct rt_loc loc)
{
    ze_device_mem_alloc_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    struct xpti_event *ev = event_at(loc);
    void *p = NULL;
    mem_notify(XPTI_TP_MEM_ALLOC_BEGIN, ev, NULL, bytes);
    if (zeMemAllocDevice(env->context, &desc, bytes, 64, env->device, &p) != ZE_RESULT_SUCCESS)
        p = NULL;
    mem_notify(XPTI_TP_MEM_ALLOC_END, ev, p, bytes);
    printf("alloc 0x%" PRIxPTR " size %zu at %s:%u uid=0x%" PRIx64 "\n", (uintptr_t)p, bytes,
           loc.file, loc.line, ev ? ev->unique_id : 0);
    fflush(stdout);
    return p;
}

void rt_free(struct l0_env *env, void *p, struct rt_loc loc)
{
    struct xpti_event *ev = event_at(loc);
    mem_notify(XPTI_TP_MEM_RELEASE_BEGIN, ev, p, 0);
    zeMemFree(env->context, p);
    mem_notify(XPTI_TP_MEM_RELEASE_END, ev, p, 0);
    printf("free 0x%" PRIxPTR " at %s:%u uid=0x%" PRIx64 "\n", (uintptr_t)p, loc.file, loc.line,
           ev ? ev->unique_id : 0);
    fflush(stdout);
}

static void add_string(struct xpti_event *ev, const char *key, const char *value)
{
    xptiAddMetadata(ev, key, xptiRegisterObject(value, strlen(value), XPTI_MD_STRING));
}

static void add_int(struct xpti_event *ev, const char *key, int64_t value)
{
    xptiAddMetadata(
        ev, key, xptiRegisterObject((const char *)&value, sizeof(value), XPTI_MD_SIGNED_INTEGER));
}

/* What the runtime attaches to a kernel command's event. */
static void kernel_metadata(struct xpti_event *ev, const struct rt_queue *q, const char *kernel,
                            struct rt_loc loc)
{
    add_string(ev, "kernel_name", kernel);
    add_string(ev, "sym_function_name", loc.function);
    add_string(ev, "sym_source_file_name", loc.file);
    add_int(ev, "sym_line_no", loc.line);
    add_int(ev, "from_source", 1);
    /* The runtime's own device id is an opaque handle value. */
    add_int(ev, "sycl_device", (int64_t)(uintptr_t)q->env->device);
    add_string(ev, "sycl_device_type", "gpu");
    add_string(ev, "sycl_device_name", q->env->props.name);
}

static ze_result_t launch(struct rt_queue *q, ze_kernel_handle_t kernel, uint32_t groups)
{
    ze_command_list_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t list;
    ze_group_count_t count = {.groupCountX = groups, .groupCountY = 1, .groupCountZ = 1};
    ze_result_t r = zeCommandListCreate(q->env->context, q->env->device, &desc, &list);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    r = zeCommandListAppendLaunchKernel(list, kernel, &count, NULL, 0, NULL);
    if (r == ZE_RESULT_SUCCESS)
        r = zeCommandListClose(list);
    if (r == ZE_RESULT_SUCCESS)
        r = zeCommandQueueExecuteCommandLists(q->q, 1, &list, NULL);
    if (r == ZE_RESULT_SUCCESS)
        r = zeCommandQueueSynchronize(q->q, UINT64_MAX);
    zeCommandListDestroy(list);
    return r;
}

ze_result_t rt_submit(struct rt_queue *q, ze_kernel_handle_t kernel, const char *kernel_name,
                      uint32_t groups, struct rt_loc loc)
{
    struct xpti_tracepoint_if *tp = xptiCreateTracepoint(loc.function, loc.file, loc.line, 0, NULL);
    struct xpti_event *ev = xpti_if_tracepoint_event(tp);
    if (!ev)
        return launch(q, kernel, groups);
    uint64_t instance = ev->instance_id;
    xptiSetTracepointScopeData(tp);
    kernel_metadata(ev, q, kernel_name, loc);
    if (instance == 1) {
        /* The runtime announces a node only the first time a site is seen. */
        xptiNotifySubscribers(sycl_stream, XPTI_TP_NODE_CREATE, graph, ev, instance,
                              "command_group_node");
        printf("site %s at %s:%u function %s uid=0x%" PRIx64 "\n", kernel_name, loc.file, loc.line,
               loc.function, ev->unique_id);
    }
    xptiStashTuple("queue_id", q->id);
    xptiNotifySubscribers(sycl_stream, XPTI_TP_TASK_BEGIN, graph, ev, instance, NULL);
    printf("submit kernel %s instance %" PRIu64 " queue 0x%" PRIx64
           " device %u at %s:%u uid=0x%" PRIx64 "\n",
           kernel_name, instance, q->id, q->device, loc.file, loc.line, ev->unique_id);
    fflush(stdout);
    ze_result_t r = launch(q, kernel, groups);
    xptiNotifySubscribers(sycl_stream, XPTI_TP_TASK_END, graph, ev, instance, NULL);
    xptiUnstashTuple();
    xptiUnsetTracepointScopeData();
    printf("end kernel %s instance %" PRIu64 " queue 0x%" PRIx64 " uid=0x%" PRIx64 " result %s\n",
           kernel_name, instance, q->id, ev->unique_id, l0_result_name(r));
    fflush(stdout);
    return r;
}
