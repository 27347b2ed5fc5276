/* SPDX-License-Identifier: MIT */
/* --type memory: what the framework and the zestub subscriber hold after
 * many kernel submissions. Plays the SYCL runtime's part as examples/sycl_rt.c
 * does (a new tracepoint instance per submission, node_create the first time
 * a site is seen, task_begin/task_end, allocations made and released from the
 * same sites) and prints, at each power of ten from 10^5 submissions, the
 * process's resident memory, the XPTI table's fill level and a checksum of
 * every 64-bit id and instance number handed out so far (which must not
 * change when the framework does). "dropped" is the table's count of ended
 * tasks its full ring overwrote. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/xpti/bench.h"
#include "xpti/xtab_reader.h"

/* Each site keeps one live allocation and replaces it every this many of
 * its submissions: live allocations stay at one per site. */
#define REALLOC_EVERY 100
#define FIRST_CHECKPOINT 100000u

struct mem_state {
    xpti_stream_id_t sycl, mem;
    size_t sites;
    char (*function)[32];
    uint64_t *live_alloc; /* per site, 0 = none */
    uint64_t next_pointer;
    uint64_t checksum;
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* kB of one /proc/self/status field, 0 if absent. */
static unsigned long status_kb(const char *field)
{
    char line[256];
    unsigned long kb = 0;
    size_t len = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, field, len) == 0 && line[len] == ':') {
            kb = strtoul(line + len + 1, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

static void mem_notify(struct mem_state *s, uint16_t type, struct xpti_event *ev, uint64_t ptr)
{
    struct xpti_mem_alloc_data d = {.alloc_pointer = (uintptr_t)ptr, .alloc_size = 4096};
    xptiNotifySubscribers(s->mem, type, NULL, ev, ev->instance_id, &d);
}

/* The site's allocation is released and a new one made, both attributed to
 * this submission's event (the runtime's malloc/free call sites). */
static void replace_allocation(struct mem_state *s, size_t site, struct xpti_event *ev)
{
    if (s->live_alloc[site])
        mem_notify(s, XPTI_TP_MEM_RELEASE_BEGIN, ev, s->live_alloc[site]);
    s->live_alloc[site] = s->next_pointer;
    s->next_pointer += 0x10000;
    mem_notify(s, XPTI_TP_MEM_ALLOC_END, ev, s->live_alloc[site]);
}

static int submit(struct mem_state *s, uint64_t i)
{
    size_t site = (size_t)(i % s->sites);
    struct xpti_event *ev = xpti_tracepoint_event(
        xptiCreateTracepoint(s->function[site], "mem_bench.cpp", (uint32_t)site + 1, 0, NULL));
    if (!ev)
        return -1;
    uint64_t instance = ev->instance_id;
    s->checksum = (s->checksum ^ ev->unique_id) * 0x100000001B3u + instance;
    if (instance == 1) {
        /* The runtime names the kernel on the event; the subscriber reads
         * it once per site. */
        xptiAddMetadata(
            ev, "kernel_name",
            xptiRegisterObject(s->function[site], strlen(s->function[site]), XPTI_MD_STRING));
        xptiNotifySubscribers(s->sycl, XPTI_TP_NODE_CREATE, NULL, ev, instance,
                              "command_group_node");
    }
    if ((i / s->sites) % REALLOC_EVERY == 0)
        replace_allocation(s, site, ev);
    xptiStashTuple("queue_id", 1 + site % 4);
    xptiNotifySubscribers(s->sycl, XPTI_TP_TASK_BEGIN, NULL, ev, instance, NULL);
    xptiNotifySubscribers(s->sycl, XPTI_TP_TASK_END, NULL, ev, instance, NULL);
    xptiUnstashTuple();
    return 0;
}

static void print_row(uint64_t done, double ns, unsigned long rss0, uint64_t checksum)
{
    unsigned long rss = status_kb("VmRSS"), shm = status_kb("RssShmem");
    printf("  %10" PRIu64 " %9.1f %9.1f %9.1f %9.0f", done, rss / 1024.0,
           (rss > rss0 ? rss - rss0 : 0) / 1024.0, shm / 1024.0, ns);
    struct xtab *t = xtab_open(getpid(), NULL, 0);
    if (!t) {
        printf("   (no XPTI table)   %016" PRIx64 "\n", checksum);
        return;
    }
    struct xtab_stats st;
    memset(&st, 0, sizeof(st));
    xtab_stats(t, &st);
    uint64_t held = st.tasks < st.task_capacity ? st.tasks : st.task_capacity;
    printf("   %4" PRIu64 "/%-4u %6" PRIu64 "/%-6u %5" PRIu64 "/%-5u %8" PRIu64 "   %016" PRIx64
           "\n",
           st.sites, st.site_capacity, held, st.task_capacity,
           st.allocs < st.alloc_capacity ? st.allocs : st.alloc_capacity, st.alloc_capacity,
           st.tasks_dropped, checksum);
    xtab_close(t);
}

int bench_memory(const struct bench_options *o)
{
    struct mem_state s = {.sites = o->sites, .next_pointer = 0xff0000000000u};
    s.function = calloc(s.sites, sizeof(*s.function));
    s.live_alloc = calloc(s.sites, sizeof(*s.live_alloc));
    if (!s.function || !s.live_alloc)
        return 1;
    for (size_t k = 0; k < s.sites; k++)
        snprintf(s.function[k], sizeof(s.function[k]), "kernel_%zu", k);
    xptiFrameworkInitialize();
    s.sycl = xptiRegisterStream("sycl");
    s.mem = xptiRegisterStream("sycl.experimental.mem_alloc");
    xptiInitialize("sycl", 1, 0, "sycl 1.0");
    xptiInitialize("sycl.experimental.mem_alloc", 1, 0, "sycl 1.0");
    unsigned long rss0 = status_kb("VmRSS");
    printf("\nMemory (%zu sites, one live allocation each; RSS of the whole process, "
           "MiB; growth since the first submission)\n",
           s.sites);
    printf("  %10s %9s %9s %9s %9s   %9s %13s %11s %8s   %16s\n", "submitted", "RSS", "growth",
           "table", "ns/subm.", "sites", "tasks held", "alloc recs", "dropped", "checksum");
    uint64_t done = 0;
    int rc = 0;
    /* A smaller --submissions (a smoke run) is its only checkpoint. */
    uint64_t first = o->submissions < FIRST_CHECKPOINT ? o->submissions : FIRST_CHECKPOINT;
    for (uint64_t mark = first; mark && mark <= o->submissions && rc == 0; mark *= 10) {
        double t0 = now_ns();
        uint64_t from = done;
        for (; done < mark && rc == 0; done++)
            rc = submit(&s, done);
        print_row(done, (now_ns() - t0) / (double)(done - from), rss0, s.checksum);
    }
    if (rc)
        printf("  submission %" PRIu64 " FAILED: the framework made no event\n", done);
    xptiFinalize("sycl.experimental.mem_alloc");
    xptiFinalize("sycl");
    xptiFrameworkFinalize();
    free(s.function);
    free(s.live_alloc);
    return rc != 0;
}
