/* SPDX-License-Identifier: MIT */
/* Reading ahead of a client that walks the stopped threads. Intel's GDB's
 * `info threads` selects each thread in turn and asks its expedited
 * registers (`Hg`, `e`): four register-set reads a thread, each a driver
 * call (an ioctl on hardware), made while GDB waits. Once the client's
 * reads go from one thread to the next, a host thread of ours reads the
 * expedited sets of the next PF_AHEAD - 1 threads into the sessions' cache
 * (sess_fill_regsets), so the client's next `e` is answered from memory
 * while the driver works for the ones after it.
 *
 * Bounded: the reader works only inside the window (lo, lo + PF_AHEAD),
 * lo the thread the client reads now; a set it filled is counted with
 * the client's own reads (tgt_keep_regset) when the client reads it, and
 * a big one the client went past unread is dropped (small ones stay, as
 * the client's own do), by the main thread, which
 * alone forgets sets (the client's reads hold pointers into the cache
 * only on the main thread). A read the reader has in flight for the
 * thread the client asks is waited for, so no set is read twice.
 * Anything that may end a session (detach, the client gone) pauses the
 * reader first; resumes and register writes need not (sessions/ drops a
 * set read across one of them). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "regsets/regs.h"
#include "sessions/sess.h"
#include "target/tgt_int.h"

#define PF_AHEAD 64
#define PF_MAX_TYPES 8
#define NONE UINT32_MAX

struct tgt_prefetch {
    struct sess_manager *m;
    pthread_t tid;
    pthread_mutex_t lock;
    pthread_cond_t work, done; /* work: the window moved; done: a fill ended */
    bool stop;
    /* The window: device k, lo the thread the client reads, the reader's
     * next thread and its end hi (< lo + PF_AHEAD), and the thread whose
     * sets the reader is reading (NONE: none). */
    unsigned k;
    uint32_t lo, hi, next, inflight;
    uint32_t last; /* the thread the client read last (NONE: no walk yet) */
    uint32_t types[PF_MAX_TYPES];
    size_t ntypes;
    uint32_t big; /* bits of types[] whose sets are big (TGT_KEPT_MIN_BYTES) */
    /* Sets the reader filled that the client has not read: slot th %
     * PF_AHEAD, for thread th (bits index types[]). */
    struct {
        uint32_t th, bits;
    } filled[PF_AHEAD];
};

static void *reader(void *arg)
{
    struct tgt_prefetch *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        uint32_t th, types[PF_MAX_TYPES], got;
        size_t n;
        unsigned k;
        while (!p->stop && p->next >= p->hi)
            pthread_cond_wait(&p->work, &p->lock);
        if (p->stop)
            break;
        th = p->inflight = p->next++;
        k = p->k;
        n = p->ntypes;
        for (size_t i = 0; i < n; i++)
            types[i] = p->types[i];
        pthread_mutex_unlock(&p->lock);
        got = sess_fill_regsets(p->m, k, th, types, n);
        pthread_mutex_lock(&p->lock);
        p->inflight = NONE;
        /* The window may have moved past th meanwhile: what was filled
         * then is the client's own read's to count, or the resume's to
         * drop; marked only while the client may still come to it. */
        if (got && k == p->k && th >= p->lo && th < p->lo + PF_AHEAD) {
            p->filled[th % PF_AHEAD].th = th;
            p->filled[th % PF_AHEAD].bits = got;
        }
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Bits of types[] whose sets are big: what the client's reads keep
 * only TGT_KEPT_SETS of (small ones always stay, tgt_regkeep.c). */
static uint32_t big_types(const struct tgt *t, unsigned k, const uint32_t *types, size_t n)
{
    size_t nsets;
    const struct zd_regset *sets = sess_regsets(t->m, k, &nsets);
    uint32_t big = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < nsets; j++)
            if (sets[j].type == types[i] &&
                (size_t)sets[j].count * sets[j].byte_size >= TGT_KEPT_MIN_BYTES)
                big |= 1u << i;
    return big;
}

/* The sets of the expedited registers of device k's catalogue (SBA is
 * the device's: read once, not per thread). */
