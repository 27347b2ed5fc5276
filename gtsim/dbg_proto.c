/* SPDX-License-Identifier: MIT */
#include "gtsim/dbg_proto.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "gtsim/config.h"

int gtsim_dbg_runtime_dir(uid_t uid, char *buf, size_t len)
{
    /* GTSIM_RUNTIME_DIR lets tests isolate themselves; both processes must
     * agree on it, like they agree on GTSIM_CONFIG. */
    const char *base = getenv("GTSIM_RUNTIME_DIR");
    int n = snprintf(buf, len, "%s/gtsim-%u", base && *base ? base : "/tmp", (unsigned)uid);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int gtsim_dbg_socket_path(pid_t pid, uid_t uid, char *buf, size_t len)
{
    char dir[80];
    int n;
    if (gtsim_dbg_runtime_dir(uid, dir, sizeof(dir)))
        return -ENAMETOOLONG;
    n = snprintf(buf, len, "%s/%d.sock", dir, (int)pid);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Sends what m describes, resuming after short writes. One sendmsg per
 * message in the usual case: a header written on its own would wake the
 * peer's reader for 8 bytes, and it would then sleep again for the rest. */
static int send_all(int fd, struct msghdr *m)
{
    for (;;) {
        ssize_t w = sendmsg(fd, m, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -EPIPE;
        m->msg_control = NULL; /* a passed fd goes with the first bytes only */
        m->msg_controllen = 0;
        while (m->msg_iovlen && (size_t)w >= m->msg_iov->iov_len) {
            w -= (ssize_t)m->msg_iov->iov_len;
            m->msg_iov++;
            m->msg_iovlen--;
        }
        if (!m->msg_iovlen)
            return 0;
        m->msg_iov->iov_base = (uint8_t *)m->msg_iov->iov_base + w;
        m->msg_iov->iov_len -= (size_t)w;
    }
}

static int send_msg(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen,
                    int pass_fd)
{
    struct gtsim_dbg_hdr h = {type, (uint32_t)(alen + blen)};
    struct iovec iov[3] = {{&h, sizeof(h)}, {(void *)a, alen}, {(void *)b, blen}};
    union {
        struct cmsghdr c;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = 1 + (alen > 0) + (blen > 0)};
    if (alen + blen > GTSIM_DBG_MAX_PAYLOAD)
        return -EMSGSIZE;
    if (!alen && blen)
        iov[1] = iov[2];
    if (pass_fd >= 0) {
        memset(&ctl, 0, sizeof(ctl));
        m.msg_control = ctl.buf;
        m.msg_controllen = sizeof(ctl.buf);
        ctl.c.cmsg_level = SOL_SOCKET;
        ctl.c.cmsg_type = SCM_RIGHTS;
        ctl.c.cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(&ctl.c), &pass_fd, sizeof(int));
    }
    return send_all(fd, &m);
}

int gtsim_dbg_send(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
    return send_msg(fd, type, a, alen, b, blen, -1);
}

int gtsim_dbg_send_fd(int fd, uint32_t type, const void *a, size_t alen, int pass_fd)
{
    return send_msg(fd, type, a, alen, NULL, 0, pass_fd);
}

void gtsim_dbg_rx_init(struct gtsim_dbg_rx *rx, int fd)
{
    rx->fd = fd;
    rx->passed = -1;
    rx->off = rx->len = 0;
    rx->poll_us = 0;
}

void gtsim_dbg_rx_fini(struct gtsim_dbg_rx *rx)
{
    if (rx->passed >= 0)
        close(rx->passed);
    rx->passed = -1;
}

int gtsim_dbg_rx_take_fd(struct gtsim_dbg_rx *rx)
{
    int fd = rx->passed;
    rx->passed = -1;
    return fd;
}

/* The descriptors c brought are ours now, however many a peer sent (the
 * control buffer has room for two): only the latest is kept, the others
 * are closed rather than leaked. */
static void keep_passed(struct gtsim_dbg_rx *rx, const struct cmsghdr *c)
{
    size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < n; i++) {
        if (rx->passed >= 0)
            close(rx->passed);
        memcpy(&rx->passed, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
    }
}

/* One recvmsg into p (up to n bytes); keeps a descriptor that came with
 * the bytes. Bytes read, or -errno (-EPIPE on end of stream). */
static ssize_t recv_some(struct gtsim_dbg_rx *rx, void *p, size_t n)
{
    union {
        struct cmsghdr c;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct iovec iov = {p, n};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    ssize_t r;
    struct timespec t0, t;
    int flags = rx->poll_us ? MSG_DONTWAIT : 0;
    if (flags)
        clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        m.msg_control = ctl.buf;
        m.msg_controllen = sizeof(ctl.buf);
        r = recvmsg(rx->fd, &m, MSG_CMSG_CLOEXEC | flags);
        if (r >= 0)
            break;
        if (errno == EINTR)
            continue;
        if (!flags || (errno != EAGAIN && errno != EWOULDBLOCK))
            break;
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) >
            (long)rx->poll_us * 1000L)
            flags = 0; /* the peer is slow: sleep until it answers */
    }
    if (r <= 0)
        return r < 0 ? -errno : -EPIPE;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            keep_passed(rx, c);
    return r;
}

/* Takes n bytes of the stream, from the buffer first. A large remainder
 * goes straight to p, as copying it through the buffer gains nothing. */
static int take(struct gtsim_dbg_rx *rx, void *p, size_t n)
{
    uint8_t *b = p;
    while (n) {
        size_t k;
        if (rx->off == rx->len) {
            ssize_t r;
            rx->off = rx->len = 0;
            if (n >= sizeof(rx->buf)) {
                if ((r = recv_some(rx, b, n)) < 0)
                    return (int)r;
                b += r;
                n -= (size_t)r;
                continue;
            }
            if ((r = recv_some(rx, rx->buf, sizeof(rx->buf))) < 0)
                return (int)r;
            rx->len = (uint32_t)r;
        }
        k = rx->len - rx->off < n ? rx->len - rx->off : n;
        memcpy(b, rx->buf + rx->off, k);
        rx->off += (uint32_t)k;
        b += k;
        n -= k;
    }
    return 0;
}

int gtsim_dbg_recv(struct gtsim_dbg_rx *rx, struct gtsim_dbg_hdr *hdr, void **payload)
{
    int rc = take(rx, hdr, sizeof(*hdr));
    *payload = NULL;
    if (!rc && hdr->len > GTSIM_DBG_MAX_PAYLOAD)
        rc = -EMSGSIZE;
    /* One spare byte so an empty payload still gives a valid pointer. */
    if (!rc && !(*payload = malloc(hdr->len + 1)))
        rc = -ENOMEM;
    if (!rc)
        rc = take(rx, *payload, hdr->len);
    if (rc) {
        free(*payload);
        *payload = NULL;
    }
    return rc;
}

uint64_t gtsim_dbg_config_id(const struct gtsim_config *c)
{
    uint64_t v[] = {(uint64_t)c->platform, c->devices, c->tiles,  c->slices,
                    c->subslices,          c->eus,     c->threads};
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        h ^= v[i];
        h *= 1099511628211ull;
    }
    return h;
}
