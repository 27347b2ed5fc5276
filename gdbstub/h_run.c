/* SPDX-License-Identifier: MIT */
/* Run control in all-stop mode: ?, vCont?, vCont, c/C/s/S, vCtrlC, and the
 * process lifetime packets vAttach, D, k (vRun and vKill: h_vrun.c). A resume is answered later
 * by the stop reply the event loop sends. */
#include <stdlib.h>
#include <string.h>

#include "gdbstub/attach.h"
#include "gdbstub/features.h"
#include "gdbstub/handlers.h"
#include "gdbstub/nsqueue.h"
#include "gdbstub/output.h"
#include "gdbstub/server_state.h"
#include "gdbstub/stopreply.h"
#include "gdbstub/threadid.h"

#define MAX_ACTIONS 64

enum rsp_hresult rsp_h_status(struct rsp_server *s, const char *arg, size_t len)
{
    const struct rsp_target_ops *o = s->target.ops;
    struct rsp_event ev;
    uint32_t pid, tid;

    if (s->non_stop)
        return rsp_nonstop_status(s);
    if (rsp_reply_pending_exit(s))
        return RSP_H_REPLY; /* an ended process is reported before any stop */
    if (s->have_stop && rsp_find_process(s, s->last_stop.pid, NULL) &&
        (s->client_intelgt || s->last_stop.kind != RSP_EVENT_UNAVAILABLE)) {
        rsp_stop_reply(s, &s->last_stop, &s->reply);
        return RSP_H_REPLY;
    }
    /* A client that cannot parse U (stock GDB) connecting while no thread
     * is stopped (no kernel runs): a plain stop of a thread, below. */
    if (o->process_count(s->target.ctx) == 0 ||
        !rsp_resolve_thread(s, (struct rsp_ptid){0, 0}, &pid, &tid)) {
        /* Extended-remote with nothing attached: "no process". */
        rsp_buf_puts(&s->reply, "W00");
        return RSP_H_REPLY;
    }
    memset(&ev, 0, sizeof(ev));
    ev.kind = RSP_EVENT_STOP;
    ev.pid = pid;
    ev.tid = tid;
    ev.signal = 5;
    rsp_note_stop(s, &ev);
    rsp_stop_reply(s, &ev, &s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_vcont_query(struct rsp_server *s, const char *arg, size_t len)
{
    /* C and S are accepted, their signals ignored (protocol 2.3); no range
     * stepping yet. */
    rsp_buf_puts(&s->reply, "vCont;c;C;t;s;S;r");
    return RSP_H_REPLY;
}

/* Resumes with the given actions; the stop reply follows asynchronously. */
enum rsp_hresult rsp_resume_start(struct rsp_server *s, const struct rsp_resume *a, size_t n)
{
    char e[RSP_ERR_LEN] = "";
    bool only_stop = true;

    for (size_t i = 0; i < n; i++)
        only_stop = only_stop && a[i].kind == RSP_RESUME_STOP;
    /* All-stop: a process whose application ended answers the resume with
     * its exit, whatever else was asked (non-stop notifies it as it comes). */
    if (!s->non_stop && !only_stop && rsp_reply_pending_exit(s))
        return RSP_H_REPLY;
    if (s->target.ops->process_count(s->target.ctx) == 0) {
        /* The last device went away while GDB was stopped: its exit is
         * still queued and answers this resume. */
        struct rsp_event ev;
        memset(&ev, 0, sizeof(ev));
        if (s->target.ops->next_event(s->target.ctx, &ev) > 0) {
            rsp_note_stop(s, &ev);
            rsp_stop_reply(s, &ev, &s->reply);
            return RSP_H_REPLY;
        }
        rsp_reply_etext(&s->reply, "no device is attached");
        return RSP_H_REPLY;
    }
    if (rsp_log_on(&s->cfg.log, RSP_LOG_DEBUG))
        for (size_t i = 0; i < n; i++)
            rsp_logf(&s->cfg.log, RSP_LOG_DEBUG, "resume: %s p%d.%d",
                     a[i].kind == RSP_RESUME_STEP       ? "step"
                     : a[i].kind == RSP_RESUME_CONTINUE ? "continue"
                     : a[i].kind == RSP_RESUME_RANGE    ? "range step"
                                                        : "stop",
                     (int)a[i].pid, (int)a[i].tid);
    if (s->target.ops->resume(s->target.ctx, a, n, e, sizeof(e)) < 0) {
        rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "resume failed: %s", e[0] ? e : "no reason given");
        rsp_reply_etext(&s->reply, e[0] ? e : "resume failed");
        return RSP_H_REPLY;
    }
    s->xfer_valid = false;
    /* vCont;t in all-stop resumed nothing; in non-stop every resume is
     * answered at once and its stops come as notifications. */
    if (only_stop || s->non_stop) {
        rsp_reply_ok(&s->reply);
        return RSP_H_REPLY;
    }
    s->running = true;
    return RSP_H_NOREPLY;
}

/* A vCont thread id for the target: (P,0) and (0,T) made concrete. */
static bool action_target(struct rsp_server *s, struct rsp_ptid p, struct rsp_resume *a)
{
    uint32_t pid, tid;
    if (p.pid == -1) {
        /* With no device left, start() answers with the queued exit. */
        a->pid = a->tid = -1;
        return true;
    }
    if (!rsp_ptid_valid(s, p))
        return false;
    if (p.pid == 0) {
        if (!rsp_resolve_thread(s, p, &pid, &tid))
            return false;
        a->pid = pid;
        a->tid = p.tid > 0 ? (int64_t)tid : -1;
        return true;
    }
    a->pid = p.pid;
    a->tid = p.tid <= 0 ? -1 : p.tid; /* (P,0) means every thread of P */
    return true;
}

enum rsp_hresult rsp_h_vcont(struct rsp_server *s, const char *arg, size_t len)
{
    struct rsp_resume a[MAX_ACTIONS];
    const char *p = arg, *end = arg + len;
    size_t n = 0;
    uint64_t sig;

