/* SPDX-License-Identifier: MIT */
#include "report/pass.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/pass_ahead.h"
#include "sessions/sess_where.h"

static void lock(struct report_pass *p)
{
    if (p->lock)
        pthread_mutex_lock(p->lock);
}

static void unlock(struct report_pass *p)
{
    if (p->lock)
        pthread_mutex_unlock(p->lock);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Where the thread is and who submitted its kernel: the one place the
 * record asks sessions/ about a pc. */
static void locate(struct report_pass *p, struct dump_thread *rec)
{
    struct sess_where w;
    struct zd_error err;
    rec->has_pc = sess_thread_pc(p->m, rec->session, rec->thread, &rec->pc, &err) == 0;
    if (!rec->has_pc || sess_where_pc(p->m, rec->session, rec->pc, &w) != 0)
        return;
    rec->has_module = rec->has_location = true;
    rec->module_begin = w.module_begin;
    rec->module_end = w.module_end;
    rec->loc = w.loc;
    rec->submitted = sess_xpti_submission(p->x, p->m, rec->session, rec->loc.kernel, p->stop_ns);
}

/* The types of the record's catalog sets, in catalog order. */
static size_t set_types(const struct dump_thread *rec, uint32_t *types)
{
    size_t nsets = rec->cat ? regs_catalog_set_count(rec->cat) : 0;
    if (nsets > REPORT_MAX_SETS)
        nsets = REPORT_MAX_SETS;
    for (size_t s = 0; s < nsets; s++)
        types[s] = regs_catalog_set(rec->cat, s)->props.type;
    return nsets;
}

/* Reads the sets in `want`, each once, in one call; returns those that
 * were not in the session's cache before the record (they leave it after
 * the record): `ahead`, those a reader put there for it (pass_ahead.h),
 * and those read here. */
static uint32_t read_sets(struct report_pass *p, struct dump_thread *rec, const uint32_t *types,
                          size_t nsets, uint32_t want, uint32_t ahead)
{
    uint32_t filled = 0;
    struct zd_error err = {0};
    want &= nsets >= 32 ? ~0u : (1u << nsets) - 1;
    if (!want)
        return ahead;
    rec->read = sess_read_regsets(p->m, rec->session, rec->thread, types, nsets, want,
                                  rec->set_data, rec->set_size, &filled, &err);
    rec->failed = want & ~rec->read;
    if (rec->failed)
        snprintf(p->reg_error, sizeof(p->reg_error), "%s", err.msg);
    return ahead | filled;
}

/* One record through every active emitter; ahead: the sets read ahead
 * for it. */
static void pass_thread(struct report_pass *p, unsigned k, uint32_t t, const bool *active,
                        uint32_t ahead)
{
    struct dump_thread rec;
    uint32_t wanted[REPORT_PASS_MAX_EMITTERS] = {0}, want = 0, filled;
    uint32_t types[REPORT_MAX_SETS];
    size_t nsets;
    memset(&rec, 0, sizeof(rec));
    rec.session = k;
    rec.device = sess_device(p->m, k)->index;
    rec.thread = t;
    rec.id = sess_thread_id(p->m, k, t);
    rec.reason = sess_thread_reason(p->m, k, t);
    rec.cat = k < p->ncats ? p->cats[k] : NULL;
    locate(p, &rec);
    lock(p);
    for (size_t i = 0; i < p->nem; i++)
        if (active[i] && p->em[i].ops->wants)
            want |= wanted[i] = p->em[i].ops->wants(p->em[i].ctx, &rec);
    unlock(p);
    /* Read outside the lock: a device that hangs never blocks the watchdog. */
    nsets = set_types(&rec, types);
    filled = read_sets(p, &rec, types, nsets, want, ahead);
    lock(p);
    for (size_t i = 0; i < p->nem; i++) {
        if (!active[i])
            continue;
        if (rec.failed & wanted[i])
            p->reg_failures[i]++;
        if (p->em[i].ops->thread)
            p->em[i].ops->thread(p->em[i].ctx, &rec);
    }
    p->nthreads++;
    unlock(p);
    sess_forget_regsets(p->m, rec.session, rec.thread, types, nsets, filled);
}

static void progress(struct report_pass *p, uint64_t done, uint64_t total, double t0, double *next)
{
    double now;
    if (!p->progress || (done & 255) != 0 || (now = mono_s()) < *next)
        return;
    fprintf(p->progress,
            "zestub dump: %" PRIu64 " of %" PRIu64 " threads looked at, %u written, "
            "%.1f s so far\n",
            done, total, p->nthreads, now - t0);
    *next = now + 1.0;
}

/* Readers ahead of the pass (*sets: per session, what they read of each
 * stopped thread; the pass frees it). Every thread's cr0 is read ahead:
 * it says which threads are stopped, and where. The sets an emitter wants
 * of every thread are too, unless some emitter decides record by record
 * (then it is cr0 alone). */
static struct pass_ahead *start_ahead(struct report_pass *p, const bool *active, uint32_t **sets)
{
    unsigned n = sess_count(p->m);
    bool known = true;
    if (!n || !(*sets = calloc(n, sizeof(**sets))))
        return NULL;
    for (size_t i = 0; i < p->nem; i++)
        if (active[i] && p->em[i].ops->wants && !p->em[i].ops->wants_ahead)
            known = false;
    for (unsigned k = 0; known && k < n; k++)
        for (size_t i = 0; i < p->nem; i++)
            if (active[i] && p->em[i].ops->wants_ahead && k < p->ncats && p->cats[k])
                (*sets)[k] |= p->em[i].ops->wants_ahead(p->em[i].ctx, p->cats[k]);
    return pass_ahead_start(p, *sets);
}

int report_pass_run(struct report_pass *p)
{
    /* A dump of tens of thousands of threads with their registers takes
     * seconds: say how far it got, so that nobody kills a dump that works. */
    double t0 = p->progress ? mono_s() : 0, next = t0 + 1.0;
    uint64_t total = 0, item = 0;
    bool active[REPORT_PASS_MAX_EMITTERS];
    struct pass_ahead *ahead;
    uint32_t *sets = NULL;
    unsigned before = p->nthreads;
    int rc = 0;
    for (size_t i = 0; i < p->nem; i++)
        active[i] =
            !p->em[i].ops->threads_begin ||
            p->em[i].ops->threads_begin(p->em[i].ctx, p->m, p->cats, p->ncats, p->regs) == 0;
    for (unsigned k = 0; k < sess_count(p->m); k++)
        total += sess_thread_count(p->m, k);
    ahead = start_ahead(p, active, &sets);
    for (unsigned k = 0; k < sess_count(p->m); k++) {
        uint32_t n = sess_thread_count(p->m, k);
        for (uint32_t t = 0; t < n; t++, item++) {
            uint32_t pre = ahead ? pass_ahead_wait(ahead, item) : 0;
            progress(p, item, total, t0, &next);
            if (sess_state_stopped(sess_thread_state(p->m, k, t)))
                pass_thread(p, k, t, active, pre);
            if (ahead)
                pass_ahead_passed(ahead, item);
        }
    }
    pass_ahead_stop(ahead);
    free(sets);
    for (size_t i = 0; i < p->nem; i++) {
        int r = 0;
        if (p->em[i].ops->threads_end) {
            lock(p);
            r = p->em[i].ops->threads_end(p->em[i].ctx, p->m);
            unlock(p);
        }
        if (!active[i] || r != 0)
            rc = -1;
    }
    if (p->progress && mono_s() - t0 >= 1.0)
        fprintf(p->progress, "zestub dump: %u threads written in %.1f s\n", p->nthreads - before,
                mono_s() - t0);
    return rc;
}

/* The threads of session k stopped with the page-fault bit. */
static int fault_threads(struct sess_manager *m, unsigned k, struct report_fault *f)
{
    struct zd_thread *ids = NULL;
    unsigned n = 0;
    for (uint32_t t = 0; t < sess_thread_count(m, k); t++) {
        struct zd_thread *grown;
        if (!sess_state_stopped(sess_thread_state(m, k, t)) ||
            sess_thread_reason(m, k, t) != ISA_STOP_PAGE_FAULT)
            continue;
        if ((n & (n - 1)) == 0) { /* 0, 1, 2, 4, ...: double */
            if (!(grown = realloc(ids, (n ? 2 * n : 1) * sizeof(*ids)))) {
                free(ids);
                return -1;
            }
            ids = grown;
        }
        ids[n++] = sess_thread_id(m, k, t);
    }
    f->threads = ids;
    f->nthreads = n;
    return 0;
}

int report_faults_collect(struct sess_manager *m, struct sess_xpti *x, struct report_fault **out,
                          size_t *n)
{
    size_t total = 0, at = 0;
    *out = NULL;
    *n = 0;
    for (unsigned k = 0; k < sess_count(m); k++)
        total += sess_fault_count(m, k);
    if (!total || !(*out = calloc(total, sizeof(**out))))
        return total ? -1 : 0;
    for (unsigned k = 0; k < sess_count(m); k++) {
        for (size_t i = 0; i < sess_fault_count(m, k); i++) {
            struct report_fault *f = &(*out)[at];
            if (sess_fault_at(m, k, i, &f->addr, &f->why) != 0)
                continue;
            f->session = k;
            f->device = sess_device(m, k)->index;
            if (fault_threads(m, k, f) != 0) {
                report_faults_free(*out, at);
                *out = NULL;
                return -1;
            }
            f->has_alloc = x && sess_xpti_allocation(x, f->addr, &f->alloc) == 0;
            at++;
        }
    }
    *n = at;
    return 0;
}

void report_faults_free(struct report_fault *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        free((void *)f[i].threads);
    free(f);
}

struct regs_catalog **report_catalogs_new(struct sess_manager *m, unsigned *n)
{
    struct regs_catalog **cats;
    *n = sess_count(m);
    if (!(cats = calloc(*n ? *n : 1, sizeof(*cats))))
        return NULL;
    for (unsigned k = 0; k < *n; k++) {
        size_t nsets;
        const struct zd_regset *sets = sess_regsets(m, k, &nsets);
        cats[k] = regs_catalog_new(sets, nsets);
    }
    return cats;
}

void report_catalogs_free(struct regs_catalog **cats, unsigned n)
{
    for (unsigned k = 0; cats && k < n; k++)
        regs_catalog_free(cats[k]);
    free(cats);
}
