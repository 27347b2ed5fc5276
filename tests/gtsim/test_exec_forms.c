/* SPDX-License-Identifier: MIT */
/* The executor's instruction forms one at a time (gtsim/exec*.c), on a
 * register file and memory of the test's own: the byte and word LSC loads
 * and stores (d8u32, d16u32), cmp and its flags, predication, sel, source
 * negation, sel as min and max, jmpi and the goto/join lane masks. Each instruction is the
 * encoding iga64 -a -p=12p72 gave for the text beside it (Debian's
 * libigc-tools 1.0.12504), decoded by gtsim's IGA decoder as a kernel's
 * would be. Forms still not modelled must stop as illegal with nothing
 * written. Skips, saying why, without libiga64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/exec.h"
#include "gtsim/iga.h"
#include "gtsim/regfile.h"
#include "tests/lib/tap.h"

#define PLAN 30
#define LANES 32

/* iga64's encodings (little-endian bytes as xxd -p prints them). */
#define LOAD_D8U32                                                                                 \
    "310014000000140c240700f300000200" /* send.ugm (32) r12 r7 null 0x0 0x08200980                 \
                                        */
#define STORE_D8U32                                                                                \
    "3100140000000000240708f3140f0200" /* send.ugm (32) null r7 r15:2 0x0 0x08000984 */
#define LOAD_D16U32 "310014000000140c240700f700000200"  /* ... 0x08200B80: load.ugm.d16u32.a64 */
#define STORE_D16U32 "3100140000000000240708f7140f0200" /* ... 0x08000B84: store.ugm.d16u32.a64 */
#define LOAD_D8U32X2 "310014000000140c240700f300000600" /* ... 0x08201980: load.ugm.d8u32x2.a64 */
#define CMP_LT_D "70005400600605100414105604161000"     /* cmp (32) (lt)f1.0 r16:d r20:d r22:d */
#define CMP_EQ_PRED                                                                                \
    "700014846006010004081016040a1000" /* (W&f0.0) cmp (32) (eq)f0.0 null:d r8:d r10:d */
#define CMP_LT_NPRED                                                                               \
    "700014942002010004081052040a1000" /* (W&~f0.0) cmp (32) (lt)f0.0 null:ud r8:ud r10:ud */
#define SEL_NPRED "6200d41460a605120410100501000100" /* (~f3.0) sel (32) r18:d -r16:d 1:w */
#define SEL_MIN "620010006086051704151055fbfffbff"   /* sel (16) (lt)f0.0 r23:d r21:d -5:w */
#define SEL_MAX "620010002082051704151041e803e803"   /* sel (16) (ge)f0.0 r23:ud r21:ud 0x3E8:uw */
#define SEL_EQ "620010006086051704151015fbfffbff"    /* sel (16) (eq)f0.0 r23:d r21:d -5:w */
#define MOV_PRED "610050046006051e041f100000000000"  /* (f1.0) mov (16) r30:d r31:d */
#define ADD_NEG "4000100060a605050406100503000300"   /* add (16) r5:d -r6:d 3:w */
#define AND_NOT "65001000602605050406100604071000"   /* and (16) r5:d ~r6:d r7:d */
#define CMP_F "70005000a00a01000414105a04161000"     /* cmp (16) (lt)f1.0 null:f r20:f r22:f */
#define JMPI_PRED "20008084004000000000000040000000" /* (W&f2.0) jmpi +0x40 (at 0xd0) */
#define GOTO_NPRED                                                                                 \
    "2e00541400c000004000000030000000" /* (~f1.0) goto (32) JIP +0x30 UIP +0x40 (at 0xe0) */
#define JOIN "2f001400004000000000000030000000" /* join (32) JIP +0x30 (at 0xf0) */
/* iga64 -a -p=XeHPC (transform_kernel zeroes a half-float word this way). */
#define MOV_HF_IMM "610000809049cd0100000000003c003c" /* (W) mov (1) r1.25:hf 0x3C00:hf */
#define MOV_HF "61001080900905010402100000000000"     /* (W) mov (16) r1:hf r2:hf */
#define MOV_HF_F "61001080900a05010402100000000000"   /* (W) mov (16) r1:hf r2:f */

struct bench {
    const struct gtsim_regfile_layout *l;
    uint8_t *slot;
    struct gtsim_exec_simt *simt;
    uint8_t mem[256];
};

