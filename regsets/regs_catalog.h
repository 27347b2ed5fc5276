/* SPDX-License-Identifier: MIT */
/* The register catalogue as a reader sees it: registers with their GDB
 * numbers, sizes, groups and XML types, and the lookups. No Level Zero
 * type: gdbstub includes this and not regs.h (which adds building a
 * catalogue from zetDebug register sets, cr0 and instruction decoding). */
#ifndef ZESTUB_REGS_CATALOG_H
#define ZESTUB_REGS_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum regs_group { REGS_GROUP_GRF, REGS_GROUP_ARF, REGS_GROUP_VIRTUAL };

struct regs_reg {
    char name[16];      /* "r0", "ce", "isabase" */
    uint32_t regnum;    /* GDB register number: sequential from 0 */
    uint32_t bit_size;  /* the XML bitsize */
    uint32_t byte_size; /* transfer size per register (zetDebugReadRegisters) */
    uint32_t regset_type;
    uint32_t index;     /* within its regset (the `start` of a register read) */
    unsigned regset;    /* position of its regset among the accepted ones */
    uint32_t elem_bits; /* element size E of the XML type: uintE or vector<K>xE */
    enum regs_group group;
    bool writable;  /* false -> save-restore="no" */
    bool expedited; /* sent with every stop reply */
};

struct regs_catalog;

size_t regs_catalog_count(const struct regs_catalog *c);
/* By GDB register number (= position); NULL when out of range. */
const struct regs_reg *regs_catalog_at(const struct regs_catalog *c, size_t regnum);
const struct regs_reg *regs_catalog_find(const struct regs_catalog *c, const char *name);
/* The register of a set type and index, NULL if the catalogue has none. */
const struct regs_reg *regs_catalog_lookup(const struct regs_catalog *c, uint32_t type,
                                           uint32_t index);
/* What was skipped and why, one line each ("" when nothing was). */
const char *regs_catalog_notes(const struct regs_catalog *c);

/* "grf", "ce", "sba"... for a set type; NULL if unknown. */
const char *regs_type_name(uint32_t type);
/* The XML type of a register: "uint32", "uint64", "vector8x32". */
void regs_reg_xml_type(const struct regs_reg *r, char *buf, size_t size);
const char *regs_group_name(enum regs_group g);

#endif
