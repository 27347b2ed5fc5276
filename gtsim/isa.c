/* SPDX-License-Identifier: MIT */
#include "gtsim/isa.h"

#include <errno.h>
#include <string.h>

/* Opcodes every supported platform shares. The values were read back from
 * iga64 (disassembling each 7-bit value, assembling the ones whose all-zero
 * encoding is rejected), not taken from a manual. */
static const char *const common_ops[128] = {
    [0x00] = "illegal", [0x01] = "sync", [0x20] = "jmpi",  [0x21] = "brd",   [0x22] = "if",
    [0x23] = "brc",     [0x24] = "else", [0x25] = "endif", [0x27] = "while", [0x28] = "break",
    [0x29] = "cont",    [0x2a] = "halt", [0x2b] = "calla", [0x2c] = "call",  [0x2d] = "ret",
    [0x2e] = "goto",    [0x2f] = "join", [0x31] = "send",  [0x32] = "sendc", [0x38] = "math",
    [0x40] = "add",     [0x41] = "mul",  [0x42] = "avg",   [0x43] = "frc",   [0x44] = "rndu",
    [0x45] = "rndd",    [0x46] = "rnde", [0x47] = "rndz",  [0x48] = "mac",   [0x49] = "mach",
    [0x4a] = "lzd",     [0x4b] = "fbh",  [0x4c] = "fbl",   [0x4d] = "cbit",  [0x4e] = "addc",
    [0x4f] = "subb",    [0x58] = "dp4a", [0x5b] = "mad",   [0x60] = "nop",   [0x61] = "mov",
    [0x62] = "sel",     [0x63] = "movi", [0x64] = "not",   [0x65] = "and",   [0x66] = "or",
    [0x67] = "xor",     [0x68] = "shr",  [0x69] = "shl",   [0x6c] = "asr",   [0x6e] = "ror",
    [0x6f] = "rol",     [0x70] = "cmp",  [0x71] = "cmpn",  [0x72] = "csel",  [0x77] = "bfrev",
    [0x78] = "bfe",     [0x79] = "bfi1", [0x7a] = "bfi2",
};

struct op_extra {
    uint8_t opcode;
    const char *name;
};

/* What Xe-HP added on top of Gen12LP, as iga64 12p71 / 12p72 decode it.
 * Xe-HPC has no dpasw but gains macl and srnd. */
static const struct op_extra xehpg_ops[] = {
    {0x52, "add3"}, {0x59, "dpas"}, {0x5a, "dpasw"}, {0x5d, "madm"}, {0x6b, "bfn"},
};
static const struct op_extra xehpc_ops[] = {
    {0x52, "add3"}, {0x53, "macl"}, {0x54, "srnd"}, {0x59, "dpas"}, {0x5d, "madm"}, {0x6b, "bfn"},
};

const char *gtsim_isa_opcode_name(enum gtsim_platform p, uint8_t opcode)
{
    const struct op_extra *extra = NULL;
    size_t n = 0;

    if (opcode > GTSIM_ISA_OPCODE_MASK)
        return NULL;
    switch (p) {
    case GTSIM_GEN12LP:
        break;
    case GTSIM_XEHPG:
        extra = xehpg_ops;
        n = sizeof(xehpg_ops) / sizeof(xehpg_ops[0]);
        break;
    case GTSIM_XEHPC:
        extra = xehpc_ops;
        n = sizeof(xehpc_ops) / sizeof(xehpc_ops[0]);
        break;
    default:
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (extra[i].opcode == opcode)
            return extra[i].name;
    return common_ops[opcode];
}

static bool is_compacted(const uint8_t *code)
{
    return (code[GTSIM_ISA_CMPT_BYTE] & GTSIM_ISA_CMPT_MASK) != 0;
}

int gtsim_isa_decode(enum gtsim_platform p, const uint8_t *code, size_t avail,
                     struct gtsim_insn *out)
{
    struct gtsim_insn insn;

    if (!code || !out || avail < 4)
        return -EINVAL;
    memset(&insn, 0, sizeof(insn));
    insn.compacted = is_compacted(code);
    insn.length = insn.compacted ? GTSIM_ISA_COMPACT_LEN : GTSIM_ISA_NATIVE_LEN;
    if (avail < insn.length)
        return -EINVAL;

    insn.opcode = code[0] & GTSIM_ISA_OPCODE_MASK;
    if (insn.compacted)
        insn.breakpoint = (code[GTSIM_ISA_BP_COMPACT_BYTE] & GTSIM_ISA_BP_COMPACT_MASK) != 0;
    else
        insn.breakpoint = (code[GTSIM_ISA_BP_NATIVE_BYTE] & GTSIM_ISA_BP_NATIVE_MASK) != 0;

    bool send_op = insn.opcode == GTSIM_OP_SEND || insn.opcode == GTSIM_OP_SENDC;
    /* iga64 has no compacted form of send/sendc on any of these platforms,
     * so a compacted word with that opcode is garbage, not a short send. */
    insn.is_send = send_op && !insn.compacted;
    insn.is_eot = insn.is_send && (code[GTSIM_ISA_EOT_BYTE] & GTSIM_ISA_EOT_MASK) != 0;
    insn.is_gateway = insn.is_send &&
                      (code[GTSIM_ISA_SFID_BYTE] >> GTSIM_ISA_SFID_SHIFT) == GTSIM_ISA_SFID_GATEWAY;
    insn.is_slm =
        insn.is_send && (code[GTSIM_ISA_SFID_BYTE] >> GTSIM_ISA_SFID_SHIFT) == GTSIM_ISA_SFID_SLM;
    insn.src0 = insn.is_send ? code[GTSIM_ISA_SRC0_BYTE] : 0;
    insn.is_illegal = insn.opcode == GTSIM_OP_ILLEGAL ||
                      gtsim_isa_opcode_name(p, insn.opcode) == NULL || (send_op && insn.compacted);
    *out = insn;
    return 0;
}

void gtsim_isa_set_breakpoint(uint8_t *code, bool on)
{
    size_t byte;
    uint8_t mask;

    if (!code)
        return;
    if (is_compacted(code)) {
        byte = GTSIM_ISA_BP_COMPACT_BYTE;
        mask = GTSIM_ISA_BP_COMPACT_MASK;
    } else {
        byte = GTSIM_ISA_BP_NATIVE_BYTE;
        mask = GTSIM_ISA_BP_NATIVE_MASK;
    }
    if (on)
        code[byte] |= mask;
    else
        code[byte] &= (uint8_t)~mask;
}

static const char *const platform_names[GTSIM_PLATFORM_COUNT] = {
    [GTSIM_GEN12LP] = "gen12lp",
    [GTSIM_XEHPG] = "xehpg",
    [GTSIM_XEHPC] = "xehpc",
};

const char *gtsim_platform_name(enum gtsim_platform p)
{
    if ((unsigned)p >= GTSIM_PLATFORM_COUNT)
        return "unknown";
    return platform_names[p];
}

int gtsim_platform_from_name(const char *name, enum gtsim_platform *out)
{
    if (!name || !out)
        return -EINVAL;
    for (unsigned i = 0; i < GTSIM_PLATFORM_COUNT; i++) {
        if (strcmp(name, platform_names[i]) == 0) {
            *out = (enum gtsim_platform)i;
            return 0;
        }
    }
    return -EINVAL;
}
