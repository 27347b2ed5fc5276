/* SPDX-License-Identifier: MIT */
/* Registers of the Hg thread: g, G, p, P and Intel's e (every expedited
 * register: Intel's GDB falls back to g, not p, for an expedited register
 * that e left out; doc/intel-gdb.md).
 * Registers that cannot be read are sent as "xx" per byte, which GDB shows
 * as <unavailable> (protocol 1.3).
 *
 * A client without Intel's extensions (stock GDB) has no intelgt
 * architecture and gets the host-shaped view of hostview.c instead;
 * register writes are refused for it. */
#include <stdlib.h>
#include <string.h>

#include "gdbstub/handlers.h"
#include "gdbstub/hostview.h"
#include "gdbstub/output.h"
#include "gdbstub/server_state.h"
#include "gdbstub/stopreply.h"
#include "gdbstub/threadid.h"
#include "regsets/regs_catalog.h"

#define REG_MAX 1024 /* bytes; the widest Intel GT register is 64 */

struct regctx {
    uint32_t pid, tid;
    const struct regs_catalog *regs;
};

/* The Hg thread and its layout; false with the error reply built (a
 * process that ended says so). reading: a process that ended but is
 * still listed (its exit not reported yet) lets its threads be read, as
 * registers that cannot be read ("xx", protocol 1.3): Intel's GDB reads
 * the thread of a stop it is still showing, and an error there ends the
 * stop's display ("Could not read registers") instead of showing the
 * thread unavailable. */
static bool current_for(struct rsp_server *s, struct regctx *r, bool reading)
{
    struct rsp_thread_info ti;
    struct rsp_tdesc td;

    if (!rsp_resolve_thread(s, s->g, &r->pid, &r->tid)) {
        if (!rsp_reply_if_exited(s, s->g.pid))
            rsp_reply_e01(&s->reply);
        return false;
    }
    if (!reading && rsp_reply_if_exited(s, r->pid))
        return false;
    if (s->target.ops->thread_info(s->target.ctx, r->pid, r->tid, &ti) < 0 ||
        s->target.ops->tdesc(s->target.ctx, ti.tdesc, &td) < 0 || !td.regs) {
        rsp_reply_e01(&s->reply);
        return false;
    }
    r->regs = td.regs;
    return true;
}

static bool current(struct rsp_server *s, struct regctx *r)
{
    return current_for(s, r, false);
}

/* Appends one register's value (or its "xx..."). */
static void put_reg(struct rsp_server *s, const struct regctx *r, const struct regs_reg *reg)
{
    uint8_t buf[REG_MAX];
    char e[RSP_ERR_LEN];
    int rc = -1;

    if (reg->byte_size <= sizeof(buf))
        rc = s->target.ops->read_register(s->target.ctx, r->pid, r->tid, reg->regnum, buf,
                                          reg->byte_size, e, sizeof(e));
    if (rc == 0) {
        rsp_buf_hex(&s->reply, buf, reg->byte_size);
        return;
    }
    if (rsp_buf_reserve(&s->reply, 2 * (size_t)reg->byte_size)) {
        memset(s->reply.data + s->reply.len, 'x', 2 * (size_t)reg->byte_size);
        s->reply.len += 2 * (size_t)reg->byte_size;
        s->reply.data[s->reply.len] = 0;
    }
}

/* True, with the reply built, when the client has no intelgt architecture
 * and writes are refused. */
static bool archless_write(struct rsp_server *s)
{
    if (s->client_intelgt)
        return false;
    rsp_reply_etext(&s->reply, "registers need a debugger with the Intel GT architecture");
    return true;
}

