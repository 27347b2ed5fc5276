/* SPDX-License-Identifier: MIT */
/* sessions: run control. One interrupt and one resume per device for
 * whole-device operations; per-thread resume and step with the cr0
 * preparation the hardware needs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "regsets/regs.h"
#include "sessions/sess_impl.h"

/* ---- run control ------------------------------------------------------------- */

int sess_stop_all(struct sess_manager *m, struct zd_error *err)
{
    int stopped = 0;
    memset(err, 0, sizeof(*err));
    for (unsigned k = 0; k < m->nsessions; k++) {
        struct session *s = &m->sessions[k];
        bool maybe_running = false;
        int slot = sess_regset_slot(s, REGS_CR);
        struct zd_error e;

        /* An unavailable thread (idle at the last look) may have been given
         * work since: only a device whose threads are all known stopped can
         * skip the interrupt. */
        pthread_mutex_lock(&m->lock);
        for (uint32_t t = 0; t < s->nthreads && !maybe_running; t++)
            maybe_running = s->state[t] == SESS_T_RUNNING || s->state[t] == SESS_T_UNAVAILABLE;
        maybe_running = maybe_running && s->alive;
        pthread_mutex_unlock(&m->lock);
        /* One interrupt for the whole device, never one per thread. A
         * device with nothing running answers with THREAD_UNAVAILABLE; a
         * thread that was unavailable and now runs reports its stop as a
         * note. */
        if (maybe_running) {
            pthread_mutex_lock(&m->lock);
            s->interrupt_mark = s->stop_events;
            pthread_mutex_unlock(&m->lock);
            (void)zd_interrupt(s->zs, zd_thread_all(), &e);
        }
        if (slot < 0)
            continue;
        /* Threads that have not reported yet are probed once: a readable
         * cr0 means stopped (and stays cached for this stop). */
        pthread_mutex_lock(&m->lock);
        for (uint32_t t = 0; t < s->nthreads && s->alive; t++) {
            if (s->state[t] == SESS_T_RUNNING) {
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
            if (sess_state_stopped(s->state[t]))
                stopped++;
        }
        pthread_mutex_unlock(&m->lock);
    }
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
    int slot = sess_regset_slot(s, REGS_CR), sba = sess_regset_slot(s, REGS_SBA);
    uint8_t cr[64], insn[16];
    size_t crsz;
    bool changed, hit;
    uint64_t isabase = 0;
    struct zd_thread id = sess_thread_id(m, s->index, thread);
    int rc;

    if (slot < 0 || sba < 0)
        return ZD_E_INVALID;
    if ((rc = sess_fill_cache(s, thread, slot, err)) != 0)
        return rc;
    crsz = s->regsets[slot].byte_size < sizeof(cr) ? s->regsets[slot].byte_size : sizeof(cr);
    memcpy(cr, s->cache[(size_t)thread * s->nregsets + slot], crsz);
    /* Whether this stop was the breakpoint (or a step) at the PC: only then
     * has the instruction there been dealt with. Only then is the PC (and
     * so isabase, one more register read) needed: most threads of a large
     * device were interrupted, and the final resume prepares every one. */
    hit = regs_cr0_breakpoint(cr);
    if (hit) {
        if ((rc = sess_fill_cache(s, thread, sba, err)) != 0)
            return rc;
        memcpy(&isabase, s->cache[(size_t)thread * s->nregsets + sba] + REGS_SBA_ISABASE * 8, 8);
    }
    /* The exception bits of this stop must not fire again. */
    changed = regs_clear_exceptions(cr);
    if (step) {
        regs_cr0_set_step(cr);
        changed = true;
    }
    pthread_mutex_unlock(&m->lock);
    /* A thread that stopped on a breakpoint would stop on it again at once:
     * suppress it for one instruction, as the hardware allows. A thread
     * that was interrupted at a breakpoint's address has not executed it
     * yet: it must still hit it (every thread that executes the
     * instruction stops there). */
    if (hit &&
        zd_read_memory(s->zs, id, ZD_SPACE_DEFAULT, regs_pc(cr, isabase), sizeof(insn), insn,
                       err) == 0 &&
        regs_insn_breakpoint(insn) && !regs_cr0_suppress(cr)) {
        regs_cr0_set_suppress(cr, true);
        changed = true;
    }
    rc = changed ? zd_write_registers(s->zs, id, REGS_CR, 0, 1, cr, err) : 0;
    pthread_mutex_lock(&m->lock);
    if (rc == 0)
        sess_set_state(s, thread, SESS_T_RUNNING);
    return rc;
}

int sess_resume_all(struct sess_manager *m, struct zd_error *err)
{
    int rc = 0;
    memset(err, 0, sizeof(*err));
    for (unsigned k = 0; k < m->nsessions; k++) {
        struct session *s = &m->sessions[k];
        unsigned resumed = 0;
        struct zd_error e;
        if (!sess_alive(m, k))
            continue;
        pthread_mutex_lock(&m->lock);
        for (uint32_t t = 0; t < s->nthreads; t++) {
            if (!sess_state_stopped(s->state[t]))
                continue;
            /* Even if preparing fails, the device-wide resume below lets
             * the thread go: never leave it stopped behind us. */
            if (sess_prepare_resume(s, t, false, &e) != 0)
                sess_set_state(s, t, SESS_T_RUNNING);
            resumed++;
        }
        pthread_mutex_unlock(&m->lock);
        /* One resume per device. */
        if (resumed && zd_resume(s->zs, zd_thread_all(), &e) != 0 && e.code != ZD_E_UNAVAILABLE) {
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
    if (!sess_state_stopped(s->state[thread])) {
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
    memset(err, 0, sizeof(*err));
    pthread_mutex_lock(&m->lock);
    s = stopped_thread(m, session, thread, err);
    rc = s ? sess_prepare_resume(s, thread, step, err) : err->code;
    pthread_mutex_unlock(&m->lock);
    if (rc)
        return rc;
    return zd_resume(s->zs, sess_thread_id(m, session, thread), err);
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
    memset(err, 0, sizeof(*err));
    if (session >= m->nsessions || m->sessions[session].detached) {
        err->code = ZD_E_INVALID;
        return ZD_E_INVALID;
    }
    return zd_interrupt(m->sessions[session].zs, zd_thread_all(), err);
}