    while (p < end) {
        struct rsp_ptid who = {-1, -1};
        if (n == MAX_ACTIONS)
            goto bad;
        a[n].start = a[n].end = 0;
        switch (*p++) {
        case 'c':
            a[n].kind = RSP_RESUME_CONTINUE;
            break;
        case 's':
            a[n].kind = RSP_RESUME_STEP;
            break;
        case 't':
            a[n].kind = RSP_RESUME_STOP;
            break;
        case 'C': /* the signal is ignored: a device has nothing to deliver */
            if (!rsp_parse_hex(&p, end, &sig))
                goto bad;
            a[n].kind = RSP_RESUME_CONTINUE;
            break;
        case 'S':
            if (!rsp_parse_hex(&p, end, &sig))
                goto bad;
            a[n].kind = RSP_RESUME_STEP;
            break;
        case 'r': /* rSTART,END: range stepping */
            a[n].kind = RSP_RESUME_RANGE;
            if (!rsp_parse_hex(&p, end, &a[n].start) || p >= end || *p != ',' ||
                (++p, !rsp_parse_hex(&p, end, &a[n].end)) || a[n].start >= a[n].end)
                goto bad;
            break;
        default:
            goto bad;
        }
        if (p < end && *p == ':') {
            p++;
            if (!rsp_parse_ptid(s, &p, end, &who))
                goto bad;
        }
        if (!action_target(s, who, &a[n])) {
            if (rsp_reply_if_exited(s, who.pid))
                return RSP_H_REPLY;
            goto bad;
        }
        n++;
        if (p < end) {
            if (*p != ';')
                goto bad;
            p++;
            if (p == end)
                goto bad;
        }
    }
    if (n == 0)
        goto bad;
    return rsp_resume_start(s, a, n);
bad:
    rsp_reply_e01(&s->reply);
    return RSP_H_REPLY;
}

/* c/s name no thread: step the Hc thread (or the current one), continue
 * the rest, as vCont;s:T;c. */
static enum rsp_hresult simple(struct rsp_server *s, bool step)
{
    struct rsp_resume a[2];
    size_t n = 0;
    uint32_t pid, tid;

