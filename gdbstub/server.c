/* SPDX-License-Identifier: MIT */
#include "gdbstub/server.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/server_int.h"
#include "regsets/regs.h"

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
    const struct rsp_target_ops *o = target ? target->ops : NULL;

    *out = NULL;
    if (!o || !o->attach || !o->process_count || !o->process_at || !o->thread_info || !o->tdesc ||
        !o->device_info || !o->read_register || !o->write_register || !o->read_memory ||
        !o->write_memory || !o->resume || !o->interrupt || !o->detach || !o->event_fd ||
        !o->next_event || !o->client_gone) {
        set_err(err, errlen, "target interface incomplete");
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
    *out = s;
    return 0;
}

static void free_sent(struct rsp_server *s)
{
    for (size_t i = 0; i < s->nsent; i++)
        free(s->sent[i].tdesc);
    free(s->sent);
    s->sent = NULL;
    s->nsent = 0;
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
    free_sent(s);
    free(s->acks);
    free(s->bps);
    free(s->nsq);
    free(s);
}

/* ---- thread ids ------------------------------------------------------ */

static bool parse_id(const char **p, const char *end, int64_t *out)
{
    uint64_t v;
    if (*p < end && **p == '-') {
        if (*p + 1 < end && (*p)[1] == '1') {
            *p += 2;
            *out = -1;
            return true;
        }
        return false;
    }
    if (!rsp_parse_hex(p, end, &v) || v > INT32_MAX)
        return false;
    *out = (int64_t)v;
    return true;
}

int64_t rsp_pid_to_wire(const struct rsp_server *s, int64_t pid)
{
    return s->alias_dev && pid == s->alias_dev ? s->alias_host : pid;
}

int64_t rsp_pid_from_wire(const struct rsp_server *s, int64_t pid)
{
    if (!s->alias_dev)
        return pid;
    if (pid == s->alias_host)
        return s->alias_dev;
    return pid == s->alias_dev ? INT32_MAX : pid; /* hidden behind the alias */
}

bool rsp_parse_ptid(const struct rsp_server *s, const char **p, const char *end,
                    struct rsp_ptid *out)
{
    const char *q = *p;
    if (q < end && *q == 'p') {
        q++;
        if (!parse_id(&q, end, &out->pid))
            return false;
        if (out->pid > 0)
            out->pid = rsp_pid_from_wire(s, out->pid);
        out->tid = -1; /* "pP": every thread of P */
        if (q < end && *q == '.') {
            q++;
            if (!parse_id(&q, end, &out->tid))
                return false;
        }
    } else {
        if (!parse_id(&q, end, &out->tid))
            return false;
        /* A bare id: -1 all, 0 any, N thread N of the current process. */
        out->pid = out->tid == -1 ? -1 : 0;
    }
    *p = q;
    return true;
}

void rsp_put_ptid(const struct rsp_server *s, struct rsp_buf *b, int64_t pid, int64_t tid)
{
    rsp_buf_putc(b, 'p');
    if (pid < 0)
        rsp_buf_puts(b, "-1");
    else
        rsp_buf_printf(b, "%llx", (unsigned long long)rsp_pid_to_wire(s, pid));
    if (tid < 0)
        rsp_buf_puts(b, ".-1");
    else
        rsp_buf_printf(b, ".%llx", (unsigned long long)tid);
}

bool rsp_find_process(struct rsp_server *s, uint32_t pid, struct rsp_process_info *out)
{
    const struct rsp_target_ops *o = s->target.ops;
    size_t n = o->process_count(s->target.ctx);
    for (size_t i = 0; i < n; i++) {
        struct rsp_process_info pi;
        if (o->process_at(s->target.ctx, i, &pi) == 0 && pi.pid == pid) {
            if (out)
                *out = pi;
            return true;
        }
    }
    return false;
}

static bool first_process(struct rsp_server *s, struct rsp_process_info *out)
{
    const struct rsp_target_ops *o = s->target.ops;
    return o->process_count(s->target.ctx) > 0 && o->process_at(s->target.ctx, 0, out) == 0;
}

