/* SPDX-License-Identifier: MIT */
/* The lock-free paths under contention: 2..8 threads interning strings,
 * creating, finding, ending and releasing tracepoints (ended ones recycled
 * by the registry), and notifying while callbacks are registered and
 * unregistered. Run under -fsanitize=thread or helgrind to check for races;
 * the assertions here check the results. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/tap.h"
#include "xpti/xpti.h"

#define MAX_THREADS 8
#define STRINGS 2000
#define EVENTS_PER_THREAD 3000

struct worker {
    pthread_t thread;
    int index;
    bool ok;
    uint64_t *instances; /* EVENTS_PER_THREAD instance numbers seen */
};

static pthread_barrier_t start_line;
static atomic_ulong notified;
static xpti_stream_id_t stream;

static void string_name(char *buf, size_t n, int i)
{
    snprintf(buf, n, "shared_string_%d", i);
}

static void *intern_strings(void *arg)
{
    struct worker *w = arg;
    pthread_barrier_wait(&start_line);
    w->ok = true;
    for (int k = 0; k < STRINGS; k++) {
        /* Threads walk the names in different orders to collide on inserts. */
        int i = (k * (2 * w->index + 1)) % STRINGS;
        char name[32], *copy = NULL;
        string_name(name, sizeof(name), i);
        xpti_string_id_t id = xptiRegisterString(name, &copy);
        const char *back = xptiLookupString(id);
        w->ok = w->ok && id != XPTI_INVALID_STRING_ID && back == copy && strcmp(back, name) == 0;
    }
    return NULL;
}

static void *make_events(void *arg)
{
    struct worker *w = arg;
    struct xpti_payload p = {
        .name = "hot_kernel",
        .source_file = "hot.cpp",
        .line_no = 1,
        .column_no = 2,
        .flags = XPTI_PAYLOAD_NAME_AVAILABLE | XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE |
                 XPTI_PAYLOAD_LINE_INFO_AVAILABLE | XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE};
    pthread_barrier_wait(&start_line);
    w->ok = true;
    for (int i = 0; i < EVENTS_PER_THREAD; i++) {
        uint64_t inst = 0;
        struct xpti_event *e = xptiMakeEvent("hot", &p, XPTI_EV_ALGORITHM, 1, &inst);
        w->instances[i] = inst;
        w->ok = w->ok && e && xptiFindEvent(e->unique_id) == e &&
                xptiNotifySubscribers(stream, XPTI_TP_TASK_BEGIN, NULL, e, inst, NULL) ==
                    XPTI_RESULT_SUCCESS;
        /* Half are released by hand, half end their task and are left to the
         * registry, which recycles the oldest ended instances of the key
         * while the other threads create, find and end theirs. */
        if (e && i % 2)
            xptiReleaseEvent(e);
        else if (e)
            w->ok = w->ok && xptiNotifySubscribers(stream, XPTI_TP_TASK_END, NULL, e, inst, NULL) ==
                                 XPTI_RESULT_SUCCESS;
    }
    return NULL;
}

static void count_cb(uint16_t type, struct xpti_event *parent, struct xpti_event *ev,
                     uint64_t instance, const void *ud)
{
    atomic_fetch_add_explicit(&notified, 1, memory_order_relaxed);
}

static void other_cb(uint16_t type, struct xpti_event *parent, struct xpti_event *ev,
                     uint64_t instance, const void *ud)
{
}

