/* SPDX-License-Identifier: MIT */
#include "gdbstub/progress.h"

#include <time.h>

#define SECOND_NS 1000000000ull

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * SECOND_NS + (uint64_t)ts.tv_nsec;
}

void rsp_progress_begin(struct rsp_progress *p, const struct rsp_log *log, const char *what)
{
    p->log = rsp_log_on(log, RSP_LOG_INFO) ? log : NULL;
    p->what = what;
    p->t0_ns = p->log ? now_ns() : 0;
    p->next_ns = p->t0_ns + SECOND_NS;
    p->said = false;
}

void rsp_progress_tick(struct rsp_progress *p, uint64_t done, uint64_t total, const char *unit)
{
    uint64_t t;
    if (!p->log || (t = now_ns()) < p->next_ns)
        return;
    rsp_logf(p->log, RSP_LOG_INFO, "%s: %llu of %llu %s, %.1f s so far", p->what,
             (unsigned long long)done, (unsigned long long)total, unit,
             (double)(t - p->t0_ns) / SECOND_NS);
    p->next_ns = t + SECOND_NS;
    p->said = true;
}

void rsp_progress_end(struct rsp_progress *p, uint64_t count, const char *unit)
{
    uint64_t t;
    if (!p->log)
        return;
    t = now_ns();
    if (p->said || t - p->t0_ns >= SECOND_NS)
        rsp_logf(p->log, RSP_LOG_INFO, "%s: %llu %s in %.1f s", p->what, (unsigned long long)count,
                 unit, (double)(t - p->t0_ns) / SECOND_NS);
}
