/* SPDX-License-Identifier: MIT */
/* Debuggee side of program debug: the endpoint, its connections, attach and
 * detach (the other parts: dbg_srv_int.h). One listening Unix socket per process
 * (private directory 0700, socket 0600, peer uid checked as ptrace would);
 * one thread per attached debugger connection, which answers its requests
 * itself (no hand-over: a wake-up costs more than a register read); one
 * dispatcher thread that turns hardware stops into events, sent on the
 * event stream the debugger passed with ATTACH.
 *
 * Lock order: srv->lock, then a device's hw lock, then srv->mail_lock; a
 * session's write_lock is a leaf. The hardware's stop hook runs under the
 * hw lock, so it only appends to the mailbox. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "gtsim/dbg_server.h"
#include "gtsim/dbg_stale.h"
#include "gtsim/dbg_srv_int.h"
#include "gtsim/ssa.h"

static ze_result_t attach(struct srv_session *s, const struct gtsim_dbg_attach *rq)
{
    struct gtsim_dbg_server *srv = s->srv;
    struct gtsim_driver *drv = srv->drv;
    struct gtsim_device *root, *dev;

    if (!drv->debugging_enabled)
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    if (rq->config_id != gtsim_dbg_config_id(&drv->cfg)) {
        fprintf(stderr, "gtsim: a debugger with a different GTSIM_CONFIG tried to attach; "
                        "both processes must simulate the same hardware\n");
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    }
    if (rq->ordinal >= drv->ndevices)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    root = drv->devices[rq->ordinal];
    if (rq->tile >= 0 && (uint32_t)rq->tile >= root->nsub)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (rq->tile >= 0 && !drv->cfg.tile_attach)
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    dev = rq->tile >= 0 ? root->sub[rq->tile] : root;
    /* One debugger per device; a root session and tile sessions exclude
     * each other (level-zero-facts.md section 8). */
    for (struct srv_session *o = srv->sessions; o; o = o->next)
        if (o != s && o->attached && o->root == root &&
            (o->device == dev || !o->device->root || !dev->root))
            return ZE_RESULT_ERROR_NOT_AVAILABLE;
    s->device = dev;
    s->root = root;
    s->slice_first = dev->slice_first;
    s->slice_count = dev->slice_count;
    s->attached = true;
    gtsim_hw_lock(root->hw);
    gtsim_hw_set_stop_hook_locked(root->hw, gtsim_srv_on_hw_stop, root);
    gtsim_hw_set_slice_debug_locked(root->hw, s->slice_first, s->slice_count, true);
    {
        /* What this session's debugger may read by itself (ssa.h): a new
         * session has no interrupt window, so no thread is late. */
        ze_device_thread_t all = {ALL, ALL, ALL, ALL};
        gtsim_srv_for_each_thread(s, &all, gtsim_srv_publish_one, s);
    }
    gtsim_hw_unlock(root->hw);
    return ZE_RESULT_SUCCESS;
}

/* Attach's answer: the memfd of the register slots goes with it, so the
 * debugger reads stopped threads' registers without asking (ssa.h), as a
 * real debugger reads the state save area through the VM's descriptor. */
static void reply_attach(struct srv_session *s, ze_result_t r)
{
    struct gtsim_dbg_ssa_info info = {0};
    size_t bytes = 0;
    int fd = -1;
    if (r == ZE_RESULT_SUCCESS) {
        struct gtsim_hw *hw = s->root->hw;
        fd = gtsim_hw_ssa_fd(hw, &bytes);
        info.valid = fd >= 0;
        info.nthreads = gtsim_hw_thread_count(hw);
        info.slot_size = gtsim_hw_layout(hw)->slot_size;
        info.bytes = bytes;
        info.slice_first = s->slice_first;
        info.slice_count = s->slice_count;
    }
    if (fd >= 0)
        gtsim_srv_reply_fd(s, r, &info, sizeof(info), fd);
    else if (r == ZE_RESULT_SUCCESS)
        gtsim_srv_reply(s, r, &info, sizeof(info));
    else
        gtsim_srv_reply(s, r, NULL, 0);
}

