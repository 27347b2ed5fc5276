/* SPDX-License-Identifier: MIT */
/* Timing and thread fan-out: wall clock around the whole loop, as upstream
 * measures, so threaded rows report throughput per operation. Beside it the
 * process's CPU time over the same stretch (bench_last_cpu_ns): on a shared
 * machine the wall clock also counts the time other jobs hold the cores,
 * CPU time does not (it still counts page faults and cache misses). */
#include <pthread.h>
#include <time.h>

#include "bench/xpti/bench.h"

struct slice {
    pthread_t thread;
    bench_body body;
    struct bench_data *data;
    size_t begin, end;
    pthread_barrier_t *go;
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bench_last_cpu_ns;

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *run_slice(void *arg)
{
    struct slice *s = arg;
    pthread_barrier_wait(s->go);
    s->body(s->data, s->begin, s->end);
    return NULL;
}

double bench_run(int threads, size_t count, bench_body body, struct bench_data *d)
{
    if (threads <= 0) {
        double c0 = cpu_ns(), t0 = now_ns();
        body(d, 0, count);
        double elapsed = now_ns() - t0;
        bench_last_cpu_ns = cpu_ns() - c0;
        return elapsed;
    }
    struct slice s[BENCH_MAX_LIST * 8];
    if (threads > (int)(sizeof(s) / sizeof(s[0])))
        threads = (int)(sizeof(s) / sizeof(s[0]));
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++) {
        s[i] = (struct slice){.body = body,
                              .data = d,
                              .begin = count * (size_t)i / (size_t)threads,
                              .end = count * (size_t)(i + 1) / (size_t)threads,
                              .go = &go};
        pthread_create(&s[i].thread, NULL, run_slice, &s[i]);
    }
    /* Thread start-up is outside the timed region: the clock starts as the
     * parked workers are released (before, not after, this thread's own
     * return from the barrier, which may be scheduled late). */
    double c0 = cpu_ns(), t0 = now_ns();
    pthread_barrier_wait(&go);
    for (int i = 0; i < threads; i++)
        pthread_join(s[i].thread, NULL);
    double elapsed = now_ns() - t0;
    bench_last_cpu_ns = cpu_ns() - c0;
    pthread_barrier_destroy(&go);
    return elapsed;
}
