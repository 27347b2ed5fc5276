/* SPDX-License-Identifier: MIT */
/* Stop replies (T, U, W, X; protocol 6) and what reporting a stop changes:
 * the current thread and the answer to '?'. */
#ifndef ZESTUB_GDBSTUB_STOPREPLY_H
#define ZESTUB_GDBSTUB_STOPREPLY_H

struct rsp_buf;
struct rsp_event;
struct rsp_server;

/* Builds the stop reply for ev into b (cleared first, or appended to). */
void rsp_stop_reply(struct rsp_server *s, const struct rsp_event *ev, struct rsp_buf *b);
void rsp_stop_reply_append(struct rsp_server *s, const struct rsp_event *ev, struct rsp_buf *b);
/* Takes note of a stop that is being reported (current thread, '?'). */
void rsp_note_stop(struct rsp_server *s, const struct rsp_event *ev);

#endif
