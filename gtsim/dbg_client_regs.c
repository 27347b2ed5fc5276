/* SPDX-License-Identifier: MIT */
/* The register calls of a debugger's session (dbg_client.c owns the
 * session): reads served in this process from the debuggee's shared
 * register slots when it passed them (ssa.h), else requests; writes are
 * always requests. */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "gtsim/dbg_client_int.h"
#include "gtsim/device_build.h"
#include "gtsim/gtsim.h"
#include "gtsim/regfile.h"
#include "gtsim/zet_fill.h"
#include "gtsim/zet_regset_props.h"

/* The hardware index of one thread of s's device, as the debuggee's
 * gtsim_srv_thread_index computes it: the same shape (both load the same
 * GTSIM_CONFIG), the session's slices as the debuggee said at attach;
 * -1 for a wildcard or a thread out of range. */
static int thread_index(const struct client_session *s, const ze_device_thread_t *t, uint32_t *idx)
{
    const struct gtsim_device *d = s->device;
    const struct gtsim_hw_config *c = gtsim_hw_config(d->hw);
    if (!gtsim_client_single_thread(t) || t->slice >= s->ssa_slice_count ||
        t->subslice >= c->subslices || t->eu >= c->eus || t->thread >= c->threads)
        return -1;
    *idx =
        gtsim_hw_thread_index(d->hw, t->slice + s->ssa_slice_first, t->subslice, t->eu, t->thread);
    return 0;
}

/* A register read served in this process from the debuggee's slots
 * (ssa.h), as a real driver preads the state save area itself: the
 * debuggee does nothing and may be stopped. The same answers as the
 * debuggee's request path: DEVICE_LOST once the session is over, bad
 * thread INVALID_ARGUMENT, not stopped (or stopped late, or resumed
 * while we copied) NOT_AVAILABLE. */
static ze_result_t read_shared(struct client_session *s, const ze_device_thread_t *thread,
                               const struct gtsim_regset_desc *d, uint32_t start, size_t bytes,
                               void *out)
{
    struct pollfd pfd = {.fd = s->req.first.fd, .events = POLLRDHUP};
    bool dead, lost;
    uint32_t idx;
    int rc;
    gtsim_client_access_cost(GTSIM_DBG_READ_REGS);
    pthread_mutex_lock(&s->lock);
    dead = s->dead;
    lost = s->lost;
    pthread_mutex_unlock(&s->lock);
    if (dead)
        return ZE_RESULT_ERROR_DEVICE_LOST;
    /* A request would find its stream ended: the debuggee is gone (its
     * end closed when it died) or the device was lost (ours shut). The
     * slots would still read, so ask the stream, as a real driver's read
     * fails once the debuggee's VM is gone. */
    if (lost || atomic_load(&s->gone) ||
        (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL))))
        return gtsim_client_stream_ended(s);
    if (thread_index(s, thread, &idx) != 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    rc = gtsim_ssa_read(&s->ssa, idx, d->offset + (size_t)start * (d->bits / 8), out, bytes);
    if (rc == -EAGAIN)
        return ZE_RESULT_ERROR_NOT_AVAILABLE;
    return rc ? ZE_RESULT_ERROR_UNKNOWN : ZE_RESULT_SUCCESS;
}

/* Reads count registers of set d from start: from the shared slots when
 * the debuggee gave them, else as a request. */
static ze_result_t read_regs(struct client_session *s, const ze_device_thread_t *thread,
                             const struct gtsim_regset_desc *d, uint32_t start, uint32_t count,
                             void *out)
{
    struct gtsim_dbg_reg_req rq = {*thread, d->type, start, count, 0};
    size_t bytes = (size_t)count * (d->bits / 8);
    if (s->ssa.fd >= 0)
        return read_shared(s, thread, d, start, bytes, out);
    return gtsim_client_request(s, GTSIM_DBG_READ_REGS, &rq, sizeof(rq), NULL, 0, out, bytes);
}

