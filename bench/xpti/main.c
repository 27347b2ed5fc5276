/* SPDX-License-Identifier: MIT */
/* bench_xpti: the XPTI framework benchmark (see bench/README.md). Loads the
 * no-op subscriber so notifications do real dispatch, not an early exit. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench/xpti/bench.h"

#ifndef XPTI_BENCH_SUBSCRIBER
#define XPTI_BENCH_SUBSCRIBER ".libs/xpti_bench_subscriber.so"
#endif

int main(int argc, char **argv)
{
    struct bench_options o;
    struct bench_data d;
    if (bench_parse_options(argc, argv, &o) != 0)
        return 2;
    const char *sub = o.subscriber ? o.subscriber : XPTI_BENCH_SUBSCRIBER;
    if (access(sub, R_OK) != 0) {
        fprintf(stderr, "bench_xpti: subscriber %s not found (--subscriber PATH)\n", sub);
        return 2;
    }
    setenv("XPTI_SUBSCRIBERS", sub, 1); /* read when the framework starts */
    unsetenv("XPTI_TRACE_ENABLE");
    if (!xptiTraceEnabled()) {
        fprintf(stderr, "bench_xpti: tracing did not enable with %s\n", sub);
        return 2;
    }
    if (o.memory)
        return bench_memory(&o);
    if (bench_data_init(&d, o.trace_points, o.tp_frequency) != 0) {
        fprintf(stderr, "bench_xpti: out of memory\n");
        return 2;
    }
    int rc = 0;
    if (!o.performance) {
        rc = bench_semantic(&o, &d) ? 1 : 0;
    } else {
        for (int k = 0; k < o.ntest_ids; k++) {
            if (o.test_ids[k] == 1)
                bench_data_structures(&o, &d);
            else if (o.test_ids[k] == 2)
                bench_instrumentation(&o, &d);
            else
                fprintf(stderr, "bench_xpti: no performance test %d\n", o.test_ids[k]);
        }
    }
    bench_data_free(&d);
    return rc;
}
