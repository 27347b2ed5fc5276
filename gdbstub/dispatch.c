/* SPDX-License-Identifier: MIT */
#include "gdbstub/dispatch.h"

#include <string.h>

#include "gdbstub/server_int.h"

struct entry {
    struct rsp_dispatch_entry pub;
    rsp_handler_fn fn;
};

#define EXACT(p, f)                                                                                \
    {                                                                                              \
        {p, true, #f}, f                                                                           \
    }
#define PREFIX(p, f)                                                                               \
    {                                                                                              \
        {p, false, #f}, f                                                                          \
    }

/* One line per packet; grouped as the handler files are. */
static const struct entry table[] = {
    /* h_query.c */
    EXACT("qSupported", rsp_h_qsupported),
    PREFIX("qSupported:", rsp_h_qsupported),
    EXACT("qC", rsp_h_qc),
    EXACT("qAttached", rsp_h_qattached),
    PREFIX("qAttached:", rsp_h_qattached),
    EXACT("QStartNoAckMode", rsp_h_noack),
    PREFIX("QThreadEvents:", rsp_h_thread_events),
    EXACT("qDeltaThreadList", rsp_h_delta),
    EXACT("!", rsp_h_extended),
    PREFIX("qRcmd,", rsp_h_rcmd),
    /* h_threads.c */
    PREFIX("H", rsp_h_set_thread),
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
    PREFIX("m", rsp_h_read_mem_hex),
    PREFIX("M", rsp_h_write_mem_hex),
    PREFIX("x", rsp_h_read_mem_bin),
    PREFIX("X", rsp_h_write_mem_bin),
    /* h_run.c */
    EXACT("?", rsp_h_status),
    EXACT("vCont?", rsp_h_vcont_query),
    PREFIX("vCont;", rsp_h_vcont),
    PREFIX("c", rsp_h_continue),
    PREFIX("C", rsp_h_continue_sig),
    PREFIX("s", rsp_h_step),
    PREFIX("S", rsp_h_step_sig),
    EXACT("vCtrlC", rsp_h_vctrlc),
    EXACT("vStopped", rsp_h_vstopped),
    PREFIX("QNonStop:", rsp_h_qnonstop),
    PREFIX("vAttach;", rsp_h_attach),
    EXACT("D", rsp_h_detach),
    PREFIX("D;", rsp_h_detach),
    EXACT("k", rsp_h_kill),
    PREFIX("vKill;", rsp_h_vkill),
    /* h_xfer.c */
    PREFIX("qXfer:features:read:", rsp_h_xfer_features),
    PREFIX("qXfer:threads:read:", rsp_h_xfer_threads),
    PREFIX("qXfer:exec-file:read:", rsp_h_xfer_exec_file),
    PREFIX("qXfer:libraries:read:", rsp_h_xfer_libraries),
    PREFIX("vAck:", rsp_h_vack),
    PREFIX("Z", rsp_h_insert_bp),
    PREFIX("z", rsp_h_remove_bp),
};
#define NENTRIES (sizeof(table) / sizeof(table[0]))

static const struct entry *lookup(const char *pkt, size_t len)
{
    const struct entry *best = NULL;
    size_t best_len = 0;

    /* Linear: ~40 entries cost less than the system call that brought the
     * packet, and the table stays readable. */
    for (size_t i = 0; i < NENTRIES; i++) {
        const struct entry *e = &table[i];
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
    return best;
}

const struct rsp_dispatch_entry *rsp_dispatch_lookup(const char *pkt, size_t len)
{
    const struct entry *e = lookup(pkt, len);
    return e ? &e->pub : NULL;
}

enum rsp_hresult rsp_dispatch(struct rsp_server *s, const char *pkt, size_t len)
{
    const struct entry *e = lookup(pkt, len);
    size_t pl;

    rsp_buf_clear(&s->reply);
    if (!e)
        return RSP_H_REPLY; /* empty: unsupported */
    pl = strlen(e->pub.prefix);
    return e->fn(s, pkt + pl, len - pl);
}
