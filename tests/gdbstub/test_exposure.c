/* SPDX-License-Identifier: MIT */
/* Issue 31, items 7 and 8, without DNS and without a second user: the
 * exposure decision (gdbstub/transport.c) on getaddrinfo results built
 * here, as a name like "127.evil" would resolve; the listener refusing the
 * machine's own non-loopback address without allow_remote; and where a
 * confined client may have files written (gdbstub/confine.c), in a
 * directory tree made here with links pointing out. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "gdbstub/confine.h"
#include "gdbstub/transport.h"
#include "tests/lib/tap.h"

/* A getaddrinfo-like list of up to 4 entries: "v4:A.B.C.D", "v6:ADDR",
 * "unix" (a family the decision does not know). */
struct fake {
    struct addrinfo ai[4];
    struct sockaddr_storage ss[4];
};

static const struct addrinfo *fake_list(struct fake *f, const char *const *addrs, int n)
{
    memset(f, 0, sizeof(*f));
    for (int i = 0; i < n; i++) {
        struct addrinfo *ai = &f->ai[i];
        ai->ai_addr = (struct sockaddr *)&f->ss[i];
        if (!strncmp(addrs[i], "v4:", 3)) {
            struct sockaddr_in *in = (void *)&f->ss[i];
            in->sin_family = AF_INET;
            inet_pton(AF_INET, addrs[i] + 3, &in->sin_addr);
            ai->ai_addrlen = sizeof(*in);
        } else if (!strncmp(addrs[i], "v6:", 3)) {
            struct sockaddr_in6 *in6 = (void *)&f->ss[i];
            in6->sin6_family = AF_INET6;
            inet_pton(AF_INET6, addrs[i] + 3, &in6->sin6_addr);
            ai->ai_addrlen = sizeof(*in6);
        } else {
            f->ss[i].ss_family = AF_UNIX;
            ai->ai_addrlen = sizeof(struct sockaddr_un);
        }
        ai->ai_family = f->ss[i].ss_family;
        ai->ai_next = i + 1 < n ? &f->ai[i + 1] : NULL;
    }
    return f->ai;
}

static void decision(void)
{
    struct fake f;
    char addr[64] = "";
    const char *loop[] = {"v4:127.0.0.1", "v6:::1", "v6:::ffff:127.0.0.5", "v4:127.3.2.1"};
    const char *evil[] = {"v4:203.0.113.7"};
    const char *mixed[] = {"v4:127.0.0.1", "v6:::1", "v4:10.1.2.3"};
    const char *any4[] = {"v4:0.0.0.0"}, *any6[] = {"v6:::"}, *mapped[] = {"v6:::ffff:10.0.0.1"};
    const char *odd[] = {"unix"};

    tap_ok(!rsp_addrinfo_exposed(fake_list(&f, loop, 4), addr, sizeof(addr)),
           "127/8, ::1 and ::ffff:127.x are loopback: not exposed");
    /* "127.evil" starts with "127.", which the old check took for
     * loopback; what it resolves to decides now. */
    tap_ok(rsp_addrinfo_exposed(fake_list(&f, evil, 1), addr, sizeof(addr)) &&
               !strcmp(addr, "203.0.113.7"),
           "a name resolving to 203.0.113.7 is exposed, the address named (%s)", addr);
    tap_ok(rsp_addrinfo_exposed(fake_list(&f, mixed, 3), addr, sizeof(addr)) &&
               !strcmp(addr, "10.1.2.3"),
           "loopback addresses and one LAN address: exposed, the LAN one named (%s)", addr);
    tap_ok(rsp_addrinfo_exposed(fake_list(&f, any4, 1), addr, sizeof(addr)) &&
               rsp_addrinfo_exposed(fake_list(&f, any6, 1), addr, sizeof(addr)) &&
               rsp_addrinfo_exposed(fake_list(&f, mapped, 1), addr, sizeof(addr)),
           "0.0.0.0, :: and a v4-mapped LAN address are exposed");
    tap_ok(rsp_addrinfo_exposed(fake_list(&f, odd, 1), addr, sizeof(addr)) &&
               strstr(addr, "family"),
           "an address family the decision does not know counts as exposed (%s)", addr);
    tap_ok(!rsp_addrinfo_exposed(NULL, addr, sizeof(addr)), "an empty list exposes nothing");
}

/* The machine's own first non-loopback IPv4 address, as a UDP socket
 * "connected" towards a documentation address would use (nothing is
 * sent); false when there is no route. */
static bool own_address(char *out, size_t len)
{
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(9)}, me;
    socklen_t ml = sizeof(me);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    bool ok;
    inet_pton(AF_INET, "192.0.2.1", &to.sin_addr);
    ok = fd >= 0 && connect(fd, (void *)&to, sizeof(to)) == 0 &&
         getsockname(fd, (void *)&me, &ml) == 0 && (ntohl(me.sin_addr.s_addr) >> 24) != 127 &&
         me.sin_addr.s_addr != 0;
    if (ok)
        inet_ntop(AF_INET, &me.sin_addr, out, (socklen_t)len);
    if (fd >= 0)
        close(fd);
    return ok;
}

