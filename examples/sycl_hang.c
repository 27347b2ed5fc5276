/* SPDX-License-Identifier: MIT */
/* A hung kernel, submitted the way a SYCL program submits one (sycl_rt.c):
 * the slm kernel's work-groups meet at a barrier, and when one thread of
 * each group never arrives (gtsim: GTSIM_CONFIG barrier_skip=1, the stand-in
 * for `if (lid < n) barrier(...)` on hardware) the others wait there for
 * ever and the launch never completes. Under the XPTI subscriber the table
 * then holds a task_begin with no task_end: what `zestub dump --on hang=`
 * looks for.
 *
 *   sycl_hang [--give-up SECONDS] [--groups N] [--group-size ITEMS]
 *
 * Without barrier_skip the kernel completes and the program exits 0. With
 * it the program waits for the launch as a SYCL program's q.wait() does;
 * --give-up ends it after SECONDS with status 3 and a message, so that a
 * forgotten run does not stay for ever (0 or absent: wait for ever).
 * --groups and --group-size (default 4 and 64) make a bigger hang: the
 * groups that find no room wait to be dispatched, as on hardware, so
 * enough groups fill the whole device with waiting threads. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "examples/sycl_rt.h"

/* Work-items per group: at least two hardware threads at any SIMD width. */
#define DEFAULT_GROUP 64
#define DEFAULT_GROUPS 4

static void give_up(int sig)
{
    static const char msg[] = "sycl_hang: the kernel is still running; giving up\n";
    (void)sig;
    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* nothing left to tell */
    }
    _exit(3);
}

static int run(uint32_t groups, uint32_t group)
{
    struct l0_env env;
    struct rt_queue q;
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    ze_kernel_desc_t kdesc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "slm"};
    const size_t bytes = (size_t)group * groups * sizeof(int);
    if (l0_open(&env) || l0_load_module(&env, "slm", NULL, &module) ||
        rt_queue_create(&q, &env, 0, 1))
        return 1;
    L0_CHECK(zeKernelCreate(module, &kdesc, &kernel));
    L0_CHECK(zeKernelSetGroupSize(kernel, group, 1, 1));
    int *in = rt_malloc_device(&env, bytes, RT_HERE);
    int *out = rt_malloc_device(&env, bytes, RT_HERE);
    if (!in || !out)
        return 1;
    L0_CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof(in), &in));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof(out), &out));
    /* slm's __local int *scratch: one int per work-item. */
    L0_CHECK(zeKernelSetArgumentValue(kernel, 2, group * sizeof(int), NULL));
    ze_result_t r = rt_submit(&q, kernel, "slm", groups, RT_HERE);
    rt_free(&env, in, RT_HERE);
    rt_free(&env, out, RT_HERE);
    rt_queue_destroy(&q);
    zeKernelDestroy(kernel);
    zeModuleDestroy(module);
    zeContextDestroy(env.context);
    printf("sycl_hang: the kernel completed (%s)\n", l0_result_name(r));
    return r == ZE_RESULT_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
    unsigned limit = 0;
    uint32_t groups = DEFAULT_GROUPS, group = DEFAULT_GROUP;
    int rc;
    for (int i = 1; i < argc; i += 2) {
        long v = i + 1 < argc ? atol(argv[i + 1]) : -1;
        if (!strcmp(argv[i], "--give-up") && v >= 0)
            limit = (unsigned)v;
        else if (!strcmp(argv[i], "--groups") && v > 0)
            groups = (uint32_t)v;
        else if (!strcmp(argv[i], "--group-size") && v > 0 && v <= 1024)
            group = (uint32_t)v;
        else {
            fprintf(stderr,
                    "usage: sycl_hang [--give-up SECONDS] [--groups N] [--group-size ITEMS]\n");
            return 2;
        }
    }
    printf("sycl_hang: pid %d\n", (int)getpid());
    fflush(stdout);
    if (limit) {
        signal(SIGALRM, give_up);
        alarm(limit);
    }
    rt_init();
    rc = run(groups, group);
    rt_fini();
    return rc;
}
