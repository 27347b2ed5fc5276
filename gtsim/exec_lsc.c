/* SPDX-License-Identifier: MIT */
/* LSC loads, stores and fences to the UGM and SLM (README.md, "Executing
 * instructions"). */
#include <string.h>

#include "gtsim/exec_int.h"

/* LSC message descriptor fields (bits of the send's desc). */
#define LSC_OP(d) ((d)&0x3fu)
#define LSC_ADDR_SIZE(d) (((d) >> 7) & 3u) /* 1 A16, 2 A32, 3 A64 */
#define LSC_DATA_SIZE(d) (((d) >> 9) & 7u)
#define LSC_VECT(d) (((d) >> 12) & 7u)
#define LSC_TRANSPOSE(d) (((d) >> 15) & 1u)
#define LSC_ADDR_TYPE(d) (((d) >> 29) & 3u) /* 0 flat, 3 BTI */
enum { LSC_LOAD = 0x00, LSC_STORE = 0x04, LSC_FENCE = 0x1f };
/* Data sizes: d32 and d64 move whole elements; d8u32 and d16u32 move one
 * byte or word of memory per lane, held zero-extended in a dword of the
 * register payload (loads) or taken from its low bits (stores). */
enum { LSC_D32 = 2, LSC_D64 = 3, LSC_D8U32 = 4, LSC_D16U32 = 5 };
static const uint8_t lsc_vect_elems[8] = {1, 2, 3, 4, 8, 16, 32, 64};

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

/* One LSC message, decoded from its descriptor. */
struct lsc_msg {
    unsigned op, vect, lanes;
    unsigned msize, rsize; /* bytes of an element in memory, in the registers */
    unsigned abytes;
    bool transpose, slm, a32_bti;
    uint32_t mask;
    size_t addr_base, data_base, comp_stride;
};

static const char *lsc_decode(const struct gtsim_xinsn *x, struct gtsim_exec_env *env,
                              struct lsc_msg *m)
{
    uint32_t d = x->desc;
    unsigned asz = LSC_ADDR_SIZE(d), dsz = LSC_DATA_SIZE(d), atype = LSC_ADDR_TYPE(d);
    m->op = LSC_OP(d);
    m->vect = lsc_vect_elems[LSC_VECT(d)];
    m->transpose = LSC_TRANSPOSE(d);
    m->slm = x->sfid == GTSIM_SFID_SLM;
    m->a32_bti = false;
    if (m->op != LSC_LOAD && m->op != LSC_STORE)
        return "LSC operation not modelled (atomics, block, typed ...)";
    if (dsz == LSC_D32 || dsz == LSC_D64)
        m->msize = m->rsize = dsz == LSC_D64 ? 8 : 4;
    else if ((dsz == LSC_D8U32 || dsz == LSC_D16U32) && m->vect == 1 && !m->transpose)
        m->msize = dsz == LSC_D8U32 ? 1 : 2, m->rsize = 4;
    else
        return "LSC data size not modelled (d32, d64; d8u32, d16u32 not transposed, vector 1)";
    if (asz != 2 && asz != 3)
        return "LSC address size not modelled (only a32, a64)";
    if (atype == 3 && (x->exdesc >> 24) == 0xff && asz == 2 && !m->slm)
        m->a32_bti = true; /* stateless through BTI 255: the launch's indirect data */
    else if (atype != 0)
        return "LSC surface addressing not modelled (only flat, bti[255])";
    if (x->src[0].file != GTSIM_XF_GRF || (m->op == LSC_STORE && x->src[1].file != GTSIM_XF_GRF) ||
        (m->op == LSC_LOAD && x->dst.file != GTSIM_XF_GRF && x->dst.file != GTSIM_XF_NULL))
        return "send operands not modelled";
    if (!gtsim_x_exec_mask(x, env, true, &m->mask))
        return env->why;
    size_t regsize = gtsim_x_grf_bytes(env);
    m->abytes = asz == 3 ? 8 : 4;
    m->lanes = m->transpose ? 1 : x->exec_size;
    m->mask &= m->transpose ? 1u : ~0u;
    m->addr_base = (size_t)x->src[0].reg * regsize;
    m->data_base = (size_t)(m->op == LSC_LOAD ? x->dst.reg : x->src[1].reg) * regsize;
    /* Non-transposed: component c of lane i at c * (the lanes' bytes,
     * rounded to registers) + i * element size. Transposed: one lane, the
     * components side by side. */
    m->comp_stride =
        m->transpose ? m->rsize : ((m->lanes * m->rsize + regsize - 1) / regsize) * regsize;
    return NULL;
}

/* Pass 0 checks every access, pass 1 moves the data: a fault leaves
 * registers and memory as they were, and names the first lane's address
 * that faulted. */
static enum gtsim_exec_result lsc_move(struct gtsim_exec_env *env, const struct lsc_msg *m,
                                       uint8_t *grf, int pass)
{
    for (unsigned i = 0; i < m->lanes; i++) {
        if (!(m->mask >> i & 1))
            continue;
        uint64_t addr = 0;
        memcpy(&addr, grf + m->addr_base + (size_t)i * m->abytes, m->abytes);
        for (unsigned c = 0; c < m->vect; c++) {
            uint64_t a = addr + (uint64_t)c * m->msize;
            bool fault = false, bad = false;
            uint8_t *mem = lsc_target(env, m->slm, m->a32_bti, a, m->msize, &fault, &bad);
            if (fault)
                return GTSIM_EXEC_FAULT;
            if (bad)
                return gtsim_x_illegal(env, "SLM or payload access out of range");
            if (pass == 0)
                continue;
            uint8_t *reg = grf + m->data_base + c * m->comp_stride + (size_t)i * m->rsize;
            if (m->op == LSC_LOAD) {
                memset(reg, 0, m->rsize); /* d8u32, d16u32: zero-extended */
                memcpy(reg, mem, m->msize);
            } else {
                memcpy(mem, reg, m->msize);
            }
        }
    }
    return GTSIM_EXEC_NEXT;
}

enum gtsim_exec_result gtsim_x_lsc(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    struct lsc_msg m;
    size_t grfsize = 0;
    uint8_t *grf = gtsim_x_file_bytes(env, GTSIM_XF_GRF, &grfsize);

    if (LSC_OP(x->desc) == LSC_FENCE)
        return GTSIM_EXEC_NEXT; /* gtsim's memory is coherent: nothing to wait for */
    const char *why = lsc_decode(x, env, &m);
    if (why)
        return gtsim_x_illegal(env, why);
    size_t data_end =
        m.data_base + (m.transpose ? (size_t)m.vect * m.rsize : m.comp_stride * m.vect);
    if (m.addr_base + (size_t)m.lanes * m.abytes > grfsize || data_end > grfsize)
        return gtsim_x_illegal(env, "send payload beyond the register file");
    if (m.op == LSC_LOAD && x->dst.file == GTSIM_XF_NULL)
        return GTSIM_EXEC_NEXT; /* a load into null only warms caches */
    for (int pass = 0; pass < 2; pass++) {
        enum gtsim_exec_result r = lsc_move(env, &m, grf, pass);
        if (r != GTSIM_EXEC_NEXT)
            return r;
    }
    return GTSIM_EXEC_NEXT;
}
