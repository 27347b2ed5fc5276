/* SPDX-License-Identifier: MIT */
/* sessions: the thread table. One state byte per hardware thread (running,
 * stopped, held, unavailable) and one byte of marks the run control of the
 * layer above keeps across resumes (sess.h, "Thread marks"): everything
 * known about a thread is in one place, under the manager's lock. */
#include "sessions/sess.h"

#include <pthread.h>
#include <stdlib.h>

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

void sess_drop_cache(struct session *s, uint32_t thread)
{
    for (size_t r = 0; r < s->nregsets; r++) {
        uint8_t **slot = &s->cache[(size_t)thread * s->nregsets + r];
        free(*slot);
        *slot = NULL;
    }
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

enum sess_thread_state sess_thread_state(struct sess_manager *m, unsigned session, uint32_t thread)
{
    enum sess_thread_state st = SESS_T_UNAVAILABLE;
    pthread_mutex_lock(&m->lock);
    if (session < m->nsessions && thread < m->sessions[session].nthreads)
        st = m->sessions[session].state[thread];
    pthread_mutex_unlock(&m->lock);
    return st;
}

/* ---- thread marks (sess.h) ------------------------------------------------ */

enum {
    MARK_RESUMED = 1,
    MARK_STEPPING = 2,
    MARK_REPORTED = 4,
};

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
        uint8_t marks = runs ? 0 : (uint8_t)(s->marks[thread] & MARK_REPORTED);
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
