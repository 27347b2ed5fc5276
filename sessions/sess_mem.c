/* SPDX-License-Identifier: MIT */
/* sessions: device memory and register writes in the right thread context. */
#include <stdio.h>
#include <string.h>

#include "regsets/regs.h"
#include "sessions/sess_impl.h"

/* The zet thread to access memory through: the thread itself when it is
 * stopped, else the device's "all" thread, which only the default space
 * accepts (intelgt-remote-protocol.md 8). */
static int context(struct sess_manager *m, unsigned session, uint32_t thread, enum zd_space sp,
                   struct zd_thread *out, struct zd_error *err)
{
    enum sess_thread_state st;
    memset(err, 0, sizeof(*err));
    if (session >= m->nsessions) {
        err->code = ZD_E_INVALID;
        snprintf(err->msg, sizeof(err->msg), "no such device");
        return ZD_E_INVALID;
    }
    if (m->sessions[session].detached) {
        err->code = ZD_E_LOST;
        snprintf(err->msg, sizeof(err->msg), "the device was detached");
        return ZD_E_LOST;
    }
    st = thread < m->sessions[session].nthreads ? sess_thread_state(m, session, thread)
                                                : SESS_T_RUNNING;
    if (sess_state_stopped(st)) {
        *out = sess_thread_id(m, session, thread);
        return 0;
    }
    if (sp != ZD_SPACE_DEFAULT) {
        err->code = ZD_E_UNAVAILABLE;
        snprintf(err->msg, sizeof(err->msg), "shared local memory needs a stopped thread");
        return ZD_E_UNAVAILABLE;
    }
    *out = zd_thread_all();
    return 0;
}

int sess_read_memory(struct sess_manager *m, unsigned session, uint32_t thread, enum zd_space sp,
                     uint64_t addr, size_t size, void *buf, struct zd_error *err)
{
    struct zd_thread t;
    int rc = context(m, session, thread, sp, &t, err);
    return rc ? rc : zd_read_memory(m->sessions[session].zs, t, sp, addr, size, buf, err);
}

int sess_write_memory(struct sess_manager *m, unsigned session, uint32_t thread, enum zd_space sp,
                      uint64_t addr, size_t size, const void *buf, struct zd_error *err)
{
    struct zd_thread t;
    int rc = context(m, session, thread, sp, &t, err);
    return rc ? rc : zd_write_memory(m->sessions[session].zs, t, sp, addr, size, buf, err);
}

int sess_write_registers(struct sess_manager *m, unsigned session, uint32_t thread, uint32_t type,
                         uint32_t start, uint32_t count, const void *data, struct zd_error *err)
{
    struct session *s;
    int slot, rc;
    memset(err, 0, sizeof(*err));
    if (session >= m->nsessions || thread >= m->sessions[session].nthreads) {
        err->code = ZD_E_INVALID;
        return ZD_E_INVALID;
    }
    s = &m->sessions[session];
    if (s->detached) {
        err->code = ZD_E_LOST;
        return ZD_E_LOST;
    }
    slot = sess_regset_slot(s, type);
    if (slot < 0 || count == 0 || start >= sess_layout_count(s, thread, slot) ||
        count > sess_layout_count(s, thread, slot) - start) {
        err->code = ZD_E_INVALID;
        snprintf(err->msg, sizeof(err->msg), "no such registers");
        return ZD_E_INVALID;
    }
    rc = zd_write_registers(s->zs, sess_thread_id(m, session, thread), type, start, count, data,
                            err);
    if (rc == 0) {
        /* Keep the cached copy of this stop coherent with the device. */
        pthread_mutex_lock(&m->lock);
        s->reg_writes++;
        if (s->state[thread] == SESS_T_UNREAD)
            s->state[thread] = SESS_T_STOPPED; /* it took the write */
        uint8_t *c = s->cache[(size_t)thread * s->nregsets + slot];
        if (c)
            memcpy(c + (size_t)start * s->regsets[slot].byte_size, data,
                   (size_t)count * s->regsets[slot].byte_size);
        pthread_mutex_unlock(&m->lock);
    }
    return rc;
}
