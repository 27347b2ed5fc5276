/* SPDX-License-Identifier: MIT */
/* regsets: Level Zero register-set properties -> the register catalogue
 * Intel's GDB expects (intelgt-remote-protocol.md 3.1-3.3): names, GDB
 * register numbers, sizes, groups, expedited registers, element types for
 * the target description. Pure computation: no Level Zero call, no I/O.
 * What the bits of cr0 and of instructions mean is isa/'s. */
#ifndef ZESTUB_REGS_H
#define ZESTUB_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "isa/isa.h"
#include "regsets/regs_catalog.h"
#include "zetdebug/zd.h" /* struct zd_regset only */

/* The catalogue's names for the register files (numbered in isa/isa.h as
 * the driver numbers them, level-zero-facts.md 7). */
enum regs_type {
    REGS_GRF = ISA_RS_GRF,
    REGS_ADDR = ISA_RS_ADDR,
    REGS_FLAG = ISA_RS_FLAG,
    REGS_CE = ISA_RS_CE,
    REGS_SR = ISA_RS_SR,
    REGS_CR = ISA_RS_CR,
    REGS_TDR = ISA_RS_TDR,
    REGS_ACC = ISA_RS_ACC,
    REGS_MME = ISA_RS_MME,
    REGS_SP = ISA_RS_SP,
    REGS_SBA = ISA_RS_SBA,
    REGS_DBG = ISA_RS_DBG,
    REGS_FC = ISA_RS_FC,
};
#define REGS_SBA_GENSTBASE ISA_SBA_GENSTBASE /* SBA register indices */
#define REGS_SBA_ISABASE ISA_SBA_ISABASE

/* One accepted register set, in catalogue order. */
struct regs_set {
    struct zd_regset props;
    uint32_t first_regnum, nregs;
    const char *feature; /* "org.gnu.gdb.intelgt.grf" */
};

struct regs_catalog;

/* Builds the catalogue from the device's (or a thread's) register sets, in
 * the order the driver listed them. A set is skipped when its count is 0,
 * when it is not readable, when its type is unknown (0, 14 and up), when
 * it is SBA with a version other than 0, or when its type was listed
 * before; CE and SP keep only their first register. Every skip is noted
 * (regs_catalog_notes). NULL only when out of memory. */
struct regs_catalog *regs_catalog_new(const struct zd_regset *sets, size_t n);
void regs_catalog_free(struct regs_catalog *c);

size_t regs_catalog_set_count(const struct regs_catalog *c);
const struct regs_set *regs_catalog_set(const struct regs_catalog *c, size_t i);

#endif
