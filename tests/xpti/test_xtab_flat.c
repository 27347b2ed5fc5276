/* SPDX-License-Identifier: MIT */
/* A million submissions through libzestub_xpti.so, as the SYCL runtime makes
 * them (a new tracepoint instance each, never released): the XPTI table's
 * record counts stay within the capacities its header states, it keeps what
 * its header flags promise (every site, each site's newest task, every live
 * allocation) and counts the older tasks it dropped; the framework recycles
 * ended instances, so its memory does not grow with the submissions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/tap.h"
#include "xpti/xpti.h"
#include "xpti/xtab_format.h"
#include "xpti/xtab_reader.h"

#define SUBMISSIONS 1000000u
#define SITES 1000u
#define REALLOC_EVERY 100u /* submissions of a site between two allocations */

struct run {
    xpti_stream_id_t sycl, mem;
    uint64_t live_alloc[SITES + 1];
    uint64_t newest_uid[SITES + 1], newest_instance[SITES + 1];
    uint64_t next_pointer;
    unsigned failures;
};

static struct run run = {.next_pointer = 0x7f0000000000u};

static unsigned long rss_kb(void)
{
    char line[256];
    unsigned long kb = 0;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = strtoul(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

static struct xpti_event *site_event(unsigned site)
{
    char name[32];
    snprintf(name, sizeof(name), "kernel_%u", site);
    return xpti_tracepoint_event(xptiCreateTracepoint(name, "flat.cpp", site + 1, 0, NULL));
}

static void alloc_notify(uint16_t type, struct xpti_event *ev, uint64_t pointer)
{
    struct xpti_mem_alloc_data d = {.alloc_pointer = (uintptr_t)pointer, .alloc_size = 4096};
    xptiNotifySubscribers(run.mem, type, NULL, ev, ev->instance_id, &d);
}

/* One kernel submission at `site`; `end` false leaves its task running. */
static struct xpti_event *submit(unsigned site, bool end)
{
    struct xpti_event *ev = site_event(site);
    if (!ev) {
        run.failures++;
        return NULL;
    }
    uint64_t instance = ev->instance_id;
    if (instance == 1) {
        xptiAddMetadata(ev, "kernel_name", xptiRegisterObject("k", 1, XPTI_MD_STRING));
        xptiNotifySubscribers(run.sycl, XPTI_TP_NODE_CREATE, NULL, ev, 1, "node");
    }
    if ((instance - 1) % REALLOC_EVERY == 0) {
        if (run.live_alloc[site])
            alloc_notify(XPTI_TP_MEM_RELEASE_BEGIN, ev, run.live_alloc[site]);
        run.live_alloc[site] = run.next_pointer;
        run.next_pointer += 0x10000;
        alloc_notify(XPTI_TP_MEM_ALLOC_END, ev, run.live_alloc[site]);
    }
    xptiNotifySubscribers(run.sycl, XPTI_TP_TASK_BEGIN, NULL, ev, instance, NULL);
    if (end)
        xptiNotifySubscribers(run.sycl, XPTI_TP_TASK_END, NULL, ev, instance, NULL);
    run.newest_uid[site] = ev->unique_id;
    run.newest_instance[site] = instance;
    return ev;
}

/* Every site has a task record, and it is the site's newest. */
static bool newest_per_site(struct xtab *t, size_t *held)
{
    static uint64_t found[SITES + 1];
    size_t n = xtab_count(t, XTAB_TASKS);
    *held = 0;
    for (size_t i = 0; i < n; i++) {
        struct xtab_task task;
        if (xtab_task_at(t, i, &task) != 0)
            continue;
        ++*held;
        struct xtab_site s;
        if (xtab_site_at(t, task.site, &s) == 0 && s.line >= 1 && s.line <= SITES + 1 &&
            task.uid == run.newest_uid[s.line - 1] &&
            task.instance == run.newest_instance[s.line - 1])
            found[s.line - 1] = 1;
    }
    for (unsigned k = 0; k <= SITES; k++)
        if (!found[k])
            return false;
    return true;
}

static size_t live_allocations_found(struct xtab *t, size_t *records)
{
    size_t n = xtab_count(t, XTAB_ALLOCS), live = 0;
    *records = 0;
    for (size_t i = 0; i < n; i++) {
        struct xtab_alloc a;
        if (xtab_alloc_at(t, i, &a) != 0)
            continue;
        ++*records;
        if (!a.live)
            continue;
        for (unsigned k = 0; k <= SITES; k++)
            if (run.live_alloc[k] == a.base) {
                live++;
                break;
            }
    }
    return live;
}

int main(void)
{
    char path[4096];
    const char *top = getenv("top_builddir");
    snprintf(path, sizeof(path), "%s/.libs/libzestub_xpti.so", top ? top : ".");
    tap_plan(10);
    if (access(path, R_OK) != 0)
        tap_bail("libzestub_xpti.so not built (set top_builddir)");
    setenv("XPTI_SUBSCRIBERS", path, 1);
    unsetenv("XPTI_TRACE_ENABLE");
    xptiFrameworkInitialize();
    run.sycl = xptiRegisterStream("sycl");
    run.mem = xptiRegisterStream("sycl.experimental.mem_alloc");
    xptiInitialize("sycl", 1, 0, "sycl 1.0");
    xptiInitialize("sycl.experimental.mem_alloc", 1, 0, "sycl 1.0");

    /* A rare site submits twice, first of all: only the table's
     * newest-per-site rule can keep its task through a million others. */
    submit(SITES, true);
    struct xpti_event *early_ended = submit(SITES, true);
    uint64_t early_uid = early_ended ? early_ended->unique_id : 0;
    struct xpti_event *running = submit(0, false);
    uint64_t running_uid = running ? running->unique_id : 0;
    unsigned long rss_early = 0;
    for (unsigned i = 1; i < SUBMISSIONS; i++) {
        submit(i % SITES, true);
        if (i == SUBMISSIONS / 5)
            rss_early = rss_kb();
    }
    unsigned long rss_late = rss_kb();
    tap_ok(run.failures == 0, "%u submissions from %u sites made their events", SUBMISSIONS,
           SITES + 1);
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer keeps metadata for every address a release store
     * has reached: the id index's slots, touched one by one as entries
     * come and go, add it until the whole table has been touched (tens of
     * MB in this window); that is the sanitizer's memory, not ours. */
    tap_skip("resident memory under ThreadSanitizer counts its own metadata");
    (void)rss_early;
    (void)rss_late;
#else
    tap_ok(rss_late < rss_early + 8 * 1024,
           "resident memory flat: %lu kB after %u submissions, %lu kB after %u", rss_early,
           SUBMISSIONS / 5, rss_late, SUBMISSIONS);
#endif
    tap_ok(running_uid && xptiFindEvent(running_uid) == running,
           "an instance whose task never ended is kept");
    tap_ok(early_uid && xptiFindEvent(early_uid) == early_ended,
           "an ended instance among its site's newest is kept");

    char err[256];
    struct xtab *t = xtab_open(getpid(), err, sizeof(err));
    if (!t)
        tap_bail(err);
    struct xtab_stats st;
    xtab_stats(t, &st);
    size_t held = 0;
    bool newest = newest_per_site(t, &held);
    tap_ok((st.flags & XTAB_FLAG_TASKS_KEEP_SITE_NEWEST) && (st.flags & XTAB_FLAG_ALLOCS_KEEP_LIVE),
           "the header states the full-table policies (flags 0x%x)", st.flags);
    tap_ok(st.sites == SITES + 1 && st.sites <= st.site_capacity && st.sites_dropped == 0,
           "every site recorded, within the site capacity (%llu of %u)",
           (unsigned long long)st.sites, st.site_capacity);
    tap_ok(held <= st.task_capacity && st.tasks > st.task_capacity,
           "task records within the ring's capacity (%zu held of %u, %llu begun)", held,
           st.task_capacity, (unsigned long long)st.tasks);
    tap_ok(st.tasks_dropped > 0 && st.tasks_dropped <= st.tasks - held &&
               st.running_tasks_recycled == 0 && st.task_ends_unmatched == 0,
           "older tasks dropped and counted (%llu), no running task lost, every end matched",
           (unsigned long long)st.tasks_dropped);
    tap_ok(newest, "every site keeps its newest task, the rare one included");
    size_t records = 0, live = live_allocations_found(t, &records);
    tap_ok(live == SITES + 1 && st.allocs_dropped == 0 && records <= st.alloc_capacity,
           "every live allocation recorded (%zu of %u), none dropped, %zu records of %u", live,
           SITES + 1, records, st.alloc_capacity);
    xtab_close(t);
    xptiFinalize("sycl.experimental.mem_alloc");
    xptiFinalize("sycl");
    xptiFrameworkFinalize();
    return tap_failed_ ? 1 : 0;
}
