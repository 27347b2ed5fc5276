/* SPDX-License-Identifier: MIT */
/* The note queue between the event pumps (writers, one per session) and
 * the layer above (one reader): a ring of notes under the manager's lock,
 * a condition variable for sess_wait and an eventfd for poll loops. Apart
 * from sess.c so that the pump, which pushes notes, and attach, which
 * starts the pumps, do not call each other. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sessions/sess.h"
#include "sessions/sess_impl.h"

void sess_push_note(struct sess_manager *m, const struct sess_note *n)
{
    struct sess_note *slot;
    struct timespec now;
    if (m->nnotes == m->cap_notes) {
        size_t cap = m->cap_notes ? m->cap_notes * 2 : 256;
        struct sess_note *nn = malloc(cap * sizeof(*nn));
        if (!nn)
            return; /* the state change itself is recorded; only the note is lost */
        for (size_t i = 0; i < m->nnotes; i++)
            nn[i] = m->notes[(m->head + i) % m->cap_notes];
        free(m->notes);
        m->notes = nn;
        m->cap_notes = cap;
        m->head = 0;
    }
    slot = &m->notes[(m->head + m->nnotes) % m->cap_notes];
    *slot = *n;
    clock_gettime(CLOCK_MONOTONIC, &now);
    slot->queued_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    m->nnotes++;
    if (m->nnotes == 1 && m->notify_fd >= 0) {
        uint64_t one = 1;
        /* Non-blocking: the counter only has to be non-zero. */
        if (write(m->notify_fd, &one, sizeof(one)) < 0) {
        }
    }
    pthread_cond_broadcast(&m->cv);
}

void sess_mark_exited(struct sess_manager *m, struct session *s)
{
    struct sess_note n = {.type = SESS_NOTE_DETACHED, .session = s->index};
    bool first = !s->exited;
    s->alive = false;
    s->exited = true;
    if (first)
        sess_push_note(m, &n);
}

/* A stop note is only worth delivering while that stop lasts: one that
 * queued up while its thread was stopped by other means (our own
 * interrupt, a probe) and resumed since would report a stop that is over.
 * A device's answer is only worth delivering as the answer to the
 * client's latest interrupt: one that answered an earlier interrupt (the
 * stop-all of the attach, still queued when the client's ^C comes) would
 * be taken for it, before the ^C's own answer has come. */
static bool note_stale(struct sess_manager *m, const struct sess_note *n)
{
    const struct session *s = &m->sessions[n->session];
    bool answer = n->type == SESS_NOTE_STOPPED || n->type == SESS_NOTE_UNAVAILABLE;
    if (answer && n->thread == UINT32_MAX)
        return n->answer <= s->client_mark;
    if (n->type != SESS_NOTE_STOPPED || n->thread == UINT32_MAX || n->thread >= s->nthreads)
        return false;
    return !sess_state_stopped(s->state[n->thread]);
}

/* Lock held. Skips stale stop notes; clears the notification fd when the
 * queue runs empty. */
static int take_note(struct sess_manager *m, struct sess_note *note)
{
    int rc = ZD_E_TIMEOUT;
    while (m->nnotes) {
        *note = m->notes[m->head];
        m->head = (m->head + 1) % m->cap_notes;
        m->nnotes--;
        if (!note_stale(m, note)) {
            rc = 0;
            break;
        }
    }
    if (m->nnotes == 0 && m->notify_fd >= 0) {
        uint64_t v;
        if (read(m->notify_fd, &v, sizeof(v)) < 0) {
            /* EAGAIN: already clear */
        }
    }
    return rc;
}

void sess_deadline(struct timespec *dl, uint64_t timeout_ms)
{
    clock_gettime(CLOCK_MONOTONIC, dl);
    dl->tv_sec += (time_t)(timeout_ms / 1000);
    dl->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (dl->tv_nsec >= 1000000000L) {
        dl->tv_sec++;
        dl->tv_nsec -= 1000000000L;
    }
}

int sess_wait(struct sess_manager *m, uint64_t timeout_ms, struct sess_note *note)
{
    struct timespec dl;
    int rc = 0;
    sess_deadline(&dl, timeout_ms);
    pthread_mutex_lock(&m->lock);
    while (m->nnotes == 0 && rc == 0)
        rc = pthread_cond_timedwait(&m->cv, &m->lock, &dl);
    rc = take_note(m, note);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

int sess_notify_fd(struct sess_manager *m)
{
    return m->notify_fd;
}

int sess_poll(struct sess_manager *m, struct sess_note *note)
{
    int rc;
    pthread_mutex_lock(&m->lock);
    rc = take_note(m, note);
    pthread_mutex_unlock(&m->lock);
    return rc;
}
