/* SPDX-License-Identifier: MIT */
/* Legacy data-port messages (send.dc1), the ones LSC did not replace in
 * IGC's code for Xe-HPC: the A64 untyped atomic with which printf reserves
 * room in its buffer. Other data-port messages are refused (README.md,
 * "Executing instructions"). */
#include <string.h>

#include "gtsim/exec_int.h"

/* Data-port 1 message descriptor fields (bits of the send's desc), as
 * IGA's decoder reads them back ("untyped a64 atomic int32 integer add"
 * for 0x0414A7FF; changing one field at a time changes only its part of
 * the text). */
#define DC_MSG_TYPE(d) (((d) >> 14) & 0x1fu)
#define DC_ATOMIC_64(d) (((d) >> 12) & 1u) /* 0 int32, 1 int64 */
#define DC_ATOMIC_OP(d) (((d) >> 8) & 0xfu)
#define DC_BTI(d) ((d)&0xffu)
enum { DC1_A64_UNTYPED_ATOMIC = 0x12, DC_BTI_STATELESS = 0xff };

/* Atomic operations (bits 11..8), the ones modelled. */
enum {
    AOP_AND = 1,
    AOP_OR = 2,
    AOP_XOR = 3,
    AOP_MOV = 4,
    AOP_INC = 5,
    AOP_DEC = 6,
    AOP_ADD = 7,
    AOP_SUB = 8,
    AOP_IMAX = 10,
    AOP_IMIN = 11,
    AOP_UMAX = 12,
    AOP_UMIN = 13,
};

static bool op_modelled(unsigned op)
{
    return (op >= AOP_AND && op <= AOP_SUB) || (op >= AOP_IMAX && op <= AOP_UMIN);
}

static bool op_has_source(unsigned op)
{
    return op != AOP_INC && op != AOP_DEC;
}

/* The new value of one element; bits is 32 or 64 (signedness for the
 * min and max). */
static uint64_t atomic_value(unsigned op, unsigned bits, uint64_t old, uint64_t src)
{
    uint64_t m = bits == 64 ? ~0ull : 0xffffffffull;
    int64_t so = bits == 64 ? (int64_t)old : (int32_t)(uint32_t)old;
    int64_t ss = bits == 64 ? (int64_t)src : (int32_t)(uint32_t)src;
    old &= m;
    src &= m;
    switch (op) {
    case AOP_AND:
        return old & src;
    case AOP_OR:
        return old | src;
    case AOP_XOR:
        return old ^ src;
    case AOP_MOV:
        return src;
    case AOP_INC:
        return (old + 1) & m;
    case AOP_DEC:
        return (old - 1) & m;
    case AOP_ADD:
        return (old + src) & m;
    case AOP_SUB:
        return (old - src) & m;
    case AOP_IMAX:
        return so > ss ? old : src;
    case AOP_IMIN:
        return so < ss ? old : src;
    case AOP_UMAX:
        return old > src ? old : src;
    default: /* AOP_UMIN */
        return old < src ? old : src;
    }
}

/* Other hardware threads (gtsim's other workers) may update the same
 * memory: a compare-and-swap loop makes every operation atomic on the
 * host. Returns the old value. */