static void listening(void)
{
    struct rsp_listener l;
    struct rsp_listen_opts strict = {.allow_remote = false}, remote = {.allow_remote = true};
    char err[RSP_ERR_LEN], ip[64], spec[96];
    int rc;

    rc = rsp_listen_ex(&l, "localhost:0", &strict, err, sizeof(err));
    tap_ok(rc == 0 && !l.nonlocal, "localhost resolves to loopback only: listens without "
                                   "allow_remote");
    if (rc == 0)
        rsp_listener_close(&l);
    tap_ok(!rsp_spec_is_nonlocal("localhost:1") && !rsp_spec_is_nonlocal(":1"),
           "rsp_spec_is_nonlocal: localhost and the default host are local");
    if (!own_address(ip, sizeof(ip))) {
        for (int i = 0; i < 3; i++)
            tap_skip("no non-loopback IPv4 address with a route on this machine");
        return;
    }
    snprintf(spec, sizeof(spec), "%s:0", ip);
    rc = rsp_listen_ex(&l, spec, &strict, err, sizeof(err));
    tap_ok(rc == -EACCES && l.fd < 0 && strstr(err, ip) && strstr(err, "--allow-remote"),
           "%s without allow_remote: refused, naming the address and the option: %s", ip, err);
    tap_ok(rsp_spec_is_nonlocal(spec), "rsp_spec_is_nonlocal(%s)", spec);
    rc = rsp_listen_ex(&l, spec, &remote, err, sizeof(err));
    tap_ok(rc == 0 && l.nonlocal && !strcmp(l.exposed, ip),
           "with allow_remote it listens, nonlocal, exposed = %s", l.exposed);
    if (rc == 0)
        rsp_listener_close(&l);
}

static void paths(void)
{
    char tmpl[] = "/tmp/zestub-confine-XXXXXX", why[PATH_MAX + 256], p[PATH_MAX], out[PATH_MAX];
    char *root = mkdtemp(tmpl);
    if (!root) {
        tap_bail("mkdtemp failed");
        return;
    }
    snprintf(p, sizeof(p), "%s/work", root);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/work/sub", root);
    mkdir(p, 0755);
    snprintf(out, sizeof(out), "%s/outside", root);
    mkdir(out, 0755);
    snprintf(p, sizeof(p), "%s/work/out-link", root);
    symlink(out, p);
    snprintf(p, sizeof(p), "%s/work/in-link", root);
    symlink("sub", p);
    snprintf(p, sizeof(p), "%s/work", root);
    tap_ok(rsp_path_inside(p, "core", why, sizeof(why)) == 0, "a plain name is inside");
    tap_ok(rsp_path_inside(p, "sub/core", why, sizeof(why)) == 0 &&
               rsp_path_inside(p, "in-link/core", why, sizeof(why)) == 0,
           "a subdirectory, and a link to one, are inside");
    tap_ok(rsp_path_inside(p, "../outside/core", why, sizeof(why)) == -EACCES &&
               strstr(why, "outside"),
           "a .. escape is refused: %s", why);
    tap_ok(rsp_path_inside(p, "out-link/core", why, sizeof(why)) == -EACCES,
           "a link pointing out is refused: %s", why);
    tap_ok(rsp_path_inside(p, out, why, sizeof(why)) < 0 &&
               rsp_path_inside(p, "/etc/passwd", why, sizeof(why)) == -EACCES,
           "absolute paths elsewhere are refused");
    tap_ok(rsp_path_inside(p, "sub/..", why, sizeof(why)) == -EACCES &&
               rsp_path_inside(p, "sub/", why, sizeof(why)) == -EACCES,
           "a path ending in .. or / names no file: refused");
    tap_ok(rsp_path_inside(p, "nodir/core", why, sizeof(why)) == -ENOENT,
           "a directory that does not exist: refused with ENOENT");

    /* The client's confinement: unconfined writes anywhere, confined only
     * below the working directory. */
    if (chdir(p) != 0) {
        tap_bail("chdir failed");
        return;
    }
    tap_ok(rsp_confine_check_write(false, 0, "monitor core", "/etc/x", why, sizeof(why)) == 0,
           "an unconfined client is not checked");
    tap_ok(rsp_confine_check_write(true, 65534, "monitor core", "/etc/x", why, sizeof(why)) ==
                   -EACCES &&
               strstr(why, "monitor core: refused") && strstr(why, "uid 65534") &&
               strstr(why, "--allow-any-user-unconfined"),
           "confined: outside is refused, saying why: %s", why);
    tap_ok(rsp_confine_check_write(true, 65534, "monitor core", "sub/core", why, sizeof(why)) == 0,
           "confined: inside the working directory is allowed");
    tap_ok(rsp_confine_check_write(true, 65534, "monitor core", "../x", why, sizeof(why)) ==
               -EACCES,
           "confined: '..' out of the working directory is refused");
    if (chdir("/") == 0) {
        snprintf(p, sizeof(p), "rm -rf '%s'", root);
        if (system(p) != 0)
            tap_diag("could not remove %s", root);
    }
}

int main(void)
{
    tap_plan(6 + 5 + 11);
    decision();
    listening();
    paths();
    return tap_done();
}
