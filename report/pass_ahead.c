/* SPDX-License-Identifier: MIT */
#include "report/pass_ahead.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "regsets/regs.h"

/* Records read ahead at most: their sets wait in the cache (a GRF is
 * 8 KiB at most here), so the memory stays that of a few hundred threads
 * however many the device has. */
#define WINDOW 256
#define MAX_READERS 8
/* Readers unless ZESTUB_DUMP_READERS says otherwise (1 or 0: none ahead).
 * With reads that cost no latency, 2, 4 and 8 ran as fast as each other on
 * a 2-core machine; with a modelled ioctl latency of 10 us a read, 8 were
 * 1.3x as fast as 4 (bench/README.md, 2026-11-29): a real driver's reads
 * are waits the readers overlap. */
#define DEFAULT_READERS 8

struct pass_ahead {
    struct report_pass *p;
    const uint32_t *sets;
    uint64_t total;
    atomic_uint_fast64_t next;   /* the next item a reader takes */
    atomic_uint_fast64_t passed; /* items the pass is done with */
    atomic_bool stop;
    uint32_t filled[WINDOW];
    atomic_uint_fast64_t ready[WINDOW]; /* item + 1 whose filled[] is valid */
    pthread_t tid[MAX_READERS];
    unsigned nreaders;
    /* Readers a full window puts to sleep, and what wakes them: the pass
     * every WAKE_EVERY records while any sleeps, and the stop. */
    pthread_mutex_t lock;
    pthread_cond_t room;
    atomic_uint sleepers;
};

/* Once reads cost little (gtsim serves them in the debugger's process, as
 * a real driver does), the readers are ahead and their wait is for the
 * pass, which formats the records: a reader that yields in a loop there
 * took a quarter of a 2-core machine's samples from the pass
 * (bench/README.md). So a reader whose item is a window ahead sleeps
 * until the pass has made room for a batch. */
#define WAKE_EVERY (WINDOW / 4)

/* Waits are short (a record, a read): yield first, then sleep a little, so
 * a waiter never keeps a core from the thread it waits for. */
static void pause_a_little(unsigned *spins)
{
    struct timespec ts = {0, 20000};
    if ((*spins)++ < 64)
        sched_yield();
    else
        nanosleep(&ts, NULL);
}

static void item_place(const struct report_pass *p, uint64_t i, unsigned *k, uint32_t *t)
{
    for (*k = 0; *k < sess_count(p->m); (*k)++) {
        uint32_t n = sess_thread_count(p->m, *k);
        if (i < n)
            break;
        i -= n;
    }
    *t = (uint32_t)i;
}

/* cr0 first (it says whether the thread is stopped at all, as the pass
 * would ask), then the sets every record of the device wants, all in one
 * call: the session's lock is taken twice for the thread, not twice a set
 * (five threads contended for it, bench/README.md). */
static uint32_t read_item(struct pass_ahead *a, unsigned k, uint32_t t)
{
    struct report_pass *p = a->p;
    const struct regs_catalog *cat = k < p->ncats ? p->cats[k] : NULL;
    uint32_t types[1 + REPORT_MAX_SETS], filled = 0, got;
    size_t set_of[1 + REPORT_MAX_SETS], n = 0;
    types[n] = REGS_CR;
    set_of[n++] = SIZE_MAX; /* cr0 stays cached for the pass, as before */
    for (size_t s = 0; cat && s < regs_catalog_set_count(cat) && s < REPORT_MAX_SETS && n < 32;
         s++) {
        uint32_t type = regs_catalog_set(cat, s)->props.type;
        /* SBA is the device's, read once through the first thread that
         * needs it: left to the pass, or two readers could both read it. */
        if (!(a->sets[k] & (1u << s)) || type == REGS_SBA || type == REGS_CR)
            continue;
        types[n] = type;
        set_of[n++] = s;
    }
    /* A failed read is left to the pass, which reads again and says why. */
    got = sess_fill_regsets(p->m, k, t, types, n);
    for (size_t i = 1; i < n; i++)
        if (got & (1u << i))
            filled |= 1u << set_of[i];
    return filled;
}

