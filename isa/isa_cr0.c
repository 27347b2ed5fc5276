/* SPDX-License-Identifier: MIT */
/* isa: cr0's bits (intelgt-remote-protocol.md 3.4) and the edits a resume
 * or a step makes to them. */
#include "isa/isa.h"

uint32_t isa_cr0_dword(const uint8_t *cr0, unsigned i)
{
    const uint8_t *p = cr0 + 4 * i;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void isa_cr0_set_dword(uint8_t *cr0, unsigned i, uint32_t value)
{
    uint8_t *p = cr0 + 4 * i;
    p[0] = (uint8_t)value;
    p[1] = (uint8_t)(value >> 8);
    p[2] = (uint8_t)(value >> 16);
    p[3] = (uint8_t)(value >> 24);
}

void isa_cr0_set_suppress(uint8_t *cr0, bool on)
{
    uint32_t d0 = isa_cr0_dword(cr0, 0);
    isa_cr0_set_dword(cr0, 0, on ? d0 | ISA_CR0_0_BP_SUPPRESS : d0 & ~ISA_CR0_0_BP_SUPPRESS);
}

void isa_cr0_set_step(uint8_t *cr0)
{
    isa_cr0_set_dword(cr0, 1, isa_cr0_dword(cr0, 1) | ISA_CR0_1_BREAKPOINT);
}

bool isa_cr0_clear_exceptions(uint8_t *cr0)
{
    uint32_t d1 = isa_cr0_dword(cr0, 1);
    if (!(d1 & ISA_CR0_1_EXCEPTIONS))
        return false;
    isa_cr0_set_dword(cr0, 1, d1 & ~ISA_CR0_1_EXCEPTIONS);
    return true;
}

uint64_t isa_pc(const uint8_t *cr0, uint64_t isabase)
{
    return isabase + isa_cr0_dword(cr0, 2);
}

bool isa_cr0_prepare_resume(uint8_t *cr0, bool step)
{
    /* The interrupt's own bits (external halt, forced exception) alone are
     * not worth a write: a resume ends the halt on gtsim (gtsim/README.md,
     * "Interrupts", for what is known of hardware), and a thread nobody
     * read is resumed with them too. They are cleared all the same when
     * cr0 is written for another reason. */
    bool only_halt =
        !(isa_cr0_dword(cr0, 1) & ISA_CR0_1_EXCEPTIONS & ~(ISA_CR0_1_EXT_HALT | ISA_CR0_1_FORCE));
    bool changed = isa_cr0_clear_exceptions(cr0) && !only_halt;
    if (step) {
        isa_cr0_set_step(cr0);
        changed = true;
    }
    return changed;
}

bool isa_cr0_suppress_at(uint8_t *cr0, const uint8_t *insn)
{
    if (!isa_insn_breakpoint(insn) || isa_cr0_suppress(cr0))
        return false;
    isa_cr0_set_suppress(cr0, true);
    return true;
}
