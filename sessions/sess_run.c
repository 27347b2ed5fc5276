/* SPDX-License-Identifier: MIT */
/* sessions: run control. One interrupt and one resume per device for
 * whole-device operations; per-thread resume and step with the cr0
 * preparation the hardware needs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isa/isa.h"
#include "regsets/regs.h"
#include "sessions/sess_impl.h"

/* ---- run control ------------------------------------------------------------- */

/* How long a device may take to answer an interrupt before its threads
 * are probed one by one instead (a driver that never answers). */
#define ANSWER_TIMEOUT_MS 2000

/* What interrupt_device did: nothing to wait for; an interrupt whose
 * answer is due; or an identical interrupt already pending (NOT_READY)
 * that was asked before a later resume, so after its answer the device
 * must be interrupted once more. */
enum intr_sent { INTR_NONE, INTR_ANSWER_DUE, INTR_AGAIN_AFTER };

/* The device call of an interrupt of all; lock held, dropped around it.
 * A driver that accepts it counts the resumes it comes after. */
static int interrupt_all(struct sess_manager *m, struct session *s, struct zd_error *e)
{
    uint64_t resumes = s->resumes;
    int rc;
    pthread_mutex_unlock(&m->lock);
    rc = zd_interrupt(s->zs, zd_thread_all(), e);
    pthread_mutex_lock(&m->lock);
    if (rc == 0)
        s->intr_resumes = resumes;
    return rc;
}

/* Sends the interrupt of session s if anything may run there. Lock held;
 * dropped around the device call. NOT_READY (ZD_E_PENDING) is Intel's
 * runtime saying the same interrupt is pending and its answer will come
 * (DebugSessionImp::interrupt; the client's ^C, made just before): that
 * answer is waited for like our own. */
static enum intr_sent interrupt_device(struct sess_manager *m, struct session *s, uint64_t *mark,
                                       struct zd_error *err)
{
    bool maybe_running = false;
    struct zd_error e;
    int rc;
    /* An unavailable or unread thread (idle at the last look, as far as we
     * know) may have been given work since: only a device whose threads
     * are all known stopped can skip the interrupt. */
    for (uint32_t t = 0; t < s->nthreads && !maybe_running; t++)
        maybe_running = !sess_state_stopped(s->state[t]);
    if (!maybe_running || !s->alive)
        return INTR_NONE;
    s->interrupt_mark = s->stop_events;
    *mark = s->answers;
    rc = interrupt_all(m, s, &e);
    /* One retry: a failed ioctl may be transient, and a stop-all that
     * stops nothing leaves the client looking at running threads. */
    if (rc != 0 && e.code != ZD_E_LOST && e.code != ZD_E_UNAVAILABLE && e.code != ZD_E_PENDING)
        rc = interrupt_all(m, s, &e);
    if (rc != 0 && e.code == ZD_E_PENDING)
        return s->intr_resumes != s->resumes ? INTR_AGAIN_AFTER : INTR_ANSWER_DUE;
    if (rc != 0 && e.code == ZD_E_LOST)
        sess_mark_exited(m, s);
    if (rc != 0 && err->code == 0)
        *err = e; /* the first device's failure, for the caller to tell */
    return rc == 0 ? INTR_ANSWER_DUE : INTR_NONE;
}

/* No answer came: every thread not known stopped is probed once by reading
 * its cr0 (kept in the cache), as before drivers answered. Lock held. */
static void probe_running(struct sess_manager *m, struct session *s)
{
    int slot = sess_regset_slot(s, REGS_CR);
    struct zd_error e;
    for (uint32_t t = 0; t < s->nthreads && s->alive && slot >= 0; t++) {
        if (s->state[t] != SESS_T_RUNNING)
            continue;
        s->state[t] = SESS_T_STOPPED;
        s->owed[t] = 1;
        if (sess_fill_cache(s, t, slot, &e) != 0) {
            s->owed[t] = 0;
            m->stats.probes_failed++;
            sess_set_state(s, t, SESS_T_UNAVAILABLE);
            if (e.code == ZD_E_LOST)
                sess_mark_exited(m, s); /* its DETACHED may follow */
        }
    }
}

