/* SPDX-License-Identifier: MIT */
/* A hung kernel, submitted the way a SYCL program submits one (sycl_rt.c):
 * the slm kernel's work-groups meet at a barrier, and when one thread of
 * each group never arrives (gtsim: GTSIM_CONFIG barrier_skip=1, the stand-in
 * for `if (lid < n) barrier(...)` on hardware) the others wait there for
 * ever and the launch never completes. Under the XPTI subscriber the table
 * then holds a task_begin with no task_end: what `zestub dump --on hang=`
 * looks for.
 *
 *   sycl_hang [--give-up SECONDS]
 *
 * Without barrier_skip the kernel completes and the program exits 0. With
 * it the program waits for the launch as a SYCL program's q.wait() does;
 * --give-up ends it after SECONDS with status 3 and a message, so that a
 * forgotten run does not stay for ever (0 or absent: wait for ever). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "examples/sycl_rt.h"

#define GROUP 64 /* work-items per group: at least two hardware threads */
#define GROUPS 4

static void give_up(int sig)
{
    static const char msg[] = "sycl_hang: the kernel is still running; giving up\n";
    (void)sig;
    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* nothing left to tell */
    }
    _exit(3);
}

static int run(void)
{
    struct l0_env env;
    struct rt_queue q;
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    ze_kernel_desc_t kdesc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "slm"};
    const size_t bytes = GROUP * GROUPS * sizeof(int);
    if (l0_open(&env) || l0_load_module(&env, "slm", NULL, &module) ||
        rt_queue_create(&q, &env, 0, 1))
        return 1;
    L0_CHECK(zeKernelCreate(module, &kdesc, &kernel));
    L0_CHECK(zeKernelSetGroupSize(kernel, GROUP, 1, 1));
    int *in = rt_malloc_device(&env, bytes, RT_HERE);
    int *out = rt_malloc_device(&env, bytes, RT_HERE);
    if (!in || !out)
        return 1;
    L0_CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof(in), &in));
    L0_CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof(out), &out));
    /* slm's __local int *scratch: one int per work-item. */
    L0_CHECK(zeKernelSetArgumentValue(kernel, 2, GROUP * sizeof(int), NULL));
    ze_result_t r = rt_submit(&q, kernel, "slm", GROUPS, RT_HERE);
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
    int rc;
    if (argc == 3 && !strcmp(argv[1], "--give-up") && atoi(argv[2]) >= 0) {
        limit = (unsigned)atoi(argv[2]);
    } else if (argc != 1) {
        fprintf(stderr, "usage: sycl_hang [--give-up SECONDS]\n");
        return 2;
    }
    printf("sycl_hang: pid %d\n", (int)getpid());
    fflush(stdout);
    if (limit) {
        signal(SIGALRM, give_up);
        alarm(limit);
    }
    rt_init();
    rc = run();
    rt_fini();
    return rc;
}
