/* SPDX-License-Identifier: MIT */
/* The server's life and its poll loop: acks, retransmission and framing
 * errors, packets to the dispatch table, target events to the features
 * (hooks.h) and then, in all-stop, to the pending stop reply. Everything
 * a packet means is elsewhere. */
#include "gdbstub/server.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/attach.h"
#include "gdbstub/dispatch.h"
#include "gdbstub/features.h"
#include "gdbstub/output.h"
#include "gdbstub/server_state.h"
#include "gdbstub/stopreply.h"
#include "gdbstub/target_check.h"
#include "gdbstub/tdesc_cache.h"

/* Without an event descriptor the target is asked this often while a
 * resume is outstanding. */
#define EVENT_POLL_MS 5

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || !errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int rsp_server_new(const struct rsp_target *target, const struct rsp_server_config *cfg,
                   struct rsp_server **out, char *err, size_t errlen)
{
    struct rsp_server *s;
    char why[RSP_ERR_LEN];

    *out = NULL;
    /* Checked once here, so no handler meets a half-filled table. */
    if (rsp_target_check(target ? target->ops : NULL, why, sizeof(why)) < 0) {
        set_err(err, errlen, "%s", why);
        return -EINVAL;
    }
    s = calloc(1, sizeof(*s));
    if (!s || rsp_rx_init(&s->rx, RSP_PACKET_SIZE) < 0) {
        free(s);
        set_err(err, errlen, "out of memory");
        return -ENOMEM;
    }
    s->target = *target;
    if (cfg)
        s->cfg = *cfg;
    else
        s->cfg.wake_fd = -1;
    rsp_buf_init(&s->reply);
    rsp_buf_init(&s->last);
    rsp_buf_init(&s->scratch);
    rsp_buf_init(&s->xfer_doc);
    s->packets = rsp_dispatch_table(&s->npackets);
    *out = s;
    return 0;
}

void rsp_server_free(struct rsp_server *s)
{
    if (!s)
        return;
    rsp_rx_free(&s->rx);
    rsp_buf_free(&s->reply);
    rsp_buf_free(&s->last);
    rsp_buf_free(&s->scratch);
    rsp_buf_free(&s->xfer_doc);
    rsp_tdesc_cache_free(s->tdesc_cache);
    rsp_features_release(s);
    free(s);
}

int rsp_server_attach(struct rsp_server *s, uint32_t host_pid, char *err, size_t errlen)
{
    struct rsp_buf r;
    int rc;

    rsp_buf_init(&r);
    rc = rsp_do_attach(s, host_pid, &r);
    if (rc < 0)
        set_err(err, errlen, "%s",
                r.len > 3 ? r.data + (r.data[1] == '.' ? 2 : 3) : "attach failed");
    rsp_buf_free(&r);
    return rc;
}

/* ---- the loop ------------------------------------------------------------- */

static void reset_connection(struct rsp_server *s, struct rsp_conn *c)
{
    s->conn = c;
    if (s->target.ops->client)
        s->target.ops->client(s->target.ctx, c && c->confined, c ? (uint32_t)c->peer_uid : 0);
    rsp_rx_reset(&s->rx);
    rsp_buf_clear(&s->last);
    s->noack = false;
    s->client_swbreak = false;
    s->client_intelgt = false;
    s->host_arch = RSP_HOST_UNKNOWN;
    s->alias_dev = s->alias_host = 0;
    s->client_error_message = false;
    rsp_features_reset(s);
    s->running = false;
    s->end_requested = false;
    s->list_proc = 0;
    s->list_tid = 0;
    /* g/c keep whatever --attach chose; a fresh client starts at "any". */
    if (!s->have_stop)
        s->g.pid = s->g.tid = s->c.pid = s->c.tid = 0;
}