/* One interrupt per device, then its answer, which the pump records
 * (sess_pump.c, on_device_answer). Nothing is read: a thread the interrupt
 * stopped is read when someone asks about it. */
/* Waits for the answer after mark (lock held); without one by dl, probes. */
static void await_answer(struct sess_manager *m, struct session *s, uint64_t mark,
                         const struct timespec *dl)
{
    int rc = 0;
    while (rc == 0 && s->alive && s->answers <= mark)
        rc = pthread_cond_timedwait(&m->cv, &m->lock, dl);
    if (s->answers <= mark)
        probe_running(m, s);
}

int sess_stop_all(struct sess_manager *m, struct zd_error *err)
{
    int stopped = 0;
    uint64_t *marks = calloc(m->nsessions ? m->nsessions : 1, sizeof(*marks));
    enum intr_sent *sent = calloc(m->nsessions ? m->nsessions : 1, sizeof(*sent));
    struct timespec dl;

    memset(err, 0, sizeof(*err));
    pthread_mutex_lock(&m->lock);
    for (unsigned k = 0; marks && sent && k < m->nsessions; k++)
        sent[k] = interrupt_device(m, &m->sessions[k], &marks[k], err);
    sess_deadline(&dl, ANSWER_TIMEOUT_MS);
    for (unsigned k = 0; k < m->nsessions; k++) {
        struct session *s = &m->sessions[k];
        if (!marks || !sent) {
            probe_running(m, s);
        } else if (sent[k] != INTR_NONE) {
            await_answer(m, s, marks[k], &dl);
            /* The pending answer came from before a resume: what that
             * resume let run is stopped by an interrupt of our own. */
            if (sent[k] == INTR_AGAIN_AFTER &&
                interrupt_device(m, s, &marks[k], err) != INTR_NONE) {
                struct timespec dl2;
                sess_deadline(&dl2, ANSWER_TIMEOUT_MS);
                await_answer(m, s, marks[k], &dl2);
            }
        }
        for (uint32_t t = 0; t < s->nthreads && s->alive; t++)
            stopped += sess_state_stopped(s->state[t]) || s->state[t] == SESS_T_UNREAD;
    }
    pthread_mutex_unlock(&m->lock);
    free(marks);
    free(sent);
    return stopped;
}

int sess_settle(struct sess_manager *m, uint64_t timeout_ms)
{
    struct timespec dl;
    bool waiting = true;
    int rc = 0;
    sess_deadline(&dl, timeout_ms);
    pthread_mutex_lock(&m->lock);
    while (waiting && rc == 0) {
        waiting = false;
        for (unsigned k = 0; k < m->nsessions; k++) {
            const struct session *s = &m->sessions[k];
            if (s->alive && s->interrupt_mark != UINT64_MAX && s->stop_events <= s->interrupt_mark)
                waiting = true;
        }
        if (waiting)
            rc = pthread_cond_timedwait(&m->cv, &m->lock, &dl);
    }
    for (unsigned k = 0; k < m->nsessions; k++)
        m->sessions[k].interrupt_mark = UINT64_MAX;
    pthread_mutex_unlock(&m->lock);
    return waiting ? -ETIMEDOUT : 0;
}

