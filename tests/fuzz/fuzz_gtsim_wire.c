/* SPDX-License-Identifier: MIT */
/* Fuzz target for the debuggee side of gtsim's debug wire (gtsim/dbg_proto.h):
 * any bytes from a hostile debugger, sent over a real connection to the real
 * endpoint of a gtsim driver living in this process (gtsim_wire_world.h), or
 * served directly by the endpoint's connection loop (gtsim_wire_direct.h).
 * An input's first byte says which of its messages bring the debugger's
 * end of an event stream (SCM_RIGHTS), as ATTACH must; the rest is the
 * wire's bytes. What must hold: no crash or memory error (ASan) in the
 * debuggee; it sends only replies on the connection and only events on an
 * event stream, each of bounded length; every whole request up to the
 * first DETACH or oversized header gets exactly one reply; the connection
 * ends when the input ends; every descriptor passed is closed by then;
 * afterwards no session is left behind in the endpoint. Not reached:
 * requests on stopped threads (no kernel runs here, so register reads
 * answer NOT_AVAILABLE), SLM contents.
 *
 * This file is the libFuzzer target (built with -DZESTUB_LIBFUZZER, it
 * aborts on a broken promise) and the session the plain program
 * (fuzz_gtsim_wire_main.c) checks with TAP. */
#include "tests/fuzz/fuzz_gtsim_wire.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "gtsim/dbg_proto.h"
#include "gtsim/dbg_srv_int.h"
#include "tests/fuzz/gtsim_wire_direct.h"
#include "tests/fuzz/gtsim_wire_world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char *const gtsim_wire_promise_name[P_COUNT] = {
    "the debuggee sends only replies on the connection and only events on an event stream, "
    "of bounded length, whole",
    "every whole request up to DETACH or an oversized header gets exactly one reply",
    "the connection ends when the debugger's input ends",
    "every descriptor the debugger passed is closed by then, and none is used after its close",
    "no session is left in the debuggee's endpoint afterwards",
};

/* At most this many messages of an input bring descriptors. */
#define MAX_PASSES 16

/* One input, ready to send: the wire's bytes with their symbolic
 * addresses resolved, and the messages that bring descriptors. */
struct session_in {
    uint8_t *wire;
    size_t len;
    struct gtsim_wire_pass passes[MAX_PASSES];
    size_t npasses;
};

/* Walks the messages of in->wire: resolves addresses, finds the passes. */
static void walk_messages(struct session_in *in, unsigned ctl)
{
    size_t off = 0, k = 0;
    struct gtsim_dbg_hdr h;
    struct gtsim_dbg_mem_req r;
    in->npasses = 0;
    while (in->len - off >= sizeof(h)) {
        memcpy(&h, in->wire + off, sizeof(h));
        if ((h.type == GTSIM_DBG_READ_MEM || h.type == GTSIM_DBG_WRITE_MEM) && h.len >= sizeof(r) &&
            in->len - off - sizeof(h) >= sizeof(r)) {
            memcpy(&r, in->wire + off + sizeof(h), sizeof(r));
            r.address = gtsim_wire_resolve(r.address);
            memcpy(in->wire + off + sizeof(h), &r, sizeof(r));
        }
        if (h.len > GTSIM_DBG_MAX_PAYLOAD || in->len - off - sizeof(h) < h.len)
            break;
        if ((ctl >> (k++ % 7)) & 1 && in->npasses < MAX_PASSES)
            in->passes[in->npasses++] = (struct gtsim_wire_pass){
                .at = off, .end = off + sizeof(h) + h.len, .count = ctl & CTL_TWO ? 2 : 1};
        off += sizeof(h) + h.len;
    }
}

/* in from an input (its first byte the control byte); false without memory. */
static bool prepare(const uint8_t *d, size_t n, struct session_in *in)
{
    in->len = n ? n - 1 : 0;
    in->wire = malloc(in->len ? in->len : 1);
    if (!in->wire)
        return false;
    memcpy(in->wire, d + (n > 0), in->len);
    walk_messages(in, n ? d[0] : 0);
    return true;
}

/* Requests the debuggee must answer: whole messages up to and including
 * the first DETACH, stopping at an oversized header or a partial message. */
