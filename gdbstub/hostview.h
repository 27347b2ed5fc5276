/* SPDX-License-Identifier: MIT */
/* Registers for clients without the intelgt architecture (hostview.c). */
#ifndef ZESTUB_GDBSTUB_HOSTVIEW_H
#define ZESTUB_GDBSTUB_HOSTVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdbstub/server_state.h"

enum rsp_host_arch rsp_host_arch_from_qsupported(const char *arg, size_t len);
/* Append the 'g' reply / one 'p' reply of the Hg thread to s->reply. */
void rsp_hostview_read_regs(struct rsp_server *s);
void rsp_hostview_read_reg(struct rsp_server *s, uint64_t regnum);
/* A 'P' write (arg after the P) such a client makes that changes nothing
 * on a device and is answered OK: x86-64 GNU/Linux's orig_rax. */
bool rsp_hostview_write_ignored(struct rsp_server *s, const char *arg, size_t len);
/* target.xml for such a client (-1 for any other annex or host). */
int rsp_hostview_tdesc(struct rsp_server *s, const char *annex, struct rsp_buf *out);

#endif
