/* SPDX-License-Identifier: MIT */
/* The benchmark's inputs, built once per run (upstream's recipe). */
#include <stdio.h>
#include <stdlib.h>

#include "bench/xpti/bench.h"

#define LOCATION                                                                                   \
    (XPTI_PAYLOAD_NAME_AVAILABLE | XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE |                            \
     XPTI_PAYLOAD_LINE_INFO_AVAILABLE | XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE)

/* A fixed-seed generator: runs are repeatable and need no global rand(). */
static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    return *state >> 33;
}

int bench_data_init(struct bench_data *d, size_t n, double tp_frequency)
{
    uint64_t seed = 42;
    *d = (struct bench_data){.n = n, .m = (size_t)((double)n * 100.0 / tp_frequency)};
    d->names = calloc(n, sizeof(*d->names));
    d->payloads = calloc(n, sizeof(*d->payloads));
    d->string_ids = calloc(n, sizeof(*d->string_ids));
    d->events = calloc(n, sizeof(*d->events));
    d->visit = calloc(d->m, sizeof(*d->visit));
    if (!d->names || !d->payloads || !d->string_ids || !d->events || !d->visit)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char name[32];
        for (int c = 0; c < 5; c++)
            name[c] = (char)('a' + next_random(&seed) % 26);
        snprintf(name + 5, sizeof(name) - 5, "%zu", i);
        d->names[i] = malloc(32);
        if (!d->names[i])
            return -1;
        snprintf(d->names[i], 32, "%s", name);
        d->payloads[i] = (struct xpti_payload){.name = d->names[i],
                                               .source_file = "foo.cpp",
                                               .line_no = (uint32_t)i,
                                               .column_no = (uint32_t)(i % 80),
                                               .flags = LOCATION};
    }
    for (size_t i = 0; i < d->m; i++)
        d->visit[i] = (size_t)(next_random(&seed) % n);
    return 0;
}

void bench_data_free(struct bench_data *d)
{
    for (size_t i = 0; d->names && i < d->n; i++)
        free(d->names[i]);
    free(d->names);
    free(d->payloads);
    free(d->string_ids);
    free(d->events);
    free(d->visit);
}

void bench_fresh_framework(struct bench_data *d)
{
    xptiReset();
    d->stream = xptiRegisterStream("xpti");
    /* The subscriber registers its no-op callbacks from xptiTraceInit. */
    xptiInitialize("xpti", 20, 0, "xptiTests");
}
