/* SPDX-License-Identifier: MIT */
/* Hardware stops -> events: the stop hook runs under the hw lock, so it
 * only posts to the mailbox; the dispatcher thread sends the events. */
#include <stdlib.h>
#include <string.h>

#include "gtsim/dbg_srv_int.h"

void gtsim_srv_on_hw_stop(void *ctx, const struct gtsim_hw_stop *stop)
{
    struct gtsim_dbg_server *srv = gtsim_srv_the_server;
    pthread_mutex_lock(&srv->mail_lock);
    if (srv->nmail == srv->cap_mail) {
        size_t cap = srv->cap_mail ? srv->cap_mail * 2 : 256;
        struct mail *n = realloc(srv->mail, cap * sizeof(*n));
        if (!n) {
            /* Dropping a stop would leave a thread stopped unseen; the
             * debugger's interrupt-all recovers it. Nothing better to do
             * without memory. */
            pthread_mutex_unlock(&srv->mail_lock);
            return;
        }
        srv->mail = n;
        srv->cap_mail = cap;
    }
    srv->mail[srv->nmail].root = ctx;
    srv->mail[srv->nmail].stop = *stop;
    srv->nmail++;
    pthread_cond_signal(&srv->mail_cv);
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
            struct gtsim_device *root = batch[i].root;
            uint32_t sl, ss, eu, th;
            struct srv_session *s;
            zet_debug_event_t ev = {0};
            gtsim_hw_thread_coords(root->hw, batch[i].stop.thread, &sl, &ss, &eu, &th);
            s = owner_of(srv, root, sl);
            if (!s)
                continue; /* its session detached meanwhile; detach resumed it */
            if (batch[i].stop.reason == GTSIM_STOP_PAGE_FAULT &&
                batch[i].stop.fault_address != s->last_fault) {
                s->last_fault = batch[i].stop.fault_address;
                ev.type = ZET_DEBUG_EVENT_TYPE_PAGE_FAULT;
                ev.info.page_fault.address = batch[i].stop.fault_address;
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
        pthread_mutex_unlock(&srv->lock);
        free(batch);
    }
    return NULL;
}
