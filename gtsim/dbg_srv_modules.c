/* SPDX-License-Identifier: MIT */
/* The host API hooks: module and queue events for attached debuggers. */
#include <stdlib.h>
#include <string.h>

#include "gtsim/dbg_server.h"
#include "gtsim/dbg_srv_int.h"

void gtsim_dbg_module_created(struct gtsim_module *m)
{
    struct gtsim_dbg_server *srv = gtsim_srv_the_server;
    zet_debug_event_t ev;
    bool waiting;

    if (!srv)
        return;
    gtsim_srv_module_event(m, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, ZET_DEBUG_EVENT_FLAG_NEED_ACK, &ev);
    pthread_mutex_lock(&srv->lock);
    if (srv->nmodules == srv->cap_modules) {
        size_t cap = srv->cap_modules ? srv->cap_modules * 2 : 16;
        struct gtsim_module **n = realloc(srv->modules, cap * sizeof(*n));
        if (n) {
            srv->modules = n;
            srv->cap_modules = cap;
        }
    }
    if (srv->nmodules < srv->cap_modules)
        srv->modules[srv->nmodules++] = m;
    for (struct srv_session *s = srv->sessions; s; s = s->next) {
        struct pending_ack *a;
        if (!gtsim_srv_covers(s, m->device) || !(a = calloc(1, sizeof(*a))))
            continue;
        a->module = m;
        a->ev = ev;
        a->next = s->acks;
        s->acks = a;
        gtsim_srv_send_event(s, &ev);
    }
    /* Like the real driver, module creation waits until the debugger has
     * had its chance to plant breakpoints. */
    do {
        waiting = false;
        for (struct srv_session *s = srv->sessions; s; s = s->next)
            for (struct pending_ack *a = s->acks; a; a = a->next)
                waiting |= a->module == m;
        if (waiting)
            pthread_cond_wait(&srv->cv, &srv->lock);
    } while (waiting);
    pthread_mutex_unlock(&srv->lock);
}

void gtsim_dbg_module_destroyed(struct gtsim_module *m)
{
    struct gtsim_dbg_server *srv = gtsim_srv_the_server;
    zet_debug_event_t ev;
    if (!srv)
        return;
    gtsim_srv_module_event(m, ZET_DEBUG_EVENT_TYPE_MODULE_UNLOAD, 0, &ev);
    pthread_mutex_lock(&srv->lock);
    for (size_t i = 0; i < srv->nmodules; i++)
        if (srv->modules[i] == m) {
            srv->modules[i] = srv->modules[--srv->nmodules];
            break;
        }
    for (struct srv_session *s = srv->sessions; s; s = s->next)
        if (gtsim_srv_covers(s, m->device))
            gtsim_srv_send_event(s, &ev);
    pthread_mutex_unlock(&srv->lock);
}

static void queue_change(struct gtsim_device *d, int delta)
{
    struct gtsim_dbg_server *srv = gtsim_srv_the_server;
    struct gtsim_device *root = gtsim_srv_root_of(d);
    zet_debug_event_t ev = {0};
    uint32_t *n;
    if (!srv)
        return;
    pthread_mutex_lock(&srv->lock);
    n = &srv->queues[root->ordinal];
    if (delta > 0 && (*n)++ == 0)
        ev.type = ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY;
    else if (delta < 0 && *n > 0 && --(*n) == 0)
        ev.type = ZET_DEBUG_EVENT_TYPE_PROCESS_EXIT;
    if (ev.type != ZET_DEBUG_EVENT_TYPE_INVALID)
        for (struct srv_session *s = srv->sessions; s; s = s->next)
            if (s->attached && s->root == root)
                gtsim_srv_send_event(s, &ev);
    pthread_mutex_unlock(&srv->lock);
}

void gtsim_dbg_queue_created(struct gtsim_device *d)
{
    queue_change(d, +1);
}

void gtsim_dbg_queue_destroyed(struct gtsim_device *d)
{
    queue_change(d, -1);
}
