/* SPDX-License-Identifier: MIT */
/* Thread selection and listing: H, T, qfThreadInfo/qsThreadInfo. */
#include "gdbstub/handlers.h"
#include "gdbstub/server_state.h"
#include "gdbstub/stopreply.h"
#include "gdbstub/threadid.h"

enum rsp_hresult rsp_h_set_thread(struct rsp_server *s, const char *arg, size_t len)
{
    const char *p = arg + 1, *end = arg + len;
    struct rsp_ptid want;
    struct rsp_ptid *slot;
    uint32_t pid, tid;

    if (len < 2 || (arg[0] != 'g' && arg[0] != 'c') || !rsp_parse_ptid(s, &p, end, &want) ||
        p != end) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    slot = arg[0] == 'g' ? &s->g : &s->c;
    /* "any"/"all" are fine before attach (GDB sends Hc0 at startup); a named
     * process or thread must exist. */
    if (want.pid <= 0 && want.tid <= 0) {
        *slot = want;
        if (arg[0] == 'g' && rsp_resolve_thread(s, want, &pid, &tid)) {
            slot->pid = pid;
            slot->tid = tid;
        }
        rsp_reply_ok(&s->reply);
        return RSP_H_REPLY;
    }
    if (!rsp_resolve_thread(s, want, &pid, &tid)) {
        if (!rsp_reply_if_exited(s, want.pid)) /* its exit was reported */
            rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    /* Hg pP.0 is "any thread of P": resolved now, so that registers and
     * memory have a concrete thread (protocol 2.3). Hc keeps its wildcard. */
    slot->pid = pid;
    slot->tid = arg[0] == 'c' && want.tid <= 0 ? -1 : (int64_t)tid;
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_thread_alive(struct rsp_server *s, const char *arg, size_t len)
{
    const char *p = arg, *end = arg + len;
    struct rsp_ptid want;
    uint32_t pid, tid;

    /* Threads never exit while their device is attached. */
    if (!rsp_parse_ptid(s, &p, end, &want) || p != end || want.tid <= 0 ||
        !rsp_resolve_thread(s, want, &pid, &tid))
        rsp_reply_e01(&s->reply);
    else
        rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

static enum rsp_hresult list_more(struct rsp_server *s)
{
    const struct rsp_target_ops *o = s->target.ops;
    size_t nproc = o->process_count(s->target.ctx);
    bool any = false;

    /* Fill one packet; the client asks for the rest with qsThreadInfo. */
    while (s->list_proc < nproc && s->reply.len < RSP_PACKET_SIZE - 64) {
        struct rsp_process_info pi;
        if (o->process_at(s->target.ctx, s->list_proc, &pi) < 0 || s->list_tid >= pi.nthreads) {
            s->list_proc++;
            s->list_tid = 0;
            continue;
        }
        s->list_tid++;
        rsp_buf_putc(&s->reply, any ? ',' : 'm');
        rsp_put_ptid(s, &s->reply, pi.pid, s->list_tid);
        any = true;
    }
    if (!any)
        rsp_buf_puts(&s->reply, "l");
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_first_thread(struct rsp_server *s, const char *arg, size_t len)
{
    s->list_proc = 0;
    s->list_tid = 0;
    return list_more(s);
}

enum rsp_hresult rsp_h_next_thread(struct rsp_server *s, const char *arg, size_t len)
{
    return list_more(s);
}