static bool stop_names_thread(const struct rsp_event *ev)
{
    return ev->kind == RSP_EVENT_STOP || ev->kind == RSP_EVENT_UNAVAILABLE;
}

bool rsp_resolve_thread(struct rsp_server *s, struct rsp_ptid want, uint32_t *pid, uint32_t *tid)
{
    const struct rsp_target_ops *o = s->target.ops;
    struct rsp_process_info pi;
    bool last = s->have_stop && stop_names_thread(&s->last_stop);

    if (want.pid > 0) {
        if (!rsp_find_process(s, (uint32_t)want.pid, &pi))
            return false;
    } else if (last && rsp_find_process(s, s->last_stop.pid, &pi)) {
        /* any process: the one that reported last */
    } else if (!first_process(s, &pi))
        return false;
    *pid = pi.pid;
    if (want.tid > 0) {
        if ((uint64_t)want.tid > pi.nthreads)
            return false;
        *tid = (uint32_t)want.tid;
        return true;
    }
    if (pi.nthreads == 0)
        return false;
    if (last && s->last_stop.pid == pi.pid && s->last_stop.tid >= 1 &&
        s->last_stop.tid <= pi.nthreads) {
        *tid = s->last_stop.tid;
        return true;
    }
    /* Any thread: prefer one whose registers can be read. */
    for (uint32_t t = 1; t <= pi.nthreads; t++) {
        struct rsp_thread_info ti;
        if (o->thread_info(s->target.ctx, pi.pid, t, &ti) == 0 && ti.state == RSP_THREAD_STOPPED) {
            *tid = t;
            return true;
        }
    }
    *tid = 1;
    return true;
}

bool rsp_ptid_valid(struct rsp_server *s, struct rsp_ptid p)
{
    struct rsp_process_info pi;
    if (p.pid == -1)
        return p.tid <= 0 && s->target.ops->process_count(s->target.ctx) > 0;
    if (p.pid == 0) {
        uint32_t pid, tid;
        return rsp_resolve_thread(s, p, &pid, &tid);
    }
    if (!rsp_find_process(s, (uint32_t)p.pid, &pi))
        return false;
    return p.tid <= 0 || (uint64_t)p.tid <= pi.nthreads;
}

struct rsp_sent_proc *rsp_sent_for(struct rsp_server *s, uint32_t pid, uint32_t n)
{
    struct rsp_sent_proc *e = NULL, *grown;
    for (size_t i = 0; i < s->nsent; i++)
        if (s->sent[i].pid == pid)
            e = &s->sent[i];
    if (!e) {
        grown = realloc(s->sent, (s->nsent + 1) * sizeof(*s->sent));
        if (!grown)
            return NULL;
        s->sent = grown;
        e = &s->sent[s->nsent++];
        memset(e, 0, sizeof(*e));
        e->pid = pid;
    }
    if (e->n != n) {
        uint32_t *t = calloc(n ? n : 1, sizeof(*t));
        if (!t)
            return NULL;
        free(e->tdesc);
        e->tdesc = t;
        e->n = n;
    }
    return e;
}

void rsp_forget_stale(struct rsp_server *s)
{
    size_t k = 0;
    for (size_t i = 0; i < s->nsent; i++) {
        if (rsp_find_process(s, s->sent[i].pid, NULL))
            s->sent[k++] = s->sent[i];
        else
            free(s->sent[i].tdesc);
    }
    s->nsent = k;
}

/* ---- stop replies ------------------------------------------------------ */

static void expedite(struct rsp_server *s, uint32_t pid, uint32_t tid, uint32_t tdesc,
                     struct rsp_buf *b)
{
    const struct rsp_target_ops *o = s->target.ops;
    struct rsp_tdesc td;
    uint8_t val[512];

