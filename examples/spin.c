/* SPDX-License-Identifier: MIT */
/* Launches `spin`, a kernel whose every work-item loops until flag[0] is 0,
 * with flag[0] = 1: it runs until someone writes 0 there (a debugger,
 * through the device's memory), the "why does my kernel never finish?"
 * case, and what a debugger steps through a running loop on. Prints, once
 * the queue has reached the launch, `spin: flag=0x… out=0x… items=N`; when
 * the launch completes, `spin: item 0 made R rounds` and exits 0.
 * `--give-up SECONDS` makes the host itself write 0 after SECONDS (status
 * 3), so a forgotten run ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "examples/l0_common.h"

int main(int argc, char **argv)
{
    struct l0_env env;
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    ze_kernel_desc_t kdesc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "spin"};
    ze_device_mem_alloc_desc_t ddesc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hdesc = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ze_command_queue_desc_t qdesc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    ze_command_list_desc_t ldesc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_event_pool_desc_t pdesc = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                                  .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                                  .count = 1};
    ze_event_desc_t edesc = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
                             .index = 0,
                             .signal = ZE_EVENT_SCOPE_FLAG_HOST,
                             .wait = ZE_EVENT_SCOPE_FLAG_HOST};
    ze_command_queue_handle_t queue;
    ze_command_list_handle_t list;
    ze_event_pool_handle_t pool;
    ze_event_handle_t started;
    volatile int *flag;
    int *out;
    uint32_t items = 64, gx = 32, gy = 1, gz = 1;
    long give_up = 0;

    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--give-up") == 0 && i + 1 < argc)
            give_up = strtol(argv[++i], &end, 10);
        if (!end || *end || give_up <= 0) {
            fprintf(stderr, "usage: %s [--give-up SECONDS]\n", argv[0]);
            return 2;
        }
    }
    if (l0_open(&env))
        return 1;
    if (l0_load_module(&env, "spin", NULL, &module))
        return 1;
    L0_CHECK(zeKernelCreate(module, &kdesc, &kernel));
    L0_CHECK(
        zeMemAllocShared(env.context, &ddesc, &hdesc, sizeof(int), 64, env.device, (void **)&flag));
    L0_CHECK(zeMemAllocShared(env.context, &ddesc, &hdesc, items * sizeof(int), 64, env.device,
                              (void **)&out));
    *flag = 1;
    memset(out, 0xff, items * sizeof(int));
    L0_CHECK(zeKernelSuggestGroupSize(kernel, items, 1, 1, &gx, &gy, &gz));
    L0_CHECK(zeKernelSetGroupSize(kernel, gx, gy, gz));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof(flag), &flag));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof(out), &out));
    L0_CHECK(zeCommandQueueCreate(env.context, env.device, &qdesc, &queue));
    L0_CHECK(zeCommandListCreate(env.context, env.device, &ldesc, &list));
    L0_CHECK(zeEventPoolCreate(env.context, &pdesc, 1, &env.device, &pool));
    L0_CHECK(zeEventCreate(pool, &edesc, &started));
    /* Signalled when the queue reaches the launch, so whoever reads the line
     * below finds the kernel running. */
    L0_CHECK(zeCommandListAppendSignalEvent(list, started));
    ze_group_count_t groups = {items / gx, 1, 1};
    L0_CHECK(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    L0_CHECK(zeCommandListClose(list));
    L0_CHECK(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    L0_CHECK(zeEventHostSynchronize(started, UINT64_MAX));
    printf("spin: flag=0x%llx out=0x%llx items=%u\n", (unsigned long long)(uintptr_t)flag,
           (unsigned long long)(uintptr_t)out, items);
    fflush(stdout);
    int status = 0;
    if (give_up) {
        uint64_t ns = (uint64_t)give_up * 1000000000ull;
        if (zeCommandQueueSynchronize(queue, ns) == ZE_RESULT_NOT_READY) {
            printf("spin: nobody wrote the flag in %ld s; the host writes it\n", give_up);
            *flag = 0;
            status = 3;
        }
    }
    L0_CHECK(zeCommandQueueSynchronize(queue, UINT64_MAX));
    printf("spin: item 0 made %d rounds\n", out[0]);
    zeEventDestroy(started);
    zeEventPoolDestroy(pool);
    zeCommandListDestroy(list);
    zeCommandQueueDestroy(queue);
    zeMemFree(env.context, (void *)flag);
    zeMemFree(env.context, out);
    zeKernelDestroy(kernel);
    zeModuleDestroy(module);
    zeContextDestroy(env.context);
    return status;
}
