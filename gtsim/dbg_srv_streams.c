/* SPDX-License-Identifier: MIT */
/* A session's further request streams. Intel's runtime reads registers and
 * memory in the calling thread, taking no session lock, so a debugger that
 * calls from several host threads has several accesses in flight; here
 * each such thread gets a stream of its own, answered by a thread of its
 * own (README.md, "Cost model"). The session's first stream still carries
 * attach, detach and everything a single-threaded debugger asks. */
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gtsim/dbg_srv_int.h"

struct srv_stream {
    struct srv_session *s;
    int fd;
    struct gtsim_dbg_rx rx;
};

static bool streamable(uint32_t type)
{
    return type == GTSIM_DBG_READ_MEM || type == GTSIM_DBG_WRITE_MEM ||
           type == GTSIM_DBG_READ_REGS || type == GTSIM_DBG_WRITE_REGS ||
           type == GTSIM_DBG_RESUME || type == GTSIM_DBG_ACK;
}

/* Closes the stream and says it is gone, under srv->lock: the session's
 * end waits for every stream closed (the debugger's descriptor is then
 * released), and never shuts a number already closed and reused. */
static void forget(struct srv_session *s, int fd)
{
    struct gtsim_dbg_server *srv = s->srv;
    pthread_mutex_lock(&srv->lock);
    close(fd);
    for (unsigned i = 0; i < s->nstreams; i++)
        if (s->streams[i] == fd) {
            s->streams[i] = s->streams[--s->nstreams];
            break;
        }
    pthread_cond_broadcast(&srv->cv); /* gtsim_srv_end_streams waits for this */
    pthread_mutex_unlock(&srv->lock);
}

static void *stream_main(void *arg)
{
    struct srv_stream *st = arg;
    struct gtsim_dbg_hdr h;
    void *p;
    while (gtsim_dbg_recv(&st->rx, &h, &p) == 0) {
        /* Attach and detach stay on the first stream: they change what
         * the other streams' requests may touch. */
        if (streamable(h.type))
            gtsim_srv_request(st->s, st->fd, &h, p);
        else
            gtsim_srv_reply_to(st->s, st->fd, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
        free(p);
    }
    gtsim_dbg_rx_fini(&st->rx); /* a descriptor the stream brought, if any */
    forget(st->s, st->fd);
    free(st);
    return NULL;
}

void gtsim_srv_open_stream(struct srv_session *s, int fd)
{
    struct gtsim_dbg_server *srv = s->srv;
    struct srv_stream *st = NULL;
    pthread_t tid;
    bool ok = false;
    pthread_mutex_lock(&srv->lock);
    if (fd >= 0 && s->attached && s->nstreams < GTSIM_DBG_MAX_STREAMS - 1 &&
        (st = calloc(1, sizeof(*st))) != NULL) {
        st->s = s;
        st->fd = fd;
        gtsim_dbg_rx_init(&st->rx, fd);
        st->rx.poll_us = s->rx.poll_us;
        s->streams[s->nstreams++] = fd;
        ok = pthread_create(&tid, NULL, stream_main, st) == 0;
        if (ok)
            pthread_detach(tid);
        else
            s->nstreams--;
    }
    pthread_mutex_unlock(&srv->lock);
    if (!ok) {
        free(st);
        if (fd >= 0)
            close(fd);
    }
    gtsim_srv_reply(s, ok ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
}

void gtsim_srv_end_streams(struct srv_session *s)
{
    struct gtsim_dbg_server *srv = s->srv;
    pthread_mutex_lock(&srv->lock);
    for (unsigned i = 0; i < s->nstreams; i++)
        shutdown(s->streams[i], SHUT_RDWR); /* ends the thread's recv */
    while (s->nstreams)
        pthread_cond_wait(&srv->cv, &srv->lock);
    pthread_mutex_unlock(&srv->lock);
}
