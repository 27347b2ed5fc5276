/* SPDX-License-Identifier: MIT */
/* sessions: register access through the per-stop cache, and what cr0
 * says about a stopped thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regsets/regs.h"
#include "sessions/sess_impl.h"

/* ---- registers through the per-stop cache -------------------------------- */

const struct zd_regset *sess_regsets(struct sess_manager *m, unsigned session, size_t *n)
{
    *n = session < m->nsessions ? m->sessions[session].nregsets : 0;
    return session < m->nsessions ? m->sessions[session].regsets : NULL;
}

int sess_isabase(struct session *s, uint32_t thread, uint64_t *isabase, struct zd_error *err)
{
    int slot = sess_regset_slot(s, REGS_SBA);
    const uint8_t *sba;
    int rc;
    if (s->have_isabase) {
        *isabase = s->isabase;
        return 0;
    }
    if (slot < 0 ||
        (size_t)s->regsets[slot].count * s->regsets[slot].byte_size < (REGS_SBA_ISABASE + 1) * 8) {
        err->code = ZD_E_INVALID;
        snprintf(err->msg, sizeof(err->msg), "the device has no isabase register");
        return ZD_E_INVALID;
    }
    if ((rc = sess_fill_cache(s, thread, slot, err)) != 0)
        return rc;
    sba = s->cache[(size_t)thread * s->nregsets + slot];
    if (!sba) { /* the thread ran on meanwhile */
        err->code = ZD_E_UNAVAILABLE;
        snprintf(err->msg, sizeof(err->msg), "the thread is not stopped");
        return ZD_E_UNAVAILABLE;
    }
    memcpy(&s->isabase, sba + REGS_SBA_ISABASE * 8, 8);
    s->have_isabase = true;
    *isabase = s->isabase;
    return 0;
}

int sess_read_regset(struct sess_manager *m, unsigned session, uint32_t thread, uint32_t type,
                     const uint8_t **data, size_t *size, struct zd_error *err)
{
    struct session *s;
    int slot, rc;
    if (session >= m->nsessions || thread >= m->sessions[session].nthreads)
        return ZD_E_INVALID;
    s = &m->sessions[session];
    slot = sess_regset_slot(s, type);
    if (slot < 0) {
        err->code = ZD_E_INVALID;
        snprintf(err->msg, sizeof(err->msg), "the device has no register set %u", type);
        return ZD_E_INVALID;
    }
    pthread_mutex_lock(&m->lock);
    rc = sess_fill_cache(s, thread, slot, err);
    if (rc == 0 && !s->cache[(size_t)thread * s->nregsets + slot]) {
        err->code = rc = ZD_E_UNAVAILABLE; /* it ran on meanwhile */
        snprintf(err->msg, sizeof(err->msg), "the thread is not stopped");
    }
    if (rc == 0) {
        *data = s->cache[(size_t)thread * s->nregsets + slot];
        *size = (size_t)s->regsets[slot].count * s->regsets[slot].byte_size;
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
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
    if (crsz < 12)
        return ZD_E_INVALID;
    pthread_mutex_lock(&m->lock);
    rc = sess_isabase(&m->sessions[session], thread, &isabase, err);
    pthread_mutex_unlock(&m->lock);
    if (rc)
        return rc;
    *pc = regs_pc(cr, isabase);
    return 0;
}

enum regs_stop_reason sess_thread_reason(struct sess_manager *m, unsigned session, uint32_t thread)
{
    const uint8_t *cr;
    size_t crsz;
    struct zd_error err;
    if (sess_read_regset(m, session, thread, REGS_CR, &cr, &crsz, &err) != 0 || crsz < 8)
        return REGS_STOP_UNKNOWN;
    return regs_stop_reason(cr);
}
