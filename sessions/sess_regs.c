/* SPDX-License-Identifier: MIT */
/* sessions: register access through the per-stop cache, and what cr0
 * says about a stopped thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "regsets/regs.h"
#include "sessions/sess_impl.h"

/* ---- registers through the per-stop cache -------------------------------- */

const struct zd_regset *sess_regsets(struct sess_manager *m, unsigned session, size_t *n)
{
    *n = session < m->nsessions ? m->sessions[session].nregsets : 0;
    return session < m->nsessions ? m->sessions[session].regsets : NULL;
}

/* SBA as read through thread, kept once per device: the state base
 * addresses are the context's, not a thread's, so a second thread's SBA
 * costs no read. Lock held; dropped around the device access. NULL with
 * err set when thread's SBA cannot be read. */
static const uint8_t *device_sba(struct session *s, uint32_t thread, struct zd_error *err)
{
    int slot = sess_regset_slot(s, REGS_SBA);
    size_t size;
    const uint8_t *sba;
    if (slot < 0) {
        err->code = ZD_E_INVALID;
        snprintf(err->msg, sizeof(err->msg), "the device has no SBA registers");
        return NULL;
    }
    size = (size_t)s->regsets[slot].count * s->regsets[slot].byte_size;
    /* Only for a thread known stopped: an unread one is read (its cr0)
     * first, an idle one has no SBA to show. */
    sess_resolve(s, thread);
    if (s->sba && sess_state_stopped(s->state[thread]))
        return s->sba;
    if (sess_fill_cache(s, thread, slot, err) != 0)
        return NULL;
    sba = s->cache[(size_t)thread * s->nregsets + slot];
    if (!sba) { /* the thread ran on meanwhile */
        err->code = ZD_E_UNAVAILABLE;
        snprintf(err->msg, sizeof(err->msg), "the thread is not stopped");
        return NULL;
    }
    if (!s->sba && (s->sba = malloc(size)) != NULL)
        memcpy(s->sba, sba, size);
    return sba;
}

int sess_isabase(struct session *s, uint32_t thread, uint64_t *isabase, struct zd_error *err)
{
    int slot = sess_regset_slot(s, REGS_SBA);
    const uint8_t *sba;
    if (slot < 0 ||
        (size_t)s->regsets[slot].count * s->regsets[slot].byte_size < (REGS_SBA_ISABASE + 1) * 8) {
        err->code = ZD_E_INVALID;
        snprintf(err->msg, sizeof(err->msg), "the device has no isabase register");
        return ZD_E_INVALID;
    }
    if (!(sba = device_sba(s, thread, err)))
        return err->code;
    memcpy(isabase, sba + REGS_SBA_ISABASE * 8, 8);
    return 0;
}

/* One set of a thread through the cache (sess_read_regset). Lock held;
 * dropped around the device access. */
static int read_locked(struct session *s, uint32_t thread, uint32_t type, const uint8_t **data,
                       size_t *size, struct zd_error *err)
{
    int slot = sess_regset_slot(s, type), rc;
    if (slot < 0) {
        err->code = ZD_E_INVALID;
        snprintf(err->msg, sizeof(err->msg), "the device has no register set %u", type);
        return ZD_E_INVALID;
    }
    if (type == REGS_SBA) {
        *data = device_sba(s, thread, err);
        rc = *data ? 0 : err->code;
    } else {
        rc = sess_fill_cache(s, thread, slot, err);
        *data = rc == 0 ? s->cache[(size_t)thread * s->nregsets + slot] : NULL;
        if (rc == 0 && !*data) {
            err->code = rc = ZD_E_UNAVAILABLE; /* it ran on meanwhile */
            snprintf(err->msg, sizeof(err->msg), "the thread is not stopped");
        }
    }
    if (rc == 0)
        *size = type == REGS_SBA
                    ? (size_t)s->regsets[slot].count * s->regsets[slot].byte_size
                    : (size_t)sess_layout_count(s, thread, slot) * s->regsets[slot].byte_size;
    return rc;
}

