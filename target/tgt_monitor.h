/* SPDX-License-Identifier: MIT */
/* The sessions target's own "monitor" commands (threads, thread, modules,
 * devices, xpti ...): read-only summaries of the debug model for a person
 * at a terminal or a script. Each is one row of tgt_monitor_table.c, which
 * hands it the target's sess_manager and XPTI handle.
 *
 * The contract of a row's function (gdbstub/monitor.h): args are what
 * follows the command's name; text for the user goes to out; 0 done,
 * negative: the command failed (its reason is in out). m is NULL while
 * nothing is attached (each command says so itself: the wording and the
 * reply differ). Device process P is session P-1. xp (tgt_xpti.h; may be
 * NULL) is the application's XPTI table: it adds submission sites to
 * `threads by-site` and `modules`, and answers `xpti ...`. */
#ifndef ZESTUB_TARGET_TGT_MONITOR_H
#define ZESTUB_TARGET_TGT_MONITOR_H

#include <stdbool.h>
#include <stdint.h>

struct rsp_buf;
struct tgt_xpti;
struct sess_manager;

/* tgt_monitor.c */
int tgt_monitor_threads(struct sess_manager *m, struct tgt_xpti *xp, const char *args,
                        struct rsp_buf *out);
int tgt_monitor_thread(struct sess_manager *m, const char *args, struct rsp_buf *out);
int tgt_monitor_modules(struct sess_manager *m, struct tgt_xpti *xp, const char *args,
                        struct rsp_buf *out);
int tgt_monitor_devices(struct sess_manager *m, const char *args, struct rsp_buf *out);

/* tgt_monitor_xpti.c: `xpti`, `xpti tasks`, `xpti uid`, `xpti allocations`. */
int tgt_monitor_xpti_status(struct tgt_xpti *xp, struct sess_manager *m, const char *args,
                            struct rsp_buf *out);
int tgt_monitor_xpti_tasks(struct tgt_xpti *xp, struct sess_manager *m, const char *args,
                           struct rsp_buf *out);
int tgt_monitor_xpti_uid(struct tgt_xpti *xp, struct sess_manager *m, const char *args,
                         struct rsp_buf *out);
int tgt_monitor_xpti_allocations(struct tgt_xpti *xp, struct sess_manager *m, const char *args,
                                 struct rsp_buf *out);

/* tgt_monitor_report.c: `dump [--json] [--registers ...]` (the report
 * layer's dump, into out) and `core [OPTIONS] FILE` (its GPU cores, files
 * on the server's machine; out says what was written). */
struct zd;
int tgt_monitor_dump(struct sess_manager *m, struct zd *zd, uint32_t host_pid, const char *args,
                     struct rsp_buf *out);
/* confined, uid: the client (gdbstub/confine.h): a confined one writes
 * only inside the working directory. */
int tgt_monitor_core(struct sess_manager *m, uint32_t host_pid, bool confined, uint32_t uid,
                     const char *args, struct rsp_buf *out);

#endif
