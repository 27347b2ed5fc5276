/* SPDX-License-Identifier: MIT */
/* sessions: the thread table. One state byte per hardware thread (running,
 * stopped, held, unavailable, or unread: stopped by an interrupt or idle)
 * and one byte of marks the run control of the layer above keeps across
 * resumes (sess.h, "Thread marks"): everything known about a thread is in
 * one place, under the manager's lock. Reading a thread's registers fills
 * the per-stop cache and settles an unread thread, so the cache fill lives
 * here too. */
#include "sessions/sess.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "regsets/regs.h"

#include "sessions/sess_impl.h"

uint32_t sess_thread_index(const struct session *s, struct zd_thread t)
{
    const struct zd_device *d = s->dev;
    return ((t.slice * d->subslices + t.subslice) * d->eus + t.eu) * d->threads + t.thread;
}

bool sess_thread_valid(const struct session *s, struct zd_thread t)
{
    const struct zd_device *d = s->dev;
    return t.slice < d->slices && t.subslice < d->subslices && t.eu < d->eus &&
           t.thread < d->threads;
}

/* The count of a set in the thread's layout (sess_layout.c keeps the
 * layouts; here because the cache fill sizes its buffers by it). */
uint32_t sess_layout_count(const struct session *s, uint32_t thread, int slot)
{
    unsigned li = s->layout ? s->layout[thread] & ~LAYOUT_CHECKED : 0;
    const struct sess_layout *l;
    if (li == 0 || li >= s->nlayouts)
        return s->regsets[slot].count;
    l = &s->layouts[li];
    for (size_t i = 0; i < l->n; i++)
        if (l->sets[i].type == s->regsets[slot].type &&
            l->sets[i].byte_size == s->regsets[slot].byte_size)
            return l->sets[i].count;
    return s->regsets[slot].count;
}

void sess_drop_cache(struct session *s, uint32_t thread)
{
    for (size_t r = 0; r < s->nregsets; r++) {
        uint8_t **slot = &s->cache[(size_t)thread * s->nregsets + r];
        free(*slot);
        *slot = NULL;
    }
    /* Its stop is over: its layout is asked again at the next one. */
    if (s->layout)
        s->layout[thread] &= (uint8_t)~LAYOUT_CHECKED;
}

void sess_set_state(struct session *s, uint32_t thread, enum sess_thread_state st)
{
    if (st == SESS_T_RUNNING || st == SESS_T_UNAVAILABLE)
        sess_drop_cache(s, thread);
    s->state[thread] = (uint8_t)st;
}

uint32_t sess_thread_count(struct sess_manager *m, unsigned session)
{
    return session < m->nsessions ? m->sessions[session].nthreads : 0;
}

struct zd_thread sess_thread_id(struct sess_manager *m, unsigned session, uint32_t thread)
{
    const struct zd_device *d = m->sessions[session].dev;
    struct zd_thread t;
    t.thread = thread % d->threads;
    thread /= d->threads;
    t.eu = thread % d->eus;
    thread /= d->eus;
    t.subslice = thread % d->subslices;
    t.slice = thread / d->subslices;
    return t;
}

enum sess_thread_state sess_thread_state_known(struct sess_manager *m, unsigned session,
                                               uint32_t thread, bool *unread)
{
    enum sess_thread_state st = SESS_T_UNAVAILABLE;
    bool u = false;
    pthread_mutex_lock(&m->lock);
    if (session < m->nsessions && thread < m->sessions[session].nthreads) {
        st = m->sessions[session].state[thread];
        u = st == SESS_T_UNREAD;
        if (u)
            st = SESS_T_STOPPED;
    }
    pthread_mutex_unlock(&m->lock);
    if (unread)
        *unread = u;
    return st;
}

