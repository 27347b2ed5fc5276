/* SPDX-License-Identifier: MIT */
/* The real target: rsp_target_ops on top of sessions/ (and, through it,
 * zetdebug and Level Zero). This is gdbstub's one view of the debug model. */
#ifndef ZESTUB_GDBSTUB_TARGET_SESSIONS_H
#define ZESTUB_GDBSTUB_TARGET_SESSIONS_H

#include <stddef.h>

#include "gdbstub/log.h"
#include "gdbstub/target.h"

/* Opens Level Zero (zeInit and device discovery); attaching happens on the
 * client's vAttach, or at once with rsp_sessions_target_attach. */
int rsp_sessions_target_new(struct rsp_target *out, char *err, size_t errlen);
void rsp_sessions_target_free(struct rsp_target *t);
/* Where module loads, device exits and failed cleanups are logged (the
 * log is copied; default: nothing). */
void rsp_sessions_target_set_log(struct rsp_target *t, const struct rsp_log *log);

#endif
