/* SPDX-License-Identifier: MIT */
#include "gtsim/exec.h"

#include <string.h>

#include "gtsim/isa.h"

#define MAX_LANES 32

/* Raw opcodes executed here (isa.h has the control-flow ones). */
enum {
    OP_ADD = 0x40,
    OP_MUL = 0x41,
    OP_ADD3 = 0x52,
    OP_MACL = 0x53,
    OP_MAD = 0x5b,
    OP_MOV = 0x61,
    OP_NOT = 0x64,
    OP_AND = 0x65,
    OP_OR = 0x66,
    OP_XOR = 0x67,
    OP_SHR = 0x68,
    OP_SHL = 0x69,
    OP_ASR = 0x6c,
};

/* LSC message descriptor fields (bits of the send's desc). */
#define LSC_OP(d) ((d)&0x3fu)
#define LSC_ADDR_SIZE(d) (((d) >> 7) & 3u) /* 1 A16, 2 A32, 3 A64 */
#define LSC_DATA_SIZE(d) (((d) >> 9) & 7u) /* 2 D32, 3 D64 */
#define LSC_VECT(d) (((d) >> 12) & 7u)
#define LSC_TRANSPOSE(d) (((d) >> 15) & 1u)
#define LSC_ADDR_TYPE(d) (((d) >> 29) & 3u) /* 0 flat, 3 BTI */
enum { LSC_LOAD = 0x00, LSC_STORE = 0x04, LSC_FENCE = 0x1f };
static const uint8_t lsc_vect_elems[8] = {1, 2, 3, 4, 8, 16, 32, 64};

static enum gtsim_exec_result illegal(struct gtsim_exec_env *env, const char *why)
{
    env->why = why;
    return GTSIM_EXEC_ILLEGAL;
}

