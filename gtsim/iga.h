/* SPDX-License-Identifier: MIT */
/* Full decoding of one Xe-HPC instruction, native or compacted, for the
 * executor (exec.c): every operand, region, type and modifier, and a send's
 * descriptors. The work is done by Intel's IGA library (libiga64.so.1,
 * Debian package libigc1) through its "kernel view" C API, loaded with
 * dlopen at the first use: gtsim builds and runs without it, and then only
 * walks instructions (README.md, "Execution model"). Why IGA and not a
 * decoder of our own: README.md, "Executing instructions".
 *
 * IGA reports its own enum values (register files, types, modifiers); the
 * few this file maps were read back from the library on the fixtures of
 * tests/kernels (kv_get_inst_syntax beside each value). Any other value
 * becomes GTSIM_XT_OTHER / GTSIM_XF_OTHER / a nonzero "other" field, which
 * the executor refuses as an instruction it does not model. */
#ifndef GTSIM_IGA_H
#define GTSIM_IGA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gtsim/platform.h"

enum gtsim_xfile {
    GTSIM_XF_NONE = 0, /* operand absent */
    GTSIM_XF_GRF,
    GTSIM_XF_NULL,
    GTSIM_XF_ACC,
    GTSIM_XF_CR,
    GTSIM_XF_IMM,
    GTSIM_XF_OTHER, /* an ARF, indirect addressing or anything not mapped */
};

enum gtsim_xtype {
    GTSIM_XT_NONE = 0,
    GTSIM_XT_UB,
    GTSIM_XT_B,
    GTSIM_XT_UW,
    GTSIM_XT_W,
    GTSIM_XT_UD,
    GTSIM_XT_D,
    GTSIM_XT_UQ,
    GTSIM_XT_Q,
    GTSIM_XT_F,
    GTSIM_XT_HF,    /* half float: only copied (a mov :hf to :hf) */
    GTSIM_XT_OTHER, /* half, double, bfloat, packed vectors ... */
};

/* Region value that IGA leaves undefined (e.g. the width of a ternary
 * operand, the vertical stride of its src2). */
#define GTSIM_XRGN_NONE 0xffu

struct gtsim_xop {
    uint8_t file; /* enum gtsim_xfile */
    uint8_t type; /* enum gtsim_xtype */
    uint16_t reg;
    uint16_t subreg;   /* in elements of type */
    uint8_t vs, w, hs; /* region; dst uses hs only */
    uint8_t mod;       /* 0 none; nonzero: negate/abs as IGA reports it (not modelled) */
    uint64_t imm;
};

/* IGA's ExecSize, mask offset etc. are returned decoded (lanes, not codes). */
struct gtsim_xinsn {
    uint8_t opcode;    /* raw 7-bit opcode (isa.h), not IGA's enumeration */
    uint8_t length;    /* 8 or 16 */
    uint8_t exec_size; /* lanes: 1..32 */
    uint8_t chan_off;  /* first lane: 0, 4, 8, ... (M0, M4, ...) */
    bool nomask;       /* (W): ignores the execution mask */
    uint8_t pred;      /* 0 none; 1 sequential; other values not modelled */
    bool pred_inv;
    uint8_t flag_reg, flag_sub;
    uint8_t cond_mod; /* 0 none; nonzero not modelled */
    uint8_t dst_mod;  /* 0 none; nonzero (saturate) not modelled */
    uint8_t nsrc;
    bool has_dst;
    struct gtsim_xop dst, src[3];
    bool is_send;
    uint32_t desc, exdesc;
    uint8_t sfid; /* raw send SFID, bits 95..92 */
    uint8_t mlen, emlen, rlen;
    bool eot;
    int32_t syncfc; /* sync's function: 0 nop, other values as IGA numbers them */
    /* Branches: their targets, in bytes relative to this instruction
     * (jmpi, goto, join, call, ...: IGA's kv_get_inst_targets). */
    uint8_t ntargets;
    int32_t targets[3];
};

/* Raw SFIDs seen in the xehpc fixtures (bits 95..92 of a send); DC0 and
 * DC1 are the legacy data ports (iga64 -a of send.dc0/send.dc1). */
enum {
    GTSIM_SFID_GATEWAY = 0x3,
    GTSIM_SFID_DC0 = 0xa,
    GTSIM_SFID_DC1 = 0xc,
    GTSIM_SFID_SLM = 0xe,
    GTSIM_SFID_UGM = 0xf,
};

/* True when libiga64 could be loaded and has every entry point used here.
 * why (may be NULL) receives the reason when false. */
bool gtsim_iga_available(const char **why);

/* Decodes the instruction at code (len bytes, at least the instruction's).
 * Returns 0, -ENOSYS without the library or for a platform it is not used
 * for (only xehpc), -EINVAL when IGA cannot decode the bytes. */
int gtsim_iga_decode(enum gtsim_platform p, const uint8_t *code, size_t len,
                     struct gtsim_xinsn *out);

#endif
