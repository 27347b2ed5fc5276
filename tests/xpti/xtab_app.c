/* SPDX-License-Identifier: MIT */
/* An instrumented application for test_xtab_e2e: drives the dispatcher as a
 * SYCL runtime does (sycl_flow.c), then allocates and frees device memory on
 * the "sycl.experimental.mem_alloc" stream and leaves one kernel task
 * running. Prints "ready PID" and waits for stdin to close, so another
 * process can read its XPTI table while it lives. */
#include <stdio.h>
#include <unistd.h>

#include "tests/xpti/sycl_flow.h"
#include "tests/xpti/xtab_app.h"

static void mem_event(xpti_stream_id_t s, uint16_t type, uint64_t ptr, uint64_t size)
{
    struct xpti_tracepoint_if *tp =
        xptiCreateTracepoint(XTAB_APP_ALLOC_FUNCTION, SYCL_FLOW_FILE, XTAB_APP_ALLOC_LINE, 5, NULL);
    struct xpti_mem_alloc_data d = {.mem_object_handle = 0x77,
                                    .alloc_pointer = (uintptr_t)ptr,
                                    .alloc_size = (size_t)size,
                                    .guard_zone_size = XTAB_APP_GUARD};
    xptiNotifySubscribers(s, type, NULL, xpti_if_tracepoint_event(tp), 0, &d);
}

static void memory(void)
{
    xpti_stream_id_t s = xptiRegisterStream("sycl.experimental.mem_alloc");
    xptiInitialize("sycl.experimental.mem_alloc", 1, 0, "sycl 1.0");
    mem_event(s, XPTI_TP_MEM_ALLOC_BEGIN, 0, XTAB_APP_LIVE_SIZE);
    mem_event(s, XPTI_TP_MEM_ALLOC_END, XTAB_APP_LIVE_PTR, XTAB_APP_LIVE_SIZE);
    mem_event(s, XPTI_TP_MEM_ALLOC_END, XTAB_APP_FREED_PTR, 256);
    mem_event(s, XPTI_TP_MEM_RELEASE_BEGIN, XTAB_APP_FREED_PTR, 0);
    mem_event(s, XPTI_TP_MEM_RELEASE_END, XTAB_APP_FREED_PTR, 0);
}

/* One more submission of the kernel whose task has begun but not ended. */
static void running_task(void)
{
    xpti_stream_id_t s = xptiRegisterStream("sycl");
    /* sycl_flow finalised the stream, which turned its callbacks off. */
    xptiInitialize("sycl", 1, 0, "sycl 1.0");
    struct xpti_tracepoint_if *tp = xptiCreateTracepoint(SYCL_FLOW_FUNCTION, SYCL_FLOW_FILE,
                                                         SYCL_FLOW_LINE, SYCL_FLOW_COLUMN, NULL);
    struct xpti_event *ev = xpti_if_tracepoint_event(tp);
    xptiStashTuple("queue_id", XTAB_APP_QUEUE);
    xptiNotifySubscribers(s, XPTI_TP_TASK_BEGIN, NULL, ev, ev->instance_id, NULL);
}

int main(void)
{
    struct sycl_flow flow = {.submissions = XTAB_APP_SUBMISSIONS};
    xptiFrameworkInitialize();
    int rc = sycl_flow_run(&flow);
    memory();
    running_task();
    printf("ready %d %d\n", (int)getpid(), rc);
    fflush(stdout);
    char c;
    while (read(0, &c, 1) > 0)
        ;
    xptiFrameworkFinalize();
    return rc ? 1 : 0;
}
