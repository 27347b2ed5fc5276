/* SPDX-License-Identifier: MIT */
/* The requests of an attached debugger: resume, memory, registers,
 * acknowledgements (interrupts come on the event stream:
 * dbg_srv_interrupts.c). */
#include <stdlib.h>
#include <string.h>

#include "gtsim/dbg_srv_int.h"

static bool resume_one(struct gtsim_hw *hw, uint32_t idx, uint32_t sidx, void *ctx)
{
    (void)sidx;
    (void)ctx;
    return gtsim_hw_resume_locked(hw, idx) == 0;
}

static void do_resume(struct srv_session *s, int fd, const struct gtsim_dbg_thread_req *rq)
{
    struct gtsim_hw *hw = s->root->hw;
    unsigned hits;
    uint32_t seq = 0;
    if (!gtsim_srv_thread_in_range(s, &rq->thread)) {
        gtsim_srv_reply_to(s, fd, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
        return;
    }
    gtsim_hw_lock(hw);
    hits = gtsim_srv_for_each_thread(s, &rq->thread, resume_one, NULL);
    /* The debugger's gtsim forgets these threads were reported stopped
     * (zetDebugInterrupt's NOT_AVAILABLE): the note goes in the event
     * stream's order, before the events of any stop that follows. */
    if (hits) {
        seq = ++s->resume_seq;
        gtsim_srv_post_resumed(s, &rq->thread, seq);
    }
    /* Reply before the resumed threads can run: once they do, the launch
     * may end and the application exit before a later reply is written, and
     * the debugger would see DEVICE_LOST for a resume that worked (a real
     * driver's resume completes in the kernel, whatever the process does
     * next). A reply already written is still read after the process is
     * gone; write_lock is a leaf, so taking it under the hw lock is safe. */
    if (hits)
        gtsim_srv_reply_to(s, fd, ZE_RESULT_SUCCESS, &seq, sizeof(seq));
    else
        gtsim_srv_reply_to(s, fd, ZE_RESULT_ERROR_NOT_AVAILABLE, NULL, 0);
    gtsim_hw_unlock(hw);
}

/* Where a default-space access may go: live allocations, this device's
 * instruction heap, and (read-only) the modules' debug zebins. */
static ze_result_t check_default(struct srv_session *s, uint64_t addr, uint64_t size, bool write,
                                 bool *is_isa)
{
    struct gtsim_dbg_server *srv = s->srv;
    *is_isa = false;
    if (size == 0 || addr + size < addr)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (gtsim_hw_isa_contains(s->root->hw, addr, size)) {
        *is_isa = true;
        return ZE_RESULT_SUCCESS;
    }
    if (gtsim_mem_is_valid(srv->drv, addr, size))
        return ZE_RESULT_SUCCESS;
    for (size_t i = 0; i < srv->nmodules; i++) {
        uint64_t b = (uint64_t)(uintptr_t)srv->modules[i]->debug_image;
        uint64_t e = b + srv->modules[i]->debug_size;
        if (addr >= b && addr < e)
            return write || addr + size > e ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_SUCCESS;
    }
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

static void do_memory(struct srv_session *s, int fd, const struct gtsim_dbg_mem_req *rq,
                      const uint8_t *data, bool write)
{
    struct gtsim_hw *hw = s->root->hw;
    uint8_t *buf = NULL;
    ze_result_t r = ZE_RESULT_SUCCESS;
    bool isa;
    uint32_t idx = 0;

    if (rq->size == 0 || rq->size > GTSIM_DBG_MAX_XFER) {
        gtsim_srv_reply_to(s, fd, ZE_RESULT_ERROR_INVALID_SIZE, NULL, 0);
        return;
    }
    if (!write && !(buf = malloc(rq->size))) {
        gtsim_srv_reply_to(s, fd, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, NULL, 0);
        return;
    }
    pthread_mutex_lock(&s->srv->lock); /* keeps the module list stable */
    gtsim_hw_lock(hw);
    if (!gtsim_srv_is_all(&rq->thread) && gtsim_srv_thread_index(s, &rq->thread, &idx) != 0)
        r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    else if (!gtsim_srv_is_all(&rq->thread) &&
             (gtsim_hw_thread_state(hw, idx) != GTSIM_T_STOPPED || gtsim_srv_stop_is_late(s, idx)))
        r = ZE_RESULT_ERROR_NOT_AVAILABLE;
    else if (rq->space == ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT) {
        r = check_default(s, rq->address, rq->size, write, &isa);
        if (r == ZE_RESULT_SUCCESS && isa) {
            /* Under the hw lock, so a breakpoint bit lands between two
             * instruction fetches. A tile session sees its tile's copy of
             * the code; a root session writes all copies. */
            uint32_t tile = s->device->root ? s->device->subdevice_id : 0;
            if (write && !s->device->root)
                gtsim_hw_isa_write(hw, rq->address, data, rq->size);
            else if (write)
                memcpy(gtsim_hw_isa_copy(hw, tile, rq->address), data, rq->size);
            else
                memcpy(buf, gtsim_hw_isa_copy(hw, tile, rq->address), rq->size);
        } else if (r == ZE_RESULT_SUCCESS) {
            if (write)
                memcpy((void *)(uintptr_t)rq->address, data, rq->size);
            else
                memcpy(buf, (const void *)(uintptr_t)rq->address, rq->size);
        }
    } else if (rq->space == ZET_DEBUG_MEMORY_SPACE_TYPE_SLM) {
        uint32_t slm_size;
        uint8_t *slm;
        uint64_t off = rq->address & ~(1ull << 28);
        if (gtsim_srv_is_all(&rq->thread) || !(rq->address & (1ull << 28))) {
            r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
        } else {
            slm = gtsim_hw_thread_slm(hw, idx, &slm_size);
            if (!slm || off > slm_size || rq->size > slm_size - off)
                r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
            else if (write)
                memcpy(slm + off, data, rq->size);
            else
                memcpy(buf, slm + off, rq->size);
        }
    } else {
        r = ZE_RESULT_ERROR_INVALID_ENUMERATION;
    }
    gtsim_hw_unlock(hw);
    pthread_mutex_unlock(&s->srv->lock);
    gtsim_srv_reply_to(s, fd, r, r == ZE_RESULT_SUCCESS ? buf : NULL,
                       r == ZE_RESULT_SUCCESS && buf ? rq->size : 0);
    free(buf);
}

static void do_registers(struct srv_session *s, int fd, const struct gtsim_dbg_reg_req *rq,
                         const uint8_t *data, size_t data_len, bool write)
{
    struct gtsim_hw *hw = s->root->hw;
    const struct gtsim_regfile_layout *lay = gtsim_hw_layout(hw);
    const struct gtsim_regset_desc *d = gtsim_regfile_find(lay, rq->type);
    uint8_t *buf = NULL;
    size_t bytes = 0;
    ze_result_t r = ZE_RESULT_SUCCESS;
    uint32_t idx;

    if (!d || gtsim_srv_thread_index(s, &rq->thread, &idx) != 0 || rq->count == 0 ||
        rq->start >= d->count || rq->count > d->count - rq->start)
        r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    else if (write && !d->writable)
        r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (r == ZE_RESULT_SUCCESS) {
        bytes = (size_t)rq->count * (d->bits / 8);
        if (write && data_len != bytes)
            r = ZE_RESULT_ERROR_INVALID_SIZE;
        else if (!write && !(buf = malloc(bytes)))
            r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (r == ZE_RESULT_SUCCESS) {
        gtsim_hw_lock(hw);
        if (gtsim_hw_thread_state(hw, idx) != GTSIM_T_STOPPED || gtsim_srv_stop_is_late(s, idx)) {
            r = ZE_RESULT_ERROR_NOT_AVAILABLE;
        } else {
            uint8_t *reg =
                gtsim_regfile_reg(lay, gtsim_hw_thread_regs(hw, idx), rq->type, rq->start);
            if (write) {
                memcpy(reg, data, bytes);
                gtsim_srv_publish(s, idx); /* cr0's halt bit may have changed */
            } else {
                memcpy(buf, reg, bytes);
            }
        }
        gtsim_hw_unlock(hw);
    }
    gtsim_srv_reply_to(s, fd, r, r == ZE_RESULT_SUCCESS ? buf : NULL,
                       r == ZE_RESULT_SUCCESS && buf ? bytes : 0);
    free(buf);
}

static void do_ack(struct srv_session *s, int fd, const zet_debug_event_t *ev)
{
    struct gtsim_dbg_server *srv = s->srv;
    ze_result_t r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&srv->lock);
    for (struct pending_ack **pp = &s->acks; *pp; pp = &(*pp)->next) {
        struct pending_ack *a = *pp;
        if (a->ev.type == ev->type &&
            a->ev.info.module.moduleBegin == ev->info.module.moduleBegin &&
            a->ev.info.module.moduleEnd == ev->info.module.moduleEnd) {
            *pp = a->next;
            free(a);
            r = ZE_RESULT_SUCCESS;
            pthread_cond_broadcast(&srv->cv);
            break;
        }
    }
    /* Reply before unlocking, for the reason do_resume gives: the module
     * creation waiting on srv->lock may otherwise run the application to
     * its exit before the acknowledgement is answered. */
    gtsim_srv_reply_to(s, fd, r, NULL, 0);
    pthread_mutex_unlock(&srv->lock);
}

void gtsim_srv_request(struct srv_session *s, int fd, const struct gtsim_dbg_hdr *h, void *p)
{
    switch (h->type) {
    case GTSIM_DBG_ACK:
        if (h->len == sizeof(zet_debug_event_t) && s->attached)
            do_ack(s, fd, p);
        else
            gtsim_srv_reply_to(s, fd, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
        break;
    case GTSIM_DBG_RESUME:
        if (h->len != sizeof(struct gtsim_dbg_thread_req) || !s->attached)
            gtsim_srv_reply_to(s, fd, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
        else
            do_resume(s, fd, p);
        break;
    case GTSIM_DBG_READ_MEM:
    case GTSIM_DBG_WRITE_MEM: {
        const struct gtsim_dbg_mem_req *rq = p;
        bool write = h->type == GTSIM_DBG_WRITE_MEM;
        if (h->len < sizeof(*rq) || !s->attached || (write && h->len - sizeof(*rq) != rq->size))
            gtsim_srv_reply_to(s, fd, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
        else
            do_memory(s, fd, rq, (const uint8_t *)p + sizeof(*rq), write);
        break;
    }
    case GTSIM_DBG_READ_REGS:
    case GTSIM_DBG_WRITE_REGS:
        if (h->len < sizeof(struct gtsim_dbg_reg_req) || !s->attached)
            gtsim_srv_reply_to(s, fd, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
        else
            do_registers(s, fd, p, (const uint8_t *)p + sizeof(struct gtsim_dbg_reg_req),
                         h->len - sizeof(struct gtsim_dbg_reg_req),
                         h->type == GTSIM_DBG_WRITE_REGS);
        break;
    default:
        gtsim_srv_reply_to(s, fd, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, NULL, 0);
        break;
    }
}