int sess_read_regset(struct sess_manager *m, unsigned session, uint32_t thread, uint32_t type,
                     const uint8_t **data, size_t *size, struct zd_error *err)
{
    int rc;
    if (session >= m->nsessions || thread >= m->sessions[session].nthreads)
        return ZD_E_INVALID;
    pthread_mutex_lock(&m->lock);
    rc = read_locked(&m->sessions[session], thread, type, data, size, err);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

/* Whether (thread, type) is in the cache, or SBA in the device's copy.
 * Lock held. */
static bool cached_locked(const struct session *s, uint32_t thread, uint32_t type)
{
    int slot = sess_regset_slot(s, type);
    return slot >= 0 && (s->cache[(size_t)thread * s->nregsets + slot] != NULL ||
                         (type == REGS_SBA && s->sba && sess_state_stopped(s->state[thread])));
}

uint32_t sess_read_regsets(struct sess_manager *m, unsigned session, uint32_t thread,
                           const uint32_t *types, size_t n, uint32_t want, const uint8_t **data,
                           size_t *size, uint32_t *filled, struct zd_error *err)
{
    struct session *s;
    uint32_t read = 0;
    *filled = 0;
    if (session >= m->nsessions || thread >= m->sessions[session].nthreads) {
        err->code = ZD_E_INVALID;
        snprintf(err->msg, sizeof(err->msg), "no such thread");
        return 0;
    }
    s = &m->sessions[session];
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < n && i < 32; i++) {
        struct zd_error e = {0};
        if (!(want & (1u << i)))
            continue;
        if (!cached_locked(s, thread, types[i]))
            *filled |= 1u << i;
        if (read_locked(s, thread, types[i], &data[i], &size[i], &e) == 0)
            read |= 1u << i;
        else
            *err = e;
    }
    pthread_mutex_unlock(&m->lock);
    return read;
}

void sess_forget_regsets(struct sess_manager *m, unsigned session, uint32_t thread,
                         const uint32_t *types, size_t n, uint32_t which)
{
    struct session *s;
    if (!which || session >= m->nsessions || thread >= m->sessions[session].nthreads)
        return;
    s = &m->sessions[session];
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < n && i < 32; i++) {
        int slot;
        /* SBA is the device's copy, not a per-thread buffer. */
        if (!(which & (1u << i)) || types[i] == REGS_SBA ||
            (slot = sess_regset_slot(s, types[i])) < 0)
            continue;
        free(s->cache[(size_t)thread * s->nregsets + slot]);
        s->cache[(size_t)thread * s->nregsets + slot] = NULL;
    }
    pthread_mutex_unlock(&m->lock);
}

bool sess_regset_cached(struct sess_manager *m, unsigned session, uint32_t thread, uint32_t type)
{
    bool cached;
    if (session >= m->nsessions || thread >= m->sessions[session].nthreads)
        return false;
    pthread_mutex_lock(&m->lock);
    cached = cached_locked(&m->sessions[session], thread, type);
    pthread_mutex_unlock(&m->lock);
    return cached;
}

void sess_forget_regset(struct sess_manager *m, unsigned session, uint32_t thread, uint32_t type)
{
    sess_forget_regsets(m, session, thread, &type, 1, 1);
}

/* The PC is cr0's IP from isabase, which every thread of a device shares:
 * one register read per thread and stop (its cr0, cached), not two. */
int sess_thread_pc(struct sess_manager *m, unsigned session, uint32_t thread, uint64_t *pc,
                   struct zd_error *err)
{
    const uint8_t *cr;
    size_t crsz;
    uint64_t isabase;
    int rc = sess_read_regset(m, session, thread, REGS_CR, &cr, &crsz, err);
    if (rc)
        return rc;
    if (crsz < ISA_CR0_BYTES)
        return ZD_E_INVALID;
    pthread_mutex_lock(&m->lock);
    rc = sess_isabase(&m->sessions[session], thread, &isabase, err);
    pthread_mutex_unlock(&m->lock);
    if (rc)
        return rc;
    *pc = isa_pc(cr, isabase);
    return 0;
}

enum isa_stop_reason sess_thread_reason(struct sess_manager *m, unsigned session, uint32_t thread)
{
    const uint8_t *cr;
    size_t crsz;
    struct zd_error err;
    if (sess_read_regset(m, session, thread, REGS_CR, &cr, &crsz, &err) != 0 || crsz < 8)
        return ISA_STOP_UNKNOWN;
    return isa_stop_reason(cr);
}
