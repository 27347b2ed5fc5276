/* SPDX-License-Identifier: MIT */
/* The sessions target's own "monitor" commands (threads, thread, modules,
 * devices, xpti): read-only summaries of the debug model for a person at a
 * terminal or a script. Kept out of target_sessions.c, which only forwards
 * its sess_manager and XPTI handle here. */
#ifndef ZESTUB_TARGET_TGT_MONITOR_H
#define ZESTUB_TARGET_TGT_MONITOR_H

struct rsp_buf;
struct tgt_xpti;
struct sess_manager;

/* The rsp_target_ops.monitor contract: text for the user goes to out;
 * 0 handled, -ENOENT not one of ours, other negative: the command failed
 * (its reason is in out). "help" appends our lines to the server's help.
 * m is NULL while nothing is attached. Device process P is session P-1.
 * xp (target_xpti.h; may be NULL) is the application's XPTI table: it
 * adds submission sites to `threads by-site` and `modules`, and answers
 * `xpti ...`. */
int tgt_monitor(struct sess_manager *m, struct tgt_xpti *xp, const char *cmd, struct rsp_buf *out);

/* "monitor xpti ARGS" (target_monitor_xpti.c); args after "xpti". */
int tgt_monitor_xpti(struct tgt_xpti *xp, struct sess_manager *m, const char *args,
                     struct rsp_buf *out);

#endif
