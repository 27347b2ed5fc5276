/* SPDX-License-Identifier: MIT */
/* The check rsp_server_new makes of a target before it serves it: every
 * required op is there, and every capability table that is present has
 * all its functions (gdbstub/target.h). A half-filled table is refused
 * with the name of what is missing rather than crashing at the first
 * packet that calls it. */
#ifndef ZESTUB_GDBSTUB_TARGET_CHECK_H
#define ZESTUB_GDBSTUB_TARGET_CHECK_H

#include <stddef.h>

struct rsp_target_ops;

/* 0, or -EINVAL with a sentence in err ("target interface incomplete: the
 * libraries table has no ack_library"). */
int rsp_target_check(const struct rsp_target_ops *o, char *err, size_t errlen);

#endif
