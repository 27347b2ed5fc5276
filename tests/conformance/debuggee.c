/* SPDX-License-Identifier: MIT */
/* The application under test of the conformance suite: plain Level Zero,
 * linked against the loader only, so it runs unchanged on a real GPU.
 *
 *   debuggee MODE [--groups N] [--group-size G] [--module-first] [--wait-launch]
 *            [--kernel-file ZEBIN]
 *   MODE: vadd | pagefault | slm | loop | sleep-before-init
 *   loop: `spin`, every work-item looping while flag[0] != 0, launched with
 *   flag[0] = 1: the launch completes once a debugger writes 0 there.
 *   --kernel-file: the module from ZEBIN instead of the fixture (a build of
 *   the same kernel with other options, e.g. large GRF).
 *
 * It talks to the test through stdin/stdout lines:
 *   "waiting <pid>"        (sleep-before-init only) before zeInit; waits for a line
 *   "ready <pid>"          after zeInit, context and command queue (so a
 *                          debugger attaching now sees PROCESS_ENTRY), before
 *                          the module unless --module-first; waits for a line
 *   "module-created <ms>"  right after zeModuleCreate returned
 *   "kernel simd <S> threads <T>"  hardware threads the launch will use
 *   "freed 0x<addr>"       (pagefault) the dangling pointer passed to the kernel
 *   "flag 0x<addr>"        (loop) the flag the kernel loops on
 *   "armed"                (--wait-launch) all set up; waits for a line
 *   "launched"             the command list was submitted
 *   "done <result>"        synchronize returned; everything is destroyed
 * and exits 0. Any unexpected Level Zero failure exits 1. A closed stdin
 * (the test died) exits 2. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "examples/l0_common.h"

static unsigned long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000ull + (unsigned long long)ts.tv_nsec / 1000000ull;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout); /* the test reads us through a pipe */
}

static void wait_go(void)
{
    char line[256];
    if (!fgets(line, sizeof(line), stdin))
        exit(2);
}

