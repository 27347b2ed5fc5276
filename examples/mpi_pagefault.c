/* SPDX-License-Identifier: MIT */
/* An MPI job whose GPU bug shows on some ranks only: every rank runs the
 * oob kernel on its own device (rank modulo the devices it sees), and the
 * ranks named by --fault-ranks (default 1,3) pass it an allocation they
 * already freed, so their threads page-fault on one kernel line while the
 * other ranks finish cleanly. Plain MPI + Level Zero; run it under
 *   mpirun -n 4 zestub dump --json 'dump-%r.json' -- ./mpi_pagefault
 * and merge the dumps with zestub merge dump-*.json. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/l0_common.h"

/* Whether rank appears in the comma-separated list. */
static int listed(const char *list, int rank)
{
    for (const char *p = list; p && *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            return 0;
        if (v == rank)
            return 1;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

/* The rank's own device: rank modulo the devices of the first driver. */
static int pick_device(struct l0_env *env, int rank)
{
    uint32_t n = 0;
    ze_device_handle_t devs[64];
    L0_CHECK(zeDeviceGet(env->driver, &n, NULL));
    if (n > 64)
        n = 64;
    L0_CHECK(zeDeviceGet(env->driver, &n, devs));
    env->device = devs[(uint32_t)rank % n];
    L0_CHECK(zeDeviceGetProperties(env->device, &env->props));
    return 0;
}

static int run(int rank, int faulty)
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
    ze_group_count_t groups = {4, 1, 1};
    int *p;
    int64_t offset = 0;
    int value = 7;
    ze_result_t r;

    if (l0_open(&env) || pick_device(&env, rank))
        return 1;
    if (l0_load_module(&env, "oob", NULL, &module))
        return 1;
    L0_CHECK(zeKernelCreate(module, &kdesc, &kernel));
    L0_CHECK(zeMemAllocDevice(env.context, &ddesc, 4096, 64, env.device, (void **)&p));
    if (faulty)
        L0_CHECK(zeMemFree(env.context, p)); /* the bug of this rank */
    L0_CHECK(zeKernelSetGroupSize(kernel, 16, 1, 1));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof(p), &p));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof(offset), &offset));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 2, sizeof(value), &value));
    L0_CHECK(zeCommandQueueCreate(env.context, env.device, &qdesc, &queue));
    L0_CHECK(zeCommandListCreate(env.context, env.device, &ldesc, &list));
    L0_CHECK(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    L0_CHECK(zeCommandListClose(list));
    printf("rank %d: launching oob(p=%p %s) on device %s\n", rank, (void *)p,
           faulty ? "freed" : "live", env.props.name);
    fflush(stdout);
    L0_CHECK(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    r = zeCommandQueueSynchronize(queue, UINT64_MAX);
    printf("rank %d: zeCommandQueueSynchronize: %s\n", rank, l0_result_name(r));
    zeCommandListDestroy(list);
    zeCommandQueueDestroy(queue);
    if (!faulty)
        zeMemFree(env.context, p);
    zeKernelDestroy(kernel);
    zeModuleDestroy(module);
    zeContextDestroy(env.context);
    /* A fault a debugger handled lets the launch complete; without one
     * the device is lost. Either way the fault was reported. */
    return r == ZE_RESULT_SUCCESS || (faulty && r == ZE_RESULT_ERROR_DEVICE_LOST) ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *faults = "1,3";
    int rank = 0, size = 1, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--fault-ranks") && i + 1 < argc)
            faults = argv[++i];
        else {
            if (rank == 0)
                fprintf(stderr, "usage: %s [--fault-ranks LIST]  (default 1,3)\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    rc = run(rank, listed(faults, rank));
    /* Every rank reaches the end together: a faulting rank is not an
     * early exit for the job. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_pagefault: %d ranks done\n", size);
    MPI_Finalize();
    return rc;
}
