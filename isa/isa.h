/* SPDX-License-Identifier: MIT */
/* isa: what zestub knows of the Intel GT ISA, as pure functions: the bits
 * of cr0 and how a resume or a step edits them (intelgt-remote-protocol.md
 * 3.4), the instruction's breakpoint control bit and end-of-thread sends
 * (5, 1.3), what a stop was (6.1), and which register sets a device must
 * offer to be attached (1.1). No I/O, no Level Zero types, nothing of the
 * layers above: bytes and numbers in, bytes and numbers out. */
#ifndef ZESTUB_ISA_H
#define ZESTUB_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- register sets ----------------------------------------------------------
 * The register files of the architecture, numbered as the driver numbers
 * its register sets (zet_debug_regset_type_intel_gpu_t, level-zero-facts.md
 * 7; the header that defines them is not installed with Debian's loader):
 * regsets/ names its catalogue's types after these. */
enum isa_regset_type {
    ISA_RS_GRF = 1,
    ISA_RS_ADDR = 2,
    ISA_RS_FLAG = 3,
    ISA_RS_CE = 4,
    ISA_RS_SR = 5,
    ISA_RS_CR = 6,
    ISA_RS_TDR = 7,
    ISA_RS_ACC = 8,
    ISA_RS_MME = 9,
    ISA_RS_SP = 10,
    ISA_RS_SBA = 11,
    ISA_RS_DBG = 12,
    ISA_RS_FC = 13,
};
/* Indices in the SBA set (state base addresses). */
#define ISA_SBA_GENSTBASE 0
#define ISA_SBA_ISABASE 4

/* The register sets an attach needs (1.1): GRF, CE, CR, SR, and SBA of
 * version 0 up to isabase. isa_regset_needed says which of them one set
 * the device lists provides (a bit of the mask isa_attach_missing takes;
 * 0 for a set that is none of them, not readable or empty). */
unsigned isa_regset_needed(uint32_t type, uint32_t version, uint32_t count, bool readable);
/* The needed sets absent from `have` (an OR of isa_regset_needed), as
 * " GRF CE CR SR SBA(version 0, isabase)" with the present ones left out;
 * "" when none is missing. Returns true when one is. */
bool isa_attach_missing(unsigned have, char *buf, size_t size);

/* ---- cr0 (3.4) ----------------------------------------------------------------
 * cr0 is read as bytes (little-endian dwords); dword 0 holds the breakpoint
 * suppress bit, dword 1 the exception bits, dword 2 the IP. */
#define ISA_CR0_0_BP_SUPPRESS (1u << 15)
#define ISA_CR0_1_BREAKPOINT (1u << 31)
#define ISA_CR0_1_EXT_HALT (1u << 30)
#define ISA_CR0_1_SW_EXCEPTION (1u << 29)
#define ISA_CR0_1_ILLEGAL (1u << 28)
#define ISA_CR0_1_FORCE (1u << 26)
#define ISA_CR0_1_PAGE_FAULT (1u << 16)
#define ISA_CR0_1_EXCEPTIONS                                                                       \
    (ISA_CR0_1_BREAKPOINT | ISA_CR0_1_EXT_HALT | ISA_CR0_1_SW_EXCEPTION | ISA_CR0_1_ILLEGAL |      \
     ISA_CR0_1_FORCE | ISA_CR0_1_PAGE_FAULT)
/* Bytes of cr0 the functions below touch (dwords 0 to 2). */
#define ISA_CR0_BYTES 12

uint32_t isa_cr0_dword(const uint8_t *cr0, unsigned i);
void isa_cr0_set_dword(uint8_t *cr0, unsigned i, uint32_t value);
static inline bool isa_cr0_breakpoint(const uint8_t *cr0)
{
    return (isa_cr0_dword(cr0, 1) & ISA_CR0_1_BREAKPOINT) != 0;
}
static inline bool isa_cr0_ext_halt(const uint8_t *cr0)
{
    return (isa_cr0_dword(cr0, 1) & ISA_CR0_1_EXT_HALT) != 0;
}
static inline bool isa_cr0_sw_exception(const uint8_t *cr0)
{
    return (isa_cr0_dword(cr0, 1) & ISA_CR0_1_SW_EXCEPTION) != 0;
}
static inline bool isa_cr0_illegal(const uint8_t *cr0)
{
    return (isa_cr0_dword(cr0, 1) & ISA_CR0_1_ILLEGAL) != 0;
}
static inline bool isa_cr0_force(const uint8_t *cr0)
{
    return (isa_cr0_dword(cr0, 1) & ISA_CR0_1_FORCE) != 0;
}
static inline bool isa_cr0_page_fault(const uint8_t *cr0)
{
    return (isa_cr0_dword(cr0, 1) & ISA_CR0_1_PAGE_FAULT) != 0;
}
static inline bool isa_cr0_suppress(const uint8_t *cr0)
{
    return (isa_cr0_dword(cr0, 0) & ISA_CR0_0_BP_SUPPRESS) != 0;
}
/* Sets or clears the breakpoint suppress bit. */
void isa_cr0_set_suppress(uint8_t *cr0, bool on);
/* Sets the breakpoint status bit: the thread steps one instruction. */
void isa_cr0_set_step(uint8_t *cr0);
/* Clears every exception bit of dword 1 (ISA_CR0_1_EXCEPTIONS); true when
 * one was set. */
bool isa_cr0_clear_exceptions(uint8_t *cr0);
/* PC = isabase + IP (cr0 dword 2). */
uint64_t isa_pc(const uint8_t *cr0, uint64_t isabase);

/* The cr0 edits of a resume (step false) or a step (true) of a stopped
 * thread: the exception bits of this stop cleared, so they do not fire
 * again, and for a step the breakpoint status bit set. True when cr0 must
 * be written back; a stop for the interrupt alone (external halt, forced
 * exception) is not worth a write when nothing else changes. Resuming at
 * a breakpoint also needs isa_cr0_suppress_at. */
bool isa_cr0_prepare_resume(uint8_t *cr0, bool step);
/* A thread that stopped on a breakpoint (the status bit was set at its
 * stop) would stop on it again at once: when insn, the instruction at its
 * PC, has the breakpoint bit, the suppress bit is set for one instruction.
 * True when cr0 changed. */
bool isa_cr0_suppress_at(uint8_t *cr0, const uint8_t *insn);

/* ---- instructions (5) ------------------------------------------------------
 * Intel GT instructions carry a breakpoint control bit: bit 30 of dword 0
 * for a native 16-byte instruction, bit 7 of byte 0 for a compacted 8-byte
 * one (compaction: bit 29 of dword 0). insn needs at least 4 bytes. */
/* The longest instruction (a native one): read this many bytes at an
 * address to decode whatever starts there. */
#define ISA_INSN_MAX 16
bool isa_insn_compacted(const uint8_t *insn);
unsigned isa_insn_length(const uint8_t *insn);
bool isa_insn_breakpoint(const uint8_t *insn);
void isa_insn_set_breakpoint(uint8_t *insn, bool on);
/* An end-of-thread send: a native send (opcode 0x31) or sendc (0x32) with
 * its EOT bit (bit 34) set; there is no compacted send. Stepping it ends
 * the thread's dispatch (protocol 1.3): no step is armed for it. Needs 16
 * bytes (8 if compacted). */
bool isa_insn_is_eot(const uint8_t *insn);

/* ---- stops (6.1) -------------------------------------------------------------- */

/* Stop reasons in the order they are checked. */
enum isa_stop_reason {
    ISA_STOP_PAGE_FAULT,
    ISA_STOP_BREAKPOINT,
    ISA_STOP_ILLEGAL,
    ISA_STOP_SW_EXCEPTION,
    ISA_STOP_INTERRUPT, /* force exception or external halt */
    ISA_STOP_UNKNOWN,   /* none of the bits */
};
enum isa_stop_reason isa_stop_reason(const uint8_t *cr0);
/* GDB signal numbers: 11 SIGSEGV, 5 SIGTRAP, 4 SIGILL, 149 EXC_SOFTWARE,
 * 5 SIGTRAP, 143 GDB_SIGNAL_UNKNOWN. */
int isa_stop_signal(enum isa_stop_reason r);
/* "page-fault", "breakpoint", "illegal-instruction", "software-exception",
 * "interrupt", "unknown". */
const char *isa_stop_reason_name(enum isa_stop_reason r);
/* A stop of the thread's own (a breakpoint, a fault, a finished step), as
 * opposed to one the debugger caused (the interrupt) or none at all. */
bool isa_stop_is_own(enum isa_stop_reason r);
/* The breakpoint status bit is set by a breakpoint hit and by the end of
 * an armed step alike (3.4): which of the two a stop was is known only
 * from whether a step was armed. */
bool isa_stop_is_breakpoint_hit(enum isa_stop_reason r, bool step_armed);
bool isa_stop_is_step_end(enum isa_stop_reason r, bool step_armed);

#endif
