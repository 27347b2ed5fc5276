/* SPDX-License-Identifier: MIT */
/* Monitor commands ("monitor CMD" in GDB, qRcmd on the wire) as rows of a
 * table: the server's own (help, exit, in h_monitor.c) and the target's
 * (rsp_monitor_ops.commands). A row is everything about one
 * command: the server matches commands against the rows, answers for a
 * row that needs an attached process, and builds `monitor help` from
 * them, so a new command is one row and one function. */
#ifndef ZESTUB_GDBSTUB_MONITOR_H
#define ZESTUB_GDBSTUB_MONITOR_H

#include <stdbool.h>

struct rsp_buf; /* gdbstub/packet.h */

struct rsp_monitor_cmd {
    /* One or more words ("threads", "xpti tasks"). A command matches the
     * row with the longest name that it starts with, word for word. */
    const char *name;
    const char *usage; /* the name and its arguments, as `monitor help` shows it */
    const char *help;  /* what it does; '\n' between lines when it needs several */
    /* Without an attached process the server answers "nothing is
     * attached: no NAME" instead of calling fn. Commands that have
     * something to say then anyway (a usage error, an empty list) leave
     * it false and look for themselves. */
    bool needs_attach;
    /* ctx: the target's context (the server's own rows: the server).
     * args: what follows the name, spaces skipped. Text for the user goes
     * to out (sent as console output). 0: done (OK); -ENOENT: not a
     * command after all ("Unknown monitor command"); other negative:
     * failed, out says why. Either way the reply is OK after the text
     * (h_monitor.c says why no client is given an E reply). */
    int (*fn)(void *ctx, const char *args, struct rsp_buf *out);
};

#endif
