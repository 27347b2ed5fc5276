/* SPDX-License-Identifier: MIT */
/* gdbstub's transports without a server: which addresses count as
 * non-local, listen specs that are refused (each with a sentence), TCP on
 * IPv4 and IPv6 loopback, a port in use, unix sockets (a path too long, a
 * directory that does not exist, a stale socket file replaced, a regular
 * file refused), accept woken by the wake fd, stdio serving one
 * connection, and connections whose peer went away. Expected values come
 * from the address formats of transport.h and from the kernel (ports,
 * errno), never from the code under test. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "gdbstub/transport.h"
#include "tests/lib/tap.h"

/* The spec is refused with a negative errno and a sentence. */
static void refused(const char *spec, const char *why)
{
    struct rsp_listener l;
    char err[RSP_ERR_LEN] = "";
    int rc = rsp_listen(&l, spec, err, sizeof(err));
    tap_ok(rc < 0 && err[0], "listen '%s' refused (%s): %s", spec, why, err);
    if (rc == 0)
        rsp_listener_close(&l);
}

/* A TCP listener on 127.0.0.1 or ::1 accepts a client that connects. */
static void tcp_roundtrip(void)
{
    struct rsp_listener l;
    struct rsp_conn c;
    struct sockaddr_in sa;
    char err[RSP_ERR_LEN] = "", buf[8];
    int fd;

    int rc = rsp_listen(&l, ":0", err, sizeof(err));

    if (!tap_ok(rc == 0 && l.port > 0 && !l.nonlocal,
                "':0' listens on a free loopback port (%u): %s", l.port, err))
        return;
    fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)l.port);
    sa.sin_addr.s_addr = htonl(0x7f000001);
    tap_ok(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
               rsp_accept(&l, &c, -1, err, sizeof(err)) == 0 && c.is_socket,
           "a client connects and is accepted: %s", err);
    tap_ok(write(fd, "+$", 2) == 2 && rsp_conn_read(&c, buf, sizeof(buf)) == 2 &&
               memcmp(buf, "+$", 2) == 0,
           "its bytes are read");
    tap_ok(rsp_conn_read(&c, buf, sizeof(buf)) == 0, "nothing more: read returns 0");
    close(fd);
    tap_ok(rsp_conn_read(&c, buf, sizeof(buf)) == -EPIPE, "the client closed: -EPIPE");
    rsp_conn_close(&c);

    /* The same port again while it is in use. */
    {
        struct rsp_listener l2;
        char spec[32];
        snprintf(spec, sizeof(spec), "127.0.0.1:%u", l.port);
        tap_ok(rsp_listen(&l2, spec, err, sizeof(err)) == -EADDRINUSE && strstr(err, spec),
               "a port in use: -EADDRINUSE, naming it: %s", err);
    }
    rsp_listener_close(&l);
}

static void tcp6(void)
{
    struct rsp_listener l;
    char err[RSP_ERR_LEN] = "";
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 sa;
    int bound;

    /* Whether this machine has IPv6 loopback, asked of the kernel. */
    memset(&sa, 0, sizeof(sa));
    sa.sin6_family = AF_INET6;
    sa.sin6_addr = in6addr_loopback;
    bound = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
    if (fd >= 0)
        close(fd);
    if (!bound) {
        tap_skip("IPv6 loopback: ::1 cannot be bound on this machine");
        return;
    }
    bound = rsp_listen(&l, "[::1]:0", err, sizeof(err)) == 0;
    tap_ok(bound && l.port > 0 && !l.nonlocal && strcmp(l.host, "::1") == 0,
           "'[::1]:0' listens on IPv6 loopback, port %u: %s", l.port, err);
    rsp_listener_close(&l);
}

static void unix_sockets(void)
{
    char dir[] = "/tmp/zestub-transport-XXXXXX", path[200], spec[220], err[RSP_ERR_LEN] = "";
    char longpath[200];
    struct rsp_listener l;
    struct stat st;
    int fd;

    if (!mkdtemp(dir)) {
        tap_bail("mkdtemp");
        return;
    }
    snprintf(path, sizeof(path), "%s/rsp.sock", dir);
    snprintf(spec, sizeof(spec), "unix:%s", path);
    memset(longpath, 'a', sizeof(longpath) - 1);
    longpath[sizeof(longpath) - 1] = 0;
    memcpy(longpath, "unix:/tmp/", 10);
    tap_ok(rsp_listen(&l, longpath, err, sizeof(err)) == -ENAMETOOLONG,
           "a unix path longer than sun_path: -ENAMETOOLONG: %s", err);
    refused("unix:/nonexistent-dir/rsp.sock", "its directory does not exist");

    /* A socket file nobody listens on (left by a crash) is replaced. */
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        memcpy(sa.sun_path, path, strlen(path) + 1);
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
            tap_diag("bind %s: %s", path, strerror(errno));
    }
    close(fd);
    tap_ok(rsp_listen(&l, spec, err, sizeof(err)) == 0 && l.kind == RSP_TRANSPORT_UNIX,
           "a stale socket file is replaced: %s", err);
    tap_ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "the socket is owner-only (%o)",
           (unsigned)(st.st_mode & 0777));
    {
        struct rsp_listener l2;
        tap_ok(rsp_listen(&l2, spec, err, sizeof(err)) == -EADDRINUSE,
               "a live server's socket is not taken over: %s", err);
    }
    rsp_listener_close(&l);
    tap_ok(stat(path, &st) < 0 && errno == ENOENT, "closing removes the socket file");

    /* A regular file at the path is refused, and stays. */
    fd = open(path, O_CREAT | O_WRONLY, 0600);
    close(fd);
    tap_ok(rsp_listen(&l, spec, err, sizeof(err)) == -EADDRINUSE && stat(path, &st) == 0 &&
               S_ISREG(st.st_mode),
           "a regular file at the path is refused and kept: %s", err);
    unlink(path);
    rmdir(dir);
}

