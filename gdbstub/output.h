/* SPDX-License-Identifier: MIT */
/* What goes to the client outside a handler's reply: packets sent at
 * once, console output, the --debug-rsp trace, and the one error path for
 * a target error that has a reason. */
#ifndef ZESTUB_GDBSTUB_OUTPUT_H
#define ZESTUB_GDBSTUB_OUTPUT_H

#include <stddef.h>

struct rsp_server;

/* --debug-rsp: one line for a packet in ("<-") or out ("->"). */
void rsp_trace(struct rsp_server *s, const char *dir, const char *p, size_t n);
/* Sends a packet now (O console output before the final reply). */
int rsp_send_packet(struct rsp_server *s, const char *payload, size_t len);
/* Console output as O packets (hex text, split to fit). */
void rsp_console(struct rsp_server *s, const char *text);
/* A target call failed with reason err (may be empty): the reply is
 * "E.err" for a client that announced error-message+, "E01" for the others
 * (Intel's GDB and GDB before 14 do not), and err is logged. */
void rsp_reply_error(struct rsp_server *s, const char *err);

#endif
