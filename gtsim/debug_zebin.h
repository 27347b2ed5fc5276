/* SPDX-License-Identifier: MIT */
/* The "debug zebin": the copy of a module's zebin that a debugger reads at a
 * module load event. Intel's driver does not hand out the application's zebin
 * as is: it places each .text.<kernel> section at the kernel's GPU address and
 * applies the relocations of the DWARF sections, so debuggers see absolute
 * device addresses without knowing Intel's relocation types. gtsim does the
 * same so that zestub is tested against what real hardware delivers. */
#ifndef GTSIM_DEBUG_ZEBIN_H
#define GTSIM_DEBUG_ZEBIN_H

#include <stddef.h>
#include <stdint.h>

#include "gtsim/zebin.h"

/* Intel zebin relocation types (ELF64_R_TYPE), as IGC emits them and the
 * compute runtime's zebin specification names them. */
enum gtsim_zebin_reloc {
    GTSIM_R_ZE_NONE = 0,
    GTSIM_R_ZE_SYM_ADDR = 1,               /* 64-bit address */
    GTSIM_R_ZE_SYM_ADDR_32 = 2,            /* 32-bit address, or the low half of one */
    GTSIM_R_ZE_SYM_ADDR_32_HI = 3,         /* high half of a 64-bit address */
    GTSIM_R_PER_THREAD_PAYLOAD_OFFSET = 4, /* code patching only; not in debug sections */
};

/* Builds the debug zebin of zb, whose kernel i (zb->kernels[i]) lives at
 * device address kernel_addr[i]. The result is a new malloc'd image in *out
 * (*out_size bytes; release with free) that differs from zb->image only in:
 *   - e_type ET_EXEC, and one PT_LOAD program header per kernel text section
 *     (vaddr = kernel address), appended after the original bytes;
 *   - sh_addr of every .text.<kernel> section = its kernel address;
 *   - st_value of symbols in those sections (and of IGC's misplaced
 *     ".text.<kernel>" section symbols) shifted by the kernel address;
 *   - the R_ZE_SYM_ADDR* relocations of .debug_* sections applied.
 * Relocation sections stay in the image, as in the real driver's output.
 * Returns 0, -EINVAL (malformed image; err says why) or -ENOMEM. */
int gtsim_debug_zebin_create(const struct gtsim_zebin *zb, const uint64_t *kernel_addr, void **out,
                             size_t *out_size, char *err, size_t errlen);

#endif
