/* SPDX-License-Identifier: MIT */
/* --type semantic: the upstream benchmark's three correctness passes (string
 * table, trace points, notifications) over the benchmark's own inputs. */
#include <stdio.h>
#include <string.h>

#include "bench/xpti/bench.h"

static unsigned long region_calls;

static void count_region(uint16_t type, struct xpti_event *parent, struct xpti_event *ev,
                         uint64_t instance, const void *ud)
{
    region_calls++;
}

static bool strings_ok(struct bench_data *d)
{
    bool ok = true;
    char *copy;
    for (size_t i = 0; i < d->n; i++) {
        d->string_ids[i] = xptiRegisterString(d->names[i], &copy);
        ok = ok && d->string_ids[i] == i + 1 && strcmp(copy, d->names[i]) == 0;
    }
    for (size_t i = 0; i < d->n; i++)
        ok = ok && xptiRegisterString(d->names[i], &copy) == d->string_ids[i] &&
             strcmp(xptiLookupString(d->string_ids[i]), d->names[i]) == 0;
    return ok;
}

static bool tracepoints_ok(struct bench_data *d)
{
    bool ok = true;
    for (size_t round = 1; round <= 2; round++)
        for (size_t i = 0; i < d->n; i++) {
            uint64_t inst = 0;
            struct xpti_event *ev = xptiMakeEvent(d->names[i], &d->payloads[i], XPTI_EV_ALGORITHM,
                                                  XPTI_ACTIVITY_ACTIVE, &inst);
            ok = ok && ev && inst == round && xptiFindEvent(ev->unique_id) == ev;
            d->events[i] = ev;
        }
    return ok;
}

static bool notifications_ok(struct bench_data *d)
{
    xptiRegisterCallback(d->stream, XPTI_TP_REGION_BEGIN, count_region);
    region_calls = 0;
    for (size_t i = 0; i < d->m; i++)
        xptiNotifySubscribers(d->stream, XPTI_TP_REGION_BEGIN, NULL, d->events[d->visit[i]], i,
                              NULL);
    return region_calls == d->m;
}

int bench_semantic(const struct bench_options *o, struct bench_data *d)
{
    int failures = 0;
    for (int k = 0; k < o->ntest_ids; k++) {
        bench_fresh_framework(d);
        bool ok;
        const char *what;
        switch (o->test_ids[k]) {
        case 1:
            what = "string table", ok = strings_ok(d);
            break;
        case 2:
            what = "trace points", ok = tracepoints_ok(d);
            break;
        case 3:
            what = "notifications";
            ok = tracepoints_ok(d) && notifications_ok(d);
            break;
        default:
            what = "unknown test id", ok = false;
            break;
        }
        printf("semantic test %d (%s): %s\n", o->test_ids[k], what, ok ? "pass" : "FAIL");
        failures += !ok;
    }
    return failures;
}
