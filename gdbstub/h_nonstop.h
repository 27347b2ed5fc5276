/* SPDX-License-Identifier: MIT */
/* Non-stop mode (h_nonstop.c). */
#ifndef ZESTUB_GDBSTUB_H_NONSTOP_H
#define ZESTUB_GDBSTUB_H_NONSTOP_H

struct rsp_feature;

/* Reads events while non-stop is on and queues every stop. */
extern const struct rsp_feature rsp_feature_nonstop;

#endif
