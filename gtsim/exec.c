/* SPDX-License-Identifier: MIT */
/* The executor's ALU and its dispatch by opcode; operands, LSC messages,
 * flags and branches are in the other exec_*.c files (exec_int.h). */
#include "gtsim/exec.h"

#include "gtsim/exec_int.h"
#include "gtsim/isa.h"

/* Raw opcodes executed here (isa.h has the control-flow ones). */
enum {
    OP_GOTO = 0x2e,
    OP_JOIN = 0x2f,
    OP_ADD = 0x40,
    OP_MUL = 0x41,
    OP_ADD3 = 0x52,
    OP_MACL = 0x53,
    OP_MAD = 0x5b,
    OP_MOV = 0x61,
    OP_SEL = 0x62,
    OP_NOT = 0x64,
    OP_AND = 0x65,
    OP_OR = 0x66,
    OP_XOR = 0x67,
    OP_SHR = 0x68,
    OP_SHL = 0x69,
    OP_ASR = 0x6c,
    OP_CMP = 0x70,
};

/* One lane of an integer operation (or a float copy), on operands read as
 * 64-bit values; the destination keeps the low bits. */
static uint64_t lane_op(const struct gtsim_xinsn *x, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t r = 0;
    unsigned bits = gtsim_x_type_size(x->dst.type) * 8;
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
        unsigned sb = gtsim_x_type_size(x->src[0].type) * 8;
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
    uint64_t res[GTSIM_X_MAX_LANES];
    unsigned n = nsrc_of[x->opcode];
    uint32_t mask;
    /* Negation is arithmetic for these; the logic operations read the same
     * modifier as a bitwise not, which is not modelled. */
    bool neg =
        x->opcode != OP_NOT && x->opcode != OP_AND && x->opcode != OP_OR && x->opcode != OP_XOR;

    if (n == 0)
        return gtsim_x_illegal(env, "opcode not modelled");
    if (x->cond_mod != 0 || x->dst_mod != 0)
        return gtsim_x_illegal(env, "condition modifier or saturation not modelled");
    if (!x->has_dst || x->nsrc < n || x->exec_size > GTSIM_X_MAX_LANES)
        return gtsim_x_illegal(env, "operands not modelled");
    /* Float arithmetic and conversions are not modelled; a float move of
     * the same type (:f or :hf, as IGC zeroes a half-float scratch word) is
     * a copy of bits. */
    bool fcopy = x->opcode == OP_MOV && x->src[0].type == x->dst.type &&
                 (x->dst.type == GTSIM_XT_F || x->dst.type == GTSIM_XT_HF);
    if (!fcopy) {
        if (!gtsim_x_is_int(x->dst.type))
            return gtsim_x_illegal(env, "destination type not modelled");
        for (unsigned s = 0; s < n; s++)
            if (!gtsim_x_is_int(x->src[s].type))
                return gtsim_x_illegal(env, "source type not modelled");
    }
    if (!gtsim_x_dst_ok(env, &x->dst, x->exec_size))
        return gtsim_x_illegal(env, "destination not modelled");
    if (!gtsim_x_exec_mask(x, env, true, &mask))
        return GTSIM_EXEC_ILLEGAL;
    /* Every source is read before any lane is written, as on hardware. */
    for (unsigned i = 0; i < x->exec_size; i++) {
        uint64_t a = 0, b = 0, c = 0;
        if (!(mask >> i & 1))
            continue;
        if (!gtsim_x_read_src(env, &x->src[0], i, neg && !fcopy, &a) ||
            (n > 1 && !gtsim_x_read_src(env, &x->src[1], i, neg, &b)) ||
            (n > 2 && !gtsim_x_read_src(env, &x->src[2], i, neg, &c)))
            return gtsim_x_illegal(env, "source operand not modelled");
        res[i] = lane_op(x, a, b, c);
    }
    for (unsigned i = 0; i < x->exec_size; i++)
        if (mask >> i & 1)
            gtsim_x_write_dst(env, &x->dst, i, res[i]);
    return GTSIM_EXEC_NEXT;
}

enum gtsim_exec_result gtsim_exec_one(const struct gtsim_xinsn *x, struct gtsim_exec_env *env)
{
    env->why = NULL;
    env->jump = 0;
    switch (x->opcode) {
    case GTSIM_OP_NOP:
        return GTSIM_EXEC_NEXT;
    case GTSIM_OP_SYNC:
        /* sync.nop waits for scoreboards gtsim never has pending; sync.bar
         * is the barrier hw.c models. Other sync functions are refused. */
        if (x->syncfc == 0 || x->syncfc == 14) /* IGA's numbers: nop 0, bar 14 */
            return GTSIM_EXEC_NEXT;
        return gtsim_x_illegal(env, "sync function not modelled");
    case GTSIM_OP_SEND:
    case GTSIM_OP_SENDC:
        if (x->sfid == GTSIM_SFID_GATEWAY)
            return GTSIM_EXEC_NEXT; /* barrier signal, end of thread: hw.c */
        if (x->sfid == GTSIM_SFID_UGM || x->sfid == GTSIM_SFID_SLM)
            return gtsim_x_lsc(x, env);
        if (x->sfid == GTSIM_SFID_DC0 || x->sfid == GTSIM_SFID_DC1)
            return gtsim_x_dataport(x, env);
        return gtsim_x_illegal(env, "send to this shared function not modelled");
    case GTSIM_OP_JMPI:
        return gtsim_x_jmpi(x, env);
    case OP_GOTO:
        return gtsim_x_goto(x, env);
    case OP_JOIN:
        return gtsim_x_join(x, env);
    case OP_CMP:
        return gtsim_x_cmp(x, env);
    case OP_SEL:
        return gtsim_x_sel(x, env);
    default:
        return alu(x, env);
    }
}
