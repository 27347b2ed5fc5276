/* SPDX-License-Identifier: MIT */
/* gtsim's debug endpoint serving one debugger in the calling thread, over a
 * connection that lives in memory (gtsim_wire_direct.h). */
#include "tests/fuzz/gtsim_wire_direct.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The endpoint's connection loop (session_main: the decoder, the dispatch,
 * attach and detach) is static in dbg_server.c, so this file compiles its
 * own copy of that file. Its one external function is renamed so it does
 * not clash with the copy the program links for the real endpoint, which
 * the accept thread and the real connections keep using. Both copies are
 * the same source. */
#define gtsim_dbg_server_start gtsim_wire_direct_unused_server_start
#include "gtsim/dbg_server.c"
#undef gtsim_dbg_server_start

ssize_t __real_recvmsg(int fd, struct msghdr *m, int flags);
ssize_t __real_sendmsg(int fd, const struct msghdr *m, int flags);
int __real_close(int fd);
ssize_t __wrap_recvmsg(int fd, struct msghdr *m, int flags);
ssize_t __wrap_sendmsg(int fd, const struct msghdr *m, int flags);
int __wrap_close(int fd);

#define OUT_LIMIT ((size_t)64 << 20)
/* Stand-ins for passed descriptors. The endpoint holds at most two at once
 * (the session's event stream and one received but not taken yet); more
 * in use at the end of a session is a leak, and the session's count says so. */
#define POOL 8

struct bytes {
    uint8_t *b;
    size_t len, cap;
    bool overflow;
};

/* The in-memory connection. fd and the pool's descriptors are real (made
 * once, never closed) so that no other file gets their numbers; only the
 * numbers are used. The session's thread reads and writes the connection;
 * the endpoint's dispatcher thread may send an event meanwhile, always
 * under the session's write_lock, as every send of the endpoint is; the
 * pool's state is under lock. */
static struct {
    int fd;
    const uint8_t *in;
    size_t in_len, in_off;
    const struct gtsim_wire_pass *passes;
    size_t npasses, next_pass;
    unsigned reads, sends;
    struct bytes out, events;
    bool closed;
    pthread_mutex_t lock;
    int pool[POOL];
    bool open[POOL]; /* delivered to the endpoint and not closed since */
    unsigned passed, misused;
} dc = {.fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER};

static bool direct_fd(int fd)
{
    return fd >= 0 && fd == dc.fd;
}

/* The pool slot of fd, or -1. */
static int pool_slot(int fd)
{
    for (int i = 0; fd >= 0 && i < POOL; i++)
        if (dc.pool[i] == fd)
            return i;
    return -1;
}

/* Appends up to limit bytes of what m describes; bytes taken, or -1 when
 * more than any sane exchange (the debugger would have hung up). */
static ssize_t append(struct bytes *o, const struct msghdr *m, size_t limit)
{
    size_t n = 0;
    for (size_t i = 0; i < m->msg_iovlen; i++)
        n += m->msg_iov[i].iov_len;
    n = n < limit ? n : limit;
    if (o->overflow || o->len + n > OUT_LIMIT) {
        o->overflow = true;
        return -1;
    }
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 1 << 16;
        while (cap < o->len + n)
            cap *= 2;
        uint8_t *b = realloc(o->b, cap);
        if (!b) {
            o->overflow = true;
            return -1;
        }
        o->b = b;
        o->cap = cap;
    }
    for (size_t i = 0, left = n; left; i++) {
        size_t k = m->msg_iov[i].iov_len < left ? m->msg_iov[i].iov_len : left;
        memcpy(o->b + o->len, m->msg_iov[i].iov_base, k);
        o->len += k;
        left -= k;
    }
    return (ssize_t)n;
}

/* Puts count stand-ins into m's control buffer as the kernel would: as
 * many as fit, the rest dropped with MSG_CTRUNC. */
static void deliver_fds(struct msghdr *m, unsigned count)
{
    size_t room =
        m->msg_controllen >= CMSG_LEN(0) ? (m->msg_controllen - CMSG_LEN(0)) / sizeof(int) : 0;
    unsigned k = 0;
    struct cmsghdr *c = room ? CMSG_FIRSTHDR(m) : NULL;
    pthread_mutex_lock(&dc.lock);
    for (int i = 0; c && i < POOL && k < count && k < room; i++)
        if (!dc.open[i]) {
            dc.open[i] = true;
            memcpy(CMSG_DATA(c) + k++ * sizeof(int), &dc.pool[i], sizeof(int));
        }
    dc.passed += k;
    pthread_mutex_unlock(&dc.lock);
    if (k < count)
        m->msg_flags |= MSG_CTRUNC;
    if (!k) {
        m->msg_controllen = 0;
        return;
    }
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(k * sizeof(int));
    if (m->msg_controllen > CMSG_SPACE(k * sizeof(int)))
        m->msg_controllen = CMSG_SPACE(k * sizeof(int));
}

/* How much of n one read takes, and whether it brings a pass: as a
 * stream socket would, a read may take bytes before a message that
 * carries descriptors together with it (then it stops at that message's
 * end), or stop right before it. Every other read takes at most 3 bytes,
 * so the decoder's loops over short reads are taken by every input. */
