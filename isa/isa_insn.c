/* SPDX-License-Identifier: MIT */
/* isa: the instruction bits a debugger reads and writes (protocol 5, 1.3):
 * compaction and length, the breakpoint control bit, end-of-thread sends. */
#include "isa/isa.h"

/* Compaction: bit 29 of dword 0 (byte 3, bit 5). */
#define COMPACTED_BYTE 3
#define COMPACTED_MASK 0x20
/* The breakpoint control bit: bit 30 of dword 0 in a native instruction,
 * bit 7 of byte 0 in a compacted one. */
#define NATIVE_BP_BYTE 3
#define NATIVE_BP_MASK 0x40
#define COMPACT_BP_BYTE 0
#define COMPACT_BP_MASK 0x80
/* The opcode is bits 0-6 of byte 0; send and sendc; EOT is bit 34. */
#define OPCODE_MASK 0x7f
#define OP_SEND 0x31
#define OP_SENDC 0x32
#define EOT_BYTE 4
#define EOT_MASK 0x04

bool isa_insn_compacted(const uint8_t *insn)
{
    return (insn[COMPACTED_BYTE] & COMPACTED_MASK) != 0;
}

unsigned isa_insn_length(const uint8_t *insn)
{
    return isa_insn_compacted(insn) ? 8 : 16;
}

bool isa_insn_breakpoint(const uint8_t *insn)
{
    return isa_insn_compacted(insn) ? (insn[COMPACT_BP_BYTE] & COMPACT_BP_MASK) != 0
                                    : (insn[NATIVE_BP_BYTE] & NATIVE_BP_MASK) != 0;
}

void isa_insn_set_breakpoint(uint8_t *insn, bool on)
{
    bool compacted = isa_insn_compacted(insn);
    uint8_t *b = compacted ? &insn[COMPACT_BP_BYTE] : &insn[NATIVE_BP_BYTE];
    uint8_t bit = compacted ? COMPACT_BP_MASK : NATIVE_BP_MASK;
    *b = (uint8_t)(on ? (*b | bit) : (*b & ~bit));
}

bool isa_insn_is_eot(const uint8_t *insn)
{
    uint8_t op = insn[0] & OPCODE_MASK;
    return !isa_insn_compacted(insn) && (op == OP_SEND || op == OP_SENDC) &&
           (insn[EOT_BYTE] & EOT_MASK) != 0;
}
