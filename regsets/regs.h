/* SPDX-License-Identifier: MIT */
/* regsets: Level Zero register-set properties -> the register catalogue
 * Intel's GDB expects (intelgt-remote-protocol.md 3.1-3.3): names, GDB
 * register numbers, sizes, groups, expedited registers, element types for
 * the target description; and the cr0 bits that give the PC and the stop
 * reason (3.4, 6.1). Pure computation: no Level Zero call, no I/O. */
#ifndef ZESTUB_REGS_H
#define ZESTUB_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regsets/regs_catalog.h"
#include "zetdebug/zd.h" /* struct zd_regset only */

/* zet_debug_regset_type_intel_gpu_t (level-zero-facts.md 7). */
enum regs_type {
    REGS_GRF = 1,
    REGS_ADDR = 2,
    REGS_FLAG = 3,
    REGS_CE = 4,
    REGS_SR = 5,
    REGS_CR = 6,
    REGS_TDR = 7,
    REGS_ACC = 8,
    REGS_MME = 9,
    REGS_SP = 10,
    REGS_SBA = 11,
    REGS_DBG = 12,
    REGS_FC = 13,
};
#define REGS_SBA_GENSTBASE 0 /* SBA register indices */
#define REGS_SBA_ISABASE 4

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

/* ---- cr0 (intelgt-remote-protocol.md 3.4) --------------------------------
 * cr0 is read as bytes (little-endian dwords); dword 0 holds the breakpoint
 * suppress bit, dword 1 the exception bits, dword 2 the IP. */
#define REGS_CR0_0_BP_SUPPRESS (1u << 15)
#define REGS_CR0_1_BREAKPOINT (1u << 31)
#define REGS_CR0_1_EXT_HALT (1u << 30)
#define REGS_CR0_1_SW_EXCEPTION (1u << 29)
#define REGS_CR0_1_ILLEGAL (1u << 28)
#define REGS_CR0_1_FORCE (1u << 26)
#define REGS_CR0_1_PAGE_FAULT (1u << 16)
#define REGS_CR0_1_EXCEPTIONS                                                                      \
    (REGS_CR0_1_BREAKPOINT | REGS_CR0_1_EXT_HALT | REGS_CR0_1_SW_EXCEPTION | REGS_CR0_1_ILLEGAL |  \
     REGS_CR0_1_FORCE | REGS_CR0_1_PAGE_FAULT)

uint32_t regs_cr0_dword(const uint8_t *cr0, unsigned i);
void regs_cr0_set_dword(uint8_t *cr0, unsigned i, uint32_t value);
static inline bool regs_cr0_breakpoint(const uint8_t *cr0)
{
    return (regs_cr0_dword(cr0, 1) & REGS_CR0_1_BREAKPOINT) != 0;
}
static inline bool regs_cr0_ext_halt(const uint8_t *cr0)
{
    return (regs_cr0_dword(cr0, 1) & REGS_CR0_1_EXT_HALT) != 0;
}
static inline bool regs_cr0_sw_exception(const uint8_t *cr0)
{
    return (regs_cr0_dword(cr0, 1) & REGS_CR0_1_SW_EXCEPTION) != 0;
}
static inline bool regs_cr0_illegal(const uint8_t *cr0)
{
    return (regs_cr0_dword(cr0, 1) & REGS_CR0_1_ILLEGAL) != 0;
}
static inline bool regs_cr0_force(const uint8_t *cr0)
{
    return (regs_cr0_dword(cr0, 1) & REGS_CR0_1_FORCE) != 0;
}
static inline bool regs_cr0_page_fault(const uint8_t *cr0)
{
    return (regs_cr0_dword(cr0, 1) & REGS_CR0_1_PAGE_FAULT) != 0;
}
static inline bool regs_cr0_suppress(const uint8_t *cr0)
{
    return (regs_cr0_dword(cr0, 0) & REGS_CR0_0_BP_SUPPRESS) != 0;
}
/* Sets or clears the breakpoint suppress bit (before resuming a thread
 * whose instruction at the PC has the breakpoint bit). */
void regs_cr0_set_suppress(uint8_t *cr0, bool on);
/* Sets the breakpoint status bit: the thread steps one instruction. */
void regs_cr0_set_step(uint8_t *cr0);
/* Clears every exception bit of dword 1 (REGS_CR0_1_EXCEPTIONS); true when
 * one was set, i.e. cr0 must be written back before resuming. Resuming at a
 * breakpoint instruction also needs regs_cr0_set_suppress. */
bool regs_clear_exceptions(uint8_t *cr0);

/* ---- instructions (intelgt-remote-protocol.md 5) --------------------------
 * Intel GT instructions carry a breakpoint control bit: bit 30 of dword 0
 * for a native 16-byte instruction, bit 7 of byte 0 for a compacted 8-byte
 * one (compaction: bit 29 of dword 0). insn needs at least 4 bytes. */
bool regs_insn_compacted(const uint8_t *insn);
unsigned regs_insn_length(const uint8_t *insn);
bool regs_insn_breakpoint(const uint8_t *insn);
void regs_insn_set_breakpoint(uint8_t *insn, bool on);
/* An end-of-thread send: a native send (opcode 0x31) or sendc (0x32) with
 * its EOT bit (bit 34) set; there is no compacted send. Stepping it ends
 * the thread's dispatch (protocol 1.3). Needs 16 bytes (8 if compacted). */
bool regs_insn_is_eot(const uint8_t *insn);

/* PC = isabase + IP (cr0 dword 2). */
uint64_t regs_pc(const uint8_t *cr0, uint64_t isabase);

/* Stop reasons in the order they are checked (protocol 6.1). */
enum regs_stop_reason {
    REGS_STOP_PAGE_FAULT,
    REGS_STOP_BREAKPOINT,
    REGS_STOP_ILLEGAL,
    REGS_STOP_SW_EXCEPTION,
    REGS_STOP_INTERRUPT, /* force exception or external halt */
    REGS_STOP_UNKNOWN,   /* none of the bits */
};
enum regs_stop_reason regs_stop_reason(const uint8_t *cr0);
/* GDB signal numbers: 11 SIGSEGV, 5 SIGTRAP, 4 SIGILL, 149 EXC_SOFTWARE,
 * 5 SIGTRAP, 143 GDB_SIGNAL_UNKNOWN. */
int regs_stop_signal(enum regs_stop_reason r);
/* "page-fault", "breakpoint", "illegal-instruction", "software-exception",
 * "interrupt", "unknown". */
const char *regs_stop_reason_name(enum regs_stop_reason r);

#endif