static size_t read_size(size_t n, const struct gtsim_wire_pass **bring)
{
    const struct gtsim_wire_pass *p = dc.next_pass < dc.npasses ? &dc.passes[dc.next_pass] : NULL;
    unsigned r = dc.reads++;
    if (r % 2 && n > 3)
        n = 3;
    if (n > dc.in_len - dc.in_off)
        n = dc.in_len - dc.in_off;
    *bring = NULL;
    if (!p || p->at >= dc.in_off + n)
        return n;
    if (p->at > dc.in_off && r % 4 < 2)
        return p->at - dc.in_off;
    dc.next_pass++;
    *bring = p;
    return dc.in_off + n > p->end ? p->end - dc.in_off : n;
}

ssize_t __wrap_recvmsg(int fd, struct msghdr *m, int flags)
{
    const struct gtsim_wire_pass *bring;
    size_t n = 0, got = 0;
    if (!direct_fd(fd))
        return __real_recvmsg(fd, m, flags);
    if (dc.closed) {
        errno = EBADF;
        return -1;
    }
    for (size_t i = 0; i < m->msg_iovlen; i++)
        n += m->msg_iov[i].iov_len;
    n = read_size(n, &bring);
    m->msg_flags = 0;
    if (bring)
        deliver_fds(m, bring->count);
    else
        m->msg_controllen = 0;
    for (size_t i = 0; got < n; i++) {
        size_t k = m->msg_iov[i].iov_len < n - got ? m->msg_iov[i].iov_len : n - got;
        memcpy(m->msg_iov[i].iov_base, dc.in + dc.in_off + got, k);
        got += k;
    }
    dc.in_off += n;
    return (ssize_t)n;
}

/* The connection takes every third send only in part (at most 5 bytes),
 * so the sender's resumption after short writes is taken too; an event
 * stream takes each send whole. */
ssize_t __wrap_sendmsg(int fd, const struct msghdr *m, int flags)
{
    ssize_t r;
    int slot = pool_slot(fd);
    if (slot >= 0) {
        pthread_mutex_lock(&dc.lock);
        if (dc.open[slot]) {
            r = append(&dc.events, m, SIZE_MAX);
        } else {
            dc.misused++;
            r = -1;
        }
        pthread_mutex_unlock(&dc.lock);
        if (r < 0)
            errno = EPIPE;
        return r;
    }
    if (!direct_fd(fd))
        return __real_sendmsg(fd, m, flags);
    if (dc.closed) {
        errno = EBADF;
        return -1;
    }
    r = append(&dc.out, m, dc.sends++ % 3 == 2 ? 5 : SIZE_MAX);
    if (r < 0)
        errno = EPIPE;
    return r;
}

int __wrap_close(int fd)
{
    int slot = pool_slot(fd);
    bool was_open;
    if (slot >= 0) {
        pthread_mutex_lock(&dc.lock);
        was_open = dc.open[slot];
        dc.open[slot] = false;
        dc.misused += !was_open;
        pthread_mutex_unlock(&dc.lock);
        if (was_open)
            return 0;
        errno = EBADF;
        return -1;
    }
    if (!direct_fd(fd))
        return __real_close(fd);
    dc.closed = true;
    return 0;
}

/* The descriptors, made once. */
static bool open_stand_ins(void)
{
    if (dc.fd >= 0)
        return true;
    for (int i = 0; i < POOL; i++)
        if ((dc.pool[i] = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
            return false;
    dc.fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    return dc.fd >= 0;
}

static void reset(const uint8_t *data, size_t size, const struct gtsim_wire_pass *passes,
                  size_t npasses)
{
    dc.in = data;
    dc.in_len = size;
    dc.in_off = 0;
    dc.passes = passes;
    dc.npasses = npasses;
    dc.next_pass = 0;
    dc.reads = dc.sends = 0;
    dc.out.len = dc.events.len = 0;
    dc.out.overflow = dc.events.overflow = false;
    dc.closed = false;
    dc.passed = dc.misused = 0;
}

/* What accept_main does for a connection it accepts (the peer's uid was
 * checked: ours), then its connection loop, here in this thread. */
int gtsim_wire_direct_session(const uint8_t *data, size_t size,
                              const struct gtsim_wire_pass *passes, size_t npasses,
                              struct gtsim_wire_result *res)
{
    struct gtsim_dbg_server *srv = gtsim_srv_the_server;
    struct srv_session *s;

    memset(res, 0, sizeof(*res));
    if (!srv || !open_stand_ins() || !(s = calloc(1, sizeof(*s))))
        return -1;
    reset(data, size, passes, npasses);
    s->srv = srv;
    s->fd = dc.fd;
    s->event_fd = -1;
    gtsim_dbg_rx_init(&s->rx, dc.fd);
    s->last_fault = ~(uint64_t)0;
    pthread_mutex_init(&s->write_lock, NULL);
    pthread_mutex_lock(&srv->lock);
    s->next = srv->sessions;
    srv->sessions = s;
    pthread_mutex_unlock(&srv->lock);
    session_main(s); /* frees s */
    pthread_mutex_lock(&dc.lock);
    res->out = dc.out.b;
    res->out_len = dc.out.len;
    res->events = dc.events.b;
    res->events_len = dc.events.len;
    res->passed = dc.passed;
    res->misused = dc.misused;
    for (int i = 0; i < POOL; i++) {
        res->left_open += dc.open[i];
        dc.open[i] = false; /* a leak is reported once; the next session starts clean */
    }
    pthread_mutex_unlock(&dc.lock);
    return dc.closed && !dc.out.overflow ? 0 : -1;
}