static int handle_packet(struct rsp_server *s)
{
    const char *pkt = (const char *)s->rx.buf;
    size_t len = s->rx.len;

    if (!s->noack && rsp_conn_write(s->conn, "+", 1) < 0)
        return -EPIPE;
    rsp_trace(s, "<-", pkt, len);
    if (rsp_dispatch(s, pkt, len) == RSP_H_NOREPLY)
        return 0;
    if (s->reply.oom)
        rsp_reply_etext(&s->reply, "out of memory");
    return rsp_send_packet(s, s->reply.data ? s->reply.data : "", s->reply.len) < 0 ? -EPIPE : 0;
}

static int reply_text(struct rsp_server *s, const char *text)
{
    if (!s->noack && rsp_conn_write(s->conn, "+", 1) < 0)
        return -EPIPE;
    rsp_reply_etext(&s->reply, text);
    return rsp_send_packet(s, s->reply.data, s->reply.len) < 0 ? -EPIPE : 0;
}

/* Feeds client bytes until they are used up or the output queued for the
 * client is congested (backpressure: the rest waits until it drains).
 * Returns how many bytes were used (all of them once the session is to
 * end: what follows is dropped), or -EPIPE. */
static ssize_t feed(struct rsp_server *s, const uint8_t *p, size_t n)
{
    int rc = 0;
    size_t i;

    for (i = 0; i < n && rc == 0 && !s->end_requested && !rsp_conn_congested(s->conn); i++) {
        switch (rsp_rx_feed(&s->rx, p[i])) {
        case RSP_RX_NONE:
            break;
        case RSP_RX_PACKET:
            rc = handle_packet(s);
            break;
        case RSP_RX_BAD_CHECKSUM:
            rsp_trace(s, "<-", "(bad checksum)", 14);
            if (!s->noack)
                rc = rsp_conn_write(s->conn, "-", 1) < 0 ? -EPIPE : 0;
            break;
        case RSP_RX_OVERSIZED:
            rsp_trace(s, "<-", "(oversized)", 11);
            rc = reply_text(s, "packet too long");
            break;
        case RSP_RX_MALFORMED:
            rsp_trace(s, "<-", "(malformed)", 11);
            rc = reply_text(s, "malformed packet");
            break;
        case RSP_RX_ACK:
            break;
        case RSP_RX_NACK:
            if (!s->noack && s->last.len)
                rc = rsp_conn_write(s->conn, s->last.data, s->last.len) < 0 ? -EPIPE : 0;
            break;
        case RSP_RX_INTERRUPT:
            rsp_trace(s, "<-", "^C", 2);
            rc = rsp_interrupt(s);
            break;
        }
    }
    if (rc < 0)
        return rc;
    return s->end_requested ? (ssize_t)n : (ssize_t)i;
}

static void log_event(struct rsp_server *s, const struct rsp_event *ev)
{
    static const char *const kinds[] = {
        [RSP_EVENT_STOP] = "stop",       [RSP_EVENT_UNAVAILABLE] = "unavailable",
        [RSP_EVENT_LIBRARY] = "library", [RSP_EVENT_EXITED] = "exited",
        [RSP_EVENT_KILLED] = "killed",
    };
    const char *k = (size_t)ev->kind < sizeof(kinds) / sizeof(kinds[0]) && kinds[ev->kind]
                        ? kinds[ev->kind]
                        : "?";
    rsp_logf(&s->cfg.log, RSP_LOG_DEBUG, "event: %s p%u.%u signal %d code %d", k, (unsigned)ev->pid,
             (unsigned)ev->tid, ev->signal, ev->code);
}

/* Reads target events while a resume is outstanding (all-stop) or a
 * feature wants them (non-stop); the features see each event first. */
