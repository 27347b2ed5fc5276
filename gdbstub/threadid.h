/* SPDX-License-Identifier: MIT */
/* Thread ids on the wire and in the target: parsing and writing "pP.T",
 * the host-pid alias of a stock GDB's attach, and resolving "any"/"all"
 * to a thread that exists. */
#ifndef ZESTUB_GDBSTUB_THREADID_H
#define ZESTUB_GDBSTUB_THREADID_H

#include <stdbool.h>
#include <stdint.h>

#include "gdbstub/server_state.h"

/* Parses "pP.T", "pP", "T", "-1", "0" (hex), advancing *p. */
bool rsp_parse_ptid(const struct rsp_server *s, const char **p, const char *end,
                    struct rsp_ptid *out);
void rsp_put_ptid(const struct rsp_server *s, struct rsp_buf *b, int64_t pid, int64_t tid);
/* A process id between our numbering and the wire's (see alias_dev). */
int64_t rsp_pid_to_wire(const struct rsp_server *s, int64_t pid);
int64_t rsp_pid_from_wire(const struct rsp_server *s, int64_t pid);
bool rsp_find_process(struct rsp_server *s, uint32_t pid, struct rsp_process_info *out);
/* Hardware threads of every device process attached. */
uint64_t rsp_count_threads(struct rsp_server *s);
/* A concrete, existing thread for want (any/all resolved to a thread of
 * the named or current process, preferring the last stop). */
bool rsp_resolve_thread(struct rsp_server *s, struct rsp_ptid want, uint32_t *pid, uint32_t *tid);
/* Validates a ptid for H/T/vCont: the process exists, the tid is -1, 0 or
 * in range. */
bool rsp_ptid_valid(struct rsp_server *s, struct rsp_ptid p);
/* A stop event that names a thread (STOP, UNAVAILABLE). */
bool rsp_event_names_thread(const struct rsp_event *ev);

#endif