    if (o->tdesc(s->target.ctx, tdesc, &td) < 0 || !td.regs)
        return;
    for (size_t i = 0; i < regs_catalog_count(td.regs); i++) {
        const struct regs_reg *r = regs_catalog_at(td.regs, i);
        char e[8];
        if (!r->expedited || r->byte_size > sizeof(val))
            continue;
        /* GDB cannot parse "xx" here; an unreadable register is left out
         * and fetched (and shown unavailable) through p/g. */
        if (o->read_register(s->target.ctx, pid, tid, r->regnum, val, r->byte_size, e, sizeof(e)) !=
            0)
            continue;
        rsp_buf_printf(b, "%02x:", (unsigned)r->regnum);
        rsp_buf_hex(b, val, r->byte_size);
        rsp_buf_putc(b, ';');
    }
}

void rsp_stop_reply(struct rsp_server *s, const struct rsp_event *ev, struct rsp_buf *b)
{
    rsp_buf_clear(b);
    rsp_stop_reply_append(s, ev, b);
}

void rsp_stop_reply_append(struct rsp_server *s, const struct rsp_event *ev, struct rsp_buf *b)
{
    struct rsp_thread_info ti;

    switch (ev->kind) {
    case RSP_EVENT_STOP:
        rsp_buf_printf(b, "T%02x", (unsigned)ev->signal & 0xff);
        if (ev->swbreak && s->client_swbreak)
            rsp_buf_puts(b, "swbreak:;");
        if (s->client_intelgt &&
            s->target.ops->thread_info(s->target.ctx, ev->pid, ev->tid, &ti) == 0) {
            rsp_buf_printf(b, "tdesc:%x;", (unsigned)ti.tdesc);
            expedite(s, ev->pid, ev->tid, ti.tdesc, b);
        }
        rsp_buf_puts(b, "thread:");
        rsp_put_ptid(s, b, ev->pid, ev->tid);
        rsp_buf_putc(b, ';');
        /* Never "library:;" here: GDB would take the stop for a solib event
         * and lose the breakpoint (protocol 12.2). */
        break;
    case RSP_EVENT_UNAVAILABLE:
        /* Protocol 1.3: a client that cannot parse U (no unavailable+, no
         * multi-address-space+) gets an error text instead. */
        if (!s->client_intelgt) {
            rsp_buf_puts(b, "E.Unavailable.");
            break;
        }
        rsp_buf_putc(b, 'U');
        rsp_put_ptid(s, b, ev->pid, ev->tid);
        break;
    case RSP_EVENT_LIBRARY:
        rsp_buf_putc(b, 'U');
        rsp_put_ptid(s, b, ev->pid, 0);
        rsp_buf_puts(b, ";library");
        break;
    case RSP_EVENT_EXITED:
        rsp_buf_printf(b, "W%x;process:%llx", (unsigned)ev->code & 0xff,
                       (unsigned long long)rsp_pid_to_wire(s, ev->pid));
        break;
    case RSP_EVENT_KILLED:
        rsp_buf_printf(b, "X%02x;process:%llx", (unsigned)ev->signal & 0xff,
                       (unsigned long long)rsp_pid_to_wire(s, ev->pid));
        break;
    }
}

void rsp_note_stop(struct rsp_server *s, const struct rsp_event *ev)
{
    s->last_stop = *ev;
    s->have_stop = true;
    if (stop_names_thread(ev)) {
        /* As gdbserver: the reporting thread becomes the current one. */
        s->g.pid = s->c.pid = ev->pid;
        s->g.tid = s->c.tid = ev->tid;
    }
}

/* ---- output ------------------------------------------------------------- */

static void trace(struct rsp_server *s, const char *dir, const char *p, size_t n)
{
    FILE *f = s->cfg.trace;
    size_t show = n > 200 ? 200 : n;
    if (!f)
        return;
    fprintf(f, "rsp %s ", dir);
    for (size_t i = 0; i < show; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            fputc(c, f);
        else
            fprintf(f, "\\x%02x", c);
    }
    if (show < n)
        fprintf(f, "...(%zu bytes)", n);
    fputc('\n', f);
    fflush(f);
}