static bool mem_ok(void *ctx, uint64_t addr, uint64_t len)
{
    struct bench *b = ctx;
    uint64_t lo = (uint64_t)(uintptr_t)b->mem;
    return addr >= lo && addr + len <= lo + sizeof(b->mem);
}

static uint8_t *grf(struct bench *b, unsigned r)
{
    return gtsim_regfile_reg(b->l, b->slot, GTSIM_REGSET_GRF, r);
}

static uint32_t d32(struct bench *b, unsigned r, unsigned i)
{
    uint32_t v;
    memcpy(&v, grf(b, r) + 4 * i, 4);
    return v;
}

static void set_d32(struct bench *b, unsigned r, unsigned i, uint32_t v)
{
    memcpy(grf(b, r) + 4 * i, &v, 4);
}

static uint32_t flag(struct bench *b, unsigned f)
{
    return gtsim_regfile_get32(b->l, b->slot, GTSIM_REGSET_FLAG, f, 0);
}

static void set_flag(struct bench *b, unsigned f, uint32_t v)
{
    gtsim_regfile_set32(b->l, b->slot, GTSIM_REGSET_FLAG, f, 0, v);
}

/* Runs one encoded instruction at ip with dispatch mask dmask. */
static enum gtsim_exec_result run(struct bench *b, const char *hex, uint32_t ip, uint32_t dmask,
                                  struct gtsim_exec_env *env)
{
    uint8_t code[16];
    struct gtsim_xinsn x;
    for (unsigned i = 0; i < 16; i++)
        sscanf(hex + 2 * i, "%2hhx", &code[i]);
    gtsim_regfile_set32(b->l, b->slot, GTSIM_REGSET_SR, 0, 2, dmask);
    *env = (struct gtsim_exec_env){.layout = b->l,
                                   .slot = b->slot,
                                   .mem_ok = mem_ok,
                                   .mem_ctx = b,
                                   .ip = ip,
                                   .simt = &b->simt};
    if (gtsim_iga_decode(GTSIM_XEHPC, code, sizeof(code), &x) != 0) {
        tap_diag("cannot decode %s", hex);
        return GTSIM_EXEC_ILLEGAL;
    }
    return gtsim_exec_one(&x, env);
}

/* Lane i's 64-bit address in r7..r10: mem + i * stride. */
static void addresses(struct bench *b, unsigned stride)
{
    for (unsigned i = 0; i < LANES; i++) {
        uint64_t a = (uint64_t)(uintptr_t)b->mem + (uint64_t)i * stride;
        memcpy(grf(b, 7) + 8 * i, &a, 8);
    }
}

static void check_byte_loads(struct bench *b)
{
    struct gtsim_exec_env env;
    unsigned bad = 0;
    for (unsigned i = 0; i < sizeof(b->mem); i++)
        b->mem[i] = (uint8_t)(0xe0 + i); /* bytes with the top bit set: zero-extended? */
    addresses(b, 3);
    for (unsigned i = 0; i < LANES; i++)
        set_d32(b, 12, i, 0xaaaaaaaa);
    enum gtsim_exec_result r = run(b, LOAD_D8U32, 0, ~(1u << 5), &env);
    for (unsigned i = 0; i < LANES; i++)
        bad += d32(b, 12, i) != (i == 5 ? 0xaaaaaaaa : (uint32_t)b->mem[3 * i]);
    tap_ok(r == GTSIM_EXEC_NEXT && bad == 0,
           "load.ugm.d8u32.a64: each lane's byte zero-extended to a dword, lane 5 (masked) kept "
           "(%u wrong)",
           bad);

    addresses(b, 2);
    r = run(b, LOAD_D16U32, 0, ~0u, &env);
    bad = 0;
    for (unsigned i = 0; i < LANES; i++)
        bad += d32(b, 12, i) != (uint32_t)(b->mem[2 * i] | b->mem[2 * i + 1] << 8);
    tap_ok(r == GTSIM_EXEC_NEXT && bad == 0,
           "load.ugm.d16u32.a64: each lane's word zero-extended (%u wrong)", bad);

    set_d32(b, 12, 0, 0x5a5a5a5a);
    r = run(b, LOAD_D8U32X2, 0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_ILLEGAL && d32(b, 12, 0) == 0x5a5a5a5a && env.why,
           "load.ugm.d8u32x2 (a vector of bytes) is refused, nothing written (%s)",
           env.why ? env.why : "?");
}

