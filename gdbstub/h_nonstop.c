/* SPDX-License-Identifier: MIT */
/* Non-stop mode (QNonStop:1): threads stop and run one by one. A resume is
 * answered OK at once; every stop (thread, unavailable, library, exit) is
 * queued and announced with a %Stop notification; GDB then drains the
 * queue with vStopped, each reply carrying the next stop, until OK. Stops
 * that arrive during a drain join the queue; the next notification goes
 * out once the queue was drained. All-stop stays the default. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/server_int.h"

static int send_notification(struct rsp_server *s)
{
    struct rsp_buf n, *f = &s->scratch;
    int rc;

    rsp_buf_init(&n);
    rsp_buf_puts(&n, "Stop:");
    rsp_stop_reply_append(s, &s->nsq[0], &n);
    if (n.oom) {
        rsp_buf_free(&n);
        return -ENOMEM;
    }
    rsp_note_stop(s, &s->nsq[0]);
    rsp_buf_clear(f);
    rsp_frame(f, n.data, n.len, true);
    s->notified = true;
    rc = rsp_conn_write(s->conn, f->data, f->len);
    rsp_buf_free(&n);
    return rc;
}

int rsp_nonstop_append(struct rsp_server *s, const struct rsp_event *ev)
{
    if (s->nnsq == s->cap_nsq) {
        size_t cap = s->cap_nsq ? 2 * s->cap_nsq : 64;
        struct rsp_event *q = realloc(s->nsq, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        s->nsq = q;
        s->cap_nsq = cap;
    }
    s->nsq[s->nnsq++] = *ev;
    return 0;
}

int rsp_nonstop_queue(struct rsp_server *s, const struct rsp_event *ev)
{
    if (rsp_nonstop_append(s, ev) < 0)
        return -ENOMEM;
    if (!s->notified)
        return send_notification(s) < 0 ? -EPIPE : 0;
    return 0;
}

void rsp_nonstop_reset(struct rsp_server *s)
{
    s->non_stop = false;
    s->notified = false;
    s->nnsq = 0;
}

enum rsp_hresult rsp_h_qnonstop(struct rsp_server *s, const char *arg, size_t len)
{
    const struct rsp_target_ops *o = s->target.ops;
    bool on;

    if (len != 1 || (arg[0] != '0' && arg[0] != '1') || !o->set_non_stop) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    on = arg[0] == '1';
    /* Switching while devices are attached would leave the all-stop
     * bookkeeping of the target half done: GDB switches before attaching. */
    if (on != s->non_stop && o->process_count(s->target.ctx) > 0) {
        rsp_reply_etext(&s->reply, "switch QNonStop before attaching");
        return RSP_H_REPLY;
    }
    o->set_non_stop(s->target.ctx, on);
    s->non_stop = on;
    s->notified = false;
    s->nnsq = 0;
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_vstopped(struct rsp_server *s, const char *arg, size_t len)
{
    if (!s->non_stop) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    /* The head was delivered (by the notification or the last vStopped). */
    if (s->nnsq > 0)
        memmove(s->nsq, s->nsq + 1, --s->nnsq * sizeof(*s->nsq));
    if (s->nnsq == 0) {
        s->notified = false;
        rsp_reply_ok(&s->reply);
        return RSP_H_REPLY;
    }
    rsp_note_stop(s, &s->nsq[0]);
    rsp_stop_reply(s, &s->nsq[0], &s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_vctrlc(struct rsp_server *s, const char *arg, size_t len)
{
    char e[RSP_ERR_LEN] = "";
    if (!s->non_stop) /* all-stop: as ^C */
        return rsp_h_ctrlc(s, arg, len);
    if (s->target.ops->interrupt(s->target.ctx, e, sizeof(e)) < 0) {
        rsp_reply_etext(&s->reply, e[0] ? e : "interrupt failed");
        return RSP_H_REPLY;
    }
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_nonstop_status(struct rsp_server *s)
{
    const struct rsp_target_ops *o = s->target.ops;
    size_t np = o->process_count(s->target.ctx);

    /* '?' in non-stop: one stop reply per stopped thread, the first now and
     * the rest through vStopped; OK when no thread is stopped. */
    s->nnsq = 0;
    for (size_t i = 0; i < np; i++) {
        struct rsp_process_info pi;
        if (o->process_at(s->target.ctx, i, &pi) < 0)
            continue;
        for (uint32_t t = 1; t <= pi.nthreads; t++) {
            struct rsp_thread_info ti;
            struct rsp_event ev = {.kind = RSP_EVENT_STOP, .pid = pi.pid, .tid = t, .signal = 0};
            if (o->thread_info(s->target.ctx, pi.pid, t, &ti) == 0 &&
                ti.state == RSP_THREAD_STOPPED && rsp_nonstop_append(s, &ev) < 0) {
                rsp_reply_etext(&s->reply, "out of memory");
                return RSP_H_REPLY;
            }
        }
    }
    if (s->nnsq == 0) {
        s->notified = false;
        rsp_reply_ok(&s->reply);
        return RSP_H_REPLY;
    }
    s->notified = true; /* vStopped drains the rest */
    rsp_note_stop(s, &s->nsq[0]);
    rsp_stop_reply(s, &s->nsq[0], &s->reply);
    return RSP_H_REPLY;
}
