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

int sess_regset_slot(const struct session *s, uint32_t type)
{
    for (size_t r = 0; r < s->nregsets; r++)
        if (s->regsets[r].type == type)
            return (int)r;
    return -1;
}

/* Fills the cache for (thread, regset) if needed. Lock held on entry and
 * exit; dropped around the device access. */
int sess_fill_cache(struct session *s, uint32_t thread, int slot, struct zd_error *err)
{
    struct sess_manager *m = s->m;
    const struct zd_regset *rs = &s->regsets[slot];
    size_t size = (size_t)rs->count * rs->byte_size;
    uint8_t *buf;
    int rc;

    if (s->cache[(size_t)thread * s->nregsets + slot])
        return 0;
    if (!sess_state_stopped(s->state[thread])) {
        err->code = ZD_E_UNAVAILABLE;
        snprintf(err->msg, sizeof(err->msg), "the thread is not stopped");
        return ZD_E_UNAVAILABLE;
    }
    if (!(buf = malloc(size ? size : 1))) {
        err->code = ZD_E_NOMEM;
        return ZD_E_NOMEM;
    }
    pthread_mutex_unlock(&m->lock);
    rc = zd_read_registers(s->zs, sess_thread_id(m, s->index, thread), rs->type, 0, rs->count, buf,
                           err);
    pthread_mutex_lock(&m->lock);
    if (rc) {
        free(buf);
        return rc;
    }
    m->stats.register_reads++;
    /* Another caller may have filled it meanwhile; keep one copy. */
    if (s->cache[(size_t)thread * s->nregsets + slot])
        free(buf);
    else
        s->cache[(size_t)thread * s->nregsets + slot] = buf;
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
    if (rc == 0) {
        *data = s->cache[(size_t)thread * s->nregsets + slot];
        *size = (size_t)s->regsets[slot].count * s->regsets[slot].byte_size;
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

int sess_thread_pc(struct sess_manager *m, unsigned session, uint32_t thread, uint64_t *pc,
                   struct zd_error *err)
{
    const uint8_t *cr, *sba;
    size_t crsz, sbasz;
    uint64_t isabase;
    int rc = sess_read_regset(m, session, thread, REGS_CR, &cr, &crsz, err);
    if (rc == 0)
        rc = sess_read_regset(m, session, thread, REGS_SBA, &sba, &sbasz, err);
    if (rc)
        return rc;
    if (crsz < 12 || sbasz < (REGS_SBA_ISABASE + 1) * 8)
        return ZD_E_INVALID;
    memcpy(&isabase, sba + REGS_SBA_ISABASE * 8, 8);
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