static size_t requests_in(const uint8_t *d, size_t n)
{
    size_t count = 0, off = 0;
    struct gtsim_dbg_hdr h;
    while (n - off >= sizeof(h)) {
        memcpy(&h, d + off, sizeof(h));
        if (h.len > GTSIM_DBG_MAX_PAYLOAD || n - off - sizeof(h) < h.len)
            break;
        count++;
        off += sizeof(h) + h.len;
        if (h.type == GTSIM_DBG_DETACH)
            break;
    }
    return count;
}

/* Filled by every session; messages_in counts its successes. */
struct gtsim_wire_last gtsim_wire_last;

/* Walks what the debuggee sent on one stream: replies if replies, else
 * events (and LOST). Counts them; -1 if anything else or malformed. */
static long messages_in(const uint8_t *d, size_t n, bool replies, uint32_t *first_result)
{
    size_t off = 0;
    long count = 0;
    struct gtsim_dbg_hdr h;
    while (off < n) {
        if (n - off < sizeof(h))
            return -1;
        memcpy(&h, d + off, sizeof(h));
        off += sizeof(h);
        if (h.len > GTSIM_DBG_MAX_PAYLOAD || n - off < h.len)
            return -1;
        if (replies && h.type == GTSIM_DBG_REPLY && h.len >= sizeof(struct gtsim_dbg_reply)) {
            uint32_t result;
            memcpy(&result, d + off, sizeof(result));
            if (count == 0 && first_result)
                *first_result = result;
            gtsim_wire_last.successes += result == ZE_RESULT_SUCCESS;
        } else if (replies || !((h.type == GTSIM_DBG_EVENT && h.len == sizeof(zet_debug_event_t)) ||
                                (h.type == GTSIM_DBG_LOST && h.len == 0))) {
            return -1;
        }
        count++;
        off += h.len;
    }
    return count;
}

/* What one session did, both paths alike. */
struct outcome {
    bool ended;      /* the connection ended */
    bool fds_closed; /* every passed descriptor closed, none used after */
    const uint8_t *out;
    size_t out_len;
    long events; /* on the event streams; -1 if one was malformed */
};

static bool sessions_left(void)
{
    struct gtsim_dbg_server *srv = gtsim_srv_the_server;
    bool left;
    pthread_mutex_lock(&srv->lock);
    left = srv->sessions != NULL;
    pthread_mutex_unlock(&srv->lock);
    return left;
}

/* The debugger's side of a real connection: ours[k] is our end of the k-th
 * event stream, peer[k] the end the feeder passes with its message and then
 * closes, as a sound debugger does. */
struct real_conn {
    int fd;
    const struct session_in *in;
    int ours[2 * MAX_PASSES], peer[2 * MAX_PASSES];
    size_t nstreams;
};

struct bytes {
    uint8_t *b;
    size_t len, cap;
};

/* What the debuggee sent on a real connection and its event streams. */
static struct bytes conn_out, stream_out[2 * MAX_PASSES];

static bool send_raw(int fd, const uint8_t *b, size_t n)
{
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false; /* the debuggee hung up (after DETACH or a refusal) */
        b += w;
        n -= (size_t)w;
    }
    return true;
}

/* A message that brings descriptors: they go with its first bytes. */
static bool send_passing(int fd, const uint8_t *b, size_t n, const int *fds, unsigned count)
{
    union {
        struct cmsghdr c;
        char buf[CMSG_SPACE(2 * sizeof(int))];
    } ctl;
    struct iovec iov = {(void *)b, n};
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = ctl.buf,
                       .msg_controllen = CMSG_SPACE(count * sizeof(int))};
    ssize_t w;
    memset(&ctl, 0, sizeof(ctl));
    ctl.c.cmsg_level = SOL_SOCKET;
    ctl.c.cmsg_type = SCM_RIGHTS;
    ctl.c.cmsg_len = CMSG_LEN(count * sizeof(int));
    memcpy(CMSG_DATA(&ctl.c), fds, count * sizeof(int));
    do
        w = sendmsg(fd, &m, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    return w > 0 && send_raw(fd, b + w, n - (size_t)w);
}

