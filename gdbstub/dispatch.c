/* SPDX-License-Identifier: MIT */
#include "gdbstub/dispatch.h"

#include <string.h>

#include "gdbstub/h_break.h"
#include "gdbstub/h_library.h"
#include "gdbstub/h_nonstop.h"
#include "gdbstub/h_vrun.h"
#include "gdbstub/h_xfer.h"
#include "gdbstub/server_state.h"

/* A packet, its handler, and the qSupported text that says it is there
 * (announced when `when` is NULL or says yes for this client and target). */
#define EXACT(p, f)                                                                                \
    {                                                                                              \
        {p, true, #f}, f, NULL, NULL, NULL                                                         \
    }
#define PREFIX(p, f)                                                                               \
    {                                                                                              \
        {p, false, #f}, f, NULL, NULL, NULL                                                        \
    }
#define EXACT_F(p, f, feat, when)                                                                  \
    {                                                                                              \
        {p, true, #f}, f, feat, NULL, when                                                         \
    }
#define PREFIX_F(p, f, feat, when)                                                                 \
    {                                                                                              \
        {p, false, #f}, f, feat, NULL, when                                                        \
    }
/* Said either way: feat when offered, refused when not (Z0+ for a client
 * that cannot write the breakpoint bit itself, Z0- for the others). */
#define PREFIX_FR(p, f, feat, refused, when)                                                       \
    {                                                                                              \
        {p, false, #f}, f, feat, refused, when                                                     \
    }
/* A packet refused outright and said so, so that GDB does not probe it. */
#define REFUSED(p, refused)                                                                        \
    {                                                                                              \
        {p, false, NULL}, NULL, NULL, refused, NULL                                                \
    }

static bool nonstop_offered(const struct rsp_server *s)
{
    return s->target.ops->set_non_stop != NULL;
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
    EXACT_F("QStartNoAckMode", rsp_h_noack, "QStartNoAckMode+", NULL),
    PREFIX_F("QThreadEvents:", rsp_h_thread_events, "QThreadEvents+", NULL),
    EXACT("qDeltaThreadList", rsp_h_delta),
    EXACT("!", rsp_h_extended),
    PREFIX("qRcmd,", rsp_h_rcmd),
    /* h_threads.c */
    PREFIX_F("H", rsp_h_set_thread, "multiprocess+", NULL),
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
    PREFIX_F("m", rsp_h_read_mem_hex, "multi-address-space+", NULL),
    PREFIX("M", rsp_h_write_mem_hex),
    PREFIX_F("x", rsp_h_read_mem_bin, "x+", NULL),
    PREFIX("X", rsp_h_write_mem_bin),
    /* h_run.c */
    EXACT_F("?", rsp_h_status, "swbreak+", NULL),
    EXACT_F("vCont?", rsp_h_vcont_query, "vContSupported+", NULL),
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
    PREFIX("vRun;", rsp_h_vrun),
    PREFIX("vKill;", rsp_h_vkill),
    PREFIX_F("QEnvironmentHexEncoded:", rsp_h_env_set, "QEnvironmentHexEncoded+", rsp_run_offered),
    PREFIX_F("QEnvironmentUnset:", rsp_h_env_unset, "QEnvironmentUnset+", rsp_run_offered),
    EXACT_F("QEnvironmentReset", rsp_h_env_reset, "QEnvironmentReset+", rsp_run_offered),
    PREFIX_F("QSetWorkingDir:", rsp_h_set_cwd, "QSetWorkingDir+", rsp_run_offered),
    PREFIX_F("QStartupWithShell:", rsp_h_startup_shell, "QStartupWithShell+", rsp_run_offered),
    /* h_nonstop.c */
    EXACT("vCtrlC", rsp_h_vctrlc),
    EXACT("vStopped", rsp_h_vstopped),
    PREFIX_F("QNonStop:", rsp_h_qnonstop, "QNonStop+", nonstop_offered),
    /* h_xfer.c */
    PREFIX_F("qXfer:features:read:", rsp_h_xfer_features, "qXfer:features:read+",
             rsp_xfer_features_offered),
    PREFIX_F("qXfer:threads:read:", rsp_h_xfer_threads, "qXfer:threads:read+", NULL),
    PREFIX_F("qXfer:exec-file:read:", rsp_h_xfer_exec_file, "qXfer:exec-file:read+", NULL),
    PREFIX_F("qXfer:siginfo:read:", rsp_h_xfer_siginfo, "qXfer:siginfo:read+",
             rsp_xfer_siginfo_offered),
    /* h_library.c */
    PREFIX_F("qXfer:libraries:read:", rsp_h_xfer_libraries,
             "qXfer:libraries:read+;qXfer:libraries:read:in-memory-library+",
             rsp_libraries_offered),
    PREFIX_F("vAck:", rsp_h_vack, "vAck:in-memory-library+", rsp_vack_offered),
    /* h_break.c */
    PREFIX_FR("Z", rsp_h_insert_bp, "Z0+", "Z0-", rsp_breakpoints_offered),
    PREFIX("z", rsp_h_remove_bp),
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
    if (!e)
        return RSP_H_REPLY; /* empty: unsupported */
    pl = strlen(e->pub.prefix);
    return e->fn(s, pkt + pl, len - pl);
}