static unsigned type_size(uint8_t t)
{
    switch (t) {
    case GTSIM_XT_UB:
    case GTSIM_XT_B:
        return 1;
    case GTSIM_XT_UW:
    case GTSIM_XT_W:
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

static bool type_signed(uint8_t t)
{
    return t == GTSIM_XT_B || t == GTSIM_XT_W || t == GTSIM_XT_D || t == GTSIM_XT_Q;
}

/* Integer value of size bytes at p, sign- or zero-extended as t says. */
static uint64_t load_int(const uint8_t *p, uint8_t t)
{
    uint64_t v = 0;
    unsigned n = type_size(t);
    memcpy(&v, p, n); /* little endian host, as the GPU */
    if (type_signed(t) && n < 8 && (v >> (n * 8 - 1)) & 1)
        v |= ~0ull << (n * 8);
    return v;
}

/* The register file an operand names, as bytes: base and size. */
static uint8_t *file_bytes(struct gtsim_exec_env *env, uint8_t file, size_t *size)
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

static size_t grf_bytes(const struct gtsim_exec_env *env)
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

/* Reads element i of source s into *v; false if it cannot be modelled. */
static bool read_src(struct gtsim_exec_env *env, const struct gtsim_xop *s, unsigned i,
                     size_t regsize, uint64_t *v)
{
    unsigned ts = type_size(s->type);
    if (!ts || s->mod != 0)
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
    uint8_t *base = file_bytes(env, s->file, &size);
    if (!base)
        return false;
    size_t off = (size_t)s->reg * regsize + (size_t)s->subreg * ts + src_elem_off(s, i, ts);
    if (off + ts > size)
        return false;
    *v = load_int(base + off, s->type);
    return true;
}

static bool write_dst(struct gtsim_exec_env *env, const struct gtsim_xop *d, unsigned i,
                      size_t regsize, uint64_t v)
{
    unsigned ts = type_size(d->type);
    if (d->file == GTSIM_XF_NULL)
        return true;
    size_t size = 0;
    uint8_t *base = file_bytes(env, d->file, &size);
    if (!base || !ts || d->hs == GTSIM_XRGN_NONE)
        return false;
    size_t off = (size_t)d->reg * regsize + (size_t)d->subreg * ts + (size_t)i * d->hs * ts;
    if (off + ts > size)
        return false;
    memcpy(base + off, &v, ts);
    return true;
}

/* Checks a destination before anything is written, so an instruction
 * refused half-way leaves no trace. */
static bool dst_ok(struct gtsim_exec_env *env, const struct gtsim_xop *d, unsigned lanes,
                   size_t regsize)
{
    if (d->file == GTSIM_XF_NULL)
        return type_size(d->type) != 0;
    size_t size = 0;
    unsigned ts = type_size(d->type);
    if (!file_bytes(env, d->file, &size) || !ts || d->hs == GTSIM_XRGN_NONE || lanes == 0)
        return false;
    size_t last =
        (size_t)d->reg * regsize + (size_t)d->subreg * ts + (size_t)(lanes - 1) * d->hs * ts + ts;
    return last <= size;
}

/* The lanes this instruction runs for: bit i is lane chan_off + i. */
static uint32_t lane_mask(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    uint32_t all = x->exec_size >= 32 ? 0xffffffffu : (1u << x->exec_size) - 1;
    if (x->nomask)
        return all;
    uint32_t dmask = gtsim_regfile_get32(env->layout, env->slot, GTSIM_REGSET_SR, 0, 2);
    return (dmask >> x->chan_off) & all;
}

static bool is_int(uint8_t t)
{
    return t != GTSIM_XT_F && type_size(t) != 0;
}

/* One lane of an integer operation (or a float copy), on operands read as
 * 64-bit values; the destination keeps the low bits. */
static uint64_t lane_op(const struct gtsim_xinsn *x, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t r = 0;
    unsigned bits = type_size(x->dst.type) * 8;
    switch (x->opcode) {
    case OP_MOV:
        r = a;
        break;
    case OP_NOT:
        r = ~a;
        break;
    case OP_AND:
        r = a & b;
        break;
    case OP_OR:
        r = a | b;
        break;
    case OP_XOR:
        r = a ^ b;
        break;
    case OP_ADD:
        r = a + b;
        break;
    case OP_ADD3:
        r = a + b + c;
        break;
    /* mul into acc0 followed by macl is how IGC multiplies 32-bit
     * integers; each keeps the low bits of the full product, which is
     * what the pair leaves in macl's destination. */
    case OP_MUL:
    case OP_MACL:
        r = a * b;
        break;
    case OP_MAD:
        r = a + b * c;
        break;
    case OP_SHL:
        r = a << (b & (bits - 1));
        break;
    case OP_SHR: {
        unsigned sb = type_size(x->src[0].type) * 8;
        uint64_t ua = sb < 64 ? a & ((1ull << sb) - 1) : a;
        r = ua >> (b & (bits - 1));
        break;
    }
    case OP_ASR:
        r = (uint64_t)((int64_t)a >> (b & (bits - 1)));
        break;
    }
    return r;
}

static enum gtsim_exec_result alu(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    static const uint8_t nsrc_of[128] = {
        [OP_ADD] = 2, [OP_MUL] = 2, [OP_ADD3] = 3, [OP_MACL] = 2, [OP_MAD] = 3,
        [OP_MOV] = 1, [OP_NOT] = 1, [OP_AND] = 2,  [OP_OR] = 2,   [OP_XOR] = 2,
        [OP_SHR] = 2, [OP_SHL] = 2, [OP_ASR] = 2,
    };
    uint64_t res[MAX_LANES];
    size_t regsize = grf_bytes(env);
    unsigned n = nsrc_of[x->opcode];
    uint32_t mask = lane_mask(x, env);

    if (n == 0)
        return illegal(env, "opcode not modelled");
    if (x->pred != 0 || x->cond_mod != 0 || x->dst_mod != 0)
        return illegal(env, "predicate, condition modifier or saturation not modelled");
    if (!x->has_dst || x->nsrc < n || x->exec_size > MAX_LANES)
        return illegal(env, "operands not modelled");
    /* Float arithmetic is not modelled; a float move of the same type is a
     * copy of bits. */
    bool fcopy = x->opcode == OP_MOV && x->dst.type == GTSIM_XT_F && x->src[0].type == GTSIM_XT_F;
    if (!fcopy) {
        if (!is_int(x->dst.type))
            return illegal(env, "destination type not modelled");
        for (unsigned s = 0; s < n; s++)
            if (!is_int(x->src[s].type))
                return illegal(env, "source type not modelled");
    }
    if (!dst_ok(env, &x->dst, x->exec_size, regsize))
        return illegal(env, "destination not modelled");
    /* Every source is read before any lane is written, as on hardware. */
    for (unsigned i = 0; i < x->exec_size; i++) {
        uint64_t a = 0, b = 0, c = 0;
        if (!(mask >> i & 1))
            continue;
        if (!read_src(env, &x->src[0], i, regsize, &a) ||
            (n > 1 && !read_src(env, &x->src[1], i, regsize, &b)) ||
            (n > 2 && !read_src(env, &x->src[2], i, regsize, &c)))
            return illegal(env, "source operand not modelled");
        res[i] = lane_op(x, a, b, c);
    }
    for (unsigned i = 0; i < x->exec_size; i++)
        if (mask >> i & 1)
            write_dst(env, &x->dst, i, regsize, res[i]);
    return GTSIM_EXEC_NEXT;
}

/* Where an LSC access lands: host memory for a checked address, or NULL
 * with *fault set when it is outside every allocation. */
static uint8_t *lsc_target(struct gtsim_exec_env *env, bool slm, bool a32_bti, uint64_t addr,
                           unsigned size, bool *fault, bool *bad)
{
    if (slm) {
        if (addr + size > env->slm_size || !env->slm) {
            *bad = true; /* out of the group's SLM: not modelled */
            return NULL;
        }
        return env->slm + addr;
    }
    if (a32_bti) {
        if (!env->indirect || addr + size > env->indirect_size) {
            *bad = true;
            return NULL;
        }
        return env->indirect + addr;
    }
    if (!env->mem_ok || !env->mem_ok(env->mem_ctx, addr, size)) {
        *fault = true;
        env->fault_address = addr;
        return NULL;
    }
    return (uint8_t *)(uintptr_t)addr;
}

static enum gtsim_exec_result lsc(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    uint32_t d = x->desc;
    bool slm = x->sfid == GTSIM_SFID_SLM;
    size_t regsize = grf_bytes(env), grfsize = 0;
    uint8_t *grf = file_bytes(env, GTSIM_XF_GRF, &grfsize);
    unsigned op = LSC_OP(d), asz = LSC_ADDR_SIZE(d), dsz = LSC_DATA_SIZE(d);
    unsigned vect = lsc_vect_elems[LSC_VECT(d)];
    bool transpose = LSC_TRANSPOSE(d);
    unsigned atype = LSC_ADDR_TYPE(d);
    bool a32_bti = false;

    if (op == LSC_FENCE)
        return GTSIM_EXEC_NEXT; /* gtsim's memory is coherent: nothing to wait for */
    if (op != LSC_LOAD && op != LSC_STORE)
        return illegal(env, "LSC operation not modelled (atomics, block, typed ...)");
    if (x->pred != 0)
        return illegal(env, "predicated send not modelled");
    if (dsz != 2 && dsz != 3)
        return illegal(env, "LSC data size not modelled (only d32, d64)");
    if (asz != 2 && asz != 3)
        return illegal(env, "LSC address size not modelled (only a32, a64)");
    if (atype == 3 && (x->exdesc >> 24) == 0xff && asz == 2 && !slm)
        a32_bti = true; /* stateless through BTI 255: the launch's indirect data */
    else if (atype != 0)
        return illegal(env, "LSC surface addressing not modelled (only flat, bti[255])");
    if (x->src[0].file != GTSIM_XF_GRF || (op == LSC_STORE && x->src[1].file != GTSIM_XF_GRF) ||
        (op == LSC_LOAD && x->dst.file != GTSIM_XF_GRF && x->dst.file != GTSIM_XF_NULL))
        return illegal(env, "send operands not modelled");

    unsigned esize = dsz == 3 ? 8 : 4, abytes = asz == 3 ? 8 : 4;
    unsigned lanes = transpose ? 1 : x->exec_size;
    uint32_t mask = transpose ? (lane_mask(x, env) & 1) : lane_mask(x, env);
    size_t addr_base = (size_t)x->src[0].reg * regsize;
    size_t data_base = (size_t)(op == LSC_LOAD ? x->dst.reg : x->src[1].reg) * regsize;
    /* Non-transposed: component c of lane i at c * (the lanes' bytes,
     * rounded to registers) + i * element size. Transposed: one lane, the
     * components side by side. */
    size_t comp_stride = transpose ? esize : ((lanes * esize + regsize - 1) / regsize) * regsize;
    size_t data_end = data_base + (transpose ? (size_t)vect * esize : comp_stride * vect);
    if (addr_base + (size_t)lanes * abytes > grfsize || data_end > grfsize)
        return illegal(env, "send payload beyond the register file");
    if (op == LSC_LOAD && x->dst.file == GTSIM_XF_NULL)
        return GTSIM_EXEC_NEXT; /* a load into null only warms caches */

    /* Check every access first: a fault leaves registers and memory as
     * they were, and names the first lane's address that faulted. */
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < lanes; i++) {
            if (!(mask >> i & 1))
                continue;
            uint64_t addr = 0;
            memcpy(&addr, grf + addr_base + (size_t)i * abytes, abytes);
            for (unsigned c = 0; c < vect; c++) {
                uint64_t a = addr + (uint64_t)c * esize;
                bool fault = false, bad = false;
                uint8_t *mem = lsc_target(env, slm, a32_bti, a, esize, &fault, &bad);
                if (fault)
                    return GTSIM_EXEC_FAULT;
                if (bad)
                    return illegal(env, "SLM or payload access out of range");
                if (pass == 0)
                    continue;
                uint8_t *reg = grf + data_base + c * comp_stride + (size_t)i * esize;
                if (op == LSC_LOAD)
                    memcpy(reg, mem, esize);
                else
                    memcpy(mem, reg, esize);
            }
        }
    }
    return GTSIM_EXEC_NEXT;
}

enum gtsim_exec_result gtsim_exec_one(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    env->why = NULL;
    switch (x->opcode) {
    case GTSIM_OP_NOP:
        return GTSIM_EXEC_NEXT;
    case GTSIM_OP_SYNC:
        /* sync.nop waits for scoreboards gtsim never has pending; sync.bar
         * is the barrier hw.c models. Other sync functions are refused. */
        if (x->syncfc == 0 || x->syncfc == 14) /* IGA's numbers: nop 0, bar 14 */
            return GTSIM_EXEC_NEXT;
        return illegal(env, "sync function not modelled");
    case GTSIM_OP_SEND:
    case GTSIM_OP_SENDC:
        if (x->sfid == GTSIM_SFID_GATEWAY)
            return GTSIM_EXEC_NEXT; /* barrier signal, end of thread: hw.c */
        if (x->sfid == GTSIM_SFID_UGM || x->sfid == GTSIM_SFID_SLM)
            return lsc(x, env);
        return illegal(env, "send to this shared function not modelled");
    default:
        return alu(x, env);
    }
}
