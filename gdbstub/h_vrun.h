/* SPDX-License-Identifier: MIT */
/* vRun and the packets GDB sends before it (h_vrun.c). */
#ifndef ZESTUB_GDBSTUB_H_VRUN_H
#define ZESTUB_GDBSTUB_H_VRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "gdbstub/hooks.h"

struct rsp_server;

/* Releases what the client set (environment, directory, last program). */
extern const struct rsp_feature rsp_feature_run;
/* The wire pid (0 or -1: any) names the program vRun started, still
 * attached. */
bool rsp_run_is_ours(struct rsp_server *s, int64_t wire_pid);

#endif
