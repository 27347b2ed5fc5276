/* SPDX-License-Identifier: MIT */
#include "gdbstub/dispatch.h"

#include <string.h>

#include "gdbstub/offers.h"
#include "gdbstub/server_state.h"

/* A packet, its handler, and the qSupported text that says it is there
 * (announced when the offer `ann` is made to this client with this target:
 * offers.c decides). The _S forms also answer the packet only when the
 * offer `serve` is made (the empty reply else, as for an unknown packet). */
#define EXACT(p, f)                                                                                \
    {                                                                                              \
        {p, true, #f}, f, NULL, NULL, RSP_OFFER_ALWAYS, RSP_OFFER_ALWAYS                           \
    }
#define PREFIX(p, f)                                                                               \
    {                                                                                              \
        {p, false, #f}, f, NULL, NULL, RSP_OFFER_ALWAYS, RSP_OFFER_ALWAYS                          \
    }
#define PREFIX_S(p, f, serve)                                                                      \
    {                                                                                              \
        {p, false, #f}, f, NULL, NULL, RSP_OFFER_ALWAYS, serve                                     \
    }
#define EXACT_F(p, f, feat, ann)                                                                   \
    {                                                                                              \
        {p, true, #f}, f, feat, NULL, ann, RSP_OFFER_ALWAYS                                        \
    }
#define PREFIX_F(p, f, feat, ann)                                                                  \
    {                                                                                              \
        {p, false, #f}, f, feat, NULL, ann, RSP_OFFER_ALWAYS                                       \
    }
#define PREFIX_FS(p, f, feat, ann, serve)                                                          \
    {                                                                                              \
        {p, false, #f}, f, feat, NULL, ann, serve                                                  \
    }
/* Said either way: feat when offered, refused when not (Z0+ for a client
 * that cannot write the breakpoint bit itself, Z0- for the others). */
#define PREFIX_FRS(p, f, feat, refused, offer)                                                     \
    {                                                                                              \
        {p, false, #f}, f, feat, refused, offer, offer                                             \
    }
/* A packet refused outright and said so, so that GDB does not probe it. */
#define REFUSED(p, refused)                                                                        \
    {                                                                                              \
        {p, false, NULL}, NULL, NULL, refused, RSP_OFFER_ALWAYS, RSP_OFFER_ALWAYS                  \
    }

/* One line per packet; grouped as the handler files are. Tokens that are
 * properties of the protocol rather than of one packet hang on the packet
 * that shows them: multiprocess+ on H (pP.T thread ids), swbreak+ on '?'
 * (stop replies), multi-address-space+ on m (the @space suffix). */
static const struct rsp_packet table[] = {
    /* h_query.c */
    EXACT("qSupported", rsp_h_qsupported),
    PREFIX("qSupported:", rsp_h_qsupported),
    EXACT("qC", rsp_h_qc),
    EXACT("qAttached", rsp_h_qattached),
    PREFIX("qAttached:", rsp_h_qattached),
    EXACT_F("QStartNoAckMode", rsp_h_noack, "QStartNoAckMode+", RSP_OFFER_ALWAYS),
    PREFIX_F("QThreadEvents:", rsp_h_thread_events, "QThreadEvents+", RSP_OFFER_ALWAYS),
    EXACT("qDeltaThreadList", rsp_h_delta),
    EXACT("!", rsp_h_extended),
    PREFIX("qRcmd,", rsp_h_rcmd),
    /* h_threads.c */
    PREFIX_F("H", rsp_h_set_thread, "multiprocess+", RSP_OFFER_ALWAYS),
    PREFIX("T", rsp_h_thread_alive),
    EXACT("qfThreadInfo", rsp_h_first_thread),
    EXACT("qsThreadInfo", rsp_h_next_thread),
    /* h_regs.c */
    EXACT("g", rsp_h_read_regs),
    PREFIX("G", rsp_h_write_regs),
    PREFIX("p", rsp_h_read_reg),
    PREFIX("P", rsp_h_write_reg),
    EXACT("e", rsp_h_expedited),
    /* h_memory.c */
    PREFIX_F("m", rsp_h_read_mem_hex, "multi-address-space+", RSP_OFFER_ALWAYS),
    PREFIX("M", rsp_h_write_mem_hex),
    PREFIX_F("x", rsp_h_read_mem_bin, "x+", RSP_OFFER_ALWAYS),
    PREFIX("X", rsp_h_write_mem_bin),
    /* h_run.c */
    EXACT_F("?", rsp_h_status, "swbreak+", RSP_OFFER_ALWAYS),
    EXACT_F("vCont?", rsp_h_vcont_query, "vContSupported+", RSP_OFFER_ALWAYS),
    PREFIX("vCont;", rsp_h_vcont),
    PREFIX("c", rsp_h_continue),
    PREFIX("C", rsp_h_continue_sig),
    PREFIX("s", rsp_h_step),
    PREFIX("S", rsp_h_step_sig),
    PREFIX("vAttach;", rsp_h_attach),
    EXACT("D", rsp_h_detach),
    PREFIX("D;", rsp_h_detach),
    EXACT("k", rsp_h_kill),
    REFUSED("R", "R-"),
    /* h_vrun.c: GDB sends the Q packets before vRun only when announced */
    PREFIX_S("vRun;", rsp_h_vrun, RSP_OFFER_RUN),
    PREFIX("vKill;", rsp_h_vkill),
    PREFIX_F("QEnvironmentHexEncoded:", rsp_h_env_set, "QEnvironmentHexEncoded+", RSP_OFFER_RUN),
    PREFIX_F("QEnvironmentUnset:", rsp_h_env_unset, "QEnvironmentUnset+", RSP_OFFER_RUN),
    EXACT_F("QEnvironmentReset", rsp_h_env_reset, "QEnvironmentReset+", RSP_OFFER_RUN),
    PREFIX_F("QSetWorkingDir:", rsp_h_set_cwd, "QSetWorkingDir+", RSP_OFFER_RUN),
    PREFIX_F("QStartupWithShell:", rsp_h_startup_shell, "QStartupWithShell+", RSP_OFFER_RUN),
    /* h_nonstop.c */
    EXACT("vCtrlC", rsp_h_vctrlc),
    EXACT("vStopped", rsp_h_vstopped),
    PREFIX_F("QNonStop:", rsp_h_qnonstop, "QNonStop+", RSP_OFFER_NON_STOP),
    /* h_xfer.c */
    PREFIX_F("qXfer:features:read:", rsp_h_xfer_features, "qXfer:features:read+", RSP_OFFER_TDESC),
    PREFIX_F("qXfer:threads:read:", rsp_h_xfer_threads, "qXfer:threads:read+", RSP_OFFER_ALWAYS),
    PREFIX_F("qXfer:exec-file:read:", rsp_h_xfer_exec_file, "qXfer:exec-file:read+",
             RSP_OFFER_ALWAYS),
    PREFIX_FS("qXfer:siginfo:read:", rsp_h_xfer_siginfo, "qXfer:siginfo:read+", RSP_OFFER_SIGINFO,
              RSP_OFFER_SIGINFO),
    /* h_library.c */
    PREFIX_FS("qXfer:libraries:read:", rsp_h_xfer_libraries,
              "qXfer:libraries:read+;qXfer:libraries:read:in-memory-library+",
              RSP_OFFER_LIBRARY_LIST, RSP_OFFER_LIBRARIES),
    PREFIX_FS("vAck:", rsp_h_vack, "vAck:in-memory-library+", RSP_OFFER_VACK, RSP_OFFER_LIBRARIES),
    /* h_break.c */
    PREFIX_FRS("Z", rsp_h_insert_bp, "Z0+", "Z0-", RSP_OFFER_Z0),
    PREFIX_S("z", rsp_h_remove_bp, RSP_OFFER_Z0),
    REFUSED("Z1", "Z1-"),
    REFUSED("Z2", "Z2-"),
    REFUSED("Z3", "Z3-"),
    REFUSED("Z4", "Z4-"),
};
#define NENTRIES (sizeof(table) / sizeof(table[0]))

static const struct rsp_packet *lookup(const char *pkt, size_t len)
{
    const struct rsp_packet *best = NULL;
    size_t best_len = 0;

    /* Linear: ~50 entries cost less than the system call that brought the
     * packet, and the table stays readable. */
    for (size_t i = 0; i < NENTRIES; i++) {
        const struct rsp_packet *e = &table[i];
        size_t pl = strlen(e->pub.prefix);
        if (pl > len || memcmp(pkt, e->pub.prefix, pl) != 0)
            continue;
        if (e->pub.exact && pl != len)
            continue;
        if (!best || pl > best_len) {
            best = e;
            best_len = pl;
        }
    }
    return best && best->fn ? best : NULL;
}

const struct rsp_dispatch_entry *rsp_dispatch_lookup(const char *pkt, size_t len)
{
    const struct rsp_packet *e = lookup(pkt, len);
    return e ? &e->pub : NULL;
}

const struct rsp_packet *rsp_dispatch_table(size_t *n)
{
    *n = NENTRIES;
    return table;
}

enum rsp_hresult rsp_dispatch(struct rsp_server *s, const char *pkt, size_t len)
{
    const struct rsp_packet *e = lookup(pkt, len);
    size_t pl;

    rsp_buf_clear(&s->reply);
    if (!e || !rsp_offered(s, e->serve))
        return RSP_H_REPLY; /* empty: unsupported or not offered */
    pl = strlen(e->pub.prefix);
    return e->fn(s, pkt + pl, len - pl);
}
