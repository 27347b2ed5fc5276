/* SPDX-License-Identifier: MIT */
/* Fillers for the tools (zet) tables gtsim implements: program debug. */
#ifndef GTSIM_ZET_FILL_H
#define GTSIM_ZET_FILL_H

#include <zet_ddi.h>

#include "gtsim/zet_debug_1_5.h"

void gtsim_fill_zet_device(zet_device_dditable_t *t);
void gtsim_fill_zet_module(zet_module_dditable_t *t);
/* The Debug table's session calls (dbg_client.c) and its register calls
 * (dbg_client_regs.c). */
void gtsim_fill_zet_debug(zet_debug_dditable_t *t);
void gtsim_fill_zet_debug_regs(zet_debug_dditable_t *t);
/* The API 1.5 entry of the Debug table: a thread's register sets. */
gtsim_pfn_thread_regsets_t gtsim_zet_debug_thread_regsets(void);

#endif
