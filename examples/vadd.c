/* SPDX-License-Identifier: MIT */
/* Vector add through plain Level Zero: module, kernel, shared memory, a
 * command list and an event. On an Intel GPU it checks c = a + b. gtsim
 * does not compute arithmetic, so on gtsim it checks what gtsim models: the
 * launch completes and signals its event, and memory copies round-trip
 * through device memory. Pass --expect-sum to insist on the arithmetic.
 * --print-buffers is for debugger tests: once the queue reaches the kernel it
 * prints the device addresses of `a` (a[i] = i) and of an extra buffer of
 * known bytes (byte i = i mod 256, so it holds every character the remote
 * protocol has to escape), while the kernel still runs. --wait-before-load
 * reads one line from stdin before creating the module (so a debugger can
 * attach first) and says when the module creation has returned.
 * --wait-before-exit reads one more line from stdin once the module is
 * destroyed, so a debugger's module-unload stop is not overtaken by the end
 * of the process unless the test wants it to be. --items N
 * sets the global size (default 4096) so a benchmark can make every hardware
 * thread of a large device run the kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/l0_common.h"

#define DEFAULT_ITEMS 4096
/* Larger than any remote-protocol packet, so reads of it get truncated. */
#define PATTERN_BYTES (128 * 1024)

int main(int argc, char **argv)
{
    struct l0_env env;
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    ze_kernel_desc_t kdesc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "vadd"};
    ze_device_mem_alloc_desc_t ddesc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hdesc = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ze_command_queue_desc_t qdesc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    ze_command_list_desc_t ldesc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_event_pool_desc_t pdesc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                                  ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2};
    ze_event_desc_t edesc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST,
                             ZE_EVENT_SCOPE_FLAG_HOST};
    ze_command_queue_handle_t queue;
    ze_command_list_handle_t list;
    ze_event_pool_handle_t pool;
    ze_event_handle_t done, started = NULL;
    int *a, *b, *c, *dev, *back;
    unsigned char *pattern = NULL;
    uint32_t gx, gy, gz;
    int expect_sum = 0, print_buffers = 0, wait_before_load = 0, wait_before_exit = 0;
    int bad = 0;
    int n = DEFAULT_ITEMS;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect-sum") == 0)
            expect_sum = 1;
        else if (strcmp(argv[i], "--print-buffers") == 0)
            print_buffers = 1;
        else if (strcmp(argv[i], "--wait-before-load") == 0)
            wait_before_load = 1;
        else if (strcmp(argv[i], "--wait-before-exit") == 0)
            wait_before_exit = 1;
        else if (strcmp(argv[i], "--items") == 0 && i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 0);
            /* The loops index with int and store 3 * i: 2^26 keeps both in range. */
            if (*end || v == 0 || v > (1ul << 26)) {
                fprintf(stderr, "%s: --items takes 1..%lu, not '%s'\n", argv[0], 1ul << 26,
                        argv[i]);
                return 2;
            }
            n = (int)v;
        } else {
            fprintf(stderr,
                    "usage: %s [--expect-sum] [--print-buffers] [--wait-before-load] "
                    "[--wait-before-exit] [--items N]\n",
                    argv[0]);
            return 2;
        }
    }

    if (l0_open(&env))
        return 1;
    printf("device: %s (0x%04x), %u slices x %u subslices x %u EUs x %u threads\n", env.props.name,
           env.props.deviceId, env.props.numSlices, env.props.numSubslicesPerSlice,
           env.props.numEUsPerSubslice, env.props.numThreadsPerEU);
    /* Progress lines go out at once: tools (and tests) watch for them. */
    fflush(stdout);
    if (wait_before_load) {
        char line[16];
        if (!fgets(line, sizeof(line), stdin))
            return 1;
    }
    if (l0_load_module(&env, "vadd", NULL, &module))
        return 1;
    if (wait_before_load) {
        /* A debugger that holds the module's load event holds this line. */
        printf("module: created\n");
        fflush(stdout);
    }
    L0_CHECK(zeKernelCreate(module, &kdesc, &kernel));

    L0_CHECK(zeMemAllocShared(env.context, &ddesc, &hdesc, n * sizeof(int), 64, env.device,
                              (void **)&a));
    L0_CHECK(zeMemAllocShared(env.context, &ddesc, &hdesc, n * sizeof(int), 64, env.device,
                              (void **)&b));
    L0_CHECK(zeMemAllocShared(env.context, &ddesc, &hdesc, n * sizeof(int), 64, env.device,
                              (void **)&c));
    L0_CHECK(zeMemAllocDevice(env.context, &ddesc, n * sizeof(int), 64, env.device, (void **)&dev));
    L0_CHECK(zeMemAllocHost(env.context, &hdesc, n * sizeof(int), 64, (void **)&back));
    for (int i = 0; i < n; i++) {
        a[i] = i;
        b[i] = 3 * i;
        c[i] = -1;
        back[i] = 0;
    }
    if (print_buffers) {
        L0_CHECK(zeMemAllocShared(env.context, &ddesc, &hdesc, PATTERN_BYTES, 64, env.device,
                                  (void **)&pattern));
        for (int i = 0; i < PATTERN_BYTES; i++)
            pattern[i] = (unsigned char)i;
    }

    L0_CHECK(zeKernelSuggestGroupSize(kernel, (uint32_t)n, 1, 1, &gx, &gy, &gz));
    L0_CHECK(zeKernelSetGroupSize(kernel, gx, gy, gz));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof(a), &a));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof(b), &b));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 2, sizeof(c), &c));

    L0_CHECK(zeCommandQueueCreate(env.context, env.device, &qdesc, &queue));
    L0_CHECK(zeCommandListCreate(env.context, env.device, &ldesc, &list));
    L0_CHECK(zeEventPoolCreate(env.context, &pdesc, 1, &env.device, &pool));
    L0_CHECK(zeEventCreate(pool, &edesc, &done));
    if (print_buffers) {
        /* Signalled when the queue reaches the launch: the device takes up
         * commands after the submission returns, so without it a debugger
         * told "buffers:" on a loaded machine could find nothing running. */
        ze_event_desc_t sdesc = edesc;
        sdesc.index = 1;
        L0_CHECK(zeEventCreate(pool, &sdesc, &started));
        L0_CHECK(zeCommandListAppendSignalEvent(list, started));
    }
    ze_group_count_t groups = {(uint32_t)n / gx, 1, 1};
    L0_CHECK(zeCommandListAppendLaunchKernel(list, kernel, &groups, done, 0, NULL));
    L0_CHECK(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    L0_CHECK(zeCommandListAppendMemoryCopy(list, dev, a, n * sizeof(int), NULL, 0, NULL));
    L0_CHECK(zeCommandListAppendMemoryCopy(list, back, dev, n * sizeof(int), NULL, 0, NULL));
    L0_CHECK(zeCommandListClose(list));
    ze_fence_desc_t fdesc = {.stype = ZE_STRUCTURE_TYPE_FENCE_DESC};
    ze_fence_handle_t fence;
    L0_CHECK(zeFenceCreate(queue, &fdesc, &fence));
    L0_CHECK(zeCommandQueueExecuteCommandLists(queue, 1, &list, fence));
    if (print_buffers) {
        /* Printed once the queue has reached the launch, so a debugger that
         * attaches on this line finds the kernel running. */
        L0_CHECK(zeEventHostSynchronize(started, UINT64_MAX));
        printf("buffers: a=0x%llx a_bytes=%zu pattern=0x%llx pattern_bytes=%d\n",
               (unsigned long long)(uintptr_t)a, (size_t)n * sizeof(int),
               (unsigned long long)(uintptr_t)pattern, PATTERN_BYTES);
        fflush(stdout);
    }
    L0_CHECK(zeFenceHostSynchronize(fence, UINT64_MAX));
    L0_CHECK(zeCommandQueueSynchronize(queue, UINT64_MAX));
    L0_CHECK(zeFenceDestroy(fence));
    L0_CHECK(zeEventQueryStatus(done));
    printf("launch: %u work-groups of %u work-items completed, event signalled\n",
           groups.groupCountX, gx);

    for (int i = 0; i < n; i++)
        if (back[i] != a[i])
            bad++;
    printf("memory copy host->device->host: %s\n", bad ? "MISMATCH" : "round-trips");
    if (expect_sum) {
        int wrong = 0;
        for (int i = 0; i < n; i++)
            wrong += c[i] != a[i] + b[i];
        printf("c = a + b: %s (%d wrong)\n", wrong ? "FAILED" : "verified", wrong);
        bad += wrong;
    }

    if (started)
        zeEventDestroy(started);
    zeEventDestroy(done);
    zeEventPoolDestroy(pool);
    zeCommandListDestroy(list);
    zeCommandQueueDestroy(queue);
    zeMemFree(env.context, a);
    zeMemFree(env.context, b);
    zeMemFree(env.context, c);
    zeMemFree(env.context, dev);
    zeMemFree(env.context, back);
    if (pattern)
        zeMemFree(env.context, pattern);
    zeKernelDestroy(kernel);
    zeModuleDestroy(module);
    if (wait_before_exit) {
        char line[16];
        printf("module: destroyed\n");
        fflush(stdout);
        if (!fgets(line, sizeof(line), stdin))
            return 1;
    }
    zeContextDestroy(env.context);
    printf("vadd: %s\n", bad ? "FAILED" : "PASSED");
    return bad ? 1 : 0;
}