static void check_byte_stores(struct bench *b)
{
    struct gtsim_exec_env env;
    unsigned bad = 0;
    memset(b->mem, 0x11, sizeof(b->mem));
    addresses(b, 3);
    for (unsigned i = 0; i < LANES; i++)
        set_d32(b, 15, i, 0x12345600 + i);
    enum gtsim_exec_result r = run(b, STORE_D8U32, 0, ~(1u << 7), &env);
    for (unsigned i = 0; i < LANES; i++)
        bad += b->mem[3 * i] != (i == 7 ? 0x11 : i) || b->mem[3 * i + 1] != 0x11;
    tap_ok(r == GTSIM_EXEC_NEXT && bad == 0,
           "store.ugm.d8u32.a64: the low byte of each lane's dword, neighbours and lane 7 "
           "(masked) untouched (%u wrong)",
           bad);

    memset(b->mem, 0x11, sizeof(b->mem));
    addresses(b, 4);
    r = run(b, STORE_D16U32, 0, ~0u, &env);
    bad = 0;
    for (unsigned i = 0; i < LANES; i++)
        bad += b->mem[4 * i] != i || b->mem[4 * i + 1] != 0x56 || b->mem[4 * i + 2] != 0x11;
    tap_ok(r == GTSIM_EXEC_NEXT && bad == 0, "store.ugm.d16u32.a64: the low word (%u wrong)", bad);

    memset(b->mem, 0x11, sizeof(b->mem));
    addresses(b, 3);
    uint64_t outside = (uint64_t)(uintptr_t)b->mem + sizeof(b->mem);
    memcpy(grf(b, 7) + 8 * 9, &outside, 8);
    r = run(b, STORE_D8U32, 0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_FAULT && env.fault_address == outside && b->mem[0] == 0x11,
           "a byte store with lane 9 outside memory faults at its address, nothing stored");
}

static void check_cmp(struct bench *b)
{
    struct gtsim_exec_env env;
    unsigned bad = 0;
    for (unsigned i = 0; i < LANES; i++) {
        set_d32(b, 20, i, (uint32_t)((int)i - 16)); /* -16 .. 15 */
        set_d32(b, 22, i, 0);
        set_d32(b, 16, i, 0x77);
    }
    set_flag(b, 1, 1u << 20); /* lane 20 is masked: its flag bit must stay */
    enum gtsim_exec_result r = run(b, CMP_LT_D, 0, ~(1u << 20), &env);
    tap_ok(r == GTSIM_EXEC_NEXT && flag(b, 1) == (0x0000ffffu | 1u << 20),
           "cmp (lt)f1.0 :d is signed, one flag bit per lane, a masked lane's bit kept (f1 "
           "0x%08x)",
           flag(b, 1));
    for (unsigned i = 0; i < LANES; i++)
        bad += d32(b, 16, i) != (i == 20 ? 0x77u : i < 16 ? 0xffffffffu : 0);
    tap_ok(bad == 0, "and its destination is all ones where true, 0 where false (%u wrong)", bad);

    /* IGC's 64-bit compare: a predicated compare only changes its lanes. */
    for (unsigned i = 0; i < LANES; i++) {
        set_d32(b, 8, i, i);
        set_d32(b, 10, i, 3);
    }
    set_flag(b, 0, 0x0000ffff);
    r = run(b, CMP_EQ_PRED, 0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_NEXT && flag(b, 0) == 0x8,
           "(W&f0.0) cmp (eq)f0.0: lanes the predicate turns off keep their bit (f0 0x%08x)",
           flag(b, 0));
    r = run(b, CMP_LT_NPRED, 0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_NEXT && flag(b, 0) == 0xf,
           "(W&~f0.0) cmp (lt)f0.0 :ud runs where f0.0 was clear (f0 0x%08x)", flag(b, 0));

    set_flag(b, 1, 0xabcd);
    r = run(b, CMP_F, 0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_ILLEGAL && flag(b, 1) == 0xabcd,
           "a float cmp is refused, the flag untouched (%s)", env.why ? env.why : "?");
}

