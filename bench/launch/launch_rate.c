/* SPDX-License-Identifier: MIT */
/* The workload of bench/launch: kernel launches back to back (vadd on a
 * small buffer, one command list executed and synchronized per launch),
 * timed after the module exists. Prints `launches N seconds S rate R`, the
 * figure bench_launch.py compares with and without zestub around it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "examples/l0_common.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    struct l0_env env;
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    ze_kernel_desc_t kdesc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "vadd"};
    ze_device_mem_alloc_desc_t ddesc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_command_queue_desc_t qdesc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    ze_command_list_desc_t ldesc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_queue_handle_t queue;
    ze_command_list_handle_t list;
    ze_group_count_t groups = {1, 1, 1};
    int *buf[3];
    long count = argc > 1 ? atol(argv[1]) : 1000;
    double t0, t1;

    if (count <= 0 || l0_open(&env) || l0_load_module(&env, "vadd", NULL, &module))
        return 1;
    L0_CHECK(zeKernelCreate(module, &kdesc, &kernel));
    for (int i = 0; i < 3; i++) {
        L0_CHECK(zeMemAllocDevice(env.context, &ddesc, 4096, 64, env.device, (void **)&buf[i]));
        L0_CHECK(zeKernelSetArgumentValue(kernel, (uint32_t)i, sizeof(buf[i]), &buf[i]));
    }
    L0_CHECK(zeKernelSetGroupSize(kernel, 32, 1, 1));
    L0_CHECK(zeCommandQueueCreate(env.context, env.device, &qdesc, &queue));
    L0_CHECK(zeCommandListCreate(env.context, env.device, &ldesc, &list));
    L0_CHECK(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    L0_CHECK(zeCommandListClose(list));
    t0 = now_s();
    for (long k = 0; k < count; k++) {
        L0_CHECK(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
        L0_CHECK(zeCommandQueueSynchronize(queue, UINT64_MAX));
    }
    t1 = now_s();
    printf("launches %ld seconds %.6f rate %.1f\n", count, t1 - t0, (double)count / (t1 - t0));
    zeCommandListDestroy(list);
    zeCommandQueueDestroy(queue);
    for (int i = 0; i < 3; i++)
        zeMemFree(env.context, buf[i]);
    zeKernelDestroy(kernel);
    zeModuleDestroy(module);
    zeContextDestroy(env.context);
    return 0;
}
