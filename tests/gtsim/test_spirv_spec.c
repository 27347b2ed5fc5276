/* SPDX-License-Identifier: MIT */
/* Specialization constants applied to SPIR-V words (gtsim/spirv_spec.c),
 * on a hand-assembled module: a 32-bit, a 64-bit and a boolean constant,
 * each with its SpecId, and an ordinary constant that must stay as it is. */
#include <errno.h>
#include <string.h>

#include "gtsim/spirv_spec.h"
#include "tests/lib/tap.h"

#define OP(count, op) (((uint32_t)(count) << 16) | (op))

/* Result ids: 1 int type, 2 long type, 3 bool type, 10 the int spec
 * constant (SpecId 5, default 7), 11 the long one (SpecId 6, default
 * 0x100000002), 12 the bool one (SpecId 9, default true), 13 an OpConstant
 * (43) of 7. */
static const uint32_t module_words[] = {
    0x07230203, 0x00010200, 0,  14, 0, OP(4, 71), 10, 1, 5, /* OpDecorate %10 SpecId 5 */
    OP(4, 71),  11,         1,  6,                          /* OpDecorate %11 SpecId 6 */
    OP(4, 71),  12,         1,  9,                          /* OpDecorate %12 SpecId 9 */
    OP(4, 21),  1,          32, 0,                          /* OpTypeInt 32 */
    OP(4, 21),  2,          64, 0,                          /* OpTypeInt 64 */
    OP(2, 20),  3,                                          /* OpTypeBool */
    OP(4, 50),  1,          10, 7,                          /* OpSpecConstant %int 7 */
    OP(5, 50),  2,          11, 2,  1,                      /* OpSpecConstant %long 0x100000002 */
    OP(3, 48),  3,          12,                             /* OpSpecConstantTrue */
    OP(4, 43),  1,          13, 7,                          /* OpConstant %int 7 */
};
enum {
    AT_INT = 5 + 4 * 3 + 4 + 4 + 2,
    AT_LONG = AT_INT + 4,
    AT_BOOL = AT_LONG + 5,
    AT_CONST = AT_BOOL + 3
};

int main(void)
{
    uint32_t w[sizeof(module_words) / 4];
    size_t n = sizeof(w) / 4;
    char err[256] = "";
    uint32_t v32 = 42;
    uint64_t v64 = 0x1122334455667788ull;
    uint8_t vfalse = 0;

    tap_plan(9);
    memcpy(w, module_words, sizeof(w));
    {
        uint32_t ids[] = {5, 6, 9};
        const void *vals[] = {&v32, &v64, &vfalse};
        tap_ok(gtsim_spirv_specialize(w, n, 3, ids, vals, err, sizeof(err)) == 0,
               "three constants apply (%s)", err);
    }
    tap_ok(w[AT_INT + 3] == 42, "the 32-bit constant holds the new value (%u)", w[AT_INT + 3]);
    tap_ok(w[AT_LONG + 3] == 0x55667788u && w[AT_LONG + 4] == 0x11223344u,
           "the 64-bit constant holds the new value, low word first");
    tap_ok((w[AT_BOOL] & 0xffff) == 49 && (w[AT_BOOL] >> 16) == 3,
           "a false boolean turns OpSpecConstantTrue into OpSpecConstantFalse");
    tap_ok(w[AT_CONST + 3] == 7, "an ordinary OpConstant of the same value is untouched");
    {
        uint32_t ids[] = {9};
        uint8_t yes = 1;
        const void *vals[] = {&yes};
        gtsim_spirv_specialize(w, n, 1, ids, vals, err, sizeof(err));
        tap_ok((w[AT_BOOL] & 0xffff) == 48, "and true turns it back");
    }
    {
        uint32_t ids[] = {8};
        const void *vals[] = {&v32};
        err[0] = 0;
        tap_ok(gtsim_spirv_specialize(w, n, 1, ids, vals, err, sizeof(err)) == -EINVAL &&
                   strstr(err, "SpecId 8"),
               "a SpecId the module does not declare is refused: %s", err);
    }
    {
        uint32_t ids[] = {5};
        const void *vals[] = {&v32};
        w[0] = 0xdeadbeef;
        tap_ok(gtsim_spirv_specialize(w, n, 1, ids, vals, err, sizeof(err)) == -EINVAL,
               "words that are not SPIR-V are refused: %s", err);
        memcpy(w, module_words, sizeof(w));
        w[AT_INT] = OP(0xffff, 50);
        tap_ok(gtsim_spirv_specialize(w, n, 1, ids, vals, err, sizeof(err)) == -EINVAL,
               "an instruction running past the end is refused: %s", err);
    }
    return tap_done();
}
