/* SPDX-License-Identifier: MIT */
/* SPIR-V modules: compiled for the simulated platform by Debian's ocloc
 * (package intel-opencl-icd), run as a program, as Intel's runtime
 * compiles them with the same compiler inside the process. */
#ifndef GTSIM_IL_BUILD_H
#define GTSIM_IL_BUILD_H

#include <stddef.h>

#include <ze_api.h>

#include "gtsim/platform.h"

struct gtsim_il_result {
    void *zebin; /* malloc'd, on success */
    size_t zebin_size;
    char *log; /* malloc'd, always: the compiler's words, or why it did not run */
};

/* Compiles il (SPIR-V) with the module's build flags and specialization
 * constants (may be NULL). ZE_RESULT_SUCCESS, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
 * (bad IL, bad options, unknown constant, no ocloc) or
 * ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY. */
ze_result_t gtsim_il_build(enum gtsim_platform platform, const void *il, size_t il_size,
                           const char *flags, const ze_module_constants_t *constants,
                           struct gtsim_il_result *out);

#endif