int rsp_send_packet(struct rsp_server *s, const char *payload, size_t len)
{
    struct rsp_buf *f = &s->scratch;
    int rc;

    trace(s, "->", payload, len);
    rsp_buf_clear(f);
    rsp_frame(f, payload, len, false);
    if (f->oom)
        return -ENOMEM;
    if (!s->noack) {
        rsp_buf_clear(&s->last);
        rsp_buf_put(&s->last, f->data, f->len);
    }
    rc = rsp_conn_write(s->conn, f->data, f->len);
    /* The frame can be megabytes (a full thread list); do not keep it. */
    if (f->cap > 4 * RSP_PACKET_SIZE)
        rsp_buf_free(f);
    return rc;
}

void rsp_console(struct rsp_server *s, const char *text)
{
    size_t n = strlen(text), chunk = RSP_PACKET_SIZE / 2 - 8;
    struct rsp_buf o;

    rsp_buf_init(&o);
    for (size_t off = 0; off < n; off += chunk) {
        size_t k = n - off < chunk ? n - off : chunk;
        rsp_buf_clear(&o);
        rsp_buf_putc(&o, 'O');
        rsp_buf_hex(&o, (const uint8_t *)text + off, k);
        if (!o.oom)
            rsp_send_packet(s, o.data, o.len);
    }
    rsp_buf_free(&o);
}

/* ---- attach ------------------------------------------------------------- */

int rsp_do_attach(struct rsp_server *s, uint32_t host_pid, struct rsp_buf *reply)
{
    const struct rsp_target_ops *o = s->target.ops;
    struct rsp_event ev;
    char text[2048];
    struct rsp_buf msg;
    int rc;

    if (o->process_count(s->target.ctx) > 0) {
        rsp_reply_e02(reply, "Already attached.");
        return -EALREADY;
    }
    memset(&ev, 0, sizeof(ev));
    text[0] = 0;
    rc = o->attach(s->target.ctx, host_pid, &ev, text, sizeof(text));
    if (rc < 0) {
        /* One E02 reply (protocol 12.3), always naming the retryable case
         * with the phrase Intel's auto-attach script looks for. */
        rsp_buf_init(&msg);
        rsp_buf_puts(&msg, text[0] ? text : "Failed to attach to any device.");
        if (rc == RSP_TARGET_TOO_EARLY && !strstr(text, "attempting to attach too early"))
            rsp_buf_puts(&msg, "\nattempting to attach too early");
        rsp_reply_e02(reply, msg.oom ? "Failed to attach." : msg.data);
        rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "attach to process %u failed: %s",
                 (unsigned)host_pid, msg.oom ? "out of memory" : msg.data);
        rsp_buf_free(&msg);
        return rc;
    }
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "attached to process %u: %zu device process(es)",
             (unsigned)host_pid, o->process_count(s->target.ctx));
    if (!s->client_intelgt && s->conn && !rsp_find_process(s, host_pid, NULL)) {
        s->alias_dev = ev.pid;
        s->alias_host = host_pid;
    }
    if (s->non_stop) { /* GDB asks for the stops it wants (vCont;t) */
        rsp_reply_ok(reply);
        return 0;
    }
    rsp_note_stop(s, &ev);
    rsp_stop_reply(s, &ev, reply);
    return 0;
}

int rsp_server_attach(struct rsp_server *s, uint32_t host_pid, char *err, size_t errlen)
{
    struct rsp_buf r;
    int rc;

    rsp_buf_init(&r);
    rc = rsp_do_attach(s, host_pid, &r);
    if (rc < 0)
        set_err(err, errlen, "%s", r.len > 3 ? r.data + 3 : "attach failed");
    rsp_buf_free(&r);
    return rc;
}

/* ---- the loop ------------------------------------------------------------- */

