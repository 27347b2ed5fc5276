/* SPDX-License-Identifier: MIT */
/* The sessions target's own "monitor" commands (threads, thread, modules,
 * devices): read-only summaries of the debug model for a person at a
 * terminal or a script. Kept out of target_sessions.c, which only forwards
 * its sess_manager here. */
#ifndef ZESTUB_GDBSTUB_TARGET_MONITOR_H
#define ZESTUB_GDBSTUB_TARGET_MONITOR_H

struct rsp_buf;
struct sess_manager;

/* The rsp_target_ops.monitor contract: text for the user goes to out;
 * 0 handled, -ENOENT not one of ours, other negative: the command failed
 * (its reason is in out). "help" appends our lines to the server's help.
 * m is NULL while nothing is attached. Device process P is session P-1. */
int rsp_sessions_monitor(struct sess_manager *m, const char *cmd, struct rsp_buf *out);

#endif