static size_t expedited_types(const struct tgt *t, unsigned k, uint32_t *types)
{
    const struct regs_catalog *c = k < t->n && t->cats ? t->cats[k] : NULL;
    size_t n = 0;
    for (size_t i = 0; c && i < regs_catalog_count(c); i++) {
        const struct regs_reg *r = regs_catalog_at(c, i);
        size_t j = 0;
        if (!r->expedited || r->regset_type == REGS_SBA)
            continue;
        while (j < n && types[j] != r->regset_type)
            j++;
        if (j == n && n < PF_MAX_TYPES)
            types[n++] = r->regset_type;
    }
    return n;
}

/* Lock held. Drops the big sets filled for threads the client went past
 * without reading them (before lo; all when `all`); small ones stay, as
 * the client's own do. Main thread only. */
static void drop_unread(struct tgt_prefetch *p, bool all)
{
    for (unsigned s = 0; s < PF_AHEAD; s++) {
        if (!p->filled[s].bits || (!all && p->filled[s].th >= p->lo))
            continue;
        sess_forget_regsets(p->m, p->k, p->filled[s].th, p->types, p->ntypes,
                            p->filled[s].bits & p->big);
        p->filled[s].bits = 0;
    }
}

/* Lock held: no new fill starts, and the one in flight has ended. */
static void quiesce(struct tgt_prefetch *p)
{
    p->hi = p->next;
    while (p->inflight != NONE)
        pthread_cond_wait(&p->done, &p->lock);
}

/* ZESTUB_READ_AHEAD=0 in zestub's environment: no reading ahead (to
 * compare, bench/README.md). */
static bool wanted(void)
{
    const char *v = getenv("ZESTUB_READ_AHEAD");
    return !v || strcmp(v, "0") != 0;
}

static struct tgt_prefetch *start(struct tgt *t)
{
    struct tgt_prefetch *p = wanted() ? calloc(1, sizeof(*p)) : NULL;
    if (!p)
        return NULL;
    p->m = t->m;
    p->inflight = p->last = NONE;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    if (pthread_create(&p->tid, NULL, reader, p) != 0) {
        pthread_cond_destroy(&p->done);
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
    }
    return p;
}

void tgt_prefetch_before_read(struct tgt *t, unsigned k, uint32_t th)
{
    struct tgt_prefetch *p = t->prefetch;
    if (!p && (!t->m || !(p = t->prefetch = start(t))))
        return;
    pthread_mutex_lock(&p->lock);
    /* The reader is reading this thread now: its sets are as good as
     * there; wait rather than read them twice. */
    while (p->inflight == th && k == p->k)
        pthread_cond_wait(&p->done, &p->lock);
    if (th != p->last || k != p->k) {
        if (k == p->k && p->last != NONE && th == p->last + 1) {
            /* A walk: read the next threads while the client works. */
            p->lo = th;
            drop_unread(p, false);
            if (p->next < th + 1)
                p->next = th + 1;
            p->hi = th + PF_AHEAD;
            if (p->hi > sess_thread_count(t->m, k))
                p->hi = sess_thread_count(t->m, k);
            pthread_cond_signal(&p->work);
        } else {
            /* A jump: nothing ahead is worth reading yet. */
            quiesce(p);
            drop_unread(p, true);
            p->k = k;
            p->ntypes = expedited_types(t, k, p->types);
            p->big = big_types(t, k, p->types, p->ntypes);
            p->lo = th;
            p->next = p->hi = th + 1;
        }
        p->last = th;
    }
    pthread_mutex_unlock(&p->lock);
}

bool tgt_prefetch_claim(struct tgt *t, unsigned k, uint32_t th, uint32_t type)
{
    struct tgt_prefetch *p = t->prefetch;
    bool claimed = false;
    if (!p)
        return false;
    pthread_mutex_lock(&p->lock);
    if (k == p->k && p->filled[th % PF_AHEAD].th == th)
        for (size_t i = 0; i < p->ntypes; i++)
            if (p->types[i] == type && (p->filled[th % PF_AHEAD].bits & (1u << i))) {
                p->filled[th % PF_AHEAD].bits &= ~(1u << i);
                claimed = true;
            }
    pthread_mutex_unlock(&p->lock);
    return claimed;
}

void tgt_prefetch_pause(struct tgt *t)
{
    struct tgt_prefetch *p = t->prefetch;
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    quiesce(p);
    drop_unread(p, true);
    p->last = NONE;
    pthread_mutex_unlock(&p->lock);
}

void tgt_prefetch_free(struct tgt *t)
{
    struct tgt_prefetch *p = t->prefetch;
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    quiesce(p);
    p->stop = true;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->tid, NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
    free(p);
    t->prefetch = NULL;
}
