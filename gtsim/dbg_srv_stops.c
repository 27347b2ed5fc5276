/* SPDX-License-Identifier: MIT */
/* Hardware stops -> events: the stop hook runs under the hw lock, so it
 * only posts to the mailbox; the dispatcher thread sends the events.
 *
 * The interrupt answer is the real driver's (README.md, "Interrupts"): a
 * thread an interrupt stopped gets no event of its own; the interrupt is
 * answered by one event carrying the requested thread id, THREAD_STOPPED
 * when it stopped at least one thread, THREAD_UNAVAILABLE when none.
 * Breakpoints, steps, faults and illegal instructions keep one
 * THREAD_STOPPED per thread. */
#include <stdlib.h>
#include <string.h>

#include "gtsim/dbg_srv_int.h"

/* mail_lock held. False when out of memory. */
static bool post(struct gtsim_dbg_server *srv, const struct mail *m)
{
    if (srv->nmail == srv->cap_mail) {
        size_t cap = srv->cap_mail ? srv->cap_mail * 2 : 256;
        struct mail *n = realloc(srv->mail, cap * sizeof(*n));
        if (!n)
            return false;
        srv->mail = n;
        srv->cap_mail = cap;
    }
    srv->mail[srv->nmail++] = *m;
    pthread_cond_signal(&srv->mail_cv);
    return true;
}

void gtsim_srv_on_hw_stop(void *ctx, const struct gtsim_hw_stop *stop)
{
    struct gtsim_dbg_server *srv = gtsim_srv_the_server;
    struct mail m = {.root = ctx, .stop = *stop};
    pthread_mutex_lock(&srv->mail_lock);
    /* Dropping a stop would leave a thread stopped unseen; the debugger's
     * interrupt-all recovers it. Nothing better to do without memory. */
    (void)post(srv, &m);
    pthread_mutex_unlock(&srv->mail_lock);
}

void gtsim_srv_post_interrupt_answer(struct srv_session *s, const ze_device_thread_t *asked,
                                     uint32_t slot, unsigned stopped, uint8_t *bits, uint32_t nbits,
                                     uint64_t not_before_ns)
{
    struct gtsim_dbg_server *srv = s->srv;
    struct mail m = {.root = s->root,
                     .answer = true,
                     .slice = s->slice_first,
                     .asked = *asked,
                     .stopped = stopped,
                     .not_before_ns = not_before_ns,
                     .slot = slot,
                     .bits = bits,
                     .nbits = nbits};
    pthread_mutex_lock(&srv->mail_lock);
    if (!post(srv, &m))
        free(bits);
    pthread_mutex_unlock(&srv->mail_lock);
}

void gtsim_srv_post_resumed(struct srv_session *s, const ze_device_thread_t *asked, uint32_t seq)
{
    struct gtsim_dbg_server *srv = s->srv;
    struct mail m = {
        .root = s->root, .resumed = true, .slice = s->slice_first, .asked = *asked, .nbits = seq};
    pthread_mutex_lock(&srv->mail_lock);
    (void)post(srv, &m);
    pthread_mutex_unlock(&srv->mail_lock);
}

static struct srv_session *owner_of(struct gtsim_dbg_server *srv, struct gtsim_device *root,
                                    uint32_t slice)
{
    for (struct srv_session *s = srv->sessions; s; s = s->next)
        if (s->attached && s->root == root && slice >= s->slice_first &&
            slice < s->slice_first + s->slice_count)
            return s;
    return NULL;
}

/* srv->lock held. */
static void send_answer(struct gtsim_dbg_server *srv, const struct mail *m)
{
    struct srv_session *s = owner_of(srv, m->root, m->slice);
    struct gtsim_dbg_answer a = {.slot = m->slot, .nbits = m->nbits};
    if (!s)
        return; /* the session detached meanwhile */
    a.ev.type =
        m->stopped ? ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED : ZET_DEBUG_EVENT_TYPE_THREAD_UNAVAILABLE;
    a.ev.info.thread.thread = m->asked;
    gtsim_srv_send_note(s, GTSIM_DBG_ANSWER, &a, sizeof(a), m->bits, (m->nbits + 7) / 8);
}

/* srv->lock held. */
static void send_resumed(struct gtsim_dbg_server *srv, const struct mail *m)
{
    struct srv_session *s = owner_of(srv, m->root, m->slice);
    struct gtsim_dbg_resumed n = {.thread = m->asked, .seq = m->nbits};
    if (s)
        gtsim_srv_send_note(s, GTSIM_DBG_RESUMED, &n, sizeof(n), NULL, 0);
}

/* srv->lock held. */
static void send_stop(struct gtsim_dbg_server *srv, const struct mail *m)
{
    uint32_t sl, ss, eu, th;
    struct srv_session *s;
    zet_debug_event_t ev = {0};

    if (m->stop.reason == GTSIM_STOP_INTERRUPT)
        return; /* answered as a whole: send_answer */
    gtsim_hw_thread_coords(m->root->hw, m->stop.thread, &sl, &ss, &eu, &th);
    s = owner_of(srv, m->root, sl);
    if (!s)
        return; /* its session detached meanwhile; detach resumed it */
    if (m->stop.reason == GTSIM_STOP_PAGE_FAULT && m->stop.fault_address != s->last_fault) {
        s->last_fault = m->stop.fault_address;
        ev.type = ZET_DEBUG_EVENT_TYPE_PAGE_FAULT;
        ev.info.page_fault.address = m->stop.fault_address;
        ev.info.page_fault.mask = ~(uint64_t)0xfff;
        ev.info.page_fault.reason = ZET_DEBUG_PAGE_FAULT_REASON_MAPPING_ERROR;
        gtsim_srv_send_event(s, &ev);
        memset(&ev, 0, sizeof(ev));
    }
    ev.type = ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED;
    ev.info.thread.thread.slice = sl - s->slice_first;
    ev.info.thread.thread.subslice = ss;
    ev.info.thread.thread.eu = eu;
    ev.info.thread.thread.thread = th;
    gtsim_srv_send_event(s, &ev);
}

void *gtsim_srv_dispatcher_main(void *arg)
{
    struct gtsim_dbg_server *srv = arg;
    for (;;) {
        struct mail *batch;
        size_t n;
        pthread_mutex_lock(&srv->mail_lock);
        while (srv->nmail == 0)
            pthread_cond_wait(&srv->mail_cv, &srv->mail_lock);
        batch = srv->mail;
        n = srv->nmail;
        srv->mail = NULL;
        srv->nmail = srv->cap_mail = 0;
        pthread_mutex_unlock(&srv->mail_lock);

        pthread_mutex_lock(&srv->lock);
        for (size_t i = 0; i < n; i++) {
            if (batch[i].answer && batch[i].not_before_ns > gtsim_srv_now_ns()) {
                /* A spread interrupt: its answer, and what follows it, wait
                 * for the window's end. */
                pthread_mutex_unlock(&srv->lock);
                gtsim_srv_sleep_until(batch[i].not_before_ns);
                pthread_mutex_lock(&srv->lock);
            }
            if (batch[i].answer)
                send_answer(srv, &batch[i]);
            else if (batch[i].resumed)
                send_resumed(srv, &batch[i]);
            else
                send_stop(srv, &batch[i]);
            free(batch[i].bits);
        }
        pthread_mutex_unlock(&srv->lock);
        free(batch);
    }
    return NULL;
}
