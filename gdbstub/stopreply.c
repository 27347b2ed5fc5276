/* SPDX-License-Identifier: MIT */
#include "gdbstub/stopreply.h"

#include <stdio.h>
#include <string.h>

#include "gdbstub/output.h"
#include "gdbstub/server_state.h"
#include "gdbstub/threadid.h"
#include "regsets/regs_catalog.h"

static void expedite(struct rsp_server *s, uint32_t pid, uint32_t tid, uint32_t tdesc,
                     struct rsp_buf *b)
{
    const struct rsp_target_ops *o = s->target.ops;
    struct rsp_tdesc td;
    uint8_t val[512];

    if (o->tdesc(s->target.ctx, tdesc, &td) < 0 || !td.regs)
        return;
    for (size_t i = 0; i < regs_catalog_count(td.regs); i++) {
        const struct regs_reg *r = regs_catalog_at(td.regs, i);
        char e[8];
        if (!r->expedited || r->byte_size > sizeof(val))
            continue;
        /* GDB cannot parse "xx" here; an unreadable register is left out
         * and fetched (and shown unavailable) through p/g. */
        if (o->read_register(s->target.ctx, pid, tid, r->regnum, val, r->byte_size, e, sizeof(e)) !=
            0)
            continue;
        rsp_buf_printf(b, "%02x:", (unsigned)r->regnum);
        rsp_buf_hex(b, val, r->byte_size);
        rsp_buf_putc(b, ';');
    }
}

/* GDB's signal numbers (include/gdb/signals.def). */
enum { GDB_SIGINT = 2, GDB_SIGTRAP = 5 };

/* The signal the client is told. A stop the client's interrupt caused is
 * SIGINT for every client, as gdbserver reports a ^C: GDB, GDB/MI and
 * front ends show a pause ("received signal SIGINT", reason
 * signal-received). A SIGTRAP there could be taken for the end of a step
 * and resumed silently, the lost ^C of issue 22; Intel's GDB, checked with
 * T02 for device threads, shows "received signal SIGINT" and continues
 * cleanly (doc/intel-gdb.md), although Intel's own gdbserver sends it
 * SIGTRAP. */
static int stop_signal(const struct rsp_event *ev)
{
    return ev->interrupted ? GDB_SIGINT : ev->signal;
}

void rsp_stop_reply(struct rsp_server *s, const struct rsp_event *ev, struct rsp_buf *b)
{
    rsp_buf_clear(b);
    rsp_stop_reply_append(s, ev, b);
}

/* The device exit of the program vRun started: how the program itself
 * ended, when the target can tell (W with its status, or X with the
 * signal that killed it), as gdbserver reports a program it ran. */
static bool program_end(struct rsp_server *s, const struct rsp_event *ev, struct rsp_buf *b)
{
    int code = 0, sig = 0;
    /* run_host is set only by a vRun, which the programs table served. */
    if (!s->run_host || s->attached_host != s->run_host ||
        s->target.ops->programs->program_status(s->target.ctx, s->run_host, &code, &sig) < 0)
        return false;
    if (sig > 0)
        rsp_buf_printf(b, "X%02x;process:%llx", (unsigned)sig & 0xff,
                       (unsigned long long)rsp_pid_to_wire(s, ev->pid));
    else
        rsp_buf_printf(b, "W%02x;process:%llx", (unsigned)code & 0xff,
                       (unsigned long long)rsp_pid_to_wire(s, ev->pid));
    return true;
}

void rsp_stop_reply_append(struct rsp_server *s, const struct rsp_event *ev, struct rsp_buf *b)
{
    struct rsp_thread_info ti;

    switch (ev->kind) {
    case RSP_EVENT_STOP:
        rsp_buf_printf(b, "T%02x", (unsigned)stop_signal(ev) & 0xff);
        if (ev->swbreak && s->client_swbreak)
            rsp_buf_puts(b, "swbreak:;");
        if (s->client_intelgt &&
            s->target.ops->thread_info(s->target.ctx, ev->pid, ev->tid, &ti) == 0) {
            rsp_buf_printf(b, "tdesc:%x;", (unsigned)ti.tdesc);
            expedite(s, ev->pid, ev->tid, ti.tdesc, b);
        }
        rsp_buf_puts(b, "thread:");
        rsp_put_ptid(s, b, ev->pid, ev->tid);
        rsp_buf_putc(b, ';');
        /* Never "library:;" here: GDB would take the stop for a solib event
         * and lose the breakpoint (protocol 12.2). */
        break;
    case RSP_EVENT_UNAVAILABLE:
        /* Protocol 1.3: a client that cannot parse U (no unavailable+, no
         * multi-address-space+) gets an error text instead. */
        if (!s->client_intelgt) {
            rsp_buf_puts(b, "E.Unavailable.");
            break;
        }
        rsp_buf_putc(b, 'U');
        rsp_put_ptid(s, b, ev->pid, ev->tid);
        break;
    case RSP_EVENT_LIBRARY:
        rsp_buf_putc(b, 'U');
        rsp_put_ptid(s, b, ev->pid, 0);
        rsp_buf_puts(b, ";library");
        break;
    case RSP_EVENT_EXITED:
        if (program_end(s, ev, b))
            break;
        rsp_buf_printf(b, "W%x;process:%llx", (unsigned)ev->code & 0xff,
                       (unsigned long long)rsp_pid_to_wire(s, ev->pid));
        break;
    case RSP_EVENT_KILLED:
        rsp_buf_printf(b, "X%02x;process:%llx", (unsigned)ev->signal & 0xff,
                       (unsigned long long)rsp_pid_to_wire(s, ev->pid));
        break;
    }
}

void rsp_note_stop(struct rsp_server *s, const struct rsp_event *ev)
{
    s->last_stop = *ev;
    s->have_stop = true;
    if (rsp_event_names_thread(ev)) {
        /* As gdbserver: the reporting thread becomes the current one. */
        s->g.pid = s->c.pid = ev->pid;
        s->g.tid = s->c.tid = ev->tid;
    }
}

bool rsp_process_exited(struct rsp_server *s, int64_t pid)
{
    const struct rsp_target_ops *o = s->target.ops;
    return o->exits && pid > 0 && pid <= UINT32_MAX &&
           o->exits->process_exited(s->target.ctx, (uint32_t)pid);
}

bool rsp_reply_pending_exit(struct rsp_server *s)
{
    const struct rsp_target_ops *o = s->target.ops;
    size_t n = o->process_count(s->target.ctx);
    struct rsp_event ev;
    bool pending = false;

    for (size_t i = 0; i < n && !pending; i++) {
        struct rsp_process_info pi;
        pending = o->process_at(s->target.ctx, i, &pi) == 0 && rsp_process_exited(s, pi.pid);
    }
    memset(&ev, 0, sizeof(ev));
    if (!pending || o->next_event(s->target.ctx, &ev) <= 0)
        return false;
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "device process %u has exited: reported now",
             (unsigned)ev.pid);
    rsp_note_stop(s, &ev);
    rsp_stop_reply(s, &ev, &s->reply);
    return true;
}

bool rsp_reply_if_exited(struct rsp_server *s, int64_t pid)
{
    char text[64];
    if (!rsp_process_exited(s, pid))
        return false;
    snprintf(text, sizeof(text), "process %lld has exited", (long long)rsp_pid_to_wire(s, pid));
    rsp_buf_clear(&s->reply);
    rsp_reply_error(s, text);
    return true;
}