/* API 1.5: one stopped thread's sets. As Intel's runtime does
 * (DebugSession::getThreadRegisterSetProperties): not one thread, or not
 * stopped, is ERROR_NOT_AVAILABLE; the GRF count follows the large-GRF bit
 * of the thread's cr0.0 (256 with it, else 128) where the hardware has
 * 256 GRF registers at all. cr0 is read the way the debugger reads it, so
 * that read decides "stopped". */
static ze_result_t ZE_APICALL gtsim_zetDebugGetThreadRegisterSetProperties(
    zet_debug_session_handle_t hSession, ze_device_thread_t thread, uint32_t *pCount,
    zet_debug_regset_properties_t *props)
{
    struct client_session *s = gtsim_client_session(hSession);
    const struct gtsim_regfile_layout *lay;
    const struct gtsim_regset_desc *grf, *cr;
    uint32_t grf_count = 0;
    uint8_t cr0[64];
    ze_result_t r;

    if (!s)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!gtsim_client_single_thread(&thread))
        return ZE_RESULT_ERROR_NOT_AVAILABLE;
    lay = gtsim_hw_layout(s->device->hw);
    grf = gtsim_regfile_find(lay, GTSIM_REGSET_GRF);
    cr = gtsim_regfile_find(lay, GTSIM_REGSET_CR);
    if (cr && cr->bits / 8 <= sizeof(cr0)) {
        uint32_t dword0;
        r = read_regs(s, &thread, cr, 0, 1, cr0);
        if (r != ZE_RESULT_SUCCESS)
            return r;
        memcpy(&dword0, cr0, sizeof(dword0));
        if (grf && grf->count >= 256)
            grf_count = (dword0 & GTSIM_CR0_0_LARGE_GRF) ? 256 : 128;
    }
    return gtsim_regset_props(lay, grf_count, pCount, props);
}

gtsim_pfn_thread_regsets_t gtsim_zet_debug_thread_regsets(void)
{
    return gtsim_zetDebugGetThreadRegisterSetProperties;
}

static ze_result_t registers(zet_debug_session_handle_t hSession, ze_device_thread_t thread,
                             uint32_t type, uint32_t start, uint32_t count, void *values,
                             bool write)
{
    struct client_session *s = gtsim_client_session(hSession);
    const struct gtsim_regset_desc *d;
    struct gtsim_dbg_reg_req rq = {thread, type, start, count, 0};
    size_t bytes;
    ze_result_t r;
    if (!s)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!values)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    d = gtsim_regfile_find(gtsim_hw_layout(s->device->hw), type);
    if (!d || count == 0 || start >= d->count || count > d->count - start)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    bytes = (size_t)count * (d->bits / 8);
    if (gtsim_client_fault(s, write ? GTSIM_FAULT_WRITE_REGISTERS : GTSIM_FAULT_READ_REGISTERS, &r))
        return r;
    /* Writes stay requests: the debuggee applies them under its hw lock,
     * between two instructions of its own execution. */
    if (write)
        return gtsim_client_request(s, GTSIM_DBG_WRITE_REGS, &rq, sizeof(rq), values, bytes, NULL,
                                    0);
    return read_regs(s, &thread, d, start, count, values);
}

static ze_result_t ZE_APICALL gtsim_zetDebugReadRegisters(zet_debug_session_handle_t hSession,
                                                          ze_device_thread_t thread, uint32_t type,
                                                          uint32_t start, uint32_t count,
                                                          void *values)
{
    return registers(hSession, thread, type, start, count, values, false);
}

static ze_result_t ZE_APICALL gtsim_zetDebugWriteRegisters(zet_debug_session_handle_t hSession,
                                                           ze_device_thread_t thread, uint32_t type,
                                                           uint32_t start, uint32_t count,
                                                           void *values)
{
    return registers(hSession, thread, type, start, count, values, true);
}

void gtsim_fill_zet_debug_regs(zet_debug_dditable_t *t)
{
    t->pfnReadRegisters = gtsim_zetDebugReadRegisters;
    t->pfnWriteRegisters = gtsim_zetDebugWriteRegisters;
}