static void accept_woken(void)
{
    struct rsp_listener l;
    struct rsp_conn c;
    char err[RSP_ERR_LEN] = "";
    int p[2];

    if (rsp_listen(&l, ":0", err, sizeof(err)) != 0 || pipe(p) != 0) {
        tap_ok(0, "listen for the wake test: %s", err);
        return;
    }
    tap_ok(write(p[1], "x", 1) == 1 && rsp_accept(&l, &c, p[0], err, sizeof(err)) == -EINTR,
           "a readable wake fd ends the wait for a client: -EINTR (%s)", err);
    close(p[0]);
    close(p[1]);
    rsp_listener_close(&l);
}

static void stdio_once(void)
{
    struct rsp_listener l;
    struct rsp_conn c;
    char err[RSP_ERR_LEN] = "";
    int in = fcntl(0, F_GETFL), out = fcntl(1, F_GETFL);

    tap_ok(rsp_listen(&l, "stdio", err, sizeof(err)) == 0 && l.kind == RSP_TRANSPORT_STDIO,
           "'stdio' is the stdin/stdout transport");
    tap_ok(rsp_accept(&l, &c, -1, err, sizeof(err)) == 0 && c.in_fd == 0 && c.out_fd == 1,
           "its one connection is stdin/stdout");
    rsp_conn_close(&c);
    tap_ok(fcntl(0, F_GETFL) == in && fcntl(1, F_GETFL) == out,
           "closing it puts the descriptors' flags back");
    tap_ok(rsp_accept(&l, &c, -1, err, sizeof(err)) == -ENOENT, "a second connection: -ENOENT: %s",
           err);
    rsp_listener_close(&l);
}

static void peer_gone(void)
{
    struct rsp_conn c;
    char err[RSP_ERR_LEN] = "";
    int p[2];

    if (pipe(p) != 0)
        return;
    tap_ok(rsp_conn_open_fds(&c, p[0], p[1], err, sizeof(err)) == 0 && !c.is_socket,
           "a connection over a pipe is no socket");
    close(p[0]);
    c.in_fd = -1; /* closed above */
    tap_ok(rsp_conn_write(&c, "$#00", 4) == -EPIPE, "writing to a pipe nobody reads: -EPIPE");
    rsp_conn_close(&c);
    tap_ok(rsp_conn_open_fds(&c, 999, 999, err, sizeof(err)) == -EBADF && err[0],
           "a descriptor that is not open: -EBADF: %s", err);
}

int main(void)
{
    tap_plan(35);
    signal(SIGPIPE, SIG_IGN); /* a write to a closed pipe must fail, not kill */
    /* Which specs are non-local: a host other than empty, localhost,
     * 127.x.y.z and ::1 (transport.h). */
    tap_ok(!rsp_spec_is_nonlocal(":1234") && !rsp_spec_is_nonlocal("localhost:1") &&
               !rsp_spec_is_nonlocal("127.0.0.2:1") && !rsp_spec_is_nonlocal("[::1]:1") &&
               !rsp_spec_is_nonlocal("-") && !rsp_spec_is_nonlocal("unix:/x") &&
               !rsp_spec_is_nonlocal(NULL) && !rsp_spec_is_nonlocal("junk"),
           "loopback, stdio, unix and unparsable specs are local");
    tap_ok(rsp_spec_is_nonlocal("0.0.0.0:1") && rsp_spec_is_nonlocal("10.1.2.3:1") &&
               rsp_spec_is_nonlocal("[::]:1"),
           "any other host is non-local");
    refused("", "empty");
    refused("1234", "no colon");
    refused("[::1]1234", "no colon after ']'");
    refused("[::1:1234", "no ']'");
    refused("127.0.0.1:", "no port");
    refused("127.0.0.1:65536", "port too large");
    refused("127.0.0.1:-1", "negative port");
    refused("127.0.0.1:12x", "junk after the port");
    refused("no-such-host.invalid:0", "a host that does not resolve");
    refused("unix:", "no path");
    refused("0123456789012345678901234567890123456789012345678901234567890123456789:1",
            "host name too long");
    tcp_roundtrip();
    tcp6();
    unix_sockets();
    accept_woken();
    stdio_once();
    peer_gone();
    return tap_done();
}
