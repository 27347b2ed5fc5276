/* SPDX-License-Identifier: MIT */
/* Register-file layouts of the simulated platforms: which register sets a
 * hardware thread has, their sizes, and where each lives in the thread's
 * state-save slot. The debug side reports these sets through
 * zetDebugGetRegisterSetProperties; the execution engine keeps the IP in cr0. */
#ifndef GTSIM_REGFILE_H
#define GTSIM_REGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gtsim/platform.h"

/* Register-set type numbers, identical to zet_debug_regset_type_intel_gpu_t. */
enum gtsim_regset_type {
    GTSIM_REGSET_GRF = 1,
    GTSIM_REGSET_ADDR = 2,
    GTSIM_REGSET_FLAG = 3,
    GTSIM_REGSET_CE = 4,
    GTSIM_REGSET_SR = 5,
    GTSIM_REGSET_CR = 6,
    GTSIM_REGSET_TDR = 7,
    GTSIM_REGSET_ACC = 8,
    GTSIM_REGSET_MME = 9,
    GTSIM_REGSET_SP = 10,
    GTSIM_REGSET_SBA = 11,
    GTSIM_REGSET_DBG = 12,
    GTSIM_REGSET_FC = 13,
};

struct gtsim_regset_desc {
    enum gtsim_regset_type type;
    uint32_t count;          /* registers the thread really has */
    uint32_t reported_count; /* what the device-level query reports (GRF: 128) */
    uint32_t bits;           /* bits per register */
    bool writable;
    size_t offset; /* byte offset of register 0 in the thread's slot */
};

struct gtsim_regfile_layout {
    enum gtsim_platform platform;
    unsigned nsets;
    struct gtsim_regset_desc sets[13];
    size_t slot_size; /* bytes per hardware thread, all sets, 64-byte aligned */
};

/* cr0 bits the hardware and the debugger agree on (dword.bit). */
#define GTSIM_CR0_0_BP_SUPPRESS (1u << 15)
/* The thread runs with 256 GRF registers (a kernel built for large GRF);
 * Intel's driver reads this bit for a thread's GRF count on Xe-HPG/HPC. */
#define GTSIM_CR0_0_LARGE_GRF (1u << 13)
#define GTSIM_CR0_1_BREAKPOINT (1u << 31)
#define GTSIM_CR0_1_EXTERNAL_HALT (1u << 30)
#define GTSIM_CR0_1_SOFTWARE_EXCEPTION (1u << 29)
#define GTSIM_CR0_1_ILLEGAL_OPCODE (1u << 28)
#define GTSIM_CR0_1_FORCE_EXCEPTION (1u << 26)
#define GTSIM_CR0_1_PAGE_FAULT (1u << 16)

/* SBA register indices. */
enum { GTSIM_SBA_GENERAL = 0, GTSIM_SBA_INSTRUCTION = 4, GTSIM_SBA_COUNT = 9 };

const struct gtsim_regfile_layout *gtsim_regfile_layout(enum gtsim_platform p);
const struct gtsim_regset_desc *gtsim_regfile_find(const struct gtsim_regfile_layout *l,
                                                   enum gtsim_regset_type type);
/* Address of register `index` of set `type` inside a slot, or NULL. */
uint8_t *gtsim_regfile_reg(const struct gtsim_regfile_layout *l, uint8_t *slot,
                           enum gtsim_regset_type type, uint32_t index);
uint32_t gtsim_regfile_get32(const struct gtsim_regfile_layout *l, uint8_t *slot,
                             enum gtsim_regset_type type, uint32_t index, uint32_t dword);
void gtsim_regfile_set32(const struct gtsim_regfile_layout *l, uint8_t *slot,
                         enum gtsim_regset_type type, uint32_t index, uint32_t dword,
                         uint32_t value);

#endif
