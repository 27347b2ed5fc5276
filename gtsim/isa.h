/* SPDX-License-Identifier: MIT */
/* Just enough Intel GT instruction decoding for gtsim's threads to walk real
 * kernels: where each instruction ends, whether it carries the breakpoint
 * control bit, whether it is a send and whether that send ends the thread.
 * Every bit position here was checked against iga64 (tests/kernels/README.md). */
#ifndef GTSIM_ISA_H
#define GTSIM_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gtsim/platform.h"

/* Byte offsets and masks within an instruction (bits count from bit 0 of
 * byte 0, little endian). */
#define GTSIM_ISA_OPCODE_MASK 0x7fu /* byte 0 bits 6..0, native and compacted */
#define GTSIM_ISA_CMPT_BYTE 3       /* CmptCtrl: bit 29 of dword 0 */
#define GTSIM_ISA_CMPT_MASK 0x20u
#define GTSIM_ISA_BP_NATIVE_BYTE 3 /* DebugCtrl of a native insn: bit 30 */
#define GTSIM_ISA_BP_NATIVE_MASK 0x40u
#define GTSIM_ISA_BP_COMPACT_BYTE 0 /* DebugCtrl of a compacted insn: bit 7 */
#define GTSIM_ISA_BP_COMPACT_MASK 0x80u
#define GTSIM_ISA_EOT_BYTE 4 /* EOT of a native send: bit 34 */
#define GTSIM_ISA_EOT_MASK 0x04u
/* SFID of a native send: bits 95..92 (byte 11, high nibble). The message
 * gateway (3) takes barrier signals, and on Xe-HPG/Xe-HPC also the
 * end-of-thread message. */
#define GTSIM_ISA_SFID_BYTE 11
#define GTSIM_ISA_SFID_SHIFT 4
#define GTSIM_ISA_SFID_GATEWAY 3u
#define GTSIM_ISA_SFID_SLM 14u /* shared local memory (Xe-HPG/Xe-HPC LSC) */
/* First source register of a native send (its address payload): byte 9 on
 * all three platforms (checked against iga64 on every send of
 * tests/kernels/fixtures). */
#define GTSIM_ISA_SRC0_BYTE 9

#define GTSIM_ISA_NATIVE_LEN 16u
#define GTSIM_ISA_COMPACT_LEN 8u

/* Raw opcode values that the execution model treats specially. They are the
 * same on Gen12LP, Xe-HPG and Xe-HPC. */
enum {
    GTSIM_OP_ILLEGAL = 0x00,
    GTSIM_OP_SYNC = 0x01,
    GTSIM_OP_JMPI = 0x20,
    GTSIM_OP_CALL = 0x2c,
    GTSIM_OP_RET = 0x2d,
    GTSIM_OP_SEND = 0x31,
    GTSIM_OP_SENDC = 0x32,
    GTSIM_OP_NOP = 0x60,
};

struct gtsim_insn {
    uint32_t length; /* 8 or 16 */
    bool compacted;
    bool breakpoint; /* debug control bit */
    uint8_t opcode;  /* raw 7-bit opcode */
    bool is_send;    /* send/sendc family */
    bool is_eot;     /* end-of-thread send */
    bool is_gateway; /* send to the message gateway: a barrier signal unless is_eot */
    bool is_slm;     /* send to shared local memory */
    uint8_t src0;    /* a native send's first source register */
    bool is_illegal; /* would raise the illegal-opcode exception */
};

/* Decodes the instruction at code. Returns 0, or -EINVAL if code is NULL or
 * avail is shorter than the instruction (at least 4 bytes are needed to see
 * the compaction bit). */
int gtsim_isa_decode(enum gtsim_platform p, const uint8_t *code, size_t avail,
                     struct gtsim_insn *out);

/* Sets or clears the breakpoint control bit of the instruction at code (which
 * must hold at least its first 4 bytes); the bit's place depends on whether
 * the instruction is compacted. */
void gtsim_isa_set_breakpoint(uint8_t *code, bool on);

/* iga64's mnemonic for a raw opcode ("send", "mov", ...), or NULL if the
 * platform does not define the opcode. */
const char *gtsim_isa_opcode_name(enum gtsim_platform p, uint8_t opcode);

/* "gen12lp", "xehpg", "xehpc"; "unknown" otherwise. */
const char *gtsim_platform_name(enum gtsim_platform p);

/* Inverse of gtsim_platform_name. Returns 0 or -EINVAL. */
int gtsim_platform_from_name(const char *name, enum gtsim_platform *out);

#endif