static void *toggle_callbacks(void *arg)
{
    atomic_bool *stop = arg;
    while (!atomic_load(stop)) {
        xptiRegisterCallback(stream, XPTI_TP_TASK_BEGIN, other_cb);
        xptiUnregisterCallback(stream, XPTI_TP_TASK_BEGIN, other_cb);
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool run(int nthreads, void *(*fn)(void *), struct worker *w)
{
    bool all_ok = true;
    pthread_barrier_init(&start_line, NULL, (unsigned)nthreads);
    for (int i = 0; i < nthreads; i++) {
        w[i].index = i;
        pthread_create(&w[i].thread, NULL, fn, &w[i]);
    }
    for (int i = 0; i < nthreads; i++) {
        pthread_join(w[i].thread, NULL);
        all_ok = all_ok && w[i].ok;
    }
    pthread_barrier_destroy(&start_line);
    return all_ok;
}

static void strings_round(int nthreads)
{
    struct worker w[MAX_THREADS] = {0};
    xptiReset();
    tap_ok(run(nthreads, intern_strings, w), "%d threads: every string interned and found",
           nthreads);
    char *copy;
    xptiRegisterString("one_more", &copy);
    tap_ok(xptiRegisterString("one_more", &copy) == STRINGS + 1,
           "%d threads: exactly %d distinct ids were handed out", nthreads, STRINGS);
}

static void events_round(int nthreads)
{
    static uint64_t all[MAX_THREADS * EVENTS_PER_THREAD];
    struct worker w[MAX_THREADS] = {0};
    xptiReset();
    stream = xptiRegisterStream("concurrency");
    xptiRegisterCallback(stream, XPTI_TP_TASK_BEGIN, count_cb);
    atomic_store(&notified, 0);
    atomic_bool stop = false;
    pthread_t toggler;
    pthread_create(&toggler, NULL, toggle_callbacks, &stop);
    for (int i = 0; i < nthreads; i++)
        w[i].instances = &all[i * EVENTS_PER_THREAD];
    bool ok = run(nthreads, make_events, w);
    atomic_store(&stop, true);
    pthread_join(toggler, NULL);
    size_t n = (size_t)nthreads * EVENTS_PER_THREAD;
    tap_ok(ok, "%d threads: every event created, found and notified", nthreads);
    qsort(all, n, sizeof(all[0]), cmp_u64);
    bool dense = true;
    for (size_t i = 0; i < n; i++)
        dense = dense && all[i] == i + 1;
    tap_ok(dense, "%d threads: instance numbers are exactly 1..%zu", nthreads, n);
    tap_ok(atomic_load(&notified) == n, "%d threads: the steady callback saw all %zu events",
           nthreads, n);
}

#define RUN_EVENTS 40

static struct xpti_event *made[3 * RUN_EVENTS];

static struct xpti_payload site_payload(void)
{
    return (struct xpti_payload){.name = "run_kernel",
                                 .source_file = "run.cpp",
                                 .line_no = 7,
                                 .flags = XPTI_PAYLOAD_NAME_AVAILABLE |
                                          XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE |
                                          XPTI_PAYLOAD_LINE_INFO_AVAILABLE};
}

static void make_some(struct xpti_event **out, int n)
{
    struct xpti_payload p = site_payload();
    for (int i = 0; i < n; i++) {
        uint64_t inst;
        out[i] = xptiMakeEvent("run", &p, XPTI_EV_ALGORITHM, 1, &inst);
    }
}

static void *make_some_thread(void *arg)
{
    make_some(arg, RUN_EVENTS);
    return NULL;
}

/* Each thread takes fresh instance slots in runs of its own; a reset hands
 * the pool out again from its start. A thread that kept its run from
 * before the reset would put a new instance on a slot another thread has
 * since been given (two live events at one address). */
static void runs_across_reset(void)
{
    xptiReset();
    make_some(made, 5); /* this thread's run now reaches past the 5 */
    xptiReset();
    pthread_t other;
    pthread_create(&other, NULL, make_some_thread, &made[RUN_EVENTS]);
    pthread_join(other, NULL);
    make_some(&made[2 * RUN_EVENTS], RUN_EVENTS);
    bool ok = true;
    for (int i = RUN_EVENTS; i < 3 * RUN_EVENTS; i++) {
        ok = ok && made[i] && xptiFindEvent(made[i]->unique_id) == made[i];
        for (int j = RUN_EVENTS; j < i; j++)
            ok = ok && made[j] != made[i];
    }
    tap_ok(ok, "after a reset, two threads' new instances are %d distinct live events",
           2 * RUN_EVENTS);
}

int main(void)
{
    unsetenv("XPTI_SUBSCRIBERS");
    xptiForceSetTraceEnabled(true);
    int rounds = 0;
    for (int t = 2; t <= MAX_THREADS; t *= 2)
        rounds++;
    tap_plan(rounds * (2 + 3) + 1); /* strings_round 2 checks, events_round 3, the runs 1 */
    for (int t = 2; t <= MAX_THREADS; t *= 2) {
        strings_round(t);
        events_round(t);
    }
    runs_across_reset();
    return tap_done();
}
