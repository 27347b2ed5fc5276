/* SPDX-License-Identifier: MIT */
/* Who connected (gdbstub/peercred.c), with no second user needed: a real
 * loopback connection is looked up in tables written here in the kernel's
 * format, so the uid found can only come from the row that matches; then
 * the real /proc/net and a Unix socket pair give our own uid. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdbstub/peercred.h"
#include "tests/lib/tap.h"

struct pair {
    int listen_fd, client_fd, server_fd;
    struct sockaddr_in server, client;
};

static int loopback_pair(struct pair *p)
{
    socklen_t len = sizeof(p->server);
    memset(p, 0, sizeof(*p));
    p->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    p->server.sin_family = AF_INET;
    p->server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (p->listen_fd < 0 || bind(p->listen_fd, (void *)&p->server, sizeof(p->server)) < 0 ||
        listen(p->listen_fd, 1) < 0 || getsockname(p->listen_fd, (void *)&p->server, &len) < 0)
        return -1;
    p->client_fd = socket(AF_INET, SOCK_STREAM, 0);
    if (p->client_fd < 0 || connect(p->client_fd, (void *)&p->server, sizeof(p->server)) < 0)
        return -1;
    len = sizeof(p->client);
    if (getsockname(p->client_fd, (void *)&p->client, &len) < 0)
        return -1;
    p->server_fd = accept(p->listen_fd, NULL, NULL);
    return p->server_fd < 0 ? -1 : 0;
}

/* One row as /proc/net/tcp prints it: the address word in host order. */
static void row(FILE *f, int n, const struct sockaddr_in *l, const struct sockaddr_in *r,
                unsigned uid)
{
    fprintf(f,
            "%4d: %08X:%04X %08X:%04X 01 00000000:00000000 00:00000000 00000000 %5u        0 "
            "%d 1 0000000000000000 20 4 30 10 -1\n",
            n, (unsigned)l->sin_addr.s_addr, (unsigned)ntohs(l->sin_port),
            (unsigned)r->sin_addr.s_addr, (unsigned)ntohs(r->sin_port), uid, 1000 + n);
}

/* Writes dir/tcp holding: the listener, our accepted socket (uid 7: must not
 * be taken for the client) and, when client_uid is not 0, the client's own
 * socket. */
static void write_table(const char *dir, const struct pair *p, unsigned client_uid)
{
    char path[256];
    struct sockaddr_in any = {.sin_family = AF_INET};
    snprintf(path, sizeof(path), "%s/tcp", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt"
               "   uid  timeout inode\n");
    row(f, 0, &p->server, &any, 7);
    row(f, 1, &p->server, &p->client, 7);
    if (client_uid)
        row(f, 2, &p->client, &p->server, client_uid);
    row(f, 3, &p->client, &any, 9); /* right local end, wrong remote end */
    fclose(f);
}

int main(void)
{
    char dir[] = "/tmp/zestub-peercred-XXXXXX", err[256];
    struct pair p;
    uid_t uid = 0;
    int rc;

    tap_plan(9);
    if (!mkdtemp(dir) || loopback_pair(&p) < 0) {
        printf("Bail out! cannot set up a loopback connection: %s\n", strerror(errno));
        return 1;
    }
    write_table(dir, &p, 4242);
    rc = rsp_peer_uid(p.server_fd, dir, &uid);
    tap_ok(rc == 0 && uid == 4242, "the client's own row gives its uid (rc %d, uid %u)", rc,
           (unsigned)uid);
    write_table(dir, &p, 0);
    rc = rsp_peer_uid(p.server_fd, dir, &uid);
    tap_ok(rc == -ENOENT, "no row for the client: not a local process (rc %d)", rc);
    rc = rsp_peer_uid(p.server_fd, "/nonexistent-proc-net", &uid);
    tap_ok(rc == -ENOENT, "no table at all: unknown, not an error that admits (rc %d)", rc);
    uid = (uid_t)-1;
    rc = rsp_peer_uid(p.server_fd, NULL, &uid);
    tap_ok(rc == 0 && uid == geteuid(), "the real /proc/net: our own uid (rc %d, uid %u)", rc,
           (unsigned)uid);

    int sv[2];
    uid = (uid_t)-1;
    rc = socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 ? rsp_peer_uid(sv[0], NULL, &uid) : -errno;
    tap_ok(rc == 0 && uid == geteuid(), "a Unix socket: SO_PEERCRED gives our uid (rc %d)", rc);

    tap_ok(rsp_peer_allowed(1000, 1000, err, sizeof(err)) == 0, "the same uid may connect");
    tap_ok(rsp_peer_allowed(0, 1000, err, sizeof(err)) == 0, "root may connect");
    err[0] = 0;
    rc = rsp_peer_allowed(4242, 1000, err, sizeof(err));
    tap_ok(rc == -EACCES, "another uid is refused (rc %d)", rc);
    tap_ok(strstr(err, "uid 4242") && strstr(err, "--allow-any-user"),
           "the refusal names the uid and the way out: %s", err);

    char path[300];
    snprintf(path, sizeof(path), "%s/tcp", dir);
    unlink(path);
    rmdir(dir);
    return tap_failed_ ? 1 : 0;
}
