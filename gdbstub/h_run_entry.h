/* SPDX-License-Identifier: MIT */
/* vRun for Intel's GDB: the reply waits for a thread at a kernel's entry
 * (h_run_entry.c). */
#ifndef ZESTUB_GDBSTUB_H_RUN_ENTRY_H
#define ZESTUB_GDBSTUB_H_RUN_ENTRY_H

#include "gdbstub/handlers.h"
#include "gdbstub/hooks.h"

struct rsp_server;

/* The module loads, the entry breakpoints and the stop that ends them. */
extern const struct rsp_feature rsp_feature_run_entry;
/* Resumes the program vRun started (attached and released) until its
 * first thread reaches a kernel's first instruction; that stop answers the
 * vRun. */
enum rsp_hresult rsp_run_to_entry(struct rsp_server *s);

#endif
