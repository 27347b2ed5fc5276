/* SPDX-License-Identifier: MIT */
/* Applies specialization constants to SPIR-V words (spirv_spec.h). */
#include "gtsim/spirv_spec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Opcodes and the decoration this needs (SPIR-V specification, 3.32). */
enum {
    OP_SPEC_CONSTANT_TRUE = 48,
    OP_SPEC_CONSTANT_FALSE = 49,
    OP_SPEC_CONSTANT = 50,
    OP_DECORATE = 71,
    DECORATION_SPEC_ID = 1,
    HEADER_WORDS = 5,
};

/* The result id decorated with SpecId spec_id, or 0 (ids start at 1).
 * -EINVAL when an instruction's word count runs past the end. */
static int find_target(const uint32_t *w, size_t n, uint32_t spec_id, uint32_t *target)
{
    *target = 0;
    for (size_t i = HEADER_WORDS; i < n;) {
        uint32_t count = w[i] >> 16, op = w[i] & 0xffff;
        if (count == 0 || count > n - i)
            return -EINVAL;
        if (op == OP_DECORATE && count >= 4 && w[i + 2] == DECORATION_SPEC_ID &&
            w[i + 3] == spec_id)
            *target = w[i + 1];
        i += count;
    }
    return 0;
}

/* Gives the constant with result id target the value at v; false when no
 * specialization constant has that result id. */
static bool set_value(uint32_t *w, size_t n, uint32_t target, const void *v)
{
    for (size_t i = HEADER_WORDS; i < n; i += w[i] >> 16) {
        uint32_t count = w[i] >> 16, op = w[i] & 0xffff;
        if (count < 3 || w[i + 2] != target)
            continue;
        if (op == OP_SPEC_CONSTANT_TRUE || op == OP_SPEC_CONSTANT_FALSE) {
            uint8_t b;
            memcpy(&b, v, 1);
            w[i] = (count << 16) | (b ? OP_SPEC_CONSTANT_TRUE : OP_SPEC_CONSTANT_FALSE);
            return true;
        }
        if (op == OP_SPEC_CONSTANT) {
            /* The literal's words are the type's width, low word first,
             * which on a little-endian host is the value's byte order. */
            memcpy(&w[i + 3], v, (count - 3) * sizeof(uint32_t));
            return true;
        }
    }
    return false;
}

int gtsim_spirv_specialize(uint32_t *words, size_t nwords, uint32_t n, const uint32_t *ids,
                           const void *const *values, char *err, size_t errlen)
{
    if (nwords < HEADER_WORDS || words[0] != GTSIM_SPIRV_MAGIC) {
        snprintf(err, errlen, "specialization constants: the module is not SPIR-V");
        return -EINVAL;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t target;
        if (!ids || !values || !values[k]) {
            snprintf(err, errlen, "specialization constants: constant %u has no value", k);
            return -EINVAL;
        }
        if (find_target(words, nwords, ids[k], &target) != 0) {
            snprintf(err, errlen, "specialization constants: malformed SPIR-V instruction");
            return -EINVAL;
        }
        if (!target || !set_value(words, nwords, target, values[k])) {
            snprintf(err, errlen,
                     "specialization constants: the module has no specialization constant "
                     "with SpecId %u",
                     ids[k]);
            return -EINVAL;
        }
    }
    return 0;
}
