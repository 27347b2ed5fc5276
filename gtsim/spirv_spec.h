/* SPDX-License-Identifier: MIT */
/* Specialization constants of a SPIR-V module (ze_module_constants_t):
 * Debian's ocloc has no option to pass them to the compiler, so gtsim
 * applies them to the IL itself before compiling it, as the SPIR-V
 * specification defines specialization: the default value of each
 * OpSpecConstant (or the OpSpecConstantTrue/False choice) whose SpecId the
 * application names becomes the application's value. Derived constants
 * (OpSpecConstantComposite, OpSpecConstantOp) are left to the compiler,
 * which folds them from the new values. */
#ifndef GTSIM_SPIRV_SPEC_H
#define GTSIM_SPIRV_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define GTSIM_SPIRV_MAGIC 0x07230203u

/* Rewrites words (a SPIR-V module of nwords 32-bit words, host byte order)
 * in place: constant ids[i] takes the value at values[i], which holds as
 * many bytes as the constant's type (1 for a boolean, 4 or 8 for a scalar;
 * as Intel's runtime reads them). Returns 0, or -EINVAL with a sentence in
 * err (not SPIR-V, an id the module does not declare, a malformed
 * instruction); on failure words may be partly rewritten. */
int gtsim_spirv_specialize(uint32_t *words, size_t nwords, uint32_t n, const uint32_t *ids,
                           const void *const *values, char *err, size_t errlen);

#endif
