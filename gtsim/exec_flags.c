/* SPDX-License-Identifier: MIT */
/* Flags: cmp with its condition modifier, and sel chosen by a predicate
 * (README.md, "Executing instructions"). Predication of other instructions
 * is their lane mask (gtsim_x_exec_mask); sel with (lt) or (ge) is min or
 * max. */
#include "gtsim/exec_int.h"

/* IGA's FlagModifier values (read back on long_kernel: eq 1, ne 2, lt 5;
 * gt 3, ge 4, le 6 follow from that order). ov and un are not modelled. */
enum { CM_EQ = 1, CM_NE = 2, CM_GT = 3, CM_GE = 4, CM_LT = 5, CM_LE = 6 };

static bool compare(unsigned cm, bool sign, uint64_t a, uint64_t b)
{
    int c = sign ? ((int64_t)a > (int64_t)b) - ((int64_t)a < (int64_t)b) : (a > b) - (a < b);
    switch (cm) {
    case CM_EQ:
        return c == 0;
    case CM_NE:
        return c != 0;
    case CM_GT:
        return c > 0;
    case CM_GE:
        return c >= 0;
    case CM_LT:
        return c < 0;
    default:
        return c <= 0;
    }
}

/* Whether src1 compares in src0's signedness: same signedness, or an
 * immediate that means the same in both. */
static bool same_sign(const struct gtsim_xinsn *x)
{
    bool s0 = gtsim_x_type_signed(x->src[0].type), s1 = gtsim_x_type_signed(x->src[1].type);
    if (s0 == s1)
        return true;
    if (x->src[1].file != GTSIM_XF_IMM)
        return false;
    unsigned bits = gtsim_x_type_size(x->src[1].type) * 8;
    return bits < 64 && !((x->src[1].imm >> (bits - 1)) & 1); /* not negative */
}

enum gtsim_exec_result gtsim_x_cmp(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    uint32_t mask, result = 0;
    bool sign = gtsim_x_type_signed(x->src[0].type);

    if (x->cond_mod < CM_EQ || x->cond_mod > CM_LE)
        return gtsim_x_illegal(env, "cmp condition not modelled (ov, un)");
    if (!x->has_dst || x->nsrc < 2 || x->exec_size > GTSIM_X_MAX_LANES || x->dst_mod != 0)
        return gtsim_x_illegal(env, "cmp operands not modelled");
    if (!gtsim_x_is_int(x->dst.type) || !gtsim_x_is_int(x->src[0].type) ||
        !gtsim_x_is_int(x->src[1].type) || !same_sign(x))
        return gtsim_x_illegal(env, "cmp types not modelled (float, mixed signedness)");
    if (!gtsim_x_dst_ok(env, &x->dst, x->exec_size))
        return gtsim_x_illegal(env, "destination not modelled");
    /* Lanes the predicate turns off keep their flag bit: IGC chains
     * predicated compares on one flag to build 64-bit comparisons. */
    if (!gtsim_x_exec_mask(x, env, true, &mask))
        return GTSIM_EXEC_ILLEGAL;
    for (unsigned i = 0; i < x->exec_size; i++) {
        uint64_t a, b;
        if (!(mask >> i & 1))
            continue;
        if (!gtsim_x_read_src(env, &x->src[0], i, true, &a) ||
            !gtsim_x_read_src(env, &x->src[1], i, true, &b))
            return gtsim_x_illegal(env, "source operand not modelled");
        result |= (uint32_t)compare(x->cond_mod, sign, a, b) << i;
    }
    for (unsigned i = 0; i < x->exec_size; i++)
        if (mask >> i & 1)
            gtsim_x_write_dst(env, &x->dst, i, (result >> i & 1) ? ~0ull : 0);
    gtsim_x_flag_write(env, x, mask, result);
    return GTSIM_EXEC_NEXT;
}

/* What a sel takes for one lane: by its predicate (src0 where it holds),
 * or, with (lt) or (ge), the smaller or the larger source (min, max). */
static uint64_t sel_pick(const struct gtsim_xinsn *x, uint32_t pick, unsigned i, uint64_t a,
                         uint64_t b)
{
    if (x->cond_mod != 0)
        return compare(x->cond_mod, gtsim_x_type_signed(x->src[0].type), a, b) ? a : b;
    return (pick >> i & 1) ? a : b;
}

enum gtsim_exec_result gtsim_x_sel(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    uint64_t res[GTSIM_X_MAX_LANES];
    uint32_t mask, pick = ~0u; /* without a predicate sel takes src0 */
    bool fcopy = x->dst.type == GTSIM_XT_F && x->src[0].type == GTSIM_XT_F &&
                 x->src[1].type == GTSIM_XT_F && x->cond_mod == 0;

    /* min/max: (lt) and (ge) without a predicate, on integers. Whether the
     * hardware also writes the flag then is not modelled: it is left as it
     * was (IGC does not read it after a min or max). */
    if (x->cond_mod != 0 &&
        (x->pred != 0 || (x->cond_mod != CM_LT && x->cond_mod != CM_GE) || !same_sign(x)))
        return gtsim_x_illegal(env, "sel condition not modelled (only (lt) min, (ge) max)");
    if (x->dst_mod != 0 || !x->has_dst || x->nsrc < 2 || x->exec_size > GTSIM_X_MAX_LANES)
        return gtsim_x_illegal(env, "sel operands or saturation not modelled");
    if (!fcopy && (!gtsim_x_is_int(x->dst.type) || !gtsim_x_is_int(x->src[0].type) ||
                   !gtsim_x_is_int(x->src[1].type)))
        return gtsim_x_illegal(env, "sel types not modelled");
    if (!gtsim_x_dst_ok(env, &x->dst, x->exec_size))
        return gtsim_x_illegal(env, "destination not modelled");
    /* The predicate chooses the source; it does not turn lanes off. */
    if (!gtsim_x_exec_mask(x, env, false, &mask))
        return GTSIM_EXEC_ILLEGAL;
    if (x->pred != 0) {
        uint32_t f = 0;
        if (x->pred != 1 || !gtsim_x_flag_read(env, x, &f))
            return gtsim_x_illegal(env, "sel predicate not modelled");
        pick = x->pred_inv ? ~f : f;
    }
    for (unsigned i = 0; i < x->exec_size; i++) {
        if (!(mask >> i & 1))
            continue;
        uint64_t a, b; /* both read, so an unmodelled operand is never skipped */
        if (!gtsim_x_read_src(env, &x->src[0], i, !fcopy, &a) ||
            !gtsim_x_read_src(env, &x->src[1], i, !fcopy, &b))
            return gtsim_x_illegal(env, "source operand not modelled");
        res[i] = sel_pick(x, pick, i, a, b);
    }
    for (unsigned i = 0; i < x->exec_size; i++)
        if (mask >> i & 1)
            gtsim_x_write_dst(env, &x->dst, i, res[i]);
    return GTSIM_EXEC_NEXT;
}
