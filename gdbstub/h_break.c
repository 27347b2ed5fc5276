/* SPDX-License-Identifier: MIT */
/* Z0/z0: software breakpoints planted by the server, for clients without
 * the Intel GT architecture (stock GDB). Intel GT has no breakpoint
 * instruction; every instruction carries a breakpoint control bit (protocol
 * 5). Intel's GDB writes that bit itself and is told Z0-; any other GDB
 * would write its own host's breakpoint instruction (x86 int3) into device
 * code, so it is told Z0+ and gets this. How a breakpoint is planted is the
 * target's business (its sw_breakpoints table); a target without one gets
 * Z0- and the empty reply (offers.c).
 *
 * The server keeps the breakpoints it planted: a module unloaded and loaded
 * again has fresh code, so they are planted again on every library change,
 * before the load is acknowledged; and they are removed when the client
 * leaves or detaches, so no thread ever stops on a breakpoint with nobody
 * to report it to. A bit that was already set (by the client or in the
 * module) is left alone by z0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/h_break.h"

#include "gdbstub/handlers.h"
#include "gdbstub/hooks.h"
#include "gdbstub/output.h"
#include "gdbstub/server_state.h"
#include "gdbstub/threadid.h"

/* Sets the breakpoint at addr; *was_set says it was there already. */
static int plant(struct rsp_server *s, uint32_t pid, uint64_t addr, bool *was_set, char *err,
                 size_t errlen)
{
    return s->target.ops->sw_breakpoints->insert(s->target.ctx, pid, addr, was_set, err, errlen);
}

static int unplant(struct rsp_server *s, uint32_t pid, uint64_t addr, char *err, size_t errlen)
{
    return s->target.ops->sw_breakpoints->remove(s->target.ctx, pid, addr, err, errlen);
}

static struct rsp_breakpoint *find(struct rsp_server *s, uint32_t pid, uint64_t addr)
{
    for (size_t i = 0; i < s->nbps; i++)
        if (s->bps[i].pid == pid && s->bps[i].addr == addr)
            return &s->bps[i];
    return NULL;
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
    char e[RSP_ERR_LEN] = "";
    uint64_t addr;
    uint32_t pid;
    bool was_set;

    /* Answered only when Z0 is offered (offers.c: not to Intel's GDB,
     * which writes the bit itself); other kinds get the empty reply. */
    if (len < 1 || arg[0] != '0')
        return RSP_H_REPLY;
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
    if (plant(s, pid, addr, &was_set, e, sizeof(e)) < 0) {
        rsp_logf(&s->cfg.log, RSP_LOG_DEBUG, "breakpoint at p%u 0x%llx: %s", (unsigned)pid,
                 (unsigned long long)addr, e[0] ? e : "no reason given");
        /* The target's reason (not an instruction start, no module
         * there) for a client that shows error texts. */
        if (e[0]) {
            char text[RSP_ERR_LEN + 64];
            snprintf(text, sizeof(text), "cannot plant a breakpoint there: %s", e);
            rsp_reply_etext(&s->reply, text);
        } else
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
    char e[RSP_ERR_LEN] = "";
    struct rsp_breakpoint *b;
    uint64_t addr;
    uint32_t pid;

    if (len < 1 || arg[0] != '0')
        return RSP_H_REPLY;
    if (!parse(s, arg, len, &addr, &pid)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    b = find(s, pid, addr);
    if (b) {
        if (b->ours && unplant(s, pid, addr, e, sizeof(e)) < 0) {
            rsp_logf(&s->cfg.log, RSP_LOG_DEBUG, "removing breakpoint p%u 0x%llx: %s",
                     (unsigned)pid, (unsigned long long)addr, e[0] ? e : "no reason given");
            rsp_reply_etext(&s->reply, "cannot remove the breakpoint (the code is gone)");
            *b = s->bps[--s->nbps];
            return RSP_H_REPLY;
        }
        *b = s->bps[--s->nbps];
    }
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

/* A library change: fresh code after a reload has lost the breakpoints;
 * code that is gone cannot be written and keeps its entry for the next
 * load. Before the library feature acknowledges the load. */
static int replant(struct rsp_server *s, const struct rsp_event *ev)
{
    if (ev->kind != RSP_EVENT_LIBRARY)
        return RSP_EVENT_PASS;
    for (size_t i = 0; i < s->nbps; i++) {
        char e[RSP_ERR_LEN];
        bool was_set;
        if (s->bps[i].pid != ev->pid || !s->bps[i].ours)
            continue;
        if (plant(s, ev->pid, s->bps[i].addr, &was_set, e, sizeof(e)) == 0 && !was_set)
            rsp_logf(&s->cfg.log, RSP_LOG_INFO, "breakpoint at p%u 0x%llx planted again",
                     (unsigned)ev->pid, (unsigned long long)s->bps[i].addr);
    }
    return RSP_EVENT_PASS;
}

/* Clears the breakpoints the server set, of pid (0: every device), and
 * forgets them: no thread may stop on a breakpoint nobody reports. */
static void remove_all(struct rsp_server *s, uint32_t pid)
{
    for (size_t i = 0; i < s->nbps;) {
        char e[RSP_ERR_LEN];
        if (pid && s->bps[i].pid != pid) {
            i++;
            continue;
        }
        if (s->bps[i].ours)
            (void)unplant(s, s->bps[i].pid, s->bps[i].addr, e, sizeof(e));
        s->bps[i] = s->bps[--s->nbps];
    }
}

static void client_gone(struct rsp_server *s)
{
    remove_all(s, 0);
}

static void release(struct rsp_server *s)
{
    free(s->bps);
    s->bps = NULL;
    s->nbps = s->cap_bps = 0;
}

const struct rsp_feature rsp_feature_breakpoints = {
    .name = "Z0 breakpoints",
    .client_gone = client_gone,
    .detaching = remove_all,
    .on_event = replant,
    .release = release,
};
