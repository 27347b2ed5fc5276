/* SPDX-License-Identifier: MIT */
#include "gdbstub/transport.h"

#include "gdbstub/peercred.h"
#include "gdbstub/turnaway.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;
    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code < 0 ? code : -EINVAL;
}

static int set_nonblock(int fd, int *old)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -errno;
    if (old)
        *old = fl;
    if (!(fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return -errno;
    return 0;
}

/* Splits "[HOST]:PORT" / "[v6]:PORT"; host is "" when not given. */
static int split_hostport(const char *spec, char *host, size_t hostlen, unsigned *port)
{
    const char *colon, *h = spec, *hend;
    char *end;
    unsigned long p;

    if (spec[0] == '[') {
        hend = strchr(spec, ']');
        if (!hend || hend[1] != ':')
            return -EINVAL;
        h = spec + 1;
        colon = hend + 1;
    } else {
        colon = strrchr(spec, ':');
        if (!colon)
            return -EINVAL;
        hend = colon;
    }
    if ((size_t)(hend - h) >= hostlen)
        return -ENAMETOOLONG;
    memcpy(host, h, (size_t)(hend - h));
    host[hend - h] = 0;
    if (!colon[1])
        return -EINVAL;
    errno = 0;
    p = strtoul(colon + 1, &end, 10);
    if (errno || *end || p > 65535 || colon[1] == '-' || colon[1] == '+')
        return -EINVAL;
    *port = (unsigned)p;
    return 0;
}

/* Loopback: 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104. Any other family
 * is taken as reachable: the decision must fail closed. */
static bool is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const void *)sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const void *)sa;
        const uint8_t *b = in6->sin6_addr.s6_addr;
        return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
               (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && b[12] == 127);
    }
    return false;
}

bool rsp_addrinfo_exposed(const struct addrinfo *res, char *addr, size_t addrlen)
{
    for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        if (ai->ai_addr && is_loopback(ai->ai_addr))
            continue;
        bool inet = ai->ai_addr &&
                    (ai->ai_addr->sa_family == AF_INET || ai->ai_addr->sa_family == AF_INET6);
        if (addr && addrlen &&
            (!inet || getnameinfo(ai->ai_addr, ai->ai_addrlen, addr, (socklen_t)addrlen, NULL, 0,
                                  NI_NUMERICHOST) != 0))
            snprintf(addr, addrlen, "an address of family %d", ai->ai_family);
        return true;
    }
    return false;
}

/* What listen_tcp resolves: host ("" = 127.0.0.1) and port as getaddrinfo
 * results for a passive stream socket. 0 or getaddrinfo's code. */
static int resolve(char *host, size_t hostlen, unsigned port, struct addrinfo **res)
{
    struct addrinfo hints;
    char portstr[8];

    if (!host[0])
        snprintf(host, hostlen, "127.0.0.1");
    snprintf(portstr, sizeof(portstr), "%u", port);
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    return getaddrinfo(host, portstr, &hints, res);
}

bool rsp_spec_exposed(const char *spec, char *addr, size_t addrlen)
{
    char host[64];
    unsigned port;
    struct addrinfo *res = NULL;
    bool exposed;

    if (!spec || strcmp(spec, "-") == 0 || strcmp(spec, "stdio") == 0 ||
        strncmp(spec, "unix:", 5) == 0)
        return false;
    if (split_hostport(spec, host, sizeof(host), &port) < 0 ||
        resolve(host, sizeof(host), port, &res) != 0)
        return false;
    exposed = rsp_addrinfo_exposed(res, addr, addrlen);
    freeaddrinfo(res);
    return exposed;
}

bool rsp_spec_is_nonlocal(const char *spec)
{
    return rsp_spec_exposed(spec, NULL, 0);
}

/* Binds and listens on the first address that takes it; the fd or
 * -errno. */
static int bind_first(const struct addrinfo *res)
{
    int fd, one = 1, saved = EADDRNOTAVAIL;

    for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        /* A restarted server must be able to reuse the port at once. */
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 1) == 0)
            return fd;
        saved = errno;
        close(fd);
    }
    return -saved;
}

