/* SPDX-License-Identifier: MIT */
/* Operands of the executor: register files as bytes, regions, types,
 * source modifiers, the lanes an instruction runs for and the flag bits. */
#include <string.h>

#include "gtsim/exec_int.h"

enum gtsim_exec_result gtsim_x_illegal(struct gtsim_exec_env *env, const char *why)
{
    env->why = why;
    return GTSIM_EXEC_ILLEGAL;
}

unsigned gtsim_x_type_size(uint8_t t)
{
    switch (t) {
    case GTSIM_XT_UB:
    case GTSIM_XT_B:
        return 1;
    case GTSIM_XT_UW:
    case GTSIM_XT_W:
    case GTSIM_XT_HF:
        return 2;
    case GTSIM_XT_UD:
    case GTSIM_XT_D:
    case GTSIM_XT_F:
        return 4;
    case GTSIM_XT_UQ:
    case GTSIM_XT_Q:
        return 8;
    default:
        return 0;
    }
}

bool gtsim_x_type_signed(uint8_t t)
{
    return t == GTSIM_XT_B || t == GTSIM_XT_W || t == GTSIM_XT_D || t == GTSIM_XT_Q;
}

bool gtsim_x_is_int(uint8_t t)
{
    return t != GTSIM_XT_F && t != GTSIM_XT_HF && gtsim_x_type_size(t) != 0;
}

/* Integer value of size bytes at p, sign- or zero-extended as t says. */
static uint64_t load_int(const uint8_t *p, uint8_t t)
{
    uint64_t v = 0;
    unsigned n = gtsim_x_type_size(t);
    memcpy(&v, p, n); /* little endian host, as the GPU */
    if (gtsim_x_type_signed(t) && n < 8 && (v >> (n * 8 - 1)) & 1)
        v |= ~0ull << (n * 8);
    return v;
}

/* The register file an operand names, as bytes: base and size. */
uint8_t *gtsim_x_file_bytes(struct gtsim_exec_env *env, uint8_t file, size_t *size)
{
    enum gtsim_regset_type set;
    switch (file) {
    case GTSIM_XF_GRF:
        set = GTSIM_REGSET_GRF;
        break;
    case GTSIM_XF_ACC:
        set = GTSIM_REGSET_ACC;
        break;
    case GTSIM_XF_CR:
        set = GTSIM_REGSET_CR;
        break;
    default:
        return NULL;
    }
    const struct gtsim_regset_desc *d = gtsim_regfile_find(env->layout, set);
    if (!d)
        return NULL;
    *size = (size_t)d->count * d->bits / 8;
    return gtsim_regfile_reg(env->layout, env->slot, set, 0);
}

size_t gtsim_x_grf_bytes(const struct gtsim_exec_env *env)
{
    const struct gtsim_regset_desc *d = gtsim_regfile_find(env->layout, GTSIM_REGSET_GRF);
    return d->bits / 8;
}

/* Byte offset of element i of a source operand, from its region. A ternary
 * operand has no width (<V;H>, src2 <H>): with H = 0 the elements step by
 * V, otherwise by H. */
static size_t src_elem_off(const struct gtsim_xop *s, unsigned i, unsigned tsize)
{
    size_t el;
    if (s->w != GTSIM_XRGN_NONE && s->vs != GTSIM_XRGN_NONE && s->w != 0)
        el = (size_t)(i / s->w) * s->vs + (size_t)(i % s->w) * s->hs;
    else if (s->vs == GTSIM_XRGN_NONE || s->hs != 0)
        el = (size_t)i * (s->hs == GTSIM_XRGN_NONE ? 0 : s->hs);
    else
        el = (size_t)i * s->vs;
    return el * tsize;
}

static bool read_raw(struct gtsim_exec_env *env, const struct gtsim_xop *s, unsigned i, uint64_t *v)
{
    unsigned ts = gtsim_x_type_size(s->type);
    if (!ts)
        return false;
    if (s->file == GTSIM_XF_IMM) {
        uint8_t b[8];
        memcpy(b, &s->imm, 8);
        *v = load_int(b, s->type);
        return true;
    }
    if (s->file == GTSIM_XF_NULL) {
        *v = 0;
        return true;
    }
    size_t size = 0;
    uint8_t *base = gtsim_x_file_bytes(env, s->file, &size);
    if (!base)
        return false;
    size_t off =
        (size_t)s->reg * gtsim_x_grf_bytes(env) + (size_t)s->subreg * ts + src_elem_off(s, i, ts);
    if (off + ts > size)
        return false;
    *v = load_int(base + off, s->type);
    return true;
}