uint32_t sess_thread_next(struct sess_manager *m, unsigned session, uint32_t from, unsigned states,
                          unsigned flags)
{
    uint32_t th = from, n;
    pthread_mutex_lock(&m->lock);
    n = session < m->nsessions ? m->sessions[session].nthreads : 0;
    for (; th < n; th++) {
        const struct session *s = &m->sessions[session];
        unsigned st = s->state[th];
        if (st == SESS_T_UNREAD) {
            if (flags & SESS_NEXT_READ)
                continue;
            st = SESS_T_STOPPED;
        }
        if ((states & SESS_STATE_BIT(st)) &&
            !((flags & SESS_NEXT_UNREPORTED) && (s->marks[th] & MARK_REPORTED)))
            break;
    }
    pthread_mutex_unlock(&m->lock);
    return th < n ? th : n;
}

/* ---- thread marks (sess.h) ------------------------------------------------ */

/* Lock held. NULL when (session, thread) does not exist. */
static struct session *thread_session(struct sess_manager *m, unsigned session, uint32_t thread)
{
    if (session >= m->nsessions || thread >= m->sessions[session].nthreads)
        return NULL;
    return &m->sessions[session];
}

static bool has_mark(struct sess_manager *m, unsigned session, uint32_t thread, uint8_t mark)
{
    struct session *s;
    bool on;
    pthread_mutex_lock(&m->lock);
    s = thread_session(m, session, thread);
    on = s && (s->marks[thread] & mark);
    pthread_mutex_unlock(&m->lock);
    return on;
}

bool sess_thread_is_resumed(struct sess_manager *m, unsigned session, uint32_t thread)
{
    return has_mark(m, session, thread, MARK_RESUMED);
}

bool sess_thread_is_stepping(struct sess_manager *m, unsigned session, uint32_t thread)
{
    return has_mark(m, session, thread, MARK_STEPPING);
}

bool sess_thread_is_reported(struct sess_manager *m, unsigned session, uint32_t thread)
{
    return has_mark(m, session, thread, MARK_REPORTED);
}

void sess_thread_join_resume(struct sess_manager *m, unsigned session, uint32_t thread,
                             enum sess_resume_part part)
{
    struct session *s;
    pthread_mutex_lock(&m->lock);
    s = thread_session(m, session, thread);
    if (s) {
        bool runs = part == SESS_RESUME_CONTINUE || part == SESS_RESUME_STEP;
        /* A thread that runs again has no reported stop any more; one that
         * does not run keeps whatever was said about its stop. */
        uint8_t marks = (uint8_t)(s->marks[thread] &
                                  (runs ? MARK_STEP_ARMED : MARK_REPORTED | MARK_STEP_ARMED));
        if (part != SESS_RESUME_NONE)
            marks |= MARK_RESUMED;
        if (part == SESS_RESUME_STEP)
            marks |= MARK_STEPPING;
        s->marks[thread] = marks;
    }
    pthread_mutex_unlock(&m->lock);
}

void sess_thread_end_step(struct sess_manager *m, unsigned session, uint32_t thread)
{
    struct session *s;
    pthread_mutex_lock(&m->lock);
    s = thread_session(m, session, thread);
    if (s)
        s->marks[thread] &= (uint8_t)~MARK_STEPPING;
    pthread_mutex_unlock(&m->lock);
}

bool sess_thread_hold(struct sess_manager *m, unsigned session, uint32_t thread)
{
    struct session *s;
    bool held = false;
    pthread_mutex_lock(&m->lock);
    s = thread_session(m, session, thread);
    if (s && s->state[thread] == SESS_T_STOPPED)
        s->state[thread] = SESS_T_HELD; /* still stopped: its cache stays */
    held = s && s->state[thread] == SESS_T_HELD;
    pthread_mutex_unlock(&m->lock);
    return held;
}

void sess_thread_mark_reported(struct sess_manager *m, unsigned session, uint32_t thread)
{
    struct session *s;
    pthread_mutex_lock(&m->lock);
    s = thread_session(m, session, thread);
    if (s) {
        if (s->state[thread] == SESS_T_HELD)
            s->state[thread] = SESS_T_STOPPED;
        s->marks[thread] = (uint8_t)((s->marks[thread] & ~MARK_STEPPING) | MARK_REPORTED);
    }
    pthread_mutex_unlock(&m->lock);
}

/* ---- reading a thread settles what is known of it ---------------------- */

int sess_regset_slot(const struct session *s, uint32_t type)
{
    for (size_t r = 0; r < s->nregsets; r++)
        if (s->regsets[r].type == type)
            return (int)r;
    return -1;
}