static int listen_tcp(struct rsp_listener *l, const char *spec, const struct rsp_listen_opts *o,
                      char *err, size_t errlen)
{
    struct addrinfo *res = NULL;
    char host[64];
    unsigned port;
    int rc, fd;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);

    rc = split_hostport(spec, host, sizeof(host), &port);
    if (rc < 0)
        return fail(err, errlen, rc, "'%s' is not [HOST]:PORT, unix:PATH or -", spec);
    rc = resolve(host, sizeof(host), port, &res);
    if (rc != 0)
        return fail(err, errlen, -EADDRNOTAVAIL, "cannot resolve '%s': %s", host, gai_strerror(rc));
    /* Decided on every address the name resolved to, the very list that
     * is bound: not on how the host is spelt, and not on a second lookup
     * that could answer differently. */
    l->nonlocal = rsp_addrinfo_exposed(res, l->exposed, sizeof(l->exposed));
    if (l->nonlocal && !o->allow_remote) {
        freeaddrinfo(res);
        return fail(err, errlen, -EACCES,
                    "'%s' resolves to %s, which other machines can reach: listening there "
                    "needs --allow-remote (the remote protocol has no authentication)",
                    host, l->exposed);
    }
    fd = bind_first(res);
    freeaddrinfo(res);
    if (fd < 0)
        return fail(err, errlen, fd, "cannot listen on %s:%u: %s", host, port, strerror(-fd));
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET)
            port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        else if (ss.ss_family == AF_INET6)
            port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    }
    l->kind = RSP_TRANSPORT_TCP;
    l->fd = fd;
    l->port = port;
    snprintf(l->host, sizeof(l->host), "%s", host);
    return 0;
}

/* A socket file nobody listens on is left over from a crash: remove it.
 * Anything else at the path (a live server, a regular file) is an error. */
static bool stale_socket(const char *path)
{
    struct stat st;
    struct sockaddr_un sa;
    int fd, rc;

    if (lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode))
        return false;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    close(fd);
    return rc < 0 && errno == ECONNREFUSED;
}

/* The first directory above path that other users cannot search (so
 * cannot reach the socket in), into l->closed_dir; "" when none. */
static void find_closed_dir(struct rsp_listener *l, const char *path)
{
    char dir[sizeof(l->path)];
    struct stat st;

    l->closed_dir[0] = 0;
    snprintf(dir, sizeof(dir), "%s", path);
    for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
        if (slash == dir)
            slash[1] = 0; /* the root itself */
        else
            *slash = 0;
        if (stat(dir, &st) == 0 && !(st.st_mode & S_IXOTH)) {
            snprintf(l->closed_dir, sizeof(l->closed_dir), "%s", dir);
            return;
        }
        if (slash == dir)
            return;
    }
    if (path[0] != '/' && stat(".", &st) == 0 && !(st.st_mode & S_IXOTH))
        snprintf(l->closed_dir, sizeof(l->closed_dir), "the current directory");
}

static int listen_unix(struct rsp_listener *l, const char *path, const struct rsp_listen_opts *o,
                       char *err, size_t errlen)
{
    struct sockaddr_un sa;
    int fd, e;

    if (!path[0])
        return fail(err, errlen, -EINVAL, "unix: needs a path");
    if (strlen(path) >= sizeof(sa.sun_path) || strlen(path) >= sizeof(l->path))
        return fail(err, errlen, -ENAMETOOLONG, "unix socket path too long (max %zu bytes)",
                    sizeof(sa.sun_path) - 1);
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(err, errlen, -errno, "socket: %s", strerror(errno));
    e = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? errno : 0;
    if (e == EADDRINUSE && stale_socket(path) && unlink(path) == 0)
        e = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? errno : 0;
    if (e) {
        close(fd);
        return fail(err, errlen, -e, "cannot bind %s: %s", path, strerror(e));
    }
    /* Owner only: whoever connects controls the GPU process. Before listen,
     * connects are refused, so the window before chmod is harmless. With
     * --allow-any-user every user may connect (the peer's uid still
     * decides what it may do, confine.h). */
    if (chmod(path, o->allow_any_user ? 0666 : 0600) < 0 || listen(fd, 1) < 0) {
        e = errno;
        close(fd);
        unlink(path);
        return fail(err, errlen, -e, "cannot listen on %s: %s", path, strerror(e));
    }
    l->kind = RSP_TRANSPORT_UNIX;
    l->fd = fd;
    snprintf(l->path, sizeof(l->path), "%s", path);
    if (o->allow_any_user)
        find_closed_dir(l, path);
    return 0;
}

int rsp_listen(struct rsp_listener *l, const char *spec, char *err, size_t errlen)
{
    const struct rsp_listen_opts o = {.allow_remote = true};
    return rsp_listen_ex(l, spec, &o, err, errlen);
}