static void check_pred_sel_neg(struct bench *b)
{
    struct gtsim_exec_env env;
    unsigned bad = 0;
    for (unsigned i = 0; i < LANES; i++)
        set_d32(b, 16, i, i);
    set_flag(b, 3, 0x0000ffff);
    enum gtsim_exec_result r = run(b, SEL_NPRED, 0, ~0u, &env);
    for (unsigned i = 0; i < LANES; i++)
        bad += d32(b, 18, i) != (i < 16 ? 1u : (uint32_t) - (int)i);
    tap_ok(r == GTSIM_EXEC_NEXT && bad == 0,
           "(~f3.0) sel: src1 where f3 is set, the negated src0 elsewhere (%u wrong)", bad);

    bad = 0;
    for (unsigned i = 0; i < 16; i++) {
        set_d32(b, 31, i, 100 + i);
        set_d32(b, 30, i, 0);
    }
    set_flag(b, 1, 0x5555);
    r = run(b, MOV_PRED, 0, ~0u, &env);
    for (unsigned i = 0; i < 16; i++)
        bad += d32(b, 30, i) != (i % 2 ? 0 : 100 + i);
    tap_ok(r == GTSIM_EXEC_NEXT && bad == 0, "(f1.0) mov writes only the lanes whose bit is set");

    bad = 0;
    for (unsigned i = 0; i < 16; i++)
        set_d32(b, 6, i, i);
    r = run(b, ADD_NEG, 0, ~0u, &env);
    for (unsigned i = 0; i < 16; i++)
        bad += d32(b, 5, i) != (uint32_t)(3 - (int)i);
    tap_ok(r == GTSIM_EXEC_NEXT && bad == 0, "add -r6 3 negates the source (%u wrong)", bad);
    set_d32(b, 5, 0, 0x1234);
    r = run(b, AND_NOT, 0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_ILLEGAL && d32(b, 5, 0) == 0x1234,
           "and ~r6 (a logic not modifier) is refused, nothing written");
}

/* sel with a condition is min ((lt)) or max ((ge)), in the sources' sign. */
static void check_min_max(struct bench *b)
{
    struct gtsim_exec_env env;
    unsigned bad = 0;
    for (unsigned i = 0; i < 16; i++)
        set_d32(b, 21, i, (uint32_t)((int)i * 100 - 800)); /* -800 .. 700 */
    enum gtsim_exec_result r = run(b, SEL_MIN, 0, ~0u, &env);
    for (unsigned i = 0; i < 16; i++) {
        int v = (int)i * 100 - 800;
        bad += d32(b, 23, i) != (uint32_t)(v < -5 ? v : -5);
    }
    tap_ok(r == GTSIM_EXEC_NEXT && bad == 0, "sel (lt) :d is a signed min (%u wrong)", bad);
    r = run(b, SEL_MAX, 0, ~0u, &env);
    bad = 0;
    for (unsigned i = 0; i < 16; i++) {
        uint32_t v = (uint32_t)((int)i * 100 - 800);
        bad += d32(b, 23, i) != (v >= 1000u ? v : 1000u);
    }
    tap_ok(r == GTSIM_EXEC_NEXT && bad == 0,
           "sel (ge) :ud is an unsigned max (negative values are large) (%u wrong)", bad);
    set_d32(b, 23, 0, 0x4242);
    r = run(b, SEL_EQ, 0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_ILLEGAL && d32(b, 23, 0) == 0x4242,
           "sel (eq) is refused, nothing written (%s)", env.why ? env.why : "?");
}

static void check_jmpi(struct bench *b)
{
    struct gtsim_exec_env env;
    set_flag(b, 2, 1);
    enum gtsim_exec_result r = run(b, JMPI_PRED, 0xd0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_JUMP && env.jump == 0x40, "(W&f2.0) jmpi with f2.0 lane 0 set jumps");
    set_flag(b, 2, 0xfffffffe);
    r = run(b, JMPI_PRED, 0xd0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_NEXT, "and falls through with it clear (other bits set)");
}