/* Writes the debugger's bytes, then half-closes: the end of the input. */
static void *feed_main(void *arg)
{
    struct real_conn *c = arg;
    const struct session_in *in = c->in;
    size_t off = 0, k = 0;
    bool ok = true;
    for (size_t i = 0; i < in->npasses; i++) {
        const struct gtsim_wire_pass *p = &in->passes[i];
        ok = ok && send_raw(c->fd, in->wire + off, p->at - off);
        ok = ok && send_passing(c->fd, in->wire + p->at, p->end - p->at, &c->peer[k], p->count);
        /* The debuggee holds its copies now, or never will. */
        for (unsigned j = 0; j < p->count; j++, k++)
            close(c->peer[k]);
        off = p->end;
    }
    if (ok)
        send_raw(c->fd, in->wire + off, in->len - off);
    shutdown(c->fd, SHUT_WR);
    return NULL;
}

/* One read into o: bytes read, 0 at the end, -1 past any sane exchange or
 * on an error. */
static ssize_t read_some(int fd, struct bytes *o)
{
    ssize_t n;
    if (o->len + 65536 > o->cap) {
        uint8_t *b = o->len + 65536 > (size_t)64 << 20 ? NULL : realloc(o->b, o->len + 65536);
        if (!b)
            return -1;
        o->b = b;
        o->cap = o->len + 65536;
    }
    n = read(fd, o->b + o->len, 65536);
    /* libFuzzer's timeout timer interrupts calls in any thread. */
    if (n < 0 && errno == EINTR)
        return 1;
    /* The debuggee closing with some of our input unread (after a DETACH
     * or a refused header) resets the connection: an end too. */
    if (n < 0)
        return errno == ECONNRESET ? 0 : -1;
    o->len += (size_t)n;
    return n;
}

/* Reads the connection and every event stream until each ends; false if
 * one does not within 10 s. *conn_ended: the connection did. */
static bool drain(struct real_conn *c, bool *conn_ended)
{
    struct pollfd p[1 + 2 * MAX_PASSES];
    size_t n = 1 + c->nstreams, open = n;
    *conn_ended = false;
    for (size_t i = 0; i < n; i++) {
        p[i] = (struct pollfd){.fd = i ? c->ours[i - 1] : c->fd, .events = POLLIN};
        (i ? &stream_out[i - 1] : &conn_out)->len = 0;
    }
    while (open) {
        int r = poll(p, n, 10000);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        for (size_t i = 0; i < n; i++) {
            ssize_t got;
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            if ((got = read_some(p[i].fd, i ? &stream_out[i - 1] : &conn_out)) < 0)
                return false;
            if (got == 0) {
                p[i].fd = -1;
                open--;
                *conn_ended |= i == 0;
            }
        }
    }
    return true;
}

/* The event streams the input's passes bring, made before it is sent. */
static void open_streams(struct real_conn *c)
{
    c->nstreams = 0;
    for (size_t i = 0; i < c->in->npasses; i++)
        for (unsigned j = 0; j < c->in->passes[i].count; j++) {
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
                fprintf(stderr, "fuzz_gtsim_wire: socketpair: %s\n", strerror(errno));
                abort();
            }
            c->ours[c->nstreams] = sv[0];
            c->peer[c->nstreams++] = sv[1];
        }
}

/* The debugger's bytes over a real connection to the endpoint (its accept
 * thread, the peer check, a connection thread). */
static void serve_connected(const struct session_in *in, struct outcome *o)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    struct real_conn c = {.in = in};
    pthread_t feeder;
    bool all_ended;

    open_streams(&c);
    memcpy(sa.sun_path, gtsim_wire_world.path, sizeof(gtsim_wire_world.path));
    c.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c.fd < 0 || connect(c.fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        pthread_create(&feeder, NULL, feed_main, &c) != 0) {
        fprintf(stderr, "fuzz_gtsim_wire: cannot connect to %s: %s\n", gtsim_wire_world.path,
                strerror(errno));
        abort();
    }
    all_ended = drain(&c, &o->ended);
    if (!o->ended)
        shutdown(c.fd, SHUT_RDWR); /* unblocks the feeder */
    pthread_join(feeder, NULL);
    close(c.fd);
    /* An event stream ends when the debuggee closed every copy of its end
     * it was given (the kernel closes those it never read). */
    o->fds_closed = all_ended || !o->ended;
    o->events = 0;
    for (size_t i = 0; i < c.nstreams; i++) {
        long e = messages_in(stream_out[i].b, stream_out[i].len, false, NULL);
        o->events = e < 0 || o->events < 0 ? -1 : o->events + e;
        close(c.ours[i]);
    }
    o->out = conn_out.b;
    o->out_len = conn_out.len;
}

