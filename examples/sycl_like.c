/* SPDX-License-Identifier: MIT */
/* A host program written the way a SYCL program runs: its "runtime"
 * (sycl_rt.c) tells XPTI where each kernel was submitted, which task
 * instance runs on which queue, and where device memory was allocated and
 * freed, so zestub can name the host lines behind what the device does.
 *
 *   sycl_like [SECONDS]             the demo: vadd, then a kernel that writes
 *                                   into a buffer freed just before (page
 *                                   fault); SECONDS pauses before that launch
 *                                   so a debugger can attach
 *   sycl_like --concurrent ROUNDS [--same-kernel] [--until FILE]
 *                                   two devices, one queue and one host thread
 *                                   each, ROUNDS launches per queue: vadd on
 *                                   device 0 and loop_call on device 1, or
 *                                   vadd on both with --same-kernel; with
 *                                   --until, at least ROUNDS and on until FILE
 *                                   exists (a test's dumps then always find
 *                                   work running, however slow the machine)
 *
 * Run with XPTI_TRACE_ENABLE=1 XPTI_SUBSCRIBERS=/abs/libzestub_xpti.so for
 * zestub to see the table. Every step is logged on stdout (sycl_rt.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "examples/sycl_rt.h"

#define ELEMS 64 /* four work-groups of 16 */
#define GROUP 16

struct kernels {
    ze_module_handle_t vadd_module, second_module;
    ze_kernel_handle_t vadd, second; /* second: oob (demo) or loop_call */
};

static int make_kernels(struct l0_env *env, const char *second, struct kernels *k)
{
    ze_kernel_desc_t vdesc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "vadd"};
    ze_kernel_desc_t sdesc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = second};
    if (l0_load_module(env, "vadd", NULL, &k->vadd_module) ||
        l0_load_module(env, second, NULL, &k->second_module))
        return 1;
    L0_CHECK(zeKernelCreate(k->vadd_module, &vdesc, &k->vadd));
    L0_CHECK(zeKernelCreate(k->second_module, &sdesc, &k->second));
    L0_CHECK(zeKernelSetGroupSize(k->vadd, GROUP, 1, 1));
    L0_CHECK(zeKernelSetGroupSize(k->second, GROUP, 1, 1));
    return 0;
}

static void drop_kernels(struct kernels *k)
{
    zeKernelDestroy(k->vadd);
    zeKernelDestroy(k->second);
    zeModuleDestroy(k->vadd_module);
    zeModuleDestroy(k->second_module);
}

static int set_args3(ze_kernel_handle_t k, const void *a, size_t an, const void *b, size_t bn,
                     const void *c, size_t cn)
{
    L0_CHECK(zeKernelSetArgumentValue(k, 0, an, a));
    L0_CHECK(zeKernelSetArgumentValue(k, 1, bn, b));
    L0_CHECK(zeKernelSetArgumentValue(k, 2, cn, c));
    return 0;
}

/* ---- the demo: a launch on a freed buffer -------------------------------- */

static int demo(unsigned pause)
{
    struct l0_env env;
    struct kernels k;
    struct rt_queue q;
    const size_t bytes = ELEMS * sizeof(int);
    if (l0_open(&env) || make_kernels(&env, "oob", &k) || rt_queue_create(&q, &env, 0, 1))
        return 1;
    int *a = rt_malloc_device(&env, bytes, RT_HERE);
    int *b = rt_malloc_device(&env, bytes, RT_HERE);
    int *c = rt_malloc_device(&env, bytes, RT_HERE);
    if (!a || !b || !c || set_args3(k.vadd, &a, sizeof(a), &b, sizeof(b), &c, sizeof(c)))
        return 1;
    if (rt_submit(&q, k.vadd, "vadd", ELEMS / GROUP, RT_HERE) != ZE_RESULT_SUCCESS)
        return 1;
    rt_free(&env, b, RT_HERE); /* the bug: b is still needed below */

    /* Fill the second half of b with 7s: oob(p, offset, value) writes
     * p[offset + i] = value. */
    int *half = b + ELEMS / 2;
    int64_t offset = 0;
    int value = 7;
    if (set_args3(k.second, &half, sizeof(half), &offset, sizeof(offset), &value, sizeof(value)))
        return 1;
    if (pause) {
        printf("pid %d: launching in %u s\n", (int)getpid(), pause);
        fflush(stdout);
        sleep(pause);
    }
    ze_result_t r = rt_submit(&q, k.second, "oob", ELEMS / GROUP, RT_HERE);

    rt_free(&env, a, RT_HERE);
    rt_free(&env, c, RT_HERE);
    rt_queue_destroy(&q);
    drop_kernels(&k);
    zeContextDestroy(env.context);
    /* Either a debugger saw the fault and let the threads go on, or the
     * device reported it: both are the expected outcome. */
    if (r != ZE_RESULT_SUCCESS && r != ZE_RESULT_ERROR_DEVICE_LOST) {
        fprintf(stderr, "sycl_like: unexpected result %s\n", l0_result_name(r));
        return 1;
    }
    printf("sycl_like: %s\n", r == ZE_RESULT_SUCCESS ? "the faulting launch completed (a debugger "
                                                       "handled the fault)"
                                                     : "the device reported the fault");
    return 0;
}