static void check_goto_join(struct bench *b)
{
    struct gtsim_exec_env env;
    set_flag(b, 1, 0x0000ffff); /* (~f1.0): lanes 16..31 branch */
    enum gtsim_exec_result r = run(b, GOTO_NPRED, 0xe0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_NEXT && b->simt && b->simt->off == 0xffff0000u &&
               b->simt->wait_ip[16] == 0x120 && b->simt->wait_ip[31] == 0x120,
           "goto parks the lanes whose predicate holds, waiting at UIP (0x120); the others go on");
    for (unsigned i = 0; i < LANES; i++) {
        set_d32(b, 20, i, 0);
        set_d32(b, 22, i, 1);
    }
    set_flag(b, 1, 0);
    r = run(b, CMP_LT_D, 0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_NEXT && flag(b, 1) == 0x0000ffff,
           "a parked lane does not execute (f1 0x%08x)", flag(b, 1));
    r = run(b, JOIN, 0xf0, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_NEXT && b->simt->off == 0xffff0000u,
           "a join at another IP wakes nobody; lanes run, so it falls through");
    r = run(b, JOIN, 0x120, ~0u, &env);
    tap_ok(r == GTSIM_EXEC_NEXT && b->simt->off == 0, "the join at UIP wakes them");

    set_flag(b, 1, 0); /* every lane branches */
    r = run(b, GOTO_NPRED, 0xe0, 0x00ffffffu, &env);
    tap_ok(r == GTSIM_EXEC_JUMP && env.jump == 0x30 && b->simt->off == 0x00ffffffu,
           "a goto that parks every enabled lane jumps to JIP (+0x%x)", (unsigned)env.jump);
    r = run(b, JOIN, 0xf0, 0x00ffffffu, &env);
    tap_ok(r == GTSIM_EXEC_JUMP && env.jump == 0x30,
           "a join that wakes nobody with no lane running jumps to its JIP");
    r = run(b, JOIN, 0x120, 0x00ffffffu, &env);
    tap_ok(r == GTSIM_EXEC_NEXT && b->simt->off == 0, "and the join at UIP wakes every lane");
}

/* Half-float moves of the same type are copies of 16-bit words; a
 * conversion (from :f) is refused. */
static void check_hf_moves(struct bench *b)
{
    struct gtsim_exec_env env;
    uint16_t w[32];
    memset(grf(b, 1), 0x5a, 64);
    enum gtsim_exec_result r = run(b, MOV_HF_IMM, 0, 0xffffffffu, &env);
    memcpy(w, grf(b, 1), 64);
    tap_ok(r == GTSIM_EXEC_NEXT && w[25] == 0x3c00 && w[24] == 0x5a5a && w[26] == 0x5a5a,
           "(W) mov (1) r1.25:hf 0x3C00:hf writes that word alone");
    for (unsigned i = 0; i < 16; i++) {
        uint16_t v = (uint16_t)(0x3c00 + i);
        memcpy(grf(b, 2) + 2 * i, &v, 2);
    }
    memset(grf(b, 1), 0x5a, 64);
    r = run(b, MOV_HF, 0, 0xffffffffu, &env);
    memcpy(w, grf(b, 1), 64);
    bool ok = r == GTSIM_EXEC_NEXT && w[16] == 0x5a5a;
    for (unsigned i = 0; i < 16; i++)
        ok = ok && w[i] == 0x3c00 + i;
    tap_ok(ok, "(W) mov (16) r1:hf r2:hf copies sixteen words, the next one kept");
    memset(grf(b, 1), 0x5a, 64);
    r = run(b, MOV_HF_F, 0, 0xffffffffu, &env);
    memcpy(w, grf(b, 1), 64);
    tap_ok(r == GTSIM_EXEC_ILLEGAL && w[0] == 0x5a5a,
           "mov :hf from :f (a conversion) is refused, nothing written");
}

int main(void)
{
    const char *why = NULL;
    struct bench b = {0};
    tap_plan(PLAN);
    if (!gtsim_iga_available(&why)) {
        for (unsigned i = 0; i < PLAN; i++)
            tap_skip(why);
        return tap_done();
    }
    b.l = gtsim_regfile_layout(GTSIM_XEHPC);
    b.slot = calloc(1, b.l->slot_size);
    if (!b.slot)
        tap_bail("out of memory");
    check_byte_loads(&b);
    check_byte_stores(&b);
    check_cmp(&b);
    check_pred_sel_neg(&b);
    check_min_max(&b);
    check_jmpi(&b);
    check_goto_join(&b);
    check_hf_moves(&b);
    free(b.simt);
    free(b.slot);
    return tap_done();
}
