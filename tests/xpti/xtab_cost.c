/* SPDX-License-Identifier: MIT */
/* What libzestub_xpti.so costs the application per notification: drives
 * task_begin/task_end (with a fresh instance per submission, as the SYCL
 * runtime does) and mem_alloc_end/mem_release_begin through the dispatcher
 * and prints ns per notification. Run it with XPTI_SUBSCRIBERS naming the
 * subscriber, and with --noop for the baseline: tracing forced on and an
 * empty callback of our own on the same notifications. `make bench-xtab`
 * runs both. Usage: xtab_cost [--noop] [submissions] [threads] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xpti/xpti.h"

struct job {
    int n;
    struct xpti_event **ev;
    xpti_stream_id_t sycl, mem;
};

static void noop(uint16_t type, struct xpti_event *parent, struct xpti_event *ev, uint64_t instance,
                 const void *user_data)
{
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *tasks(void *arg)
{
    struct job *j = arg;
    for (int i = 0; i < j->n; i++) {
        xptiNotifySubscribers(j->sycl, XPTI_TP_TASK_BEGIN, NULL, j->ev[i], j->ev[i]->instance_id,
                              NULL);
        xptiNotifySubscribers(j->sycl, XPTI_TP_TASK_END, NULL, j->ev[i], j->ev[i]->instance_id,
                              NULL);
    }
    return NULL;
}

static void *allocs(void *arg)
{
    struct job *j = arg;
    for (int i = 0; i < j->n; i++) {
        struct xpti_mem_alloc_data d = {.alloc_pointer = ((uintptr_t)j->ev[0] << 8) + 4096u * i,
                                        .alloc_size = 4096};
        xptiNotifySubscribers(j->mem, XPTI_TP_MEM_ALLOC_END, NULL, j->ev[i], 0, &d);
        xptiNotifySubscribers(j->mem, XPTI_TP_MEM_RELEASE_BEGIN, NULL, j->ev[i], 0, &d);
    }
    return NULL;
}

/* ns per notification over `threads` threads of job `fn` (2 per iteration). */
static double run(void *(*fn)(void *), struct job *jobs, int threads)
{
    pthread_t th[64];
    double t0 = now();
    for (int i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, fn, &jobs[i]);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    return (now() - t0) / (2.0 * jobs[0].n * threads);
}

int main(int argc, char **argv)
{
    int noop_mode = argc > 1 && strcmp(argv[1], "--noop") == 0;
    int n = argc > 1 + noop_mode ? atoi(argv[1 + noop_mode]) : 100000;
    int threads = argc > 2 + noop_mode ? atoi(argv[2 + noop_mode]) : 1;
    if (n < 1 || threads < 1 || threads > 64)
        return 2;
    xptiFrameworkInitialize();
    xpti_stream_id_t sycl = xptiRegisterStream("sycl");
    xpti_stream_id_t mem = xptiRegisterStream("sycl.experimental.mem_alloc");
    xptiInitialize("sycl", 1, 0, "sycl 1.0");
    xptiInitialize("sycl.experimental.mem_alloc", 1, 0, "sycl 1.0");
    if (noop_mode) {
        xptiForceSetTraceEnabled(true);
        xptiRegisterCallback(sycl, XPTI_TP_TASK_BEGIN, noop);
        xptiRegisterCallback(sycl, XPTI_TP_TASK_END, noop);
        xptiRegisterCallback(mem, XPTI_TP_MEM_ALLOC_END, noop);
        xptiRegisterCallback(mem, XPTI_TP_MEM_RELEASE_BEGIN, noop);
    }
    struct job jobs[64];
    for (int t = 0; t < threads; t++) {
        jobs[t] = (struct job){.n = n, .sycl = sycl, .mem = mem};
        jobs[t].ev = malloc(sizeof(*jobs[t].ev) * (size_t)n);
        for (int i = 0; i < n; i++) {
            /* One kernel site per thread, a new instance per submission. */
            struct xpti_tracepoint_if *tp =
                xptiCreateTracepoint("main", "cost.cpp", 10 + t, 1, NULL);
            jobs[t].ev[i] = xpti_tracepoint_event(tp);
        }
        xpti_metadata_count(jobs[t].ev[0]);
        xptiAddMetadata(jobs[t].ev[0], "kernel_name", xptiRegisterObject("k", 1, XPTI_MD_STRING));
        xptiNotifySubscribers(sycl, XPTI_TP_NODE_CREATE, NULL, jobs[t].ev[0], 1, "node");
    }
    double task_ns = run(tasks, jobs, threads);
    double alloc_ns = run(allocs, jobs, threads);
    printf("%s, %d thread(s), %d submissions each: task_begin/end %.1f ns, "
           "mem_alloc_end/mem_release_begin %.1f ns per notification\n",
           noop_mode ? "baseline (empty callback)" : "with XPTI_SUBSCRIBERS", threads, n, task_ns,
           alloc_ns);
    xptiFrameworkFinalize();
    return 0;
}