void rsp_interrupt(struct rsp_server *s)
{
    char e[RSP_ERR_LEN] = "";
    /* In all-stop a ^C while stopped has nothing to stop (gdbserver ignores
     * it too); the stop it causes arrives as an ordinary event. */
    if (!s->running)
        return;
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "interrupt: stopping every device");
    if (s->target.ops->interrupt(s->target.ctx, e, sizeof(e)) < 0)
        rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "interrupt failed: %s",
                 e[0] ? e : "no reason given");
}

static void reset_connection(struct rsp_server *s, struct rsp_conn *c)
{
    s->conn = c;
    rsp_rx_reset(&s->rx);
    rsp_buf_clear(&s->last);
    s->noack = false;
    s->client_swbreak = false;
    s->client_intelgt = false;
    s->host_arch = RSP_HOST_UNKNOWN;
    s->alias_dev = s->alias_host = 0;
    s->delta_threads = false;
    s->client_libraries = s->client_vack = false;
    rsp_library_reset(s);
    if (s->non_stop && s->target.ops->set_non_stop)
        s->target.ops->set_non_stop(s->target.ctx, false);
    rsp_nonstop_reset(s);
    s->running = false;
    s->xfer_valid = false;
    s->end_requested = false;
    s->list_proc = 0;
    s->list_tid = 0;
    free_sent(s);
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
    trace(s, "<-", pkt, len);
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

static int feed(struct rsp_server *s, const uint8_t *p, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0 && !s->end_requested; i++) {
        switch (rsp_rx_feed(&s->rx, p[i])) {
        case RSP_RX_NONE:
            break;
        case RSP_RX_PACKET:
            rc = handle_packet(s);
            break;
        case RSP_RX_BAD_CHECKSUM:
            trace(s, "<-", "(bad checksum)", 14);
            if (!s->noack)
                rc = rsp_conn_write(s->conn, "-", 1) < 0 ? -EPIPE : 0;
            break;
        case RSP_RX_OVERSIZED:
            trace(s, "<-", "(oversized)", 11);
            rc = reply_text(s, "packet too long");
            break;
        case RSP_RX_MALFORMED:
            trace(s, "<-", "(malformed)", 11);
            rc = reply_text(s, "malformed packet");
            break;
        case RSP_RX_ACK:
            break;
        case RSP_RX_NACK:
            if (!s->noack && s->last.len)
                rc = rsp_conn_write(s->conn, s->last.data, s->last.len) < 0 ? -EPIPE : 0;
            break;
        case RSP_RX_INTERRUPT:
            trace(s, "<-", "^C", 2);
            rsp_interrupt(s);
            break;
        }
    }
    return rc;
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

static int pump_events(struct rsp_server *s)
{
    const struct rsp_target_ops *o = s->target.ops;
    struct rsp_event ev;
    int r;

    /* Non-stop: every event is queued and notified; nothing "runs". */
    while (s->non_stop) {
        memset(&ev, 0, sizeof(ev));
        r = o->next_event(s->target.ctx, &ev);
        if (r <= 0)
            return 0;
        if (ev.kind == RSP_EVENT_LIBRARY && !rsp_library_event(s, ev.pid))
            continue;
        log_event(s, &ev);
        if (rsp_nonstop_queue(s, &ev) < 0)
            return -EPIPE;
    }
    while (s->running) {
        memset(&ev, 0, sizeof(ev));
        r = o->next_event(s->target.ctx, &ev);
        if (r == 0)
            return 0;
        if (r > 0 && ev.kind == RSP_EVENT_LIBRARY && !rsp_library_event(s, ev.pid)) {
            log_event(s, &ev);
            continue; /* nothing to tell this client: still running */
        }
        s->running = false;
        if (r < 0) {
            /* The resume is answered anyway, or GDB would wait forever. */
            rsp_reply_etext(&s->reply, "target event failed");
            return rsp_send_packet(s, s->reply.data, s->reply.len) < 0 ? -EPIPE : 0;
        }
        log_event(s, &ev);
        rsp_note_stop(s, &ev);
        rsp_stop_reply(s, &ev, &s->reply);
        return rsp_send_packet(s, s->reply.data, s->reply.len) < 0 ? -EPIPE : 0;
    }
    return 0;
}

static enum rsp_end finish(struct rsp_server *s, enum rsp_end why)
{
    /* No thread may stop on a breakpoint nobody reports. */
    rsp_breakpoints_remove(s, 0);
    static const char *const whys[] = {[RSP_END_DISCONNECT] = "disconnected",
                                       [RSP_END_EXIT] = "monitor exit",
                                       [RSP_END_WAKE] = "signal",
                                       [RSP_END_ERROR] = "error"};
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "client gone (%s): resuming every thread, detaching",
             (size_t)why < sizeof(whys) / sizeof(whys[0]) && whys[why] ? whys[why] : "?");
    /* Whatever ended the session, the devices must not stay stopped. */
    s->target.ops->client_gone(s->target.ctx);
    s->have_stop = false;
    s->running = false;
    s->xfer_valid = false;
    s->conn = NULL;
    return why;
}