enum rsp_hresult rsp_h_read_regs(struct rsp_server *s, const char *arg, size_t len)
{
    struct regctx r;
    if (!s->client_intelgt) {
        rsp_hostview_read_regs(s);
        return RSP_H_REPLY;
    }
    if (!current_for(s, &r, true))
        return RSP_H_REPLY;
    for (size_t i = 0; i < regs_catalog_count(r.regs); i++)
        put_reg(s, &r, regs_catalog_at(r.regs, i));
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_expedited(struct rsp_server *s, const char *arg, size_t len)
{
    struct regctx r;
    if (!current_for(s, &r, true))
        return RSP_H_REPLY;
    /* Every expedited register, each set read once per thread and stop (the
     * target's cache): a register left out would cost the client's g, every
     * register set of the thread. */
    for (size_t i = 0; i < regs_catalog_count(r.regs); i++) {
        const struct regs_reg *reg = regs_catalog_at(r.regs, i);
        if (!reg->expedited)
            continue;
        rsp_buf_printf(&s->reply, "%02x:", (unsigned)reg->regnum);
        put_reg(s, &r, reg);
        rsp_buf_putc(&s->reply, ';');
    }
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_read_reg(struct rsp_server *s, const char *arg, size_t len)
{
    const char *p = arg, *end = arg + len;
    uint64_t n;
    struct regctx r;

    if (!rsp_parse_hex(&p, end, &n) || p != end) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    if (!s->client_intelgt) {
        rsp_hostview_read_reg(s, n);
        return RSP_H_REPLY;
    }
    if (!current_for(s, &r, true))
        return RSP_H_REPLY;
    if (n >= regs_catalog_count(r.regs)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    put_reg(s, &r, regs_catalog_at(r.regs, (size_t)n));
    return RSP_H_REPLY;
}

/* Writes one register from hex; read-only registers are refused unless the
 * value is unchanged (G always carries the whole file). A failure of the
 * target leaves its reason in e. */
static int write_one(struct rsp_server *s, const struct regctx *r, const struct regs_reg *reg,
                     const char *hex, bool from_g, char *e, size_t elen)
{
    uint8_t buf[REG_MAX], cur[REG_MAX];
    char ignored[RSP_ERR_LEN];
    size_t n = reg->byte_size;

    if (n > sizeof(buf))
        return -1;
    if (from_g && hex[0] == 'x') /* unavailable when read: leave alone */
        return 0;
    if (!rsp_hex_decode(hex, n, buf))
        return -1;
    if (!reg->writable) {
        if (from_g &&
            s->target.ops->read_register(s->target.ctx, r->pid, r->tid, reg->regnum, cur, n,
                                         ignored, sizeof(ignored)) == 0 &&
            memcmp(cur, buf, n) == 0)
            return 0;
        return -1;
    }
    return s->target.ops->write_register(s->target.ctx, r->pid, r->tid, reg->regnum, buf, n, e,
                                         elen) == 0
               ? 0
               : -1;
}

enum rsp_hresult rsp_h_write_reg(struct rsp_server *s, const char *arg, size_t len)
{
    const char *p = arg, *end = arg + len;
    const struct regs_reg *reg;
    char e[RSP_ERR_LEN] = "";
    uint64_t n;
    struct regctx r;

    if (!s->client_intelgt && rsp_hostview_write_ignored(s, arg, len)) {
        rsp_reply_ok(&s->reply);
        return RSP_H_REPLY;
    }
    if (archless_write(s))
        return RSP_H_REPLY;
    if (!rsp_parse_hex(&p, end, &n) || p == end || *p != '=') {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    if (!current(s, &r))
        return RSP_H_REPLY;
    if (n >= regs_catalog_count(r.regs)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    p++;
    reg = regs_catalog_at(r.regs, (size_t)n);
    if ((size_t)(end - p) != 2 * (size_t)reg->byte_size)
        rsp_reply_e01(&s->reply);
    else if (write_one(s, &r, reg, p, false, e, sizeof(e)) < 0)
        rsp_reply_error(s, e);
    else
        rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_write_regs(struct rsp_server *s, const char *arg, size_t len)
{
    struct regctx r;
    size_t total = 0, off = 0;
    char e[RSP_ERR_LEN] = "";

    if (archless_write(s))
        return RSP_H_REPLY;
    if (!current(s, &r))
        return RSP_H_REPLY;
    for (size_t i = 0; i < regs_catalog_count(r.regs); i++)
        total += 2 * (size_t)regs_catalog_at(r.regs, i)->byte_size;
    if (len != total) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    for (size_t i = 0; i < regs_catalog_count(r.regs); i++) {
        const struct regs_reg *reg = regs_catalog_at(r.regs, i);
        if (write_one(s, &r, reg, arg + off, true, e, sizeof(e)) < 0) {
            rsp_reply_error(s, e);
            return RSP_H_REPLY;
        }
        off += 2 * (size_t)reg->byte_size;
    }
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}
