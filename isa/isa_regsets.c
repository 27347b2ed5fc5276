/* SPDX-License-Identifier: MIT */
/* isa: the register sets a device must offer to be debugged
 * (intelgt-remote-protocol.md 1.1): the GRF, CE, CR and SR files, and the
 * state base addresses (SBA, version 0) up to isabase, without which no
 * PC can be computed. */
#include <string.h>

#include "isa/isa.h"

/* One row per needed set: its bit in the mask, and its name when missing. */
static const struct {
    uint32_t type;
    const char *missing;
} needed[] = {
    {ISA_RS_GRF, " GRF"},
    {ISA_RS_CE, " CE"},
    {ISA_RS_CR, " CR"},
    {ISA_RS_SR, " SR"},
    {ISA_RS_SBA, " SBA(version 0, isabase)"},
};
#define NNEEDED (sizeof(needed) / sizeof(needed[0]))

unsigned isa_regset_needed(uint32_t type, uint32_t version, uint32_t count, bool readable)
{
    if (!readable || count < 1)
        return 0;
    if (type == ISA_RS_SBA && (version != 0 || count <= ISA_SBA_ISABASE))
        return 0;
    for (size_t i = 0; i < NNEEDED; i++)
        if (needed[i].type == type)
            return 1u << i;
    return 0;
}

bool isa_attach_missing(unsigned have, char *buf, size_t size)
{
    size_t len = 0;
    bool any = false;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < NNEEDED; i++) {
        size_t n = strlen(needed[i].missing);
        if (have & (1u << i))
            continue;
        any = true;
        if (len + n < size) {
            memcpy(buf + len, needed[i].missing, n + 1);
            len += n;
        } else {
            len = size; /* whole names only: nothing after one that did not fit */
        }
    }
    return any;
}
