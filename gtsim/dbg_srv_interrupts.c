/* SPDX-License-Identifier: MIT */
/* Interrupt requests of an attached debugger. They come on the event
 * stream, not the request connection, and get no reply: the debugger's
 * gtsim answers zetDebugInterrupt itself at once, as Intel's runtime only
 * queues the request (DebugSessionImp::interrupt), so a debugger may
 * interrupt from a signal handler while another of its calls waits on the
 * request connection. The request's answer is an event (README.md,
 * "Interrupts"), sent as ANSWER with the slot the debugger gave it and
 * which threads it stopped. One thread per attached session reads them. */
#include <stdlib.h>

#include "gtsim/dbg_srv_int.h"

static bool interrupt_one(struct gtsim_hw *hw, uint32_t idx, uint32_t sidx, void *ctx)
{
    uint8_t *bits = ctx;
    if (gtsim_hw_interrupt_locked(hw, idx) != 0)
        return false; /* not running: idle, or already stopped */
    if (bits)
        bits[sidx / 8] |= (uint8_t)(1u << (sidx % 8));
    return true;
}

/* The real driver's answer (dbg_srv_stops.c): the threads it stops get no
 * event of their own; one event with the requested thread id follows
 * their stops, THREAD_STOPPED if any stopped, else THREAD_UNAVAILABLE
 * (also for a thread that stopped for a reason of its own before the
 * request came: the runtime's interrupt then finds no thread to halt,
 * and that stop has its own event). */
static void do_interrupt(struct srv_session *s, const struct gtsim_dbg_interrupt_req *rq)
{
    struct gtsim_dbg_server *srv = s->srv;
    struct gtsim_hw *hw;
    uint32_t nbits;
    uint8_t *bits;
    unsigned hits = 0;
    uint64_t answer_at = 0;

    pthread_mutex_lock(&srv->lock); /* detach cannot release threads meanwhile */
    if (!s->attached) {
        pthread_mutex_unlock(&srv->lock);
        return;
    }
    hw = s->root->hw;
    nbits = gtsim_srv_session_threads(s);
    /* Without memory the answer goes without its bits: the debugger then
     * does not know those threads stopped, and may interrupt them again
     * (THREAD_UNAVAILABLE) where it would have been told NOT_AVAILABLE. */
    bits = calloc((nbits + 7) / 8, 1);
    gtsim_hw_lock(hw);
    /* The debugger's gtsim checked the range; a peer that did not gets
     * THREAD_UNAVAILABLE, so its slot is freed all the same. */
    if (gtsim_srv_thread_in_range(s, &rq->thread))
        hits = gtsim_srv_for_each_thread(s, &rq->thread, interrupt_one, bits);
    if (hits) {
        ze_device_thread_t all = {ALL, ALL, ALL, ALL};
        answer_at = gtsim_srv_spread_begin(s);
        /* Every stopped thread of the session, not only those just
         * halted: a new interrupt's window makes any thread an interrupt
         * halted late again (gtsim_srv_stop_is_late). */
        gtsim_srv_for_each_thread(s, &all, gtsim_srv_publish_one, s);
    }
    if (!hits) {
        free(bits);
        bits = NULL;
    }
    /* Under the hw lock: the answer follows the stops it caused. */
    gtsim_srv_post_interrupt_answer(s, &rq->thread, rq->slot, hits, bits, bits ? nbits : 0,
                                    answer_at);
    gtsim_hw_unlock(hw);
    pthread_mutex_unlock(&srv->lock);
}

void *gtsim_srv_interrupts_main(void *arg)
{
    struct srv_session *s = arg;
    struct gtsim_dbg_hdr h;
    void *p;

    while (gtsim_dbg_recv(&s->erx, &h, &p) == 0) {
        /* Nothing else travels this way; anything else is dropped. */
        if (h.type == GTSIM_DBG_INTERRUPT && h.len == sizeof(struct gtsim_dbg_interrupt_req))
            do_interrupt(s, p);
        free(p);
    }
    return NULL;
}
