/* SPDX-License-Identifier: MIT */
/* Stop replies (T, U, W, X; protocol 6) and what reporting a stop changes:
 * the current thread and the answer to '?'. */
#ifndef ZESTUB_GDBSTUB_STOPREPLY_H
#define ZESTUB_GDBSTUB_STOPREPLY_H

#include <stdbool.h>
#include <stdint.h>

struct rsp_buf;
struct rsp_event;
struct rsp_server;

/* Builds the stop reply for ev into b (cleared first, or appended to). */
void rsp_stop_reply(struct rsp_server *s, const struct rsp_event *ev, struct rsp_buf *b);
void rsp_stop_reply_append(struct rsp_server *s, const struct rsp_event *ev, struct rsp_buf *b);
/* Takes note of a stop that is being reported (current thread, '?'). */
void rsp_note_stop(struct rsp_server *s, const struct rsp_event *ev);

/* Process exit always wins (target.h, process_exited). True when the
 * application of device process pid (ours, not the wire's) has ended. */
bool rsp_process_exited(struct rsp_server *s, int64_t pid);
/* All-stop: when a listed process has ended unreported, its exit (the
 * target's next event) is noted and built into the reply: true. */
bool rsp_reply_pending_exit(struct rsp_server *s);
/* The error for a packet naming a process that has ended ("process N has
 * exited", rsp_reply_error): true when pid has, and the reply is built. */
bool rsp_reply_if_exited(struct rsp_server *s, int64_t pid);

#endif