enum rsp_end rsp_server_run(struct rsp_server *s, struct rsp_conn *c, char *err, size_t errlen)
{
    const struct rsp_target_ops *o = s->target.ops;
    uint8_t in[16384];

    reset_connection(s, c);
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "client connected");
    for (;;) {
        struct pollfd p[4];
        int np = 0, ci, ei = -1, wi = -1, evfd, timeout = -1, r;

        if (s->end_requested && !rsp_conn_pending(c))
            return finish(s, s->end);
        ci = np;
        p[np++] = (struct pollfd){.fd = c->in_fd, .events = POLLIN};
        if (rsp_conn_pending(c)) {
            if (c->out_fd == c->in_fd)
                p[ci].events |= POLLOUT;
            else
                p[np++] = (struct pollfd){.fd = c->out_fd, .events = POLLOUT};
        }
        if (s->running || s->non_stop) {
            evfd = o->event_fd(s->target.ctx);
            if (evfd >= 0) {
                ei = np;
                p[np++] = (struct pollfd){.fd = evfd, .events = POLLIN};
            } else
                timeout = EVENT_POLL_MS;
        }
        {
            int lt = rsp_library_timeout_ms(s);
            if (lt >= 0 && (timeout < 0 || lt < timeout))
                timeout = lt;
        }
        if (s->cfg.wake_fd >= 0) {
            wi = np;
            p[np++] = (struct pollfd){.fd = s->cfg.wake_fd, .events = POLLIN};
        }
        r = poll(p, (nfds_t)np, timeout);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            set_err(err, errlen, "poll: %s", strerror(errno));
            return finish(s, RSP_END_ERROR);
        }
        if (wi >= 0 && (p[wi].revents & POLLIN))
            return finish(s, RSP_END_WAKE);
        rsp_library_expire(s);
        if (rsp_conn_pending(c)) {
            if (rsp_conn_flush(c) < 0)
                return finish(s, RSP_END_DISCONNECT);
        }
        if (p[ci].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = rsp_conn_read(c, in, sizeof(in));
            if (n < 0)
                return finish(s, RSP_END_DISCONNECT);
            if (n > 0 && feed(s, in, (size_t)n) < 0)
                return finish(s, RSP_END_DISCONNECT);
        }
        if ((s->running || s->non_stop) &&
            (ei < 0 || (p[ei].revents & (POLLIN | POLLHUP | POLLERR)))) {
            if (pump_events(s) < 0)
                return finish(s, RSP_END_DISCONNECT);
        }
    }
}

int rsp_server_serve(struct rsp_server *s, struct rsp_listener *l, enum rsp_end *why, char *err,
                     size_t errlen)
{
    enum rsp_end end = RSP_END_DISCONNECT;
    int rc = 0;

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
        end = rsp_server_run(s, &c, err, errlen);
        rsp_conn_close(&c);
        if (end != RSP_END_DISCONNECT || s->cfg.once || l->kind == RSP_TRANSPORT_STDIO)
            break;
    }
    if (why)
        *why = end;
    return end == RSP_END_ERROR && rc == 0 ? -EIO : rc;
}
