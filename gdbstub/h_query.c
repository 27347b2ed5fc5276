/* SPDX-License-Identifier: MIT */
/* Negotiation and general queries: qSupported, qC, qAttached,
 * QStartNoAckMode, QThreadEvents, qDeltaThreadList, '!' (qRcmd is in
 * h_monitor.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/server_int.h"

/* Only what is implemented (fact sheet 2.2 minus what is not built yet:
 * libraries, vAck, non-stop, the environment and signal packets). Z0-..Z4-
 * tell GDB to write breakpoint bits itself instead of probing Z packets.
 * A client without Intel's extensions gets no intelgt description (it
 * would only warn and ignore it) but the host-shaped one of hostview.c. */
static const char features[] = "PacketSize=10000;QStartNoAckMode+;multiprocess+;"
                               "swbreak+;qXfer:threads:read+;"
                               "qXfer:exec-file:read+;vContSupported+;QThreadEvents+;"
                               "multi-address-space+;x+;vRun-;R-;Z1-;Z2-;Z3-;Z4-";
_Static_assert(RSP_PACKET_SIZE == 0x10000, "PacketSize in the qSupported reply");

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
    s->host_arch = rsp_host_arch_from_qsupported(arg, len);
    s->client_libraries = rsp_libraries_supported(s) &&
                          has_feature(arg, len, "qXfer:libraries:read:in-memory-library+");
    s->client_vack = s->client_libraries && has_feature(arg, len, "vAck:in-memory-library+");
    rsp_buf_puts(&s->reply, features);
    /* Z0 in the server only for clients that cannot write the bit. */
    rsp_buf_puts(&s->reply, rsp_server_breakpoints(s) ? ";Z0+" : ";Z0-");
    if (s->client_intelgt || s->host_arch != RSP_HOST_UNKNOWN)
        rsp_buf_puts(&s->reply, ";qXfer:features:read+");
    /* Modules as in-memory libraries only for clients that read them. */
    if (s->client_libraries)
        rsp_buf_puts(&s->reply, ";qXfer:libraries:read+;qXfer:libraries:read:in-memory-library+");
    if (s->client_vack)
        rsp_buf_puts(&s->reply, ";vAck:in-memory-library+");
    if (s->target.ops->set_non_stop)
        rsp_buf_puts(&s->reply, ";QNonStop+");
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
    rsp_buf_puts(&s->reply, "1");
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
