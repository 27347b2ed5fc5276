/* SPDX-License-Identifier: MIT */
/* Attaching (vAttach and --attach) and interrupting (^C, vCtrlC in
 * all-stop): the run-control steps the loop and several handlers share. */
#ifndef ZESTUB_GDBSTUB_ATTACH_H
#define ZESTUB_GDBSTUB_ATTACH_H

#include <stdint.h>

struct rsp_buf;
struct rsp_server;

/* 0, or negative with reply holding the one error: E02<text> for Intel's
 * GDB (protocol 12.3), E.<text> for every other client and for --attach. */
int rsp_do_attach(struct rsp_server *s, uint32_t host_pid, struct rsp_buf *reply);
/* The one attach error reply: E02<text> for Intel's GDB, E.<text> for
 * every other client (vAttach, vRun). */
void rsp_reply_attach_error(const struct rsp_server *s, struct rsp_buf *reply, const char *text);
/* Interrupt (^C or vCtrlC) while running; nothing while stopped. When the
 * target cannot interrupt (the driver refused), all-stop's pending resume
 * is answered with the error at once, since no stop will come; -EPIPE
 * when that answer cannot be sent. */
int rsp_interrupt(struct rsp_server *s);

#endif
