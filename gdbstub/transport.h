/* SPDX-License-Identifier: MIT */
/* RSP transports: a listener for "[HOST]:PORT" (TCP), "unix:PATH" (a Unix
 * socket, mode 0600) or "-" (stdin/stdout, one connection), and the
 * connection it yields: non-blocking reads, writes queued in an output
 * buffer and flushed when the descriptor is writable.
 *
 * Errors are negative errno values; a sentence for a human goes into the
 * caller's buffer (RSP_ERR_LEN bytes is always enough), as in Redis's anet.
 * Writing to a peer that went away must not kill the process: sockets use
 * MSG_NOSIGNAL, but for "-" the caller has to ignore SIGPIPE. */
#ifndef ZESTUB_GDBSTUB_TRANSPORT_H
#define ZESTUB_GDBSTUB_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "gdbstub/packet.h"

#define RSP_ERR_LEN 256

enum rsp_transport_kind { RSP_TRANSPORT_TCP = 1, RSP_TRANSPORT_UNIX, RSP_TRANSPORT_STDIO };

struct rsp_listener {
    enum rsp_transport_kind kind;
    int fd;        /* listening socket; -1 for stdio */
    unsigned port; /* TCP: the bound port (the chosen one for port 0) */
    /* TCP: some address the host resolved to is not loopback (0.0.0.0,
     * ::, a LAN address): other machines may reach the port. exposed is
     * the first such address, numeric, for messages. */
    bool nonlocal;
    char exposed[64];
    bool stdio_used; /* "-" serves exactly one connection */
    char path[108];  /* unix: the socket file, removed on close */
    char host[64];   /* TCP: the address bound, for messages */
    /* Who may connect (see peercred.h): by default a peer of our own uid
     * or root; allow_any_user turns the check off. A refused client is
     * closed at once and told to `refused` (may be NULL), and the listener
     * waits for the next one: a refusal never ends a --once server. */
    bool allow_any_user;
    /* With allow_any_user: a client of another uid is confined (see
     * confine.h) unless this is set too. */
    bool unconfined;
    /* unix: with allow_any_user the socket file is 0666, but a user who
     * cannot search every directory above it still cannot connect: the
     * first such directory, "" when none. */
    char closed_dir[108];
    const char *proc_net; /* NULL: /proc/net (tests point elsewhere) */
    void (*refused)(void *ctx, const char *why);
    void *refused_ctx;
};

struct rsp_conn {
    int in_fd, out_fd;
    bool is_socket;
    bool restore_flags; /* stdio: put back the descriptors' original flags */
    int in_flags, out_flags;
    /* Who connected (peercred.h): peer_known with peer_uid when it could
     * be told; confined per confine.h. */
    bool peer_known, confined;
    uid_t peer_uid;
    struct rsp_buf out; /* bytes queued; the first out_sent of them are written */
    size_t out_sent;
};

struct addrinfo; /* <netdb.h> */

/* The exposure decision, on resolved addresses (never on the host's
 * spelling: a name may resolve anywhere): true when any address of the
 * list is not loopback (an address family other than IPv4/IPv6 counts as
 * reachable), the first such one written numerically to addr. */
bool rsp_addrinfo_exposed(const struct addrinfo *res, char *addr, size_t addrlen);

/* True when spec is TCP and its host resolves (as rsp_listen resolves it)
 * to an address other machines may reach; addr (may be NULL) gets it.
 * False for "-", unix:, specs that do not parse or names that do not
 * resolve (listening on them fails anyway). */
bool rsp_spec_exposed(const char *spec, char *addr, size_t addrlen);
/* rsp_spec_exposed without the address. */
bool rsp_spec_is_nonlocal(const char *spec);

/* What rsp_listen_ex lets through. */
struct rsp_listen_opts {
    /* Listen where other machines can connect; without it, a TCP spec
     * whose host resolves to any non-loopback address is refused
     * (-EACCES, the address named in err). */
    bool allow_remote;
    /* Every local user may connect (rsp_listener.allow_any_user); a unix:
     * socket file is then made 0666 instead of 0600. */
    bool allow_any_user;
    /* With allow_any_user: other users' clients are not confined. */
    bool unconfined;
};

/* Parses spec and starts listening. TCP: "[HOST]:PORT", HOST empty means
 * 127.0.0.1, "[v6addr]:PORT" is accepted, PORT 0 picks a free port
 * (reported in l->port). */
int rsp_listen_ex(struct rsp_listener *l, const char *spec, const struct rsp_listen_opts *o,
                  char *err, size_t errlen);
/* rsp_listen_ex with allow_remote only: the caller checks l->nonlocal. */
int rsp_listen(struct rsp_listener *l, const char *spec, char *err, size_t errlen);
/* Waits for the next client (blocking). -ENOENT when a "-" listener has
 * already served its one connection. */
/* Waits for the next client; wake_fd (-1: none) readable ends the wait
 * with -EINTR. */
int rsp_accept(struct rsp_listener *l, struct rsp_conn *c, int wake_fd, char *err, size_t errlen);
/* Closes the listening socket and removes a unix socket file. */
/* A client that connects while another is served: accepted and told
 * busy (or, when the listener refuses its user, that reason), then closed
 * (turnaway.h). Call when the listening fd is readable. */
void rsp_listener_turn_away(struct rsp_listener *l, const char *busy);
void rsp_listener_close(struct rsp_listener *l);
/* A connection over existing descriptors (tests, socketpairs). */
int rsp_conn_open_fds(struct rsp_conn *c, int in_fd, int out_fd, char *err, size_t errlen);

/* Reads what is available: >0 bytes, 0 when nothing is ready, -EPIPE when
 * the peer closed, another negative errno on errors. */
ssize_t rsp_conn_read(struct rsp_conn *c, void *buf, size_t n);
/* Queues data and writes as much as the descriptor takes now. */
int rsp_conn_write(struct rsp_conn *c, const void *data, size_t n);
/* Writes queued data: 0 when all is out, 1 when some is still queued,
 * negative errno when the peer is gone. */
int rsp_conn_flush(struct rsp_conn *c);
bool rsp_conn_pending(const struct rsp_conn *c);
/* Above this many queued bytes the server reads no more of a client's input
 * until the queue drains below it: a client that pipelines requests and
 * never reads its replies must not make the server buffer without bound.
 * One reply may go past it (at most a PacketSize payload, escaped). */
#define RSP_OUT_HIGH_WATER ((size_t)1 << 20)
bool rsp_conn_congested(const struct rsp_conn *c);
/* Blocks (poll) until the queue is empty or timeout_ms passed. */
int rsp_conn_drain(struct rsp_conn *c, int timeout_ms);
void rsp_conn_close(struct rsp_conn *c);

#endif