static int pump_events(struct rsp_server *s)
{
    const struct rsp_target_ops *o = s->target.ops;
    struct rsp_event ev;
    int r, v;

    while (s->running || rsp_features_want_events(s)) {
        memset(&ev, 0, sizeof(ev));
        r = o->next_event(s->target.ctx, &ev);
        if (r == 0)
            return 0;
        if (r < 0) {
            if (!s->running)
                return 0; /* non-stop: no resume waits for an answer */
            s->running = false;
            /* The resume is answered anyway, or GDB would wait forever,
             * with the text for every client: GDB prints any E reply to a
             * resume as "Remote failure reply: ..." and stops waiting. */
            rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "the resume ends in an error: %s",
                     ev.error ? ev.error : "target event failed");
            rsp_reply_etext(&s->reply, ev.error ? ev.error : "target event failed");
            return rsp_send_packet(s, s->reply.data, s->reply.len) < 0 ? -EPIPE : 0;
        }
        log_event(s, &ev);
        v = rsp_features_event(s, &ev);
        if (v < 0)
            return -EPIPE;
        if (v != RSP_EVENT_PASS || !s->running)
            continue; /* dropped (still running), or reported by a feature */
        s->running = false;
        rsp_note_stop(s, &ev);
        rsp_stop_reply(s, &ev, &s->reply);
        return rsp_send_packet(s, s->reply.data, s->reply.len) < 0 ? -EPIPE : 0;
    }
    return 0;
}

static enum rsp_end finish(struct rsp_server *s, enum rsp_end why)
{
    /* First the features: no thread may stop on a breakpoint nobody
     * reports. */
    rsp_features_client_gone(s);
    static const char *const whys[] = {[RSP_END_DISCONNECT] = "disconnected",
                                       [RSP_END_EXIT] = "monitor exit",
                                       [RSP_END_WAKE] = "signal",
                                       [RSP_END_ERROR] = "error",
                                       [RSP_END_NOTHING_LEFT] = "nothing left to serve"};
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "client gone (%s): resuming every thread, detaching",
             (size_t)why < sizeof(whys) / sizeof(whys[0]) && whys[why] ? whys[why] : "?");
    /* Whatever ended the session, the devices must not stay stopped. */
    s->target.ops->client_gone(s->target.ctx);
    s->have_stop = false;
    s->running = false;
    s->xfer_valid = false;
    s->conn = NULL;
    if (s->target.ops->client)
        s->target.ops->client(s->target.ctx, false, 0);
    return why;
}

/* What the loop polls this round. */
struct loop_fds {
    struct pollfd p[5];
    int n, ci, ei, wi, li, timeout; /* ci: the client's input (or -1), ei, wi, li: -1 */
};

/* The client's input is polled only while its output is not congested;
 * its output only while something is queued. */
static void loop_fds(struct rsp_server *s, struct rsp_conn *c, bool want_input, struct loop_fds *f)
{
    const struct rsp_target_ops *o = s->target.ops;
    short out = rsp_conn_pending(c) ? POLLOUT : 0;
    int ft;

    f->n = 0;
    f->ci = f->ei = f->wi = f->li = -1;
    f->timeout = -1;
    if (want_input) {
        f->ci = f->n;
        f->p[f->n++] = (struct pollfd){.fd = c->in_fd, .events = POLLIN};
    }
    if (out && want_input && c->out_fd == c->in_fd)
        f->p[f->ci].events |= POLLOUT;
    else if (out)
        f->p[f->n++] = (struct pollfd){.fd = c->out_fd, .events = POLLOUT};
    if (s->running || rsp_features_want_events(s)) {
        int evfd = o->event_fd(s->target.ctx);
        if (evfd >= 0) {
            f->ei = f->n;
            f->p[f->n++] = (struct pollfd){.fd = evfd, .events = POLLIN};
        } else
            f->timeout = EVENT_POLL_MS;
    }
    ft = rsp_features_timeout_ms(s);
    if (ft >= 0 && (f->timeout < 0 || ft < f->timeout))
        f->timeout = ft;
    if (s->cfg.wake_fd >= 0) {
        f->wi = f->n;
        f->p[f->n++] = (struct pollfd){.fd = s->cfg.wake_fd, .events = POLLIN};
    }
    if (s->listener && s->listener->fd >= 0) {
        f->li = f->n;
        f->p[f->n++] = (struct pollfd){.fd = s->listener->fd, .events = POLLIN};
    }
}

