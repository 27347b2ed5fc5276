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

#include "gdbstub/attach.h"
#include "gdbstub/h_nonstop.h"
#include "gdbstub/handlers.h"
#include "gdbstub/hooks.h"
#include "gdbstub/nsqueue.h"
#include "gdbstub/offers.h"
#include "gdbstub/output.h"
#include "gdbstub/server_state.h"
#include "gdbstub/stopreply.h"

static void reset(struct rsp_server *s)
{
    if (s->non_stop && s->target.ops->non_stop)
        s->target.ops->non_stop->set_non_stop(s->target.ctx, false);
    s->non_stop = false;
    s->notified = false;
    s->nnsq = 0;
}

static bool wants_events(const struct rsp_server *s)
{
    return s->non_stop;
}

/* Non-stop: every stop is queued and notified; nothing "runs". */
static int queue_event(struct rsp_server *s, const struct rsp_event *ev)
{
    if (!s->non_stop)
        return RSP_EVENT_PASS;
    return rsp_nonstop_queue(s, ev) < 0 ? -EPIPE : RSP_EVENT_TAKEN;
}

static void release(struct rsp_server *s)
{
    free(s->nsq);
    s->nsq = NULL;
    s->nnsq = s->cap_nsq = 0;
}

const struct rsp_feature rsp_feature_nonstop = {
    .name = "non-stop",
    .reset = reset,
    .wants_events = wants_events,
    .on_event = queue_event,
    .release = release,
};

enum rsp_hresult rsp_h_qnonstop(struct rsp_server *s, const char *arg, size_t len)
{
    const struct rsp_target_ops *o = s->target.ops;
    bool on;

    if (len != 1 || (arg[0] != '0' && arg[0] != '1') || !rsp_offered(s, RSP_OFFER_NON_STOP)) {
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
    o->non_stop->set_non_stop(s->target.ctx, on);
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
    if (!s->non_stop) { /* all-stop: as ^C, after its own OK */
        rsp_reply_ok(&s->reply);
        if (rsp_send_packet(s, s->reply.data, s->reply.len) < 0)
            return RSP_H_NOREPLY;
        (void)rsp_interrupt(s); /* a failure answers the resume */
        return RSP_H_NOREPLY;
    }
    if (s->target.ops->interrupt(s->target.ctx, e, sizeof(e)) < 0) {
        rsp_reply_etext(&s->reply, e[0] ? e : "interrupt failed");
        return RSP_H_REPLY;
    }
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}
