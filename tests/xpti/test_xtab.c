/* SPDX-License-Identifier: MIT */
/* The XPTI table: writer -> reader round trip through a real sealed memfd,
 * the full-table policy of each area, and several application threads
 * writing while a reader reads (every record the reader accepts must be one
 * a writer wrote whole). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tests/lib/tap.h"
#include "xpti/xtab_reader.h"
#include "xpti/xtab_writer.h"

static struct xtab_w w;

static struct xtab *open_writer(const struct xtab_caps *caps)
{
    char err[256];
    if (xtab_w_create_memfd(&w, caps, err, sizeof(err)) != 0)
        tap_bail(err);
    struct xtab *t = xtab_open_fd(w.fd, err, sizeof(err));
    if (!t)
        tap_bail(err);
    return t;
}

static uint32_t site(const char *kernel, uint64_t key, uint32_t line)
{
    struct xtab_site_in in = {.uid = 0x100000000u + key,
                              .key1 = key,
                              .key2 = 7,
                              .line = line,
                              .column = 3,
                              .kernel = kernel,
                              .function = "main",
                              .file = "vadd.cpp",
                              .device = "gtsim:0"};
    return xtab_w_site_add(&w, &in);
}

static void test_round_trip(void)
{
    struct xtab_caps caps = {.sites = 8, .tasks = 8, .allocs = 4, .strings = 512};
    struct xtab *t = open_writer(&caps);
    uint32_t k = site("_ZTS9VectorAdd", 1, 42);
    uint32_t m = site("", 2, 30);
    tap_ok(k == 0 && m == 1 && site("again", 1, 99) == 0, "sites appended once per key");
    tap_ok(xtab_w_site_find(&w, 2, 7) == 1 && xtab_w_site_find(&w, 3, 7) == XTAB_NONE,
           "site lookup by key");
    xtab_w_task_begin(&w, 0x200000001u, 1, k, 5, 1000);
    xtab_w_task_end(&w, 0x200000001u, 1, 2000);
    xtab_w_task_begin(&w, 0x200000002u, 2, k, 5, 3000);
    tap_ok(xtab_w_alloc(&w, 0xff0000, 4096, 64, 0, 0x300000001u, m, 10) == 0, "alloc recorded");
    tap_ok(xtab_w_alloc(&w, 0xff8000, 128, 0, 0, 0x300000002u, m, 11) == 0 &&
               xtab_w_release(&w, 0xff8000, 0x300000003u, k, 12) == 0,
           "alloc and release recorded");
    tap_ok(xtab_w_release(&w, 0x1234, 0, XTAB_NONE, 13) == -ENOENT, "unknown release: -ENOENT");

    struct xtab_site s[4];
    struct xtab_task latest;
    int have = 0;
    int n = xtab_find_kernel(t, "_ZTS9VectorAdd", s, 4, &latest, &have);
    tap_ok(n == 1 && s[0].line == 42 && s[0].column == 3 && !strcmp(s[0].file, "vadd.cpp") &&
               !strcmp(s[0].function, "main") && !strcmp(s[0].device, "gtsim:0") &&
               s[0].uid == 0x100000001u,
           "kernel -> its site with file, function, line, column, device, uid");
    tap_ok(have && latest.instance == 2 && latest.end_ns == 0 && latest.queue == 5 &&
               latest.begin_ns == 3000,
           "latest task is the running instance 2");
    xtab_w_task_end(&w, 0x200000002u, 2, 4000);
    n = xtab_find_kernel(t, "_ZTS9VectorAdd", s, 4, &latest, &have);
    tap_ok(have && latest.instance == 2 && latest.end_ns == 4000, "then the latest ended one");
    tap_ok(xtab_find_kernel(t, "nope", s, 4, &latest, &have) == 0 && !have, "unknown kernel: 0");

    struct xtab_alloc a;
    tap_ok(xtab_find_alloc(t, 0xff0010, &a) == 0 && a.live && a.base == 0xff0000 &&
               a.size == 4096 && !a.in_guard && a.alloc_site == m,
           "address -> live allocation and its site");
    tap_ok(xtab_find_alloc(t, 0xff0000 + 4096 + 10, &a) == 0 && a.in_guard, "guard zone");
    tap_ok(xtab_find_alloc(t, 0xff0000 + 4096 + 64, &a) == -ENOENT, "past the guard: -ENOENT");
    tap_ok(xtab_find_alloc(t, 0xff8004, &a) == 0 && !a.live && a.free_site == k &&
               a.free_uid == 0x300000003u,
           "freed allocation with its free site");
    struct xtab_site u;
    tap_ok(xtab_find_uid(t, 0x100000002u, &u) == 0 && u.index == m, "uid of a site");
    tap_ok(xtab_find_uid(t, 0x200000001u, &u) == 0 && u.index == k, "uid of a task -> site");
    tap_ok(xtab_find_uid(t, 0x300000001u, &u) == 0 && u.index == m, "uid of an alloc -> site");
    tap_ok(xtab_find_uid(t, 42, &u) == -ENOENT, "unknown uid: -ENOENT");
    tap_ok(xtab_count(t, XTAB_SITES) == 2 && xtab_count(t, XTAB_TASKS) == 2 &&
               xtab_count(t, XTAB_ALLOCS) == 2,
           "counts");
    tap_ok(xtab_site_at(t, 2, &u) == -ERANGE, "index past the count: -ERANGE");
    tap_ok(xtab_refresh(t, NULL, 0) == 0, "refresh of a sound table");
    xtab_close(t);
    xtab_w_destroy(&w);
}

static void test_full_tables(void)
{
    struct xtab_caps caps = {.sites = 2, .tasks = 4, .allocs = 3, .strings = 40};
    struct xtab *t = open_writer(&caps);
    struct xtab_stats st;
    site("k0", 1, 1);
    site("a-much-longer-kernel-name-than-fits", 2, 2);
    tap_ok(site("k2", 3, 3) == XTAB_NONE, "site area full: new site dropped");
    xtab_stats(t, &st);
    tap_ok(st.sites_dropped == 1 && st.strings_dropped > 0, "drops counted (sites, strings)");
    struct xtab_site s;
    tap_ok(xtab_site_at(t, 1, &s) == 0 && s.kernel[0] == 0 && s.line == 2,
           "a site whose strings were lost reads as empty strings");

    /* Tasks: one long-running task survives the ring wrapping. */
    xtab_w_task_begin(&w, 1000, 1, 0, 0, 1);
    for (uint64_t i = 1; i < 20; i++) {
        xtab_w_task_begin(&w, 1000 + i, 1, 0, 0, 1 + i);
        xtab_w_task_end(&w, 1000 + i, 1, 2 + i);
    }
    int kept = 0;
    struct xtab_task task;
    for (size_t i = 0; i < xtab_count(t, XTAB_TASKS); i++)
        kept += xtab_task_at(t, i, &task) == 0 && task.uid == 1000 && task.end_ns == 0;
    xtab_stats(t, &st);
    tap_ok(kept == 1 && st.running_tasks_recycled == 0,
           "the oldest finished tasks are recycled, the running one kept");
    for (uint64_t i = 0; i < 40; i++)
        xtab_w_task_begin(&w, 5000 + i, 1, 0, 0, 100 + i);
    xtab_stats(t, &st);
    tap_ok(st.running_tasks_recycled > 0, "a ring full of running tasks recycles them (counted)");
    xtab_w_task_end(&w, 1, 1, 5);
    xtab_stats(t, &st);
    tap_ok(st.task_ends_unmatched == 1, "an unknown task end is counted");

    /* Allocations: live ones are never dropped. */
    for (uint64_t i = 1; i <= 3; i++)
        xtab_w_alloc(&w, i << 20, 100, 0, 0, i, 0, i);
    tap_ok(xtab_w_alloc(&w, 4 << 20, 100, 0, 0, 4, 0, 4) == -ENOSPC,
           "full of live allocations: the new one is refused");
    struct xtab_alloc a;
    int live = 0;
    for (uint64_t i = 1; i <= 3; i++)
        live += xtab_find_alloc(t, (i << 20) + 1, &a) == 0 && a.live;
    tap_ok(live == 3, "every live allocation is still there");
    xtab_w_release(&w, 1 << 20, 0, XTAB_NONE, 10);
    xtab_w_release(&w, 2 << 20, 0, XTAB_NONE, 11);
    tap_ok(xtab_w_alloc(&w, 5 << 20, 100, 0, 0, 5, 0, 12) == 0, "a freed slot is reused");
    tap_ok(xtab_find_alloc(t, (1 << 20) + 1, &a) == -ENOENT &&
               xtab_find_alloc(t, (2 << 20) + 1, &a) == 0 && !a.live &&
               xtab_find_alloc(t, (5 << 20) + 1, &a) == 0 && a.live,
           "the oldest freed one made room; the recently freed one is still known");
    xtab_stats(t, &st);
    tap_ok(st.allocs_dropped == 1 && st.bad_records == 0, "counters after the policy checks");
    xtab_close(t);
    xtab_w_destroy(&w);
}

