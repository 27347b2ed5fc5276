/* SPDX-License-Identifier: MIT */
/* Shared pieces of the XPTI framework benchmark (bench_xpti). */
#ifndef ZESTUB_BENCH_XPTI_BENCH_H
#define ZESTUB_BENCH_XPTI_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xpti/xpti.h"

#define BENCH_MAX_LIST 32

struct bench_options {
    size_t trace_points; /* N, clamped to 10..100000 */
    bool performance;    /* --type performance (else semantic) */
    int test_ids[BENCH_MAX_LIST], ntest_ids;
    int threads[BENCH_MAX_LIST], nthreads; /* 0 = serial */
    double overhead;                       /* percent, 0.1..15 */
    double tp_frequency;                   /* percent */
    bool report, verbose;
    const char *subscriber;
    bool memory;               /* --type memory */
    unsigned long submissions; /* --submissions: the last checkpoint */
    size_t sites;              /* --sites */
};

/* The inputs every row uses: N random names, file "foo.cpp", line = index,
 * column = index % 80, and M = N * 100 / f visits in random order. */
struct bench_data {
    size_t n, m;
    char **names;
    struct xpti_payload *payloads;
    size_t *visit; /* M indexes into 0..N-1 */
    xpti_string_id_t *string_ids;
    struct xpti_event **events;
    xpti_stream_id_t stream;
};

int bench_parse_options(int argc, char **argv, struct bench_options *o);

/* Run body over [0, count) on `threads` threads (0: the calling thread) and
 * return the wall time in nanoseconds. */
typedef void (*bench_body)(struct bench_data *d, size_t begin, size_t end);
double bench_run(int threads, size_t count, bench_body body, struct bench_data *d);
/* CPU ns of the whole process during the last bench_run (all threads). */
extern double bench_last_cpu_ns;

int bench_data_init(struct bench_data *d, size_t n, double tp_frequency);
void bench_data_free(struct bench_data *d);
/* xptiReset, then the stream and its subscriber callbacks again (a reset
 * drops callbacks). */
void bench_fresh_framework(struct bench_data *d);

void bench_data_structures(const struct bench_options *o, struct bench_data *d);
void bench_instrumentation(const struct bench_options *o, struct bench_data *d);
int bench_semantic(const struct bench_options *o, struct bench_data *d);
/* --type memory: resident memory and table fill after 10^5, 10^6, ...
 * submissions (run with the zestub subscriber). */
int bench_memory(const struct bench_options *o);

#endif
