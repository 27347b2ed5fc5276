/* SPDX-License-Identifier: MIT */
#include "gdbstub/nsqueue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/server_state.h"
#include "gdbstub/stopreply.h"

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
