/* SPDX-License-Identifier: MIT */
/* Task instances: a ring of records claimed by ticket, with no lock, since
 * task_begin/task_end come on every kernel submission. */
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "xpti/xtab_writer.h"

/* How many slots holding a running task, or a site's newest task, a new
 * task skips before it overwrites one: keeps long-running tasks and every
 * site's latest visible without letting a ring full of leaked, never-ended
 * tasks stall the application. */
#define XTAB_SKIP_RUNNING 16u

static _Thread_local uint32_t tid_cache;

/* The tickets this thread began last: a task usually ends on the thread
 * that began it, so its end finds the slot without a search even when the
 * thread was preempted while other threads went round the ring. */
#define RECENT 8
static _Thread_local struct {
    uint64_t uid, instance, ticket;
} recent[RECENT];
static _Thread_local unsigned recent_next;

/* gettid is a system call; the thread id only changes across fork. */
static uint32_t thread_id(void)
{
    if (!tid_cache)
        tid_cache = (uint32_t)syscall(SYS_gettid);
    return tid_cache;
}

static struct xtab_task_rec *slot(struct xtab_w *w, uint64_t ticket)
{
    return (struct xtab_task_rec *)(w->base + w->g.tasks.offset) + ticket % w->g.tasks.capacity;
}

/* Seqlock write side: even -> odd. Fails if another writer holds the slot. */
static bool claim(struct xtab_task_rec *r, uint64_t *seq)
{
    *seq = __atomic_load_n(&r->seq, __ATOMIC_RELAXED);
    if (*seq & 1)
        return false;
    if (!__atomic_compare_exchange_n(&r->seq, seq, *seq + 1, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED))
        return false;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return true;
}

static void publish(struct xtab_task_rec *r, uint64_t seq)
{
    __atomic_store_n(&r->seq, seq + 2, __ATOMIC_RELEASE);
}

/* Is the record in r the newest task of its site? Then a full ring keeps it,
 * so every site shows its latest task however many others came since. */
static bool site_newest(struct xtab_w *w, const struct xtab_task_rec *r)
{
    uint32_t site = __atomic_load_n(&r->site, __ATOMIC_RELAXED);
    return site < w->g.sites.capacity && __atomic_load_n(&w->site_newest[site], __ATOMIC_RELAXED) ==
                                             __atomic_load_n(&r->ticket, __ATOMIC_RELAXED) + 1;
}

/* Raises the site's newest ticket to `ticket` unless a later one is there. */
static void note_site_newest(struct xtab_w *w, uint32_t site, uint64_t ticket)
{
    if (site >= w->g.sites.capacity)
        return;
    uint64_t *newest = &w->site_newest[site];
    uint64_t cur = __atomic_load_n(newest, __ATOMIC_RELAXED);
    while (cur < ticket + 1 && !__atomic_compare_exchange_n(newest, &cur, ticket + 1, true,
                                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* A slot a new task should pass over: it holds a running task or its site's
 * newest one. */
static bool worth_keeping(struct xtab_w *w, const struct xtab_task_rec *r, uint64_t seq)
{
    if (seq == 0)
        return false;
    return __atomic_load_n(&r->end_ns, __ATOMIC_RELAXED) == 0 || site_newest(w, r);
}

void xtab_w_task_begin(struct xtab_w *w, uint64_t uid, uint64_t instance, uint32_t site,
                       uint64_t queue, uint64_t now_ns)
{
    struct xtab_header *h = w->h;
    for (uint32_t tries = 0;; tries++) {
        uint64_t ticket = __atomic_fetch_add(&h->counters.task_ticket, 1, __ATOMIC_RELAXED);
        struct xtab_task_rec *r = slot(w, ticket);
        uint64_t seq = __atomic_load_n(&r->seq, __ATOMIC_RELAXED);
        if (tries < XTAB_SKIP_RUNNING && worth_keeping(w, r, seq))
            continue;
        if (!claim(r, &seq))
            continue;
        if (seq != 0)
            __atomic_fetch_add(__atomic_load_n(&r->end_ns, __ATOMIC_RELAXED) == 0
                                   ? &h->counters.running_tasks_recycled
                                   : &h->counters.tasks_dropped,
                               1, __ATOMIC_RELAXED);
        struct xtab_task_rec rec = {.ticket = ticket,
                                    .uid = uid,
                                    .instance = instance,
                                    .queue = queue,
                                    .begin_ns = now_ns,
                                    .site = site,
                                    .tid = thread_id()};
        xtab_words_store((uint64_t *)r + 1, (const uint64_t *)&rec + 1, sizeof(rec) - 8);
        publish(r, seq);
        note_site_newest(w, site, ticket);
        recent[recent_next % RECENT].uid = uid;
        recent[recent_next % RECENT].instance = instance;
        recent[recent_next % RECENT].ticket = ticket;
        recent_next++;
        return;
    }
}

/* Ends the task of `ticket` if that slot still holds it. */
static bool end_ticket(struct xtab_w *w, uint64_t ticket, uint64_t uid, uint64_t instance,
                       uint64_t now_ns)
{
    struct xtab_task_rec *r = slot(w, ticket);
    if (__atomic_load_n(&r->ticket, __ATOMIC_RELAXED) != ticket ||
        __atomic_load_n(&r->uid, __ATOMIC_RELAXED) != uid ||
        __atomic_load_n(&r->instance, __ATOMIC_RELAXED) != instance)
        return false;
    uint64_t seq;
    if (!claim(r, &seq))
        return false;
    /* Recheck under the claim: the slot may have been recycled. */
    bool same = __atomic_load_n(&r->ticket, __ATOMIC_RELAXED) == ticket &&
                __atomic_load_n(&r->end_ns, __ATOMIC_RELAXED) == 0;
    if (same)
        __atomic_store_n(&r->end_ns, now_ns ? now_ns : 1, __ATOMIC_RELAXED);
    publish(r, seq);
    return same;
}

void xtab_w_task_end(struct xtab_w *w, uint64_t uid, uint64_t instance, uint64_t now_ns)
{
    for (unsigned k = 1; k <= RECENT; k++) {
        unsigned i = (recent_next - k) % RECENT;
        if (recent[i].uid == uid && recent[i].instance == instance &&
            end_ticket(w, recent[i].ticket, uid, instance, now_ns))
            return;
    }
    /* Ended by another thread: search the ring, newest first. */
    struct xtab_header *h = w->h;
    uint64_t next = __atomic_load_n(&h->counters.task_ticket, __ATOMIC_RELAXED);
    for (uint64_t k = 0; k < w->g.tasks.capacity && k < next; k++)
        if (end_ticket(w, next - 1 - k, uid, instance, now_ns))
            return;
    __atomic_fetch_add(&h->counters.task_ends_unmatched, 1, __ATOMIC_RELAXED);
}
