/* SPDX-License-Identifier: MIT */
/* The uid of a client socket's peer: SO_PEERCRED for Unix sockets, the
 * kernel's TCP socket tables for loopback TCP (see peercred.h). */
#include "gdbstub/peercred.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* One end of a TCP connection as the kernel's tables print it: the address
 * as 32-bit words in host order (one word for IPv4, four for IPv6). */
struct endpoint {
    bool v6;
    uint32_t a[4];
    unsigned port;
};

static void endpoint_from(const struct sockaddr_storage *ss, struct endpoint *e)
{
    memset(e, 0, sizeof(*e));
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const void *)ss;
        e->a[0] = in->sin_addr.s_addr;
        e->port = ntohs(in->sin_port);
        return;
    }
    const struct sockaddr_in6 *in6 = (const void *)ss;
    e->port = ntohs(in6->sin6_port);
    /* A v4 client of a dual-stack listener owns an IPv4 socket: look it up
     * as one. */
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
        memcpy(&e->a[0], &in6->sin6_addr.s6_addr[12], 4);
        return;
    }
    e->v6 = true;
    memcpy(e->a, in6->sin6_addr.s6_addr, 16);
}

/* Parses "HEX:PORT" as /proc/net/tcp{,6} prints it. */
static bool parse_endpoint(const char *s, struct endpoint *e)
{
    const char *colon = strchr(s, ':');
    size_t n = colon ? (size_t)(colon - s) : 0;
    char word[9];

    if (n != 8 && n != 32)
        return false;
    memset(e, 0, sizeof(*e));
    e->v6 = n == 32;
    for (size_t w = 0; w < n / 8; w++) {
        char *end;
        memcpy(word, s + 8 * w, 8);
        word[8] = 0;
        e->a[w] = (uint32_t)strtoul(word, &end, 16);
        if (*end)
            return false;
    }
    char *end;
    unsigned long port = strtoul(colon + 1, &end, 16);
    if (end == colon + 1 || port > 0xffff)
        return false;
    e->port = (unsigned)port;
    return true;
}

static bool same_endpoint(const struct endpoint *x, const struct endpoint *y)
{
    return x->v6 == y->v6 && x->port == y->port && memcmp(x->a, y->a, sizeof(x->a)) == 0;
}

/* Finds the socket whose local end is `local` and remote end `remote` in one
 * table file: 0 with *uid, -ENOENT when it is not there. */
static int scan_table(const char *path, const struct endpoint *local, const struct endpoint *remote,
                      uid_t *uid)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int rc = -ENOENT;

    if (!f)
        return errno == ENOENT ? -ENOENT : -errno;
    if (!fgets(line, sizeof(line), f)) { /* the header line */
        fclose(f);
        return -ENOENT;
    }
    while (rc == -ENOENT && fgets(line, sizeof(line), f)) {
        char l[64], r[64];
        unsigned owner;
        struct endpoint le, re;
        /* sl local rem st tx:rx tr:when retrnsmt uid ... */
        if (sscanf(line, " %*s %63s %63s %*s %*s %*s %*s %u", l, r, &owner) != 3)
            continue;
        if (parse_endpoint(l, &le) && parse_endpoint(r, &re) && same_endpoint(&le, local) &&
            same_endpoint(&re, remote)) {
            *uid = (uid_t)owner;
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

static int tcp_peer_uid(int fd, const char *proc_net, uid_t *uid)
{
    struct sockaddr_storage me, peer;
    socklen_t ml = sizeof(me), pl = sizeof(peer);
    struct endpoint ours, theirs;
    char path[256];

    if (getsockname(fd, (struct sockaddr *)&me, &ml) < 0 ||
        getpeername(fd, (struct sockaddr *)&peer, &pl) < 0)
        return -errno;
    if (peer.ss_family != AF_INET && peer.ss_family != AF_INET6)
        return -EAFNOSUPPORT;
    endpoint_from(&me, &ours);
    endpoint_from(&peer, &theirs);
    /* The client's socket: its local end is our peer, its remote end is us. */
    snprintf(path, sizeof(path), "%s/%s", proc_net, theirs.v6 ? "tcp6" : "tcp");
    return scan_table(path, &theirs, &ours, uid);
}

int rsp_peer_uid(int fd, const char *proc_net, uid_t *uid)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);

    if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
        return -errno;
    if (ss.ss_family == AF_UNIX) {
        struct ucred cred;
        socklen_t cl = sizeof(cred);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0)
            return -errno;
        *uid = cred.uid;
        return 0;
    }
    return tcp_peer_uid(fd, proc_net ? proc_net : "/proc/net", uid);
}

/* "uid 1000 (alice)", or the number alone when the name is unknown. */
static void describe_uid(uid_t uid, char *out, size_t outlen)
{
    struct passwd pw, *found = NULL;
    char buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) == 0 && found)
        snprintf(out, outlen, "uid %u (%s)", (unsigned)uid, found->pw_name);
    else
        snprintf(out, outlen, "uid %u", (unsigned)uid);
}

int rsp_peer_allowed(uid_t peer, uid_t self, char *err, size_t errlen)
{
    char who[96], me[96];

    if (peer == self || peer == 0)
        return 0;
    describe_uid(peer, who, sizeof(who));
    describe_uid(self, me, sizeof(me));
    snprintf(err, errlen,
             "refused a connection from %s: only %s%s may debug this process; "
             "--allow-any-user lets every local user in",
             who, me, self == 0 ? "" : " or root");
    return -EACCES;
}
