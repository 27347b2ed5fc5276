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

ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __real_send(int fd, const void *buf, size_t n, int flags);
int __real_close(int fd);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap_send(int fd, const void *buf, size_t n, int flags);
int __wrap_close(int fd);

#define OUT_LIMIT ((size_t)64 << 20)

/* The in-memory connection. fd is a real descriptor (made once, never
 * closed) so that no other file gets its number; only the number is used.
 * The session's thread reads and writes it; the endpoint's dispatcher
 * thread may write an event meanwhile, always under the session's
 * write_lock, as every send of the endpoint is. */
static struct {
    int fd;
    const uint8_t *in;
    size_t in_len, in_off;
    unsigned reads;
    uint8_t *out;
    size_t out_len, out_cap;
    bool overflow, closed;
} dc = {.fd = -1};

static bool direct_fd(int fd)
{
    return fd >= 0 && fd == dc.fd;
}

/* Every other read returns at most 3 bytes, as a stream socket may: the
 * decoder's loops over short reads are taken by every input. */
ssize_t __wrap_read(int fd, void *buf, size_t n)
{
    if (!direct_fd(fd))
        return __real_read(fd, buf, n);
    if (dc.closed) {
        errno = EBADF;
        return -1;
    }
    if (dc.reads++ % 2 && n > 3)
        n = 3;
    if (n > dc.in_len - dc.in_off)
        n = dc.in_len - dc.in_off;
    memcpy(buf, dc.in + dc.in_off, n);
    dc.in_off += n;
    return (ssize_t)n;
}

ssize_t __wrap_send(int fd, const void *buf, size_t n, int flags)
{
    if (!direct_fd(fd))
        return __real_send(fd, buf, n, flags);
    if (dc.closed || dc.overflow) {
        errno = dc.closed ? EBADF : EPIPE;
        return -1;
    }
    if (dc.out_len + n > dc.out_cap) {
        size_t cap = dc.out_cap ? dc.out_cap : 1 << 16;
        while (cap < dc.out_len + n)
            cap *= 2;
        uint8_t *b = cap <= OUT_LIMIT ? realloc(dc.out, cap) : NULL;
        if (!b) {
            dc.overflow = true; /* the debugger would have hung up */
            errno = EPIPE;
            return -1;
        }
        dc.out = b;
        dc.out_cap = cap;
    }
    memcpy(dc.out + dc.out_len, buf, n);
    dc.out_len += n;
    return (ssize_t)n;
}

int __wrap_close(int fd)
{
    if (!direct_fd(fd))
        return __real_close(fd);
    dc.closed = true;
    return 0;
}

/* What accept_main does for a connection it accepts (the peer's uid was
 * checked: ours), then its connection loop, here in this thread. */
int gtsim_wire_direct_session(const uint8_t *data, size_t size, const uint8_t **out,
                              size_t *out_len)
{
    struct gtsim_dbg_server *srv = gtsim_srv_the_server;
    struct srv_session *s;

    *out = NULL;
    *out_len = 0;
    if (dc.fd < 0)
        dc.fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (!srv || dc.fd < 0 || !(s = calloc(1, sizeof(*s))))
        return -1;
    dc.in = data;
    dc.in_len = size;
    dc.in_off = 0;
    dc.reads = 0;
    dc.out_len = 0;
    dc.overflow = dc.closed = false;
    s->srv = srv;
    s->fd = dc.fd;
    s->last_fault = ~(uint64_t)0;
    pthread_mutex_init(&s->write_lock, NULL);
    pthread_mutex_lock(&srv->lock);
    s->next = srv->sessions;
    srv->sessions = s;
    pthread_mutex_unlock(&srv->lock);
    session_main(s); /* frees s */
    *out = dc.out;
    *out_len = dc.out_len;
    return dc.closed && !dc.overflow ? 0 : -1;
}
