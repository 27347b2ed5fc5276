/* SPDX-License-Identifier: MIT */
/* Command line of the upstream framework benchmark (same option names). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/xpti/bench.h"

/* "1,2,3" or "a:b:step", and combinations of both separated by commas. */
static int parse_list(const char *text, int *out, int max)
{
    int n = 0;
    char *copy = strdup(text), *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int a, b, step = 1;
        int fields = sscanf(item, "%d:%d:%d", &a, &b, &step);
        if (fields == 1)
            b = a;
        if (fields < 1 || step <= 0 || b < a) {
            free(copy);
            return -1;
        }
        for (int v = a; v <= b && n < max; v += step)
            out[n++] = v;
    }
    free(copy);
    return n;
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_xpti --trace-points N --type semantic|performance "
                    "--test-id LIST --num-threads LIST [--overhead PCT] [--tp-frequency PCT] "
                    "[--report] [--verbose] [--subscriber PATH]\n"
                    "       bench_xpti --type memory --subscriber libzestub_xpti.so "
                    "[--submissions N] [--sites N]\n"
                    "LIST: 1,2,3 or first:last:step (combinable with commas)\n");
}

int bench_parse_options(int argc, char **argv, struct bench_options *o)
{
    static const struct option longs[] = {{"trace-points", required_argument, NULL, 't'},
                                          {"type", required_argument, NULL, 'y'},
                                          {"test-id", required_argument, NULL, 'i'},
                                          {"num-threads", required_argument, NULL, 'n'},
                                          {"overhead", required_argument, NULL, 'o'},
                                          {"tp-frequency", required_argument, NULL, 'f'},
                                          {"report", no_argument, NULL, 'r'},
                                          {"verbose", no_argument, NULL, 'v'},
                                          {"subscriber", required_argument, NULL, 's'},
                                          {"submissions", required_argument, NULL, 'S'},
                                          {"sites", required_argument, NULL, 'C'},
                                          {NULL, 0, NULL, 0}};
    bool have_type = false;
    long points = -1;
    *o = (struct bench_options){.overhead = 1.0,
                                .tp_frequency = 10.0,
                                .ntest_ids = -1,
                                .nthreads = -1,
                                .submissions = 10000000,
                                .sites = 1000};
    for (int c; (c = getopt_long(argc, argv, "t:y:i:n:o:f:rvs:S:C:", longs, NULL)) != -1;) {
        switch (c) {
        case 't':
            points = strtol(optarg, NULL, 10);
            break;
        case 'y':
            have_type = true;
            o->performance = strcmp(optarg, "performance") == 0;
            o->memory = strcmp(optarg, "memory") == 0;
            if (!o->performance && !o->memory && strcmp(optarg, "semantic") != 0)
                have_type = false;
            break;
        case 'i':
            o->ntest_ids = parse_list(optarg, o->test_ids, BENCH_MAX_LIST);
            break;
        case 'n':
            o->nthreads = parse_list(optarg, o->threads, BENCH_MAX_LIST);
            break;
        case 'o':
            o->overhead = clamp(strtod(optarg, NULL), 0.1, 15);
            break;
        case 'f':
            o->tp_frequency = clamp(strtod(optarg, NULL), 1, 100);
            break;
        case 'r':
            o->report = true;
            break;
        case 'v':
            o->verbose = true;
            break;
        case 's':
            o->subscriber = optarg;
            break;
        case 'S':
            o->submissions = strtoul(optarg, NULL, 10);
            break;
        case 'C':
            o->sites = (size_t)clamp(strtod(optarg, NULL), 1, 4096);
            break;
        default:
            usage();
            return -1;
        }
    }
    if (o->memory && have_type)
        return 0; /* its own counts; the other options do not apply */
    if (points < 0 || !have_type || o->ntest_ids <= 0 || o->nthreads <= 0) {
        usage();
        return -1;
    }
    o->trace_points = (size_t)clamp((double)points, 10, 100000);
    return 0;
}