static void serve_direct(const struct session_in *in, struct outcome *o)
{
    struct gtsim_wire_result r;
    o->ended = gtsim_wire_direct_session(in->wire, in->len, in->passes, in->npasses, &r) == 0;
    o->fds_closed = !r.left_open && !r.misused;
    o->out = r.out;
    o->out_len = r.out_len;
    o->events = messages_in(r.events, r.events_len, false, NULL);
}

/* How a session reaches the debuggee: over a real connection, or served
 * by the endpoint's connection loop in this thread (gtsim_wire_direct.h). */
enum path { VIA_SOCKET, VIA_DIRECT };

/* The first message is an ATTACH that brings no descriptor. */
static bool bare_attach(const struct session_in *in)
{
    struct gtsim_dbg_hdr h;
    if (in->len < sizeof(h))
        return false;
    memcpy(&h, in->wire, sizeof(h));
    return h.type == GTSIM_DBG_ATTACH && h.len == sizeof(struct gtsim_dbg_attach) &&
           in->len >= sizeof(h) + h.len && (!in->npasses || in->passes[0].at != 0);
}

/* One debugger session of these bytes; returns the promises it broke. */
static unsigned check_session_via(const uint8_t *input, size_t size, enum path via)
{
    struct session_in in;
    struct outcome o = {0};
    unsigned bad = 0;
    struct gtsim_wire_last *last = &gtsim_wire_last;

    if (!gtsim_wire_world.path[0] && gtsim_wire_world_init() != 0) {
        fprintf(stderr, "fuzz_gtsim_wire: cannot set up the gtsim debuggee\n");
        abort();
    }
    if (!prepare(input, size, &in))
        return 0;
    if (via == VIA_SOCKET)
        serve_connected(&in, &o);
    else
        serve_direct(&in, &o);
    last->first_result = UINT32_MAX;
    last->successes = 0;
    last->replies = messages_in(o.out, o.out_len, true, &last->first_result);
    last->events = o.events;
    last->out_len = o.out_len;
    last->bare_refused =
        bare_attach(&in) && last->first_result == (uint32_t)ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (!o.ended)
        bad |= 1u << P_ENDS;
    if (!o.fds_closed)
        bad |= 1u << P_FDS;
    if (last->replies < 0 || o.events < 0)
        bad |= 1u << P_FRAMES;
    if (last->replies >= 0 && (size_t)last->replies != requests_in(in.wire, in.len))
        bad |= 1u << P_REPLIES;
    /* The session's thread unlinks it before closing the connection, so by
     * the end of stream it is gone. */
    if (o.ended && sessions_left())
        bad |= 1u << P_CLEAN;
    free(in.wire);
    return bad;
}

/* libFuzzer: one input in SOCKET_EVERY (chosen by its bytes, so a rerun of
 * an input takes the same path) goes over a real connection. */
#define SOCKET_EVERY 128

static enum path path_of(const uint8_t *d, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ d[i]) * 16777619u;
    return h % SOCKET_EVERY == 0 ? VIA_SOCKET : VIA_DIRECT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned bad = check_session_via(data, size, path_of(data, size));
    const struct gtsim_wire_last *last = &gtsim_wire_last;
    for (int p = 0; p < P_COUNT; p++)
        if (bad & (1u << p)) {
            fprintf(stderr,
                    "fuzz_gtsim_wire: broken promise: %s (%zu bytes in, %ld replies in %zu "
                    "bytes, %ld events)\n",
                    gtsim_wire_promise_name[p], size, last->replies, last->out_len, last->events);
            abort();
        }
    return 0;
}

unsigned gtsim_wire_check_session(const uint8_t *input, size_t size)
{
    /* In this order, so that gtsim_wire_last tells of the real connection
     * (the operands of | are unsequenced). */
    unsigned bad = check_session_via(input, size, VIA_DIRECT);
    return bad | check_session_via(input, size, VIA_SOCKET);
}

void gtsim_wire_check_free(void)
{
    free(conn_out.b);
    for (int i = 0; i < 2 * MAX_PASSES; i++)
        free(stream_out[i].b);
}