/* Client bytes read but not fed yet: what came in while the output was
 * congested waits here, and no more is read until it is used. */
struct held_input {
    uint8_t buf[16384];
    size_t off, len;
};

static int feed_held(struct rsp_server *s, struct held_input *in)
{
    ssize_t used = feed(s, in->buf + in->off, in->len - in->off);
    if (used < 0)
        return -EPIPE;
    in->off += (size_t)used;
    return 0;
}

enum rsp_end rsp_server_run(struct rsp_server *s, struct rsp_conn *c, char *err, size_t errlen)
{
    struct held_input in = {.off = 0, .len = 0};
    struct loop_fds f;

    reset_connection(s, c);
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "client connected");
    for (;;) {
        if (s->end_requested && !rsp_conn_pending(c))
            return finish(s, s->end);
        if (in.off < in.len && !rsp_conn_congested(c)) {
            if (feed_held(s, &in) < 0)
                return finish(s, RSP_END_DISCONNECT);
            continue;
        }
        loop_fds(s, c, in.off == in.len && !rsp_conn_congested(c), &f);
        if (poll(f.p, (nfds_t)f.n, f.timeout) < 0) {
            if (errno == EINTR)
                continue;
            set_err(err, errlen, "poll: %s", strerror(errno));
            return finish(s, RSP_END_ERROR);
        }
        if (f.wi >= 0 && (f.p[f.wi].revents & POLLIN))
            return finish(s, RSP_END_WAKE);
        if (f.li >= 0 && (f.p[f.li].revents & POLLIN))
            rsp_listener_turn_away(s->listener,
                                   "zestub is already serving another client (one at a time): "
                                   "disconnect or detach that one first");
        rsp_features_expire(s);
        if (rsp_conn_pending(c) && rsp_conn_flush(c) < 0)
            return finish(s, RSP_END_DISCONNECT);
        if (f.ci >= 0 && (f.p[f.ci].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = rsp_conn_read(c, in.buf, sizeof(in.buf));
            if (n < 0)
                return finish(s, RSP_END_DISCONNECT);
            in.off = 0;
            in.len = (size_t)n;
            if (feed_held(s, &in) < 0)
                return finish(s, RSP_END_DISCONNECT);
        }
        if ((s->running || rsp_features_want_events(s)) &&
            (f.ei < 0 || (f.p[f.ei].revents & (POLLIN | POLLHUP | POLLERR)))) {
            if (pump_events(s) < 0)
                return finish(s, RSP_END_DISCONNECT);
        }
    }
}

/* A client the listener turned away: the person running the server must
 * see it even at the default level. */
static void log_refusal(void *ctx, const char *why)
{
    struct rsp_server *s = ctx;
    rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "%s", why);
}

int rsp_server_serve(struct rsp_server *s, struct rsp_listener *l, enum rsp_end *why, char *err,
                     size_t errlen)
{
    enum rsp_end end = RSP_END_DISCONNECT;
    int rc = 0;

    if (!l->refused) {
        l->refused = log_refusal;
        l->refused_ctx = s;
    }

    for (;;) {
        struct rsp_conn c;
        rc = rsp_accept(l, &c, s->cfg.wake_fd, err, errlen);
        if (rc == -EINTR) { /* a signal while nobody was connected */
            end = RSP_END_WAKE;
            rc = 0;
            break;
        }
        if (rc < 0)
            break;
        s->listener = l;
        end = rsp_server_run(s, &c, err, errlen);
        s->listener = NULL;
        rsp_conn_close(&c);
        if (end == RSP_END_DISCONNECT && s->cfg.end_when_nothing_left && !s->cfg.once &&
            s->target.ops->process_count(s->target.ctx) == 0) {
            end = RSP_END_NOTHING_LEFT;
            break;
        }
        if (end != RSP_END_DISCONNECT || s->cfg.once || l->kind == RSP_TRANSPORT_STDIO)
            break;
    }
    if (why)
        *why = end;
    return end == RSP_END_ERROR && rc == 0 ? -EIO : rc;
}