int main(int argc, char **argv)
{
    struct l0_env env;
    const char *mode = argc > 1 ? argv[1] : "vadd";
    const char *kname;
    uint32_t groups = 2, group_size = 0;
    int module_first = 0, wait_launch = 0;
    const char *kernel_file = NULL;
    ze_module_handle_t module = NULL;
    ze_kernel_handle_t kernel;
    ze_kernel_properties_t kprops = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    ze_device_mem_alloc_desc_t ddesc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hdesc = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ze_command_queue_desc_t qdesc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    ze_command_list_desc_t ldesc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_kernel_desc_t kdesc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC};
    ze_command_queue_handle_t queue;
    ze_command_list_handle_t list;
    int *a = NULL, *b = NULL, *c = NULL;
    size_t n;
    ze_result_t r;

    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--groups") == 0 && i + 1 < argc)
            groups = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--group-size") == 0 && i + 1 < argc)
            group_size = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--module-first") == 0)
            module_first = 1;
        else if (strcmp(argv[i], "--wait-launch") == 0)
            wait_launch = 1;
        else if (strcmp(argv[i], "--kernel-file") == 0 && i + 1 < argc)
            kernel_file = argv[++i];
        else {
            fprintf(stderr, "debuggee: unknown argument %s\n", argv[i]);
            return 1;
        }
    }
    if (strcmp(mode, "vadd") == 0)
        kname = "vadd";
    else if (strcmp(mode, "pagefault") == 0)
        kname = "oob";
    else if (strcmp(mode, "slm") == 0)
        kname = "slm";
    else if (strcmp(mode, "loop") == 0)
        kname = "spin";
    else if (strcmp(mode, "sleep-before-init") == 0) {
        /* Stands for a process that has not initialized Level Zero yet: a
         * debugger attaching now is "too early". */
        kname = "vadd";
        say("waiting %d", (int)getpid());
        wait_go();
    } else {
        fprintf(stderr, "debuggee: unknown mode %s\n", mode);
        return 1;
    }

    if (l0_open(&env))
        return 1;
    L0_CHECK(zeCommandQueueCreate(env.context, env.device, &qdesc, &queue));
    if (module_first) {
        if (l0_load_module(&env, kname, kernel_file, &module))
            return 1;
        say("module-created %llu", now_ms());
    }
    say("ready %d", (int)getpid());
    wait_go();
    if (!module_first) {
        if (l0_load_module(&env, kname, kernel_file, &module))
            return 1;
        say("module-created %llu", now_ms());
    }

    kdesc.pKernelName = kname;
    L0_CHECK(zeKernelCreate(module, &kdesc, &kernel));
    L0_CHECK(zeKernelGetProperties(kernel, &kprops));
    /* Group size 0 means one hardware thread per work-group: the test then
     * knows exactly how many threads to expect. */
    if (group_size == 0)
        group_size = kprops.maxSubgroupSize ? kprops.maxSubgroupSize : 16;
    {
        uint32_t simd = kprops.maxSubgroupSize ? kprops.maxSubgroupSize : group_size;
        say("kernel simd %u threads %u", simd, groups * ((group_size + simd - 1) / simd));
    }
    L0_CHECK(zeKernelSetGroupSize(kernel, group_size, 1, 1));
    n = (size_t)groups * group_size;
    L0_CHECK(zeMemAllocShared(env.context, &ddesc, &hdesc, n * sizeof(int), 64, env.device,
                              (void **)&a));
    L0_CHECK(zeMemAllocShared(env.context, &ddesc, &hdesc, n * sizeof(int), 64, env.device,
                              (void **)&b));
    for (size_t i = 0; i < n; i++)
        a[i] = (int)i;
    if (strcmp(kname, "oob") == 0) {
        int64_t offset = 0;
        int value = 7;
        /* The bug the page-fault test is about: a pointer already freed. */
        L0_CHECK(zeMemAllocDevice(env.context, &ddesc, 4096, 64, env.device, (void **)&c));
        L0_CHECK(zeMemFree(env.context, c));
        say("freed 0x%" PRIxPTR, (uintptr_t)c);
        L0_CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof(c), &c));
        L0_CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof(offset), &offset));
        L0_CHECK(zeKernelSetArgumentValue(kernel, 2, sizeof(value), &value));
        c = NULL;
    } else if (strcmp(kname, "slm") == 0) {
        L0_CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof(a), &a));
        L0_CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof(b), &b));
        L0_CHECK(zeKernelSetArgumentValue(kernel, 2, group_size * sizeof(int), NULL));
    } else if (strcmp(kname, "spin") == 0) {
        a[0] = 1; /* the flag: 0 (written by the debugger) ends the loop */
        say("flag 0x%" PRIxPTR, (uintptr_t)a);
        L0_CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof(a), &a));
        L0_CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof(b), &b));
    } else {
        L0_CHECK(zeMemAllocShared(env.context, &ddesc, &hdesc, n * sizeof(int), 64, env.device,
                                  (void **)&c));
        L0_CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof(a), &a));
        L0_CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof(a), &a));
        L0_CHECK(zeKernelSetArgumentValue(kernel, 2, sizeof(c), &c));
    }
    L0_CHECK(zeCommandListCreate(env.context, env.device, &ldesc, &list));
    ze_group_count_t count = {groups, 1, 1};
    L0_CHECK(zeCommandListAppendLaunchKernel(list, kernel, &count, NULL, 0, NULL));
    L0_CHECK(zeCommandListClose(list));
    if (wait_launch) {
        say("armed");
        wait_go();
    }
    L0_CHECK(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    say("launched");
    r = zeCommandQueueSynchronize(queue, UINT64_MAX);

    /* Teardown order matters to the event-order test: the module goes
     * (MODULE_UNLOAD) before the last queue (PROCESS_EXIT). */
    zeCommandListDestroy(list);
    zeKernelDestroy(kernel);
    zeModuleDestroy(module);
    zeMemFree(env.context, a);
    zeMemFree(env.context, b);
    if (c)
        zeMemFree(env.context, c);
    zeCommandQueueDestroy(queue);
    zeContextDestroy(env.context);
    say("done %s", l0_result_name(r));
    /* A page fault may legitimately end in DEVICE_LOST; anything else
     * unexpected is a failure the test will see in our exit status. */
    return r == ZE_RESULT_SUCCESS || (strcmp(kname, "oob") == 0 && r == ZE_RESULT_ERROR_DEVICE_LOST)
               ? 0
               : 1;
}
