/* SPDX-License-Identifier: MIT */
/* isa: what a stop was, from cr0 (intelgt-remote-protocol.md 6.1), and
 * whether a breakpoint status bit was a breakpoint or a step's end. */
#include "isa/isa.h"

enum isa_stop_reason isa_stop_reason(const uint8_t *cr0)
{
    uint32_t d1 = isa_cr0_dword(cr0, 1);
    if (d1 & ISA_CR0_1_PAGE_FAULT)
        return ISA_STOP_PAGE_FAULT;
    if (d1 & ISA_CR0_1_BREAKPOINT)
        return ISA_STOP_BREAKPOINT;
    if (d1 & ISA_CR0_1_ILLEGAL)
        return ISA_STOP_ILLEGAL;
    if (d1 & ISA_CR0_1_SW_EXCEPTION)
        return ISA_STOP_SW_EXCEPTION;
    if (d1 & (ISA_CR0_1_FORCE | ISA_CR0_1_EXT_HALT))
        return ISA_STOP_INTERRUPT;
    return ISA_STOP_UNKNOWN;
}

int isa_stop_signal(enum isa_stop_reason r)
{
    switch (r) {
    case ISA_STOP_PAGE_FAULT:
        return 11;
    case ISA_STOP_BREAKPOINT:
        return 5;
    case ISA_STOP_ILLEGAL:
        return 4;
    case ISA_STOP_SW_EXCEPTION:
        return 149;
    case ISA_STOP_INTERRUPT:
        return 5;
    default:
        return 143;
    }
}

const char *isa_stop_reason_name(enum isa_stop_reason r)
{
    switch (r) {
    case ISA_STOP_PAGE_FAULT:
        return "page-fault";
    case ISA_STOP_BREAKPOINT:
        return "breakpoint";
    case ISA_STOP_ILLEGAL:
        return "illegal-instruction";
    case ISA_STOP_SW_EXCEPTION:
        return "software-exception";
    case ISA_STOP_INTERRUPT:
        return "interrupt";
    default:
        return "unknown";
    }
}

bool isa_stop_is_own(enum isa_stop_reason r)
{
    return r != ISA_STOP_INTERRUPT && r != ISA_STOP_UNKNOWN;
}

bool isa_stop_is_breakpoint_hit(enum isa_stop_reason r, bool step_armed)
{
    return r == ISA_STOP_BREAKPOINT && !step_armed;
}

bool isa_stop_is_step_end(enum isa_stop_reason r, bool step_armed)
{
    return r == ISA_STOP_BREAKPOINT && step_armed;
}