int rsp_listen_ex(struct rsp_listener *l, const char *spec, const struct rsp_listen_opts *o,
                  char *err, size_t errlen)
{
    memset(l, 0, sizeof(*l));
    l->fd = -1;
    l->allow_any_user = o->allow_any_user;
    l->unconfined = o->unconfined;
    if (!spec || !spec[0])
        return fail(err, errlen, -EINVAL, "no address given ([HOST]:PORT, unix:PATH or -)");
    if (strcmp(spec, "-") == 0 || strcmp(spec, "stdio") == 0) {
        l->kind = RSP_TRANSPORT_STDIO;
        return 0;
    }
    if (strncmp(spec, "unix:", 5) == 0)
        return listen_unix(l, spec + 5, o, err, errlen);
    return listen_tcp(l, spec, o, err, errlen);
}

static void conn_init(struct rsp_conn *c)
{
    memset(c, 0, sizeof(*c));
    c->in_fd = c->out_fd = -1;
    rsp_buf_init(&c->out);
}

/* Applies the listener's rule on who may connect, and records who did in
 * c (peer_known, peer_uid, confined); a refusal is reported through
 * l->refused. */
static bool peer_may_connect(const struct rsp_listener *l, int fd, struct rsp_conn *c, char *why,
                             size_t whylen)
{
    uid_t uid, self = geteuid();
    int rc = rsp_peer_uid(fd, l->proc_net, &uid);

    c->peer_known = rc == 0;
    c->peer_uid = rc == 0 ? uid : (uid_t)-1;
    if (rc == -ENOENT && l->nonlocal)
        return true; /* another machine: only --allow-remote binds there */
    if (l->allow_any_user) {
        /* Let in, but a user other than ours (or one we cannot tell) may
         * not act as us beyond debugging: confine.h. */
        c->confined = !l->unconfined && !(rc == 0 && (uid == self || uid == 0));
        return true;
    }
    if (rc == 0)
        rc = rsp_peer_allowed(uid, self, why, whylen);
    else
        snprintf(why, whylen,
                 "refused a connection: cannot tell which user made it (%s); "
                 "--allow-any-user lets every local user in",
                 strerror(-rc));
    if (rc == 0)
        return true;
    if (l->refused)
        l->refused(l->refused_ctx, why);
    return false;
}