int sess_prepare_resume(struct session *s, uint32_t thread, bool step, struct zd_error *err)
{
    struct sess_manager *m = s->m;
    int slot = sess_regset_slot(s, REGS_CR);
    uint8_t cr[64], insn[ISA_INSN_MAX];
    size_t crsz;
    bool changed, hit;
    uint64_t isabase = 0;
    struct zd_thread id = sess_thread_id(m, s->index, thread);
    int rc;

    if (slot < 0)
        return ZD_E_INVALID;
    if ((rc = sess_fill_cache(s, thread, slot, err)) != 0)
        return rc;
    if (!s->cache[(size_t)thread * s->nregsets + slot]) {
        err->code = ZD_E_UNAVAILABLE;
        snprintf(err->msg, sizeof(err->msg), "the thread is not stopped");
        return ZD_E_UNAVAILABLE;
    }
    crsz = s->regsets[slot].byte_size < sizeof(cr) ? s->regsets[slot].byte_size : sizeof(cr);
    memcpy(cr, s->cache[(size_t)thread * s->nregsets + slot], crsz);
    /* Whether this stop was the breakpoint (or a step) at the PC: only then
     * has the instruction there been dealt with, and the PC is needed. */
    hit = isa_cr0_breakpoint(cr);
    if (hit && (rc = sess_isabase(s, thread, &isabase, err)) != 0)
        return rc;
    /* The exception bits of this stop must not fire again (isa/ says
     * which, and when that is worth a write). */
    changed = isa_cr0_prepare_resume(cr, step);
    pthread_mutex_unlock(&m->lock);
    /* A thread that stopped on a breakpoint would stop on it again at once:
     * suppress it for one instruction, as the hardware allows. A thread
     * that was interrupted at a breakpoint's address has not executed it
     * yet: it must still hit it (every thread that executes the
     * instruction stops there). */
    if (hit &&
        zd_read_memory(s->zs, id, ZD_SPACE_DEFAULT, isa_pc(cr, isabase), sizeof(insn), insn, err) ==
            0 &&
        isa_cr0_suppress_at(cr, insn))
        changed = true;
    rc = changed ? zd_write_registers(s->zs, id, REGS_CR, 0, 1, cr, err) : 0;
    pthread_mutex_lock(&m->lock);
    if (rc == 0) {
        sess_set_state(s, thread, SESS_T_RUNNING);
        /* The written cr0 has the status bit exactly when this is a step. */
        if (step)
            s->marks[thread] |= MARK_STEP_ARMED;
        else
            s->marks[thread] &= (uint8_t)~MARK_STEP_ARMED;
    }
    return rc;
}

/* A device-wide resume failed: no thread moved. The threads taken for
 * running go back to what they were, so the next resume lets them go
 * instead of waiting for a stop that cannot come. */
static void restore_states(struct sess_manager *m, struct session *s, const uint8_t *before)
{
    pthread_mutex_lock(&m->lock);
    for (uint32_t t = 0; t < s->nthreads; t++)
        if (s->state[t] == SESS_T_RUNNING && before[t] != SESS_T_RUNNING)
            sess_set_state(s, t, (enum sess_thread_state)before[t]);
    pthread_mutex_unlock(&m->lock);
}

int sess_resume_device(struct sess_manager *m, unsigned k, bool prepared, struct zd_error *err)
{
    struct session *s;
    unsigned resumed = 0;
    int rc = 0;
    struct zd_error e;
    uint8_t *before;
    memset(err, 0, sizeof(*err));
    if (k >= m->nsessions || !sess_alive(m, k))
        return 0;
    s = &m->sessions[k];
    pthread_mutex_lock(&m->lock);
    before = malloc(s->nthreads ? s->nthreads : 1);
    if (before)
        memcpy(before, s->state, s->nthreads);
    for (uint32_t t = 0; t < s->nthreads; t++) {
        /* A thread nobody read was stopped by the interrupt (or is
         * idle): nothing of its cr0 must change, and it is not read,
         * unless a step of ours is still armed in it. */
        if (s->state[t] == SESS_T_UNREAD && !(s->marks[t] & MARK_STEP_ARMED)) {
            sess_set_state(s, t, SESS_T_RUNNING);
            resumed++;
            continue;
        }
        if (!sess_state_stopped(s->state[t]) && s->state[t] != SESS_T_UNREAD)
            continue;
        /* Even if preparing fails, the device-wide resume below lets
         * the thread go: never leave it stopped behind us. */
        if (sess_prepare_resume(s, t, false, &e) != 0)
            sess_set_state(s, t, SESS_T_RUNNING);
        resumed++;
    }
    if (resumed || prepared)
        s->resumes++;
    pthread_mutex_unlock(&m->lock);
    /* One resume per device. */
    if ((resumed || prepared) && zd_resume(s->zs, zd_thread_all(), &e) != 0 &&
        e.code != ZD_E_UNAVAILABLE) {
        *err = e;
        rc = e.code;
        if (e.code != ZD_E_LOST && before)
            restore_states(m, s, before);
    }
    free(before);
    return rc;
}