/* ---- concurrent tasks on two devices --------------------------------------- */

struct worker {
    struct l0_env env;
    struct kernels k;
    struct rt_queue q;
    int *in, *out;
    int rounds;
    const char *until; /* NULL, or go on until this file exists */
    int same_kernel;
    int failed;
    pthread_t tid;
};

/* One host thread per queue, like an application with a thread per device. */
static void *work(void *arg)
{
    struct worker *w = arg;
    for (int r = 0; (r < w->rounds || (w->until && access(w->until, F_OK) != 0)) && !w->failed;
         r++) {
        /* One site per kernel, shared by both threads, as a loop over
         * queues in a SYCL program would be. */
        if (w->same_kernel || w->q.device == 0)
            w->failed = rt_submit(&w->q, w->k.vadd, "vadd", ELEMS / GROUP, RT_HERE) != 0;
        else
            w->failed = rt_submit(&w->q, w->k.second, "loop_call", ELEMS / GROUP, RT_HERE) != 0;
    }
    return NULL;
}

static int setup_worker(struct worker *w, ze_driver_handle_t driver, ze_context_handle_t context,
                        ze_device_handle_t device, unsigned index, int rounds)
{
    const size_t bytes = ELEMS * sizeof(int);
    int n = 4, factor = 3;
    w->env.driver = driver;
    w->env.context = context;
    w->env.device = device;
    w->env.props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    w->rounds = rounds;
    L0_CHECK(zeDeviceGetProperties(device, &w->env.props));
    if (make_kernels(&w->env, "loop_call", &w->k) ||
        rt_queue_create(&w->q, &w->env, index, 0x10 * (index + 1)))
        return 1;
    w->in = rt_malloc_device(&w->env, bytes * n, RT_HERE);
    w->out = rt_malloc_device(&w->env, bytes, RT_HERE);
    if (!w->in || !w->out)
        return 1;
    /* vadd(in, in, out), loop_call(in, out, n, factor) */
    if (set_args3(w->k.vadd, &w->in, sizeof(w->in), &w->in, sizeof(w->in), &w->out,
                  sizeof(w->out)) ||
        set_args3(w->k.second, &w->in, sizeof(w->in), &w->out, sizeof(w->out), &n, sizeof(n)))
        return 1;
    L0_CHECK(zeKernelSetArgumentValue(w->k.second, 3, sizeof(factor), &factor));
    return 0;
}

static int concurrent(int rounds, int same_kernel, const char *until)
{
    struct l0_env first;
    ze_device_handle_t devices[2];
    uint32_t ndev = 2;
    struct worker w[2];
    int failed = 0;
    if (l0_open(&first))
        return 1;
    L0_CHECK(zeDeviceGet(first.driver, &ndev, devices));
    if (ndev < 2) {
        fprintf(stderr, "sycl_like --concurrent needs two devices (gtsim: devices=2)\n");
        return 1;
    }
    memset(w, 0, sizeof(w));
    for (unsigned d = 0; d < 2; d++) {
        w[d].same_kernel = same_kernel;
        w[d].until = until;
        if (setup_worker(&w[d], first.driver, first.context, devices[d], d, rounds))
            return 1;
    }
    for (unsigned d = 0; d < 2; d++)
        if (pthread_create(&w[d].tid, NULL, work, &w[d]) != 0)
            return 1;
    for (unsigned d = 0; d < 2; d++) {
        pthread_join(w[d].tid, NULL);
        failed |= w[d].failed;
        rt_free(&w[d].env, w[d].in, RT_HERE);
        rt_free(&w[d].env, w[d].out, RT_HERE);
        rt_queue_destroy(&w[d].q);
        drop_kernels(&w[d].k);
    }
    zeContextDestroy(first.context);
    printf("sycl_like: %s%d rounds on each of 2 devices %s\n", until ? "at least " : "", rounds,
           failed ? "FAILED" : "done");
    return failed;
}

/* --concurrent ROUNDS [--same-kernel] [--until FILE]: 0 when well formed. */
static int concurrent_args(int argc, char **argv, int *same_kernel, const char **until)
{
    *same_kernel = 0;
    *until = NULL;
    if (argc < 3 || strcmp(argv[1], "--concurrent") || atoi(argv[2]) <= 0)
        return -1;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--same-kernel"))
            *same_kernel = 1;
        else if (!strcmp(argv[i], "--until") && i + 1 < argc)
            *until = argv[++i];
        else
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rc, same_kernel;
    const char *until;
    printf("sycl_like: pid %d\n", (int)getpid());
    fflush(stdout);
    rt_init();
    if (concurrent_args(argc, argv, &same_kernel, &until) == 0)
        rc = concurrent(atoi(argv[2]), same_kernel, until);
    else if (argc <= 2 && (argc < 2 || argv[1][0] != '-'))
        rc = demo(argc > 1 ? (unsigned)atoi(argv[1]) : 0);
    else {
        fprintf(stderr,
                "usage: sycl_like [SECONDS] | sycl_like --concurrent ROUNDS [--same-kernel] "
                "[--until FILE]\n");
        rc = 2;
    }
    rt_fini();
    return rc;
}
