/* SPDX-License-Identifier: MIT */
#include "gtsim/dbg_req.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void stream_init(struct gtsim_req_stream *st, int fd, uint32_t poll_us)
{
    pthread_mutex_init(&st->lock, NULL);
    st->fd = fd;
    gtsim_dbg_rx_init(&st->rx, fd);
    /* Replies come within microseconds while a burst of requests is on:
     * poll for them rather than pay a wake-up each ("Cost model"). */
    st->rx.poll_us = poll_us;
}

static void stream_fini(struct gtsim_req_stream *st)
{
    close(st->fd);
    gtsim_dbg_rx_fini(&st->rx);
    pthread_mutex_destroy(&st->lock);
}

void gtsim_req_init(struct gtsim_req *q, int fd, uint32_t poll_us)
{
    stream_init(&q->first, fd, poll_us);
    atomic_init(&q->nextra, 0);
    pthread_mutex_init(&q->open_lock, NULL);
}

void gtsim_req_shut(struct gtsim_req *q)
{
    shutdown(q->first.fd, SHUT_RDWR);
    for (unsigned i = 0; i < atomic_load(&q->nextra); i++)
        shutdown(q->extra[i].fd, SHUT_RDWR);
}

void gtsim_req_fini(struct gtsim_req *q)
{
    for (unsigned i = 0; i < atomic_load(&q->nextra); i++)
        stream_fini(&q->extra[i]);
    stream_fini(&q->first);
    pthread_mutex_destroy(&q->open_lock);
}

int gtsim_req_exchange(struct gtsim_req_stream *st, uint32_t type, const void *a, size_t alen,
                       const void *b, size_t blen, int pass_fd, ze_result_t *result, void *out,
                       size_t outlen)
{
    struct gtsim_dbg_hdr h;
    const struct gtsim_dbg_reply *rep;
    void *p = NULL;
    int rc = pass_fd >= 0 ? gtsim_dbg_send_fd(st->fd, type, a, alen, pass_fd)
                          : gtsim_dbg_send(st->fd, type, a, alen, b, blen);
    if (rc)
        return rc;
    /* Only replies come on a request stream; skip anything else rather
     * than take it for the answer. */
    while (!(rc = gtsim_dbg_recv(&st->rx, &h, &p)) &&
           (h.type != GTSIM_DBG_REPLY || h.len < sizeof(*rep))) {
        free(p);
        p = NULL;
    }
    if (rc)
        return rc == -EMSGSIZE ? -EPROTO : rc; /* -EMSGSIZE says nothing went */
    rep = p;
    *result = (ze_result_t)rep->result;
    if (*result == ZE_RESULT_SUCCESS && out) {
        if (h.len - sizeof(*rep) != outlen)
            *result = ZE_RESULT_ERROR_UNKNOWN;
        else
            memcpy(out, (const uint8_t *)p + sizeof(*rep), outlen);
    }
    free(p);
    return 0;
}

/* Opens one more stream and returns it locked, or NULL (as many as may
 * be, or the debuggee refused). The debuggee gets its end on the first
 * stream, so this waits for that stream once. */
static struct gtsim_req_stream *open_stream(struct gtsim_req *q)
{
    struct gtsim_req_stream *st = NULL;
    ze_result_t r = ZE_RESULT_ERROR_UNKNOWN;
    unsigned n;
    int sv[2], rc;
    pthread_mutex_lock(&q->open_lock);
    n = atomic_load(&q->nextra);
    if (n >= GTSIM_DBG_MAX_STREAMS - 1 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        pthread_mutex_unlock(&q->open_lock);
        return NULL;
    }
    pthread_mutex_lock(&q->first.lock);
    rc = gtsim_req_exchange(&q->first, GTSIM_DBG_STREAM, NULL, 0, NULL, 0, sv[1], &r, NULL, 0);
    pthread_mutex_unlock(&q->first.lock);
    close(sv[1]);
    if (rc == 0 && r == ZE_RESULT_SUCCESS) {
        st = &q->extra[n];
        stream_init(st, sv[0], q->first.rx.poll_us);
        pthread_mutex_lock(&st->lock);
        atomic_store(&q->nextra, n + 1); /* published once usable */
    } else {
        close(sv[0]);
    }
    pthread_mutex_unlock(&q->open_lock);
    return st;
}

struct gtsim_req_stream *gtsim_req_take(struct gtsim_req *q, bool spread)
{
    struct gtsim_req_stream *st = NULL;
    if (pthread_mutex_trylock(&q->first.lock) == 0)
        return &q->first;
    if (spread) {
        unsigned n = atomic_load(&q->nextra);
        for (unsigned i = 0; i < n && !st; i++)
            if (pthread_mutex_trylock(&q->extra[i].lock) == 0)
                st = &q->extra[i];
        if (!st)
            st = open_stream(q);
    }
    if (!st) {
        pthread_mutex_lock(&q->first.lock);
        st = &q->first;
    }
    return st;
}

void gtsim_req_give(struct gtsim_req_stream *st)
{
    pthread_mutex_unlock(&st->lock);
}