#define THREADS 4
#define PER_THREAD 20000
#define QUEUE_SALT UINT64_C(0x5a5a5a5a5a5a5a5a)

static atomic_bool writers_done, reader_started;

static void *writer(void *arg)
{
    uint64_t id = (uint64_t)(uintptr_t)arg;
    while (!atomic_load(&reader_started))
        ;
    for (uint64_t i = 1; i <= PER_THREAD; i++) {
        uint64_t uid = id << 40 | i;
        /* queue and begin time are functions of uid: a torn copy shows. */
        xtab_w_task_begin(&w, uid, i, (uint32_t)id, uid ^ QUEUE_SALT, uid * 3);
        xtab_w_task_end(&w, uid, i, uid * 3 + 1);
        if (i % 64 == 0) {
            uint64_t base = (id << 32) | (i << 8);
            xtab_w_alloc(&w, base, 256, 0, 0, uid, (uint32_t)id, i);
            if (i % 128 == 0)
                xtab_w_release(&w, base, uid, (uint32_t)id, i);
        }
    }
    return NULL;
}

static void *reader(void *arg)
{
    struct xtab *t = arg;
    long torn = 0, seen = 0;
    atomic_store(&reader_started, true);
    for (bool last = false; !last;) {
        last = atomic_load(&writers_done); /* one more pass after the end */
        struct xtab_task task;
        for (size_t i = 0; i < xtab_count(t, XTAB_TASKS); i++) {
            if (xtab_task_at(t, i, &task) != 0)
                continue;
            seen++;
            torn += task.queue != (task.uid ^ QUEUE_SALT) || task.begin_ns != task.uid * 3 ||
                    (task.end_ns && task.end_ns != task.uid * 3 + 1) ||
                    task.instance != (task.uid & 0xffffffffff);
        }
    }
    if (torn || !seen)
        tap_diag("reader: %ld torn of %ld records seen", torn, seen);
    return (void *)(uintptr_t)(torn || !seen);
}

