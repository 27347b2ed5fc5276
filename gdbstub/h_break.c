/* SPDX-License-Identifier: MIT */
/* Z0/z0: software breakpoints planted by the server, for clients without
 * the Intel GT architecture (stock GDB). Intel GT has no breakpoint
 * instruction; every instruction carries a breakpoint control bit (protocol
 * 5). Intel's GDB writes that bit itself and is told Z0-; any other GDB
 * would write its own host's breakpoint instruction (x86 int3) into device
 * code, so it is told Z0+ and gets this.
 *
 * The server keeps the breakpoints it planted: a module unloaded and loaded
 * again has fresh code, so they are planted again on every library change,
 * before the load is acknowledged; and they are removed when the client
 * leaves or detaches, so no thread ever stops on a breakpoint with nobody
 * to report it to. A bit that was already set (by the client or in the
 * module) is left alone by z0. */
#include <stdlib.h>
#include <string.h>

#include "gdbstub/server_int.h"
#include "regsets/regs.h"

static int read_insn(struct rsp_server *s, uint32_t pid, uint64_t addr, uint8_t insn[16],
                     size_t *len)
{
    struct rsp_mem_ref ref = {.pid = pid, .tid = 0, .space = 0, .addr = addr};
    char e[RSP_ERR_LEN];
    size_t done = 0;
    if (s->target.ops->read_memory(s->target.ctx, &ref, insn, 16, &done, e, sizeof(e)) < 0 ||
        done < 8 || done < regs_insn_length(insn))
        return -1;
    *len = regs_insn_length(insn);
    return 0;
}

static int write_insn(struct rsp_server *s, uint32_t pid, uint64_t addr, const uint8_t *insn,
                      size_t len)
{
    struct rsp_mem_ref ref = {.pid = pid, .tid = 0, .space = 0, .addr = addr};
    char e[RSP_ERR_LEN];
    return s->target.ops->write_memory(s->target.ctx, &ref, insn, len, e, sizeof(e));
}

/* Sets the bit at addr; *was_set says it was there already. */
static int plant(struct rsp_server *s, uint32_t pid, uint64_t addr, bool *was_set)
{
    uint8_t insn[16], back[16];
    size_t len, blen;
    if (read_insn(s, pid, addr, insn, &len) < 0)
        return -1;
    *was_set = regs_insn_breakpoint(insn);
    if (*was_set)
        return 0;
    regs_insn_set_breakpoint(insn, true);
    if (write_insn(s, pid, addr, insn, len) < 0 || read_insn(s, pid, addr, back, &blen) < 0 ||
        !regs_insn_breakpoint(back))
        return -1;
    return 0;
}

static int unplant(struct rsp_server *s, uint32_t pid, uint64_t addr)
{
    uint8_t insn[16];
    size_t len;
    if (read_insn(s, pid, addr, insn, &len) < 0)
        return -1;
    if (!regs_insn_breakpoint(insn))
        return 0;
    regs_insn_set_breakpoint(insn, false);
    return write_insn(s, pid, addr, insn, len);
}

static struct rsp_breakpoint *find(struct rsp_server *s, uint32_t pid, uint64_t addr)
{
    for (size_t i = 0; i < s->nbps; i++)
        if (s->bps[i].pid == pid && s->bps[i].addr == addr)
            return &s->bps[i];
    return NULL;
}

bool rsp_server_breakpoints(const struct rsp_server *s)
{
    return !s->client_intelgt;
}

/* "TYPE,ADDR,KIND" after the Z or z; only type 0. */
static bool parse(struct rsp_server *s, const char *arg, size_t len, uint64_t *addr, uint32_t *pid)
{
    const char *p = arg, *end = arg + len;
    uint64_t kind;
    uint32_t tid;
    if (len < 2 || arg[0] != '0' || arg[1] != ',')
        return false;
    p += 2;
    if (!rsp_parse_hex(&p, end, addr) || p >= end || *p != ',')
        return false;
    p++;
    if (!rsp_parse_hex(&p, end, &kind))
        return false;
    /* Conditions and commands (";X...") are not offered; ignore none. */
    if (p != end)
        return false;
    return rsp_resolve_thread(s, s->g, pid, &tid);
}

enum rsp_hresult rsp_h_insert_bp(struct rsp_server *s, const char *arg, size_t len)
{
    uint64_t addr;
    uint32_t pid;
    bool was_set;

    if (!rsp_server_breakpoints(s) || len < 1 || arg[0] != '0')
        return RSP_H_REPLY; /* empty: not supported (Intel's GDB writes the bit) */
    if (!parse(s, arg, len, &addr, &pid)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    if (find(s, pid, addr)) {
        rsp_reply_ok(&s->reply);
        return RSP_H_REPLY;
    }
    if (s->nbps == s->cap_bps) {
        size_t cap = s->cap_bps ? 2 * s->cap_bps : 16;
        struct rsp_breakpoint *n = realloc(s->bps, cap * sizeof(*n));
        if (!n) {
            rsp_reply_etext(&s->reply, "out of memory");
            return RSP_H_REPLY;
        }
        s->bps = n;
        s->cap_bps = cap;
    }
    if (plant(s, pid, addr, &was_set) < 0) {
        rsp_reply_etext(&s->reply, "cannot plant a breakpoint there (no code at that address)");
        return RSP_H_REPLY;
    }
    s->bps[s->nbps++] = (struct rsp_breakpoint){.pid = pid, .addr = addr, .ours = !was_set};
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "breakpoint at p%u 0x%llx%s", (unsigned)pid,
             (unsigned long long)addr, was_set ? " (the bit was already set)" : "");
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_remove_bp(struct rsp_server *s, const char *arg, size_t len)
{
    struct rsp_breakpoint *b;
    uint64_t addr;
    uint32_t pid;

    if (!rsp_server_breakpoints(s) || len < 1 || arg[0] != '0')
        return RSP_H_REPLY;
    if (!parse(s, arg, len, &addr, &pid)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    b = find(s, pid, addr);
    if (b) {
        if (b->ours && unplant(s, pid, addr) < 0) {
            rsp_reply_etext(&s->reply, "cannot remove the breakpoint (the code is gone)");
            *b = s->bps[--s->nbps];
            return RSP_H_REPLY;
        }
        *b = s->bps[--s->nbps];
    }
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

void rsp_breakpoints_replant(struct rsp_server *s, uint32_t pid)
{
    for (size_t i = 0; i < s->nbps; i++) {
        bool was_set;
        if (s->bps[i].pid != pid || !s->bps[i].ours)
            continue;
        /* Fresh code after a reload has no bit; code that is gone cannot
         * be read and keeps its entry for the next load. */
        if (plant(s, pid, s->bps[i].addr, &was_set) == 0 && !was_set)
            rsp_logf(&s->cfg.log, RSP_LOG_INFO, "breakpoint at p%u 0x%llx planted again",
                     (unsigned)pid, (unsigned long long)s->bps[i].addr);
    }
}

void rsp_breakpoints_remove(struct rsp_server *s, uint32_t pid)
{
    for (size_t i = 0; i < s->nbps;) {
        if (pid && s->bps[i].pid != pid) {
            i++;
            continue;
        }
        if (s->bps[i].ours)
            (void)unplant(s, s->bps[i].pid, s->bps[i].addr);
        s->bps[i] = s->bps[--s->nbps];
    }
}
