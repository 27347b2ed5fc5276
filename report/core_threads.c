/* SPDX-License-Identifier: MIT */
/* The threads of a GPU core: those that stopped for a reason of their own
 * first, so that a limit (--core-threads, --core-size) cuts the
 * interrupted ones. */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "report/core_threads.h"

/* Threads that stopped for a reason of their own come first, page faults
 * before the rest; the others (stopped by our interrupt) after. */
static int reason_rank(enum isa_stop_reason r)
{
    switch (r) {
    case ISA_STOP_PAGE_FAULT:
        return 0;
    case ISA_STOP_ILLEGAL:
        return 1;
    case ISA_STOP_SW_EXCEPTION:
        return 2;
    case ISA_STOP_BREAKPOINT:
        return 3;
    default:
        return 4;
    }
}

/* Host signal numbers, as a Linux core's notes carry them. */
int core_host_signal(enum isa_stop_reason r)
{
    switch (r) {
    case ISA_STOP_PAGE_FAULT:
        return SIGSEGV;
    case ISA_STOP_ILLEGAL:
        return SIGILL;
    case ISA_STOP_SW_EXCEPTION:
        return SIGFPE;
    case ISA_STOP_BREAKPOINT:
    case ISA_STOP_INTERRUPT:
        return SIGTRAP;
    default:
        return 0;
    }
}

/* --core-threads: the threads that stopped for their own reason (all of
 * them when none did, said once), then at most max_threads, in core
 * order so that the ones cut are the interrupted ones. */
void core_threads_limit(struct core_threads *th, const struct core_opts *opts, FILE *log)
{
    const size_t *count = th->count;
    size_t own = count[0] + count[1] + count[2] + count[3];
    if (opts->faulting_only && own)
        th->n = own;
    else if (opts->faulting_only && th->n)
        fprintf(log, "zestub dump: core: no thread stopped for a reason of its own: "
                     "every stopped thread is written\n");
    if (opts->max_threads && th->n > opts->max_threads) {
        fprintf(log, "zestub dump: core: %zu of %zu stopped threads written (--core-threads)\n",
                opts->max_threads, th->n);
        th->n = opts->max_threads;
    }
}

/* Every stopped thread of the device, in core order (by reason_rank,
 * device order within a rank); counts per rank in th->count. */
int core_threads_select(struct sess_manager *m, unsigned k, struct core_threads *th)
{
    uint32_t n = sess_thread_count(m, k);
    size_t at[5];
    struct core_thread *all = malloc(((size_t)n + 1) * sizeof(*all));
    if (!all)
        return -1;
    for (uint32_t t = 0; t < n; t++) {
        if (!sess_state_stopped(sess_thread_state(m, k, t)))
            continue;
        all[th->n].thread = t;
        all[th->n].reason = sess_thread_reason(m, k, t);
        th->count[reason_rank(all[th->n].reason)]++;
        th->n++;
    }
    th->t = malloc((th->n + 1) * sizeof(*th->t));
    if (!th->t) {
        free(all);
        return -1;
    }
    /* A stable sort by rank, by counting. */
    at[0] = 0;
    for (int r = 1; r < 5; r++)
        at[r] = at[r - 1] + th->count[r - 1];
    for (size_t i = 0; i < th->n; i++)
        th->t[at[reason_rank(all[i].reason)]++] = all[i];
    free(all);
    return 0;
}

/* Intel's GDB takes the current thread from the first status note and
 * the signal from the last: when more than one thread stopped for the
 * first rank's reason, the last of them moves to the end. */
void core_threads_order_for_gdb(struct core_threads *th)
{
    int top = reason_rank(th->t[0].reason);
    size_t ntop = th->count[top] < th->n ? th->count[top] : th->n;
    if (top < 4 && ntop > 1 && ntop < th->n) {
        struct core_thread keep = th->t[ntop - 1];
        size_t last_top = ntop - 1;
        memmove(&th->t[last_top], &th->t[last_top + 1], (th->n - last_top - 1) * sizeof(*th->t));
        th->t[th->n - 1] = keep;
    }
}

void core_threads_free(struct core_threads *th)
{
    free(th->t);
    th->t = NULL;
    th->n = 0;
}