bool gtsim_x_read_src(struct gtsim_exec_env *env, const struct gtsim_xop *s, unsigned i,
                      bool allow_neg, uint64_t *v)
{
    if (s->mod != 0 && !(allow_neg && s->mod == GTSIM_X_SRC_NEG && gtsim_x_is_int(s->type)))
        return false;
    if (!read_raw(env, s, i, v))
        return false;
    if (s->mod == GTSIM_X_SRC_NEG)
        *v = 0 - *v; /* two's complement of the extended value */
    return true;
}

void gtsim_x_write_dst(struct gtsim_exec_env *env, const struct gtsim_xop *d, unsigned i,
                       uint64_t v)
{
    unsigned ts = gtsim_x_type_size(d->type);
    if (d->file == GTSIM_XF_NULL)
        return;
    size_t size = 0;
    uint8_t *base = gtsim_x_file_bytes(env, d->file, &size);
    if (!base || !ts || d->hs == GTSIM_XRGN_NONE)
        return;
    size_t off =
        (size_t)d->reg * gtsim_x_grf_bytes(env) + (size_t)d->subreg * ts + (size_t)i * d->hs * ts;
    if (off + ts <= size)
        memcpy(base + off, &v, ts);
}

bool gtsim_x_dst_ok(struct gtsim_exec_env *env, const struct gtsim_xop *d, unsigned lanes)
{
    if (d->file == GTSIM_XF_NULL)
        return gtsim_x_type_size(d->type) != 0;
    size_t size = 0;
    unsigned ts = gtsim_x_type_size(d->type);
    if (!gtsim_x_file_bytes(env, d->file, &size) || !ts || d->hs == GTSIM_XRGN_NONE || lanes == 0)
        return false;
    size_t last = (size_t)d->reg * gtsim_x_grf_bytes(env) + (size_t)d->subreg * ts +
                  (size_t)(lanes - 1) * d->hs * ts + ts;
    return last <= size;
}

/* First bit of the instruction's flag (sub)register for its lane 0, in the
 * flag file seen as one little-endian bit string; false if beyond it. */
static bool flag_base(struct gtsim_exec_env *env, const struct gtsim_xinsn *x, uint8_t **bytes,
                      unsigned *bit)
{
    const struct gtsim_regset_desc *d = gtsim_regfile_find(env->layout, GTSIM_REGSET_FLAG);
    if (!d)
        return false;
    unsigned total = d->count * d->bits;
    *bit = (unsigned)x->flag_reg * 32 + (unsigned)x->flag_sub * 16 + x->chan_off;
    if (x->exec_size == 0 || *bit + x->exec_size > total)
        return false;
    *bytes = gtsim_regfile_reg(env->layout, env->slot, GTSIM_REGSET_FLAG, 0);
    return *bytes != NULL;
}

bool gtsim_x_flag_read(struct gtsim_exec_env *env, const struct gtsim_xinsn *x, uint32_t *bits)
{
    uint8_t *f;
    unsigned b;
    if (!flag_base(env, x, &f, &b))
        return false;
    *bits = 0;
    for (unsigned i = 0; i < x->exec_size; i++, b++)
        *bits |= (uint32_t)((f[b / 8] >> (b % 8)) & 1) << i;
    return true;
}

void gtsim_x_flag_write(struct gtsim_exec_env *env, const struct gtsim_xinsn *x, uint32_t mask,
                        uint32_t values)
{
    uint8_t *f;
    unsigned b;
    if (!flag_base(env, x, &f, &b))
        return;
    for (unsigned i = 0; i < x->exec_size; i++, b++) {
        if (!(mask >> i & 1))
            continue;
        if (values >> i & 1)
            f[b / 8] |= (uint8_t)(1u << (b % 8));
        else
            f[b / 8] &= (uint8_t) ~(1u << (b % 8));
    }
}

/* IGA's PredCtrl: 1 is the plain per-lane predicate ("(f0.0)"); the any/all
 * group forms are not emitted for the kernels modelled and are refused. */
#define IGA_PRED_SEQ 1

bool gtsim_x_exec_mask(const struct gtsim_xinsn *x, struct gtsim_exec_env *env, bool predicate,
                       uint32_t *mask)
{
    uint32_t all = x->exec_size >= 32 ? 0xffffffffu : (1u << x->exec_size) - 1;
    uint32_t m = all;
    if (!x->nomask) {
        uint32_t dmask = gtsim_regfile_get32(env->layout, env->slot, GTSIM_REGSET_SR, 0, 2);
        uint32_t parked = env->simt && *env->simt ? (*env->simt)->off : 0;
        m = ((dmask & ~parked) >> x->chan_off) & all;
    }
    if (predicate && x->pred != 0) {
        uint32_t f = 0;
        if (x->pred != IGA_PRED_SEQ) {
            env->why = "predicate group form (any/all) not modelled";
            return false;
        }
        if (!gtsim_x_flag_read(env, x, &f)) {
            env->why = "flag register not modelled";
            return false;
        }
        m &= x->pred_inv ? ~f : f;
    }
    *mask = m;
    return true;
}