int sess_resume_all(struct sess_manager *m, struct zd_error *err)
{
    int rc = 0;
    memset(err, 0, sizeof(*err));
    for (unsigned k = 0; k < m->nsessions; k++) {
        struct zd_error e;
        if (sess_resume_device(m, k, false, &e) != 0 && rc == 0) {
            *err = e;
            rc = e.code;
        }
    }
    return rc;
}

static struct session *stopped_thread(struct sess_manager *m, unsigned session, uint32_t thread,
                                      struct zd_error *err)
{
    struct session *s = session < m->nsessions ? &m->sessions[session] : NULL;
    if (!s || thread >= s->nthreads) {
        err->code = ZD_E_INVALID;
        snprintf(err->msg, sizeof(err->msg), "no such thread");
        return NULL;
    }
    /* An unread thread is read by the resume's preparation, which tells. */
    if (!sess_state_stopped(s->state[thread]) && s->state[thread] != SESS_T_UNREAD) {
        err->code = ZD_E_UNAVAILABLE;
        snprintf(err->msg, sizeof(err->msg), "the thread is not stopped");
        return NULL;
    }
    return s;
}

int sess_resume_thread(struct sess_manager *m, unsigned session, uint32_t thread, bool step,
                       struct zd_error *err)
{
    struct session *s;
    int rc;
    uint8_t before = 0;
    memset(err, 0, sizeof(*err));
    pthread_mutex_lock(&m->lock);
    s = stopped_thread(m, session, thread, err);
    if (s)
        before = s->state[thread];
    rc = s ? sess_prepare_resume(s, thread, step, err) : err->code;
    if (rc == 0)
        s->resumes++;
    pthread_mutex_unlock(&m->lock);
    if (rc)
        return rc;
    rc = zd_resume(s->zs, sess_thread_id(m, session, thread), err);
    if (rc != 0 && rc != ZD_E_LOST && rc != ZD_E_UNAVAILABLE) {
        /* The thread did not move: as it was, so it can be resumed again. */
        pthread_mutex_lock(&m->lock);
        if (s->state[thread] == SESS_T_RUNNING)
            sess_set_state(s, thread, (enum sess_thread_state)before);
        pthread_mutex_unlock(&m->lock);
    }
    return rc;
}

int sess_prepare_step(struct sess_manager *m, unsigned session, uint32_t thread,
                      struct zd_error *err)
{
    struct session *s;
    int rc;
    memset(err, 0, sizeof(*err));
    pthread_mutex_lock(&m->lock);
    s = stopped_thread(m, session, thread, err);
    rc = s ? sess_prepare_resume(s, thread, true, err) : err->code;
    pthread_mutex_unlock(&m->lock);
    return rc;
}

int sess_interrupt_thread(struct sess_manager *m, unsigned session, uint32_t thread,
                          struct zd_error *err)
{
    memset(err, 0, sizeof(*err));
    if (session >= m->nsessions || thread >= m->sessions[session].nthreads ||
        m->sessions[session].detached) {
        err->code = ZD_E_INVALID;
        snprintf(err->msg, sizeof(err->msg), "no such thread");
        return ZD_E_INVALID;
    }
    /* The stop (or THREAD_UNAVAILABLE) arrives as a note. */
    return zd_interrupt(m->sessions[session].zs, sess_thread_id(m, session, thread), err);
}

int sess_interrupt_device(struct sess_manager *m, unsigned session, struct zd_error *err)
{
    struct session *s;
    int rc;
    memset(err, 0, sizeof(*err));
    if (session >= m->nsessions || m->sessions[session].detached) {
        err->code = ZD_E_INVALID;
        return ZD_E_INVALID;
    }
    s = &m->sessions[session];
    pthread_mutex_lock(&m->lock);
    /* Answers already counted are not this interrupt's (sess_notes.c). */
    s->client_mark = s->answers;
    rc = interrupt_all(m, s, err);
    pthread_mutex_unlock(&m->lock);
    /* The same interrupt pending (ours, or the client's last): its answer
     * comes as a note, as this one's would. */
    return rc == ZD_E_PENDING ? 0 : rc;
}
