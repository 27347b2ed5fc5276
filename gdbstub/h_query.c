/* SPDX-License-Identifier: MIT */
/* Negotiation and general queries: qSupported (offers.c), qC, qAttached,
 * QStartNoAckMode, QThreadEvents, qDeltaThreadList, '!' (qRcmd is in h_monitor.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/h_vrun.h"
#include "gdbstub/handlers.h"
#include "gdbstub/hostview.h"
#include "gdbstub/offers.h"
#include "gdbstub/output.h"
#include "gdbstub/server_state.h"
#include "gdbstub/threadid.h"

static bool has_feature(const char *arg, size_t len, const char *name)
{
    size_t n = strlen(name);
    const char *p = arg, *end = arg + len;
    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        size_t l = semi ? (size_t)(semi - p) : (size_t)(end - p);
        if (l == n && memcmp(p, name, n) == 0)
            return true;
        p += l + 1;
    }
    return false;
}

enum rsp_hresult rsp_h_qsupported(struct rsp_server *s, const char *arg, size_t len)
{
    s->client_swbreak = has_feature(arg, len, "swbreak+");
    s->client_intelgt =
        has_feature(arg, len, "multi-address-space+") || has_feature(arg, len, "unavailable+");
    s->client_error_message = has_feature(arg, len, "error-message+");
    s->host_arch = rsp_host_arch_from_qsupported(arg, len);
    s->client_libraries = has_feature(arg, len, "qXfer:libraries:read:in-memory-library+");
    s->client_vack = has_feature(arg, len, "vAck:in-memory-library+");
    /* What follows from these and the target: offers.c. */
    rsp_offers_announce(s, &s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_qc(struct rsp_server *s, const char *arg, size_t len)
{
    uint32_t pid, tid;
    if (!rsp_resolve_thread(s, s->g, &pid, &tid))
        return RSP_H_REPLY; /* no device yet: GDB makes up a thread */
    rsp_buf_puts(&s->reply, "QC");
    rsp_put_ptid(s, &s->reply, pid, tid);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_qattached(struct rsp_server *s, const char *arg, size_t len)
{
    const char *p = arg, *end = arg + len;
    uint64_t pid;

    /* "qAttached:P" names a process; as gdbserver, an unknown one is an
     * error. Every device process was attached to, never started by us: GDB
     * must detach, not kill, when it is done. */
    if (len > 0) {
        if (!rsp_parse_hex(&p, end, &pid) || p != end || pid > INT32_MAX ||
            !rsp_find_process(s, (uint32_t)rsp_pid_from_wire(s, (int64_t)pid), NULL)) {
            rsp_reply_e01(&s->reply);
            return RSP_H_REPLY;
        }
    }
    /* The program vRun started is GDB's to kill (vKill), as gdbserver's. */
    rsp_buf_puts(&s->reply, rsp_run_is_ours(s, len ? (int64_t)pid : 0) ? "0" : "1");
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_noack(struct rsp_server *s, const char *arg, size_t len)
{
    /* The packet itself was acked already; the OK is the last packet the
     * client acknowledges. */
    s->noack = true;
    rsp_buf_clear(&s->last);
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_thread_events(struct rsp_server *s, const char *arg, size_t len)
{
    /* Device threads are never created or destroyed, so there is nothing to
     * report either way. */
    if (len == 1 && (arg[0] == '0' || arg[0] == '1'))
        rsp_reply_ok(&s->reply);
    else
        rsp_reply_e01(&s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_delta(struct rsp_server *s, const char *arg, size_t len)
{
    /* The thread set is fixed per device, so later lists carry only the
     * threads whose tdesc changed (protocol 9). */
    s->delta_threads = true;
    rsp_buf_puts(&s->reply, "1");
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_extended(struct rsp_server *s, const char *arg, size_t len)
{
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}