/* Sleeps until item i is within the window or the readers stop. The
 * reader counts itself a sleeper before it looks at `passed`, and the
 * pass stores `passed` before it looks at the sleepers (both sequentially
 * consistent): one of them sees the other, so no wake-up is lost. A
 * timed wait all the same, so that a missed batch costs 10 ms, never a
 * hang. */
static void sleep_for_room(struct pass_ahead *a, uint64_t i)
{
    pthread_mutex_lock(&a->lock);
    atomic_fetch_add(&a->sleepers, 1);
    while (i >= atomic_load(&a->passed) + WINDOW && !atomic_load(&a->stop)) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 10000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&a->room, &a->lock, &until);
    }
    atomic_fetch_sub(&a->sleepers, 1);
    pthread_mutex_unlock(&a->lock);
}

static void wake_readers(struct pass_ahead *a)
{
    pthread_mutex_lock(&a->lock);
    pthread_cond_broadcast(&a->room);
    pthread_mutex_unlock(&a->lock);
}

static void *reader_main(void *arg)
{
    struct pass_ahead *a = arg;
    for (;;) {
        uint64_t i = atomic_fetch_add(&a->next, 1);
        unsigned k;
        uint32_t t;
        if (i >= a->total)
            break;
        /* Straight to sleep: room comes a batch at a time (WAKE_EVERY),
         * so yielding first only took the pass's core (bench/README.md). */
        if (i >= atomic_load(&a->passed) + WINDOW && !atomic_load(&a->stop))
            sleep_for_room(a, i);
        if (atomic_load(&a->stop))
            break;
        item_place(a->p, i, &k, &t);
        a->filled[i % WINDOW] = read_item(a, k, t);
        atomic_store(&a->ready[i % WINDOW], i + 1);
    }
    return NULL;
}

static unsigned readers_wanted(void)
{
    const char *v = getenv("ZESTUB_DUMP_READERS");
    char *end = NULL;
    long n = v ? strtol(v, &end, 10) : DEFAULT_READERS;
    if (v && (!*v || *end))
        n = DEFAULT_READERS;
    return n < 0 ? 0 : n > MAX_READERS ? MAX_READERS : (unsigned)n;
}

struct pass_ahead *pass_ahead_start(struct report_pass *p, const uint32_t *sets)
{
    unsigned want = readers_wanted();
    struct pass_ahead *a;
    if (want < 2 || !(a = calloc(1, sizeof(*a))))
        return NULL;
    a->p = p;
    a->sets = sets;
    for (unsigned k = 0; k < sess_count(p->m); k++)
        a->total += sess_thread_count(p->m, k);
    atomic_init(&a->next, 0);
    atomic_init(&a->passed, 0);
    atomic_init(&a->stop, false);
    atomic_init(&a->sleepers, 0);
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->room, NULL);
    for (unsigned i = 0; i < WINDOW; i++)
        atomic_init(&a->ready[i], 0);
    for (unsigned i = 0; i < want; i++)
        if (pthread_create(&a->tid[a->nreaders], NULL, reader_main, a) == 0)
            a->nreaders++;
    if (!a->nreaders) {
        pthread_cond_destroy(&a->room);
        pthread_mutex_destroy(&a->lock);
        free(a);
        return NULL;
    }
    return a;
}

uint32_t pass_ahead_wait(struct pass_ahead *a, uint64_t i)
{
    unsigned spins = 0;
    while (atomic_load(&a->ready[i % WINDOW]) != i + 1)
        pause_a_little(&spins);
    return a->filled[i % WINDOW];
}

void pass_ahead_passed(struct pass_ahead *a, uint64_t i)
{
    atomic_store(&a->passed, i + 1);
    /* A sleeper's item is a whole window ahead: a batch of room at once
     * wakes it less often than every record would, and long before the
     * pass needs its item. */
    if ((i + 1) % WAKE_EVERY == 0 && atomic_load(&a->sleepers) > 0)
        wake_readers(a);
}

void pass_ahead_stop(struct pass_ahead *a)
{
    if (!a)
        return;
    atomic_store(&a->stop, true);
    wake_readers(a);
    for (unsigned i = 0; i < a->nreaders; i++)
        pthread_join(a->tid[i], NULL);
    pthread_cond_destroy(&a->room);
    pthread_mutex_destroy(&a->lock);
    free(a);
}
