/* SPDX-License-Identifier: MIT */
/* Z0/z0 planted by the server (h_break.c). */
#ifndef ZESTUB_GDBSTUB_H_BREAK_H
#define ZESTUB_GDBSTUB_H_BREAK_H

struct rsp_feature;
struct rsp_server;

/* Replants after a module reload, removes on detach and at the end. */
extern const struct rsp_feature rsp_feature_breakpoints;

#endif