    if (step) {
        struct rsp_ptid who = s->c;
        if (who.tid <= 0)
            who = s->g;
        if (!rsp_resolve_thread(s, who, &pid, &tid)) {
            if (!rsp_reply_if_exited(s, who.pid))
                rsp_reply_e01(&s->reply);
            return RSP_H_REPLY;
        }
        a[n++] = (struct rsp_resume){.kind = RSP_RESUME_STEP, .pid = pid, .tid = tid};
    }
    a[n++] = (struct rsp_resume){.kind = RSP_RESUME_CONTINUE, .pid = -1, .tid = -1};
    return rsp_resume_start(s, a, n);
}

/* Resuming at another address is not supported: GDB never asks. */
static bool no_address(const char *arg, size_t len, bool with_sig)
{
    const char *p = arg, *end = arg + len;
    uint64_t sig;
    if (with_sig && !rsp_parse_hex(&p, end, &sig))
        return false;
    return p == end;
}

enum rsp_hresult rsp_h_continue(struct rsp_server *s, const char *arg, size_t len)
{
    if (!no_address(arg, len, false)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    return simple(s, false);
}

enum rsp_hresult rsp_h_continue_sig(struct rsp_server *s, const char *arg, size_t len)
{
    if (!no_address(arg, len, true)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    return simple(s, false);
}

enum rsp_hresult rsp_h_step(struct rsp_server *s, const char *arg, size_t len)
{
    if (!no_address(arg, len, false)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    return simple(s, true);
}

enum rsp_hresult rsp_h_step_sig(struct rsp_server *s, const char *arg, size_t len)
{
    if (!no_address(arg, len, true)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    return simple(s, true);
}

enum rsp_hresult rsp_h_attach(struct rsp_server *s, const char *arg, size_t len)
{
    const char *p = arg, *end = arg + len;
    uint64_t pid;

    if (!rsp_parse_hex(&p, end, &pid) || p != end || pid == 0 || pid > UINT32_MAX) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    s->xfer_valid = false;
    rsp_do_attach(s, (uint32_t)pid, &s->reply);
    return RSP_H_REPLY;
}

/* Detaches one device process; a failure leaves the target's reason in e. */
static int detach_one(struct rsp_server *s, uint32_t pid, char *e, size_t elen)
{
    int rc;
    rsp_features_detaching(s, pid);
    rc = s->target.ops->detach(s->target.ctx, pid, e, elen);
    if (rc < 0)
        rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "detach from device process %u failed: %s",
                 (unsigned)pid, e[0] ? e : "no reason given");
    else
        rsp_logf(&s->cfg.log, RSP_LOG_INFO, "detached from device process %u", (unsigned)pid);
    if (s->have_stop && s->last_stop.pid == pid)
        s->have_stop = false;
    if (s->g.pid == pid)
        s->g.pid = s->g.tid = 0;
    if (s->c.pid == pid)
        s->c.pid = s->c.tid = 0;
    if (s->alias_dev == pid)
        s->alias_dev = s->alias_host = 0;
    return rc;
}

enum rsp_hresult rsp_h_detach(struct rsp_server *s, const char *arg, size_t len)
{
    const struct rsp_target_ops *o = s->target.ops;
    const char *p = arg, *end = arg + len;
    char e[RSP_ERR_LEN] = "";
    uint64_t pid;
    int rc = 0;

    s->xfer_valid = false;
    if (len == 0) { /* plain D: every device */
        struct rsp_process_info pi;
        while (o->process_count(s->target.ctx) > 0 && o->process_at(s->target.ctx, 0, &pi) == 0)
            if ((rc = detach_one(s, pi.pid, e, sizeof(e))) < 0)
                break;
    } else if (!rsp_parse_hex(&p, end, &pid) || p != end || pid > UINT32_MAX)
        rc = -1;
    else {
        pid = (uint64_t)rsp_pid_from_wire(s, (int64_t)pid);
        /* An ended process too: detaching from it succeeds (gdbserver). */
        if (rsp_find_process(s, (uint32_t)pid, NULL) || rsp_process_exited(s, (int64_t)pid))
            rc = detach_one(s, (uint32_t)pid, e, sizeof(e));
        else
            rc = -1;
    }
    if (rc < 0) {
        rsp_reply_error(s, e); /* E01 for a bad or unknown pid: no reason */
        return RSP_H_REPLY;
    }
    rsp_reply_ok(&s->reply);
    /* Plain "target remote" ends with the last device, as gdbserver does. */
    if (!s->cfg.multi && o->process_count(s->target.ctx) == 0) {
        s->end_requested = true;
        s->end = RSP_END_DISCONNECT;
    }
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_kill(struct rsp_server *s, const char *arg, size_t len)
{
    /* GDB sends "k" without reading a reply; answering would pair E01 with
     * its next request. Killing a device process is not supported. */
    return RSP_H_NOREPLY;
}