static void test_concurrent_writers(void)
{
    struct xtab_caps caps = {.sites = 8, .tasks = 1024, .allocs = 1024, .strings = 512};
    struct xtab *t = open_writer(&caps);
    for (int i = 0; i < THREADS; i++)
        site("k", (uint64_t)i, (uint32_t)i);
    pthread_t th[THREADS], rd;
    pthread_create(&rd, NULL, reader, t);
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, writer, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    atomic_store(&writers_done, true);
    void *rc;
    pthread_join(rd, &rc);
    struct xtab_stats st;
    xtab_stats(t, &st);
    tap_ok((uintptr_t)rc == 0, "a reader running alongside %d writers never saw a torn task",
           THREADS);
    tap_ok(st.tasks >= (uint64_t)THREADS * PER_THREAD && st.task_ends_unmatched == 0,
           "every task end found its begin (%llu tickets)", (unsigned long long)st.tasks);
    size_t live = 0, freed = 0;
    struct xtab_alloc a;
    for (size_t i = 0; i < xtab_count(t, XTAB_ALLOCS); i++)
        if (xtab_alloc_at(t, i, &a) == 0)
            a.live ? live++ : freed++;
    size_t allocs = THREADS * (PER_THREAD / 64), releases = THREADS * (PER_THREAD / 128);
    tap_ok(live == allocs - releases && st.releases_unmatched == 0 && st.bad_records == 0,
           "allocations from all threads: %zu live, %zu freed", live, freed);
    xtab_close(t);
    xtab_w_destroy(&w);
}

int main(void)
{
    tap_plan(34);
    test_round_trip();
    test_full_tables();
    test_concurrent_writers();
    return tap_done();
}
