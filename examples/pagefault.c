/* SPDX-License-Identifier: MIT */
/* Launches a kernel with a pointer that was already freed: the device
 * faults. Without a debugger the queue reports the device lost; with one
 * attached, the faulting threads stop and the debugger sees why. Exits 0
 * when the fault was reported the way Level Zero reports it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "examples/l0_common.h"

int main(int argc, char **argv)
{
    struct l0_env env;
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    ze_kernel_desc_t kdesc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "oob"};
    ze_device_mem_alloc_desc_t ddesc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_command_queue_desc_t qdesc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    ze_command_list_desc_t ldesc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_queue_handle_t queue;
    ze_command_list_handle_t list;
    int *p;
    int64_t offset = 0;
    int value = 7;
    ze_result_t r;
    unsigned pause = argc > 1 ? (unsigned)atoi(argv[1]) : 0;

    if (l0_open(&env))
        return 1;
    if (l0_load_module(&env, "oob", NULL, &module))
        return 1;
    L0_CHECK(zeKernelCreate(module, &kdesc, &kernel));
    L0_CHECK(zeMemAllocDevice(env.context, &ddesc, 4096, 64, env.device, (void **)&p));
    L0_CHECK(zeMemFree(env.context, p)); /* the bug this example is about */
    L0_CHECK(zeKernelSetGroupSize(kernel, 16, 1, 1));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof(p), &p));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof(offset), &offset));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 2, sizeof(value), &value));
    L0_CHECK(zeCommandQueueCreate(env.context, env.device, &qdesc, &queue));
    L0_CHECK(zeCommandListCreate(env.context, env.device, &ldesc, &list));
    ze_group_count_t groups = {4, 1, 1};
    L0_CHECK(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    L0_CHECK(zeCommandListClose(list));
    if (pause) {
        /* Gives a debugger time to attach before the fault. */
        printf("pid %d: launching in %u s\n", (int)getpid(), pause);
        fflush(stdout);
        sleep(pause);
    }
    printf("launching oob(p=%p freed, offset=0)\n", (void *)p);
    /* Out before the launch: a debugger stops the kernel on its fault and
     * the process would hold this line until it exits. */
    fflush(stdout);
    L0_CHECK(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    r = zeCommandQueueSynchronize(queue, UINT64_MAX);
    printf("zeCommandQueueSynchronize: %s\n", l0_result_name(r));
    zeCommandListDestroy(list);
    zeCommandQueueDestroy(queue);
    zeKernelDestroy(kernel);
    zeModuleDestroy(module);
    zeContextDestroy(env.context);
    if (r == ZE_RESULT_SUCCESS) {
        /* A debugger saw the fault and let the threads go on. */
        printf("pagefault: the launch completed (a debugger handled the fault)\n");
        return 0;
    }
    if (r != ZE_RESULT_ERROR_DEVICE_LOST) {
        fprintf(stderr, "pagefault: expected the device to report the fault\n");
        return 1;
    }
    printf("pagefault: the device reported the fault\n");
    return 0;
}