/* After a read of an unread thread: what the device said about it. */
static void settle_unread(struct session *s, uint32_t thread, int rc, const struct zd_error *err)
{
    if (s->state[thread] != SESS_T_UNREAD)
        return; /* an event or a resume got there first */
    if (rc == 0) {
        s->state[thread] = SESS_T_STOPPED;
    } else if (err->code == ZD_E_UNAVAILABLE) {
        s->m->stats.probes_failed++;
        sess_set_state(s, thread, SESS_T_UNAVAILABLE);
    } else if (err->code == ZD_E_LOST) {
        sess_set_state(s, thread, SESS_T_UNAVAILABLE);
        sess_mark_exited(s->m, s); /* its DETACHED may follow */
    }
}

/* One set of a thread to read into the cache: its buffer is sized for the
 * thread's layout when the read was planned. */
struct fill_item {
    int slot;
    uint32_t count;
    uint8_t *buf;
    int rc;
    bool kept;
};

/* Reads the planned sets of thread, in order, into the cache. Lock held on
 * entry and exit; dropped around the device access. When the first read
 * fails (an idle thread) no other is tried. The first answer settles an
 * unread thread; a lost device ends the session whatever the thread's
 * state (its DETACHED may follow, or may come after someone has looked:
 * the dump closes its document on what sess_exited says). A buffer is kept
 * only if it is the only copy, of a thread still stopped, read with the
 * layout it still has, and nothing changed while the lock was dropped: a
 * resume may have been followed by a new stop, whose registers these are
 * not, and a register write may have reached the device after this read
 * (a reader on another host thread than the one that resumes and
 * writes). Returns the first read's result; err is its error. */
static int read_items(struct session *s, uint32_t thread, struct fill_item *it, size_t n,
                      struct zd_error *err)
{
    struct sess_manager *m = s->m;
    uint8_t layout = s->layout ? s->layout[thread] : 0;
    uint64_t changes = s->resumes + s->reg_writes;
    struct zd_thread id = sess_thread_id(m, s->index, thread);
    bool lost = false;

    pthread_mutex_unlock(&m->lock);
    for (size_t i = 0; i < n; i++) {
        struct zd_error e;
        it[i].rc = zd_read_registers(s->zs, id, s->regsets[it[i].slot].type, 0, it[i].count,
                                     it[i].buf, i ? &e : err);
        lost |= it[i].rc != 0 && (i ? e.code : err->code) == ZD_E_LOST;
        if (i == 0 && it[0].rc) {
            for (size_t k = 1; k < n; k++)
                it[k].rc = it[0].rc;
            break;
        }
    }
    pthread_mutex_lock(&m->lock);
    settle_unread(s, thread, it[0].rc, err);
    if (lost)
        sess_mark_exited(m, s);
    for (size_t i = 0; i < n; i++) {
        uint8_t **slotp = &s->cache[(size_t)thread * s->nregsets + it[i].slot];
        if (it[i].rc == 0)
            m->stats.register_reads++;
        it[i].kept =
            it[i].rc == 0 && !*slotp && sess_state_stopped(s->state[thread]) &&
            s->resumes + s->reg_writes == changes &&
            ((s->layout ? s->layout[thread] : 0) & ~LAYOUT_CHECKED) == (layout & ~LAYOUT_CHECKED);
        if (it[i].kept)
            *slotp = it[i].buf;
        else
            free(it[i].buf);
    }
    return it[0].rc;
}

/* Whether thread may be read: stopped, or unread (the interrupt may have
 * stopped it). Sets err otherwise. */
static bool readable(const struct session *s, uint32_t thread, struct zd_error *err)
{
    if (sess_state_stopped(s->state[thread]) || s->state[thread] == SESS_T_UNREAD)
        return true;
    err->code = ZD_E_UNAVAILABLE;
    snprintf(err->msg, sizeof(err->msg), "the thread is not stopped");
    return false;
}