/* Events a debugger gets right after attaching: what already happened. */
static void replay_state(struct srv_session *s)
{
    struct gtsim_dbg_server *srv = s->srv;
    zet_debug_event_t ev;
    if (srv->queues[s->root->ordinal] > 0) {
        memset(&ev, 0, sizeof(ev));
        ev.type = ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY;
        gtsim_srv_send_event(s, &ev);
    }
    for (size_t i = 0; i < srv->nmodules; i++)
        if (gtsim_srv_covers(s, srv->modules[i]->device)) {
            gtsim_srv_module_event(srv->modules[i], ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, 0, &ev);
            gtsim_srv_send_event(s, &ev);
        }
}

/* answer: the debugger asked (zetDebugDetach) and is owed a reply. It is
 * written before the threads can run on, for the reason do_resume gives. */
static void detach(struct srv_session *s, bool answer)
{
    struct gtsim_dbg_server *srv = s->srv;
    struct gtsim_hw *hw;
    ze_device_thread_t all = {ALL, ALL, ALL, ALL};

    pthread_mutex_lock(&srv->lock);
    for (struct srv_session **pp = &srv->sessions; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    while (s->acks) {
        struct pending_ack *a = s->acks;
        s->acks = a->next;
        free(a);
    }
    if (s->attached) {
        hw = s->root->hw;
        gtsim_hw_lock(hw);
        gtsim_hw_set_slice_debug_locked(hw, s->slice_first, s->slice_count, false);
        gtsim_srv_for_each_thread(s, &all, gtsim_srv_release_one, NULL);
        s->attached = false;
        if (answer) {
            gtsim_srv_reply(s, ZE_RESULT_SUCCESS, NULL, 0);
            answer = false;
        }
        gtsim_hw_unlock(hw);
    }
    if (answer)
        gtsim_srv_reply(s, ZE_RESULT_SUCCESS, NULL, 0);
    pthread_cond_broadcast(&srv->cv); /* module creation waiting on us */
    pthread_mutex_unlock(&srv->lock);
}

/* ATTACH: p is the request, events_fd the debugger's end of the event
 * stream that came with it (owned here), or -1: a debugger without one
 * would never hear of a stop or a module load, so it is refused, and may
 * knock again on the same connection. */
static void on_attach(struct srv_session *s, const struct gtsim_dbg_hdr *h, void *p, int events_fd)
{
    struct gtsim_dbg_server *srv = s->srv;
    ze_result_t r;
    if (h->len != sizeof(struct gtsim_dbg_attach) || s->attached || events_fd < 0) {
        if (events_fd >= 0)
            close(events_fd);
        gtsim_srv_reply(s, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
        return;
    }
    pthread_mutex_lock(&srv->lock);
    /* Set before attach() makes the session visible to the senders of
     * events, which find it under srv->lock. */
    s->event_fd = events_fd;
    r = attach(s, p);
    reply_attach(s, r);
    if (r == ZE_RESULT_SUCCESS) {
        replay_state(s);
        /* Interrupt requests come back on the event stream. Nothing waits
         * for a reply there, so an interrupt never queues behind a request
         * this thread is answering. */
        gtsim_dbg_rx_init(&s->erx, s->event_fd);
        s->intr_running = pthread_create(&s->intr_thread, NULL, gtsim_srv_interrupts_main, s) == 0;
    } else {
        close(s->event_fd);
        s->event_fd = -1;
    }
    pthread_mutex_unlock(&srv->lock);
}

static void *session_main(void *arg)
{
    struct srv_session *s = arg;
    struct gtsim_dbg_hdr h;
    void *p;

    while (gtsim_dbg_recv(&s->rx, &h, &p) == 0) {
        bool done = false;
        switch (h.type) {
        case GTSIM_DBG_ATTACH:
            on_attach(s, &h, p, gtsim_dbg_rx_take_fd(&s->rx));
            break;
        case GTSIM_DBG_STREAM:
            gtsim_srv_open_stream(s, gtsim_dbg_rx_take_fd(&s->rx));
            break;
        case GTSIM_DBG_DETACH:
            detach(s, true);
            done = true;
            break;
        default:
            gtsim_srv_request(s, s->fd, &h, p);
            break;
        }
        free(p);
        if (done)
            break;
    }
    /* End of stream without DETACH: the debugger died. Never leave its
     * threads stopped or a module creation blocked behind it. */
    detach(s, false);
    gtsim_srv_end_streams(s); /* their threads use s */
    close(s->fd);
    gtsim_dbg_rx_fini(&s->rx);
    if (s->intr_running) {
        shutdown(s->event_fd, SHUT_RDWR); /* ends the interrupt reader's recv */
        pthread_join(s->intr_thread, NULL);
        gtsim_dbg_rx_fini(&s->erx);
    }
    if (s->event_fd >= 0)
        close(s->event_fd); /* the debugger's reader sees the end */
    pthread_mutex_destroy(&s->write_lock);
    free(s);
    return NULL;
}

static void *accept_main(void *arg)
{
    struct gtsim_dbg_server *srv = arg;
    for (;;) {
        struct ucred cred;
        socklen_t len = sizeof(cred);
        pthread_t tid;
        int fd = accept4(srv->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return NULL;
        }
        /* The same rule as ptrace: only our own user, or root. */
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
            (cred.uid != getuid() && cred.uid != 0)) {
            struct gtsim_dbg_reply rep = {(int32_t)ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS, 0};
            (void)gtsim_dbg_send(fd, GTSIM_DBG_REPLY, &rep, sizeof(rep), NULL, 0);
            close(fd);
            continue;
        }
        struct srv_session *s = calloc(1, sizeof(*s));
        if (!s) {
            close(fd);
            continue;
        }
        s->srv = srv;
        s->fd = fd;
        s->event_fd = -1;
        gtsim_dbg_rx_init(&s->rx, fd);
        s->rx.poll_us =
            srv->drv ? srv->drv->cfg.poll_us : GTSIM_DEFAULT_POLL_US; /* as the client */
        s->last_fault = ~(uint64_t)0;
        pthread_mutex_init(&s->write_lock, NULL);
        pthread_mutex_lock(&srv->lock);
        s->next = srv->sessions;
        srv->sessions = s;
        pthread_mutex_unlock(&srv->lock);
        if (pthread_create(&tid, NULL, session_main, s) != 0) {
            detach(s, false);
            close(fd);
            free(s);
            continue;
        }
        pthread_detach(tid);
    }
}

static void remove_socket(void)
{
    if (gtsim_srv_the_server)
        unlink(gtsim_srv_the_server->path);
}

static int open_endpoint(struct gtsim_dbg_server *srv, char *err, size_t errlen)
{
    char dir[80];
    struct stat st;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd;

    if (gtsim_dbg_runtime_dir(getuid(), dir, sizeof(dir)) ||
        gtsim_dbg_socket_path(getpid(), getuid(), srv->path, sizeof(srv->path))) {
        snprintf(err, errlen, "runtime directory name too long");
        return -1;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    /* Refuse a directory someone else could have prepared for us. */
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
        (st.st_mode & 077)) {
        snprintf(err, errlen, "%s is not a private directory of this user", dir);
        return -1;
    }
    gtsim_dbg_remove_stale(dir); /* what killed processes left behind */
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", srv->path);
    unlink(srv->path); /* a stale socket of an earlier process with our pid */
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || chmod(srv->path, 0600) != 0 ||
        listen(fd, 8) != 0) {
        snprintf(err, errlen, "cannot listen on %s: %s", srv->path, strerror(errno));
        close(fd);
        return -1;
    }
    srv->listen_fd = fd;
    return 0;
}

void gtsim_dbg_server_start(struct gtsim_driver *drv)
{
    struct gtsim_dbg_server *srv = calloc(1, sizeof(*srv));
    char err[256];
    pthread_t tid;

    if (!srv || !(srv->queues = calloc(drv->ndevices, sizeof(uint32_t)))) {
        free(srv);
        return;
    }
    srv->drv = drv;
    pthread_mutex_init(&srv->lock, NULL);
    pthread_cond_init(&srv->cv, NULL);
    pthread_mutex_init(&srv->mail_lock, NULL);
    pthread_cond_init(&srv->mail_cv, NULL);
    if (open_endpoint(srv, err, sizeof(err)) != 0) {
        if (drv->debugging_enabled)
            fprintf(stderr, "gtsim: program debugging is unavailable: %s\n", err);
        free(srv->queues);
        free(srv);
        return;
    }
    gtsim_srv_the_server = srv;
    atexit(remove_socket);
    if (pthread_create(&tid, NULL, gtsim_srv_dispatcher_main, srv) == 0)
        pthread_detach(tid);
    if (pthread_create(&tid, NULL, accept_main, srv) == 0)
        pthread_detach(tid);
}