int rsp_accept(struct rsp_listener *l, struct rsp_conn *c, int wake_fd, char *err, size_t errlen)
{
    int fd, rc, one = 1;
    char why[RSP_ERR_LEN];

    conn_init(c);
    if (l->kind == RSP_TRANSPORT_STDIO) {
        if (l->stdio_used)
            return fail(err, errlen, -ENOENT, "stdin/stdout serve one connection only");
        l->stdio_used = true;
        c->restore_flags = true;
        rc = set_nonblock(0, &c->in_flags);
        if (rc == 0)
            rc = set_nonblock(1, &c->out_flags);
        if (rc < 0)
            return fail(err, errlen, rc, "stdin/stdout: %s", strerror(-rc));
        c->in_fd = 0;
        c->out_fd = 1;
        return 0;
    }
    for (;;) {
        /* Wait for a client or the wake fd (a signal handler's self-pipe):
         * SIGTERM while nobody is connected must still end the server. */
        struct pollfd p[2] = {{.fd = l->fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
        if (poll(p, wake_fd >= 0 ? 2 : 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            return fail(err, errlen, -errno, "poll: %s", strerror(errno));
        }
        if (wake_fd >= 0 && (p[1].revents & POLLIN))
            return fail(err, errlen, -EINTR, "interrupted while waiting for a client");
        fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0 && peer_may_connect(l, fd, c, why, sizeof(why)))
            break;
        if (fd >= 0) {
            rsp_turn_away(fd, why); /* its GDB says why, as our log does */
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN || errno == EWOULDBLOCK)
            continue;
        return fail(err, errlen, -errno, "accept: %s", strerror(errno));
    }
    if (l->kind == RSP_TRANSPORT_TCP) /* small packets, strict request/reply */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    rc = set_nonblock(fd, NULL);
    if (rc < 0) {
        close(fd);
        return fail(err, errlen, rc, "client socket: %s", strerror(-rc));
    }
    c->in_fd = c->out_fd = fd;
    c->is_socket = true;
    return 0;
}

void rsp_listener_turn_away(struct rsp_listener *l, const char *busy)
{
    struct rsp_conn c;
    char why[RSP_ERR_LEN];
    int fd;

    if (l->kind == RSP_TRANSPORT_STDIO || l->fd < 0)
        return;
    fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0)
        return; /* gone before we looked, or a transient error: nothing to tell */
    conn_init(&c);
    if (peer_may_connect(l, fd, &c, why, sizeof(why))) {
        snprintf(why, sizeof(why), "%s", busy);
        if (l->refused)
            l->refused(l->refused_ctx, "turned away a second client: zestub serves one client "
                                       "at a time and another one is connected");
    }
    rsp_turn_away(fd, why);
}

void rsp_listener_close(struct rsp_listener *l)
{
    if (l->fd >= 0)
        close(l->fd);
    if (l->kind == RSP_TRANSPORT_UNIX && l->path[0])
        unlink(l->path);
    l->fd = -1;
    l->path[0] = 0;
}

int rsp_conn_open_fds(struct rsp_conn *c, int in_fd, int out_fd, char *err, size_t errlen)
{
    int rc, type;
    socklen_t tl = sizeof(type);

    conn_init(c);
    rc = set_nonblock(in_fd, NULL);
    if (rc == 0 && out_fd != in_fd)
        rc = set_nonblock(out_fd, NULL);
    if (rc < 0)
        return fail(err, errlen, rc, "descriptors: %s", strerror(-rc));
    c->in_fd = in_fd;
    c->out_fd = out_fd;
    c->is_socket = getsockopt(out_fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0;
    return 0;
}

ssize_t rsp_conn_read(struct rsp_conn *c, void *buf, size_t n)
{
    for (;;) {
        ssize_t r = read(c->in_fd, buf, n);
        if (r > 0)
            return r;
        if (r == 0)
            return -EPIPE;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return -errno;
    }
}

static ssize_t raw_write(struct rsp_conn *c, const void *p, size_t n)
{
    if (c->is_socket)
        return send(c->out_fd, p, n, MSG_NOSIGNAL);
    return write(c->out_fd, p, n);
}

int rsp_conn_flush(struct rsp_conn *c)
{
    int rc = 0;
    /* What was sent is not moved out after each write, nor after each
     * flush: with a client that reads slowly the queue holds up to a
     * megabyte, every reply queued flushes, and moving the unsent rest down
     * each time copied the queue over and over (a reply's worth sent, a
     * megabyte moved). The written bytes are dropped when the queue
     * empties, or once they are at least as many as the rest, so each
     * byte is moved at most about once. */
    while (c->out_sent < c->out.len) {
        ssize_t w = raw_write(c, c->out.data + c->out_sent, c->out.len - c->out_sent);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            rc = errno == EAGAIN || errno == EWOULDBLOCK ? 1 : -errno;
            break;
        }
        c->out_sent += (size_t)w;
    }
    if (c->out_sent > 0 && c->out_sent >= c->out.len - c->out_sent) {
        rsp_buf_consume(&c->out, c->out_sent);
        c->out_sent = 0;
    }
    return rc;
}

int rsp_conn_write(struct rsp_conn *c, const void *data, size_t n)
{
    rsp_buf_put(&c->out, data, n);
    if (c->out.oom)
        return -ENOMEM;
    return rsp_conn_flush(c) < 0 ? -EPIPE : 0;
}

bool rsp_conn_pending(const struct rsp_conn *c)
{
    return c->out.len > c->out_sent;
}

bool rsp_conn_congested(const struct rsp_conn *c)
{
    return c->out.len - c->out_sent >= RSP_OUT_HIGH_WATER;
}

int rsp_conn_drain(struct rsp_conn *c, int timeout_ms)
{
    int rc;
    while ((rc = rsp_conn_flush(c)) == 1) {
        struct pollfd p = {.fd = c->out_fd, .events = POLLOUT};
        int r = poll(&p, 1, timeout_ms);
        if (r == 0)
            return -ETIMEDOUT;
        if (r < 0 && errno != EINTR)
            return -errno;
    }
    return rc;
}

void rsp_conn_close(struct rsp_conn *c)
{
    if (c->restore_flags) {
        fcntl(c->in_fd, F_SETFL, c->in_flags);
        fcntl(c->out_fd, F_SETFL, c->out_flags);
    } else {
        if (c->in_fd >= 0)
            close(c->in_fd);
        if (c->out_fd >= 0 && c->out_fd != c->in_fd)
            close(c->out_fd);
    }
    c->in_fd = c->out_fd = -1;
    c->confined = false;
    rsp_buf_free(&c->out);
    c->out_sent = 0;
}