/* Fills the cache for (thread, regset) if needed. Lock held on entry and
 * exit; dropped around the device access. An unread thread is read like a
 * stopped one, and the answer settles its state. Returns 0 with the slot
 * still empty when the thread ran on meanwhile; a read dropped only
 * because a write or a resume-and-stop came between is made again. */
int sess_fill_cache(struct session *s, uint32_t thread, int slot, struct zd_error *err)
{
    for (int tries = 0; tries < 3; tries++) {
        struct fill_item it = {.slot = slot};
        size_t size;
        int rc;
        if (s->cache[(size_t)thread * s->nregsets + slot])
            return 0;
        if (!readable(s, thread, err))
            return ZD_E_UNAVAILABLE;
        it.count = sess_layout_count(s, thread, slot);
        size = (size_t)it.count * s->regsets[slot].byte_size;
        if (!(it.buf = malloc(size ? size : 1))) {
            err->code = ZD_E_NOMEM;
            return ZD_E_NOMEM;
        }
        if ((rc = read_items(s, thread, &it, 1, err)) != 0 || it.kept ||
            !sess_state_stopped(s->state[thread]))
            return rc;
    }
    return 0;
}

/* Up to this many sets of one thread in one sess_fill_regsets. */
#define FILL_MAX 16

uint32_t sess_fill_regsets(struct sess_manager *m, unsigned session, uint32_t thread,
                           const uint32_t *types, size_t n)
{
    struct fill_item plan[FILL_MAX];
    size_t which[FILL_MAX]; /* index into types */
    size_t np = 0;
    uint32_t filled = 0;
    struct zd_error err = {0};
    struct session *s;

    if (session >= m->nsessions || thread >= m->sessions[session].nthreads)
        return 0;
    s = &m->sessions[session];
    pthread_mutex_lock(&m->lock);
    if (s->alive && !s->detached && readable(s, thread, &err)) {
        for (size_t i = 0; i < n && i < 32 && np < FILL_MAX; i++) {
            int slot = types[i] == REGS_SBA ? -1 : sess_regset_slot(s, types[i]);
            size_t size;
            if (slot < 0 || s->cache[(size_t)thread * s->nregsets + slot])
                continue;
            plan[np] = (struct fill_item){.slot = slot};
            plan[np].count = sess_layout_count(s, thread, slot);
            size = (size_t)plan[np].count * s->regsets[slot].byte_size;
            if (!(plan[np].buf = malloc(size ? size : 1)))
                break;
            which[np++] = i;
        }
    }
    if (np)
        (void)read_items(s, thread, plan, np, &err);
    for (size_t i = 0; i < np; i++)
        if (plan[i].kept)
            filled |= 1u << which[i];
    pthread_mutex_unlock(&m->lock);
    return filled;
}

void sess_resolve(struct session *s, uint32_t thread)
{
    int slot = sess_regset_slot(s, REGS_CR);
    struct zd_error e;
    if (s->state[thread] == SESS_T_UNREAD && slot >= 0)
        (void)sess_fill_cache(s, thread, slot, &e);
}

enum sess_thread_state sess_thread_state(struct sess_manager *m, unsigned session, uint32_t thread)
{
    enum sess_thread_state st = SESS_T_UNAVAILABLE;
    pthread_mutex_lock(&m->lock);
    if (session < m->nsessions && thread < m->sessions[session].nthreads) {
        struct session *s = &m->sessions[session];
        sess_resolve(s, thread);
        /* Still unread: its read failed for another reason than "idle". */
        st = s->state[thread] == SESS_T_UNREAD ? SESS_T_STOPPED : s->state[thread];
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}

void sess_report_unread(struct sess_manager *m, unsigned session)
{
    struct session *s;
    pthread_mutex_lock(&m->lock);
    s = session < m->nsessions ? &m->sessions[session] : NULL;
    for (uint32_t t = 0; s && t < s->nthreads && s->alive; t++) {
        struct sess_note n = {.type = SESS_NOTE_STOPPED, .session = session, .thread = t};
        if (s->state[t] != SESS_T_UNREAD)
            continue;
        sess_resolve(s, t);
        if (s->state[t] == SESS_T_STOPPED)
            sess_push_note(m, &n);
    }
    pthread_mutex_unlock(&m->lock);
}