static uint64_t atomic_apply(uint8_t *mem, unsigned bits, unsigned op, uint64_t src)
{
    if (bits == 64) {
        uint64_t *p = (uint64_t *)(void *)mem;
        uint64_t old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
        while (!__atomic_compare_exchange_n(p, &old, atomic_value(op, 64, old, src), false,
                                            __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            ;
        return old;
    }
    uint32_t *p = (uint32_t *)(void *)mem;
    uint32_t old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(p, &old, (uint32_t)atomic_value(op, 32, old, src), false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        ;
    return old;
}

/* A64 untyped atomic: per enabled lane, the 64-bit address at lane * 8 of
 * src0's registers, the operand at lane * size of src1's, the old value
 * returned at lane * size of the destination (when it has one). */
static enum gtsim_exec_result a64_untyped_atomic(const struct gtsim_xinsn *x,
                                                 struct gtsim_exec_env *env)
{
    uint32_t d = x->desc;
    unsigned op = DC_ATOMIC_OP(d), bytes = DC_ATOMIC_64(d) ? 8 : 4;
    bool src = op_has_source(op), ret = x->rlen > 0 && x->dst.file == GTSIM_XF_GRF;
    size_t regsize = gtsim_x_grf_bytes(env), grfsize = 0;
    uint8_t *grf = gtsim_x_file_bytes(env, GTSIM_XF_GRF, &grfsize);
    uint32_t mask;

    if (!op_modelled(op))
        return gtsim_x_illegal(env, "data-port atomic operation not modelled "
                                    "(compare-and-swap, reverse subtract, pre-decrement)");
    if (DC_BTI(d) != DC_BTI_STATELESS)
        return gtsim_x_illegal(env, "A64 atomic with a binding table index other than 255");
    if (x->src[0].file != GTSIM_XF_GRF || (src && x->src[1].file != GTSIM_XF_GRF) ||
        (!ret && x->dst.file != GTSIM_XF_NULL && x->rlen > 0))
        return gtsim_x_illegal(env, "send operands not modelled");
    /* The message's lanes are those its address payload holds (16 on
     * Xe-HPC's 64-byte registers for mlen 2); an execution size beyond
     * them, or payloads beyond the register file, are not modelled. */
    size_t addr_base = (size_t)x->src[0].reg * regsize;
    size_t data_base = src ? (size_t)x->src[1].reg * regsize : 0;
    size_t ret_base = ret ? (size_t)x->dst.reg * regsize : 0;
    unsigned lanes = (unsigned)(x->mlen * regsize / 8);
    if (x->exec_size > lanes || x->exec_size > GTSIM_X_MAX_LANES ||
        addr_base + (size_t)x->exec_size * 8 > grfsize ||
        (src && (x->emlen * regsize < (size_t)x->exec_size * bytes ||
                 data_base + (size_t)x->exec_size * bytes > grfsize)) ||
        (ret && (x->rlen * regsize < (size_t)x->exec_size * bytes ||
                 ret_base + (size_t)x->exec_size * bytes > grfsize)))
        return gtsim_x_illegal(env, "atomic message lengths not modelled");
    if (!gtsim_x_exec_mask(x, env, true, &mask))
        return GTSIM_EXEC_ILLEGAL;
    /* Every address is checked first: a fault writes nothing. */
    for (unsigned i = 0; i < x->exec_size; i++) {
        uint64_t a = 0;
        if (!(mask >> i & 1))
            continue;
        memcpy(&a, grf + addr_base + (size_t)i * 8, 8);
        if (a % bytes)
            return gtsim_x_illegal(env, "unaligned atomic not modelled");
        if (!env->mem_ok || !env->mem_ok(env->mem_ctx, a, bytes)) {
            env->fault_address = a;
            return GTSIM_EXEC_FAULT;
        }
    }
    /* Sources are read before any return value is written (the
     * destination may overlap them). */
    uint64_t old[GTSIM_X_MAX_LANES] = {0};
    for (unsigned i = 0; i < x->exec_size; i++) {
        uint64_t a = 0, s = 0;
        if (!(mask >> i & 1))
            continue;
        memcpy(&a, grf + addr_base + (size_t)i * 8, 8);
        if (src)
            memcpy(&s, grf + data_base + (size_t)i * bytes, bytes);
        old[i] = atomic_apply((uint8_t *)(uintptr_t)a, bytes * 8, op, s);
    }
    for (unsigned i = 0; ret && i < x->exec_size; i++)
        if (mask >> i & 1)
            memcpy(grf + ret_base + (size_t)i * bytes, &old[i], bytes);
    return GTSIM_EXEC_NEXT;
}

enum gtsim_exec_result gtsim_x_dataport(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    if (x->sfid == GTSIM_SFID_DC1 && DC_MSG_TYPE(x->desc) == DC1_A64_UNTYPED_ATOMIC)
        return a64_untyped_atomic(x, env);
    return gtsim_x_illegal(env, "legacy data-port message not modelled "
                                "(only the data-port 1 A64 untyped atomic)");
}
