/* SPDX-License-Identifier: MIT */
/* The legacy data-port messages the executor models (gtsim/exec_dataport.c):
 * the data-port 1 A64 untyped atomic with which IGC's printf reserves room
 * in its buffer, and the forms it still refuses. Each instruction is the
 * encoding iga64 -a -p=XeHPC gave for the text beside it (Debian's
 * libigc-tools 1.0.12504), decoded by gtsim's IGA decoder as a kernel's
 * would be. Skips, saying why, without libiga64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/exec.h"
#include "gtsim/iga.h"
#include "gtsim/regfile.h"
#include "tests/lib/tap.h"

#define PLAN 13

/* long_kernel's own printf reservation (one lane, returns the old value). */
#define ADD_W1 "3100008000000c0b1408fecf0c0a2801"    /* (W) send.dc1 (1) r11 r8 r10:1 0x0414A7FF */
#define ADD_16 "3100100000000c0b1408fecf0c0a2801"    /* send.dc1 (16) r11 r8 r10:1 0x0414A7FF */
#define ADD64_8 "31000c0000000c0b1408fecf0c0a2c01"   /* send.dc1 (8) r11 r8 r10:1 0x0414B7FF */
#define UMAX_16 "3100100000000c0b1408fec90c0a2a01"   /* send.dc1 (16) r11 r8 r10:1 0x0414ACFF */
#define ADD_NORET "31001000000000001408fecf0c0a2801" /* send.dc1 (16) null r8 r10:1 0x0404A7FF */
#define CMPXCHG "3100100000000c0b1408fecd0c0a2a01"   /* ... 0x0414AEFF: compare and swap */
#define GATHER "3100100000000c0b1408fecf0c0a0801"    /* ... 0x041427FF: a64 byte gathering read */
#define DC0 "3100100000000c0b1408feaf0c0a2801"       /* send.dc0 (16) ... 0x0414A7FF */
#define BTI254 "3100100000000c0b1408fccf0c0a2801"    /* ... 0x0414A7FE: binding table 254 */

struct bench {
    const struct gtsim_regfile_layout *l;
    uint8_t *slot;
    struct gtsim_exec_simt *simt;
    uint64_t mem[32];
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

static uint64_t q64(struct bench *b, unsigned r, unsigned i)
{
    uint64_t v;
    memcpy(&v, grf(b, r) + 8 * i, 8);
    return v;
}

static enum gtsim_exec_result run(struct bench *b, const char *hex, uint32_t dmask)
{
    uint8_t code[16];
    struct gtsim_xinsn x;
    struct gtsim_exec_env env;
    for (unsigned i = 0; i < 16; i++)
        sscanf(hex + 2 * i, "%2hhx", &code[i]);
    gtsim_regfile_set32(b->l, b->slot, GTSIM_REGSET_SR, 0, 2, dmask);
    env = (struct gtsim_exec_env){
        .layout = b->l, .slot = b->slot, .mem_ok = mem_ok, .mem_ctx = b, .simt = &b->simt};
    if (gtsim_iga_decode(GTSIM_XEHPC, code, sizeof(code), &x) != 0) {
        tap_diag("cannot decode %s", hex);
        return GTSIM_EXEC_ILLEGAL;
    }
    enum gtsim_exec_result r = gtsim_exec_one(&x, &env);
    if (r == GTSIM_EXEC_ILLEGAL)
        tap_diag("illegal: %s", env.why ? env.why : "?");
    return r;
}

/* r8, r9: lane i's address, &mem[slot(i)] (+ byte offset off); r10 the
 * 32-bit operands src(i) = 10 + i; r11 a pattern the return overwrites. */
static void setup(struct bench *b, unsigned (*slot)(unsigned), unsigned off)
{
    memset(b->mem, 0, sizeof(b->mem));
    for (unsigned i = 0; i < 16; i++) {
        uint64_t a = (uint64_t)(uintptr_t)&b->mem[slot(i)] + off;
        uint32_t s = 10 + i;
        memcpy(grf(b, 8) + 8 * i, &a, 8);
        memcpy(grf(b, 10) + 4 * i, &s, 4);
    }
    memset(grf(b, 11), 0xa5, 64);
}

static unsigned same(unsigned i)
{
    (void)i;
    return 0;
}

static unsigned own(unsigned i)
{
    return i;
}

static void check_printf_reservation(struct bench *b)
{
    /* The printf buffer's first dword is the offset of its free space. */
    setup(b, same, 0);
    b->mem[0] = 4;
    memcpy(grf(b, 10), &(uint32_t){60}, 4);
    enum gtsim_exec_result r = run(b, ADD_W1, 0xffffffffu);
    tap_ok(r == GTSIM_EXEC_NEXT && b->mem[0] == 64 && d32(b, 11, 0) == 4,
           "(W) dc1 (1) atomic add: memory 4 -> 64, old value 4 returned in r11.0");
    tap_ok(d32(b, 11, 1) == 0xa5a5a5a5u, "lane 1 of the return is left alone");
}

static void check_lanes(struct bench *b)
{
    enum gtsim_exec_result r;
    bool ok = true;

    /* Sixteen lanes on one dword: each sees the sum of those before it. */
    setup(b, same, 0);
    r = run(b, ADD_16, 0xffffu);
    for (unsigned i = 0, sum = 0; i < 16; sum += 10 + i, i++)
        ok = ok && d32(b, 11, i) == sum;
    tap_ok(r == GTSIM_EXEC_NEXT && ok && (uint32_t)b->mem[0] == 16 * 10 + 120,
           "dc1 (16) atomic add, every lane on one dword: old values are the running sums");

    /* Lanes off in the dispatch mask do nothing. */
    setup(b, own, 0);
    r = run(b, ADD_16, 0x00ffu);
    ok = r == GTSIM_EXEC_NEXT;
    for (unsigned i = 0; i < 16; i++)
        ok = ok && b->mem[i] == (i < 8 ? 10 + i : 0) && d32(b, 11, i) == (i < 8 ? 0 : 0xa5a5a5a5u);
    tap_ok(ok, "dc1 (16) atomic add, dispatch mask 0xff: only lanes 0-7 add and return");

    /* int64: 8 lanes, 64-bit operands, carries into the high dword. */
    setup(b, own, 0);
    for (unsigned i = 0; i < 8; i++) {
        uint64_t s = 0xffffffffull + i;
        memcpy(grf(b, 10) + 8 * i, &s, 8);
        b->mem[i] = 1;
    }
    r = run(b, ADD64_8, 0xffu);
    ok = r == GTSIM_EXEC_NEXT;
    for (unsigned i = 0; i < 8; i++)
        ok = ok && b->mem[i] == 0x100000000ull + i && q64(b, 11, i) == 1;
    tap_ok(ok, "dc1 (8) int64 atomic add carries into the high dword, old values returned");

    /* unsigned max: memory 20 against operands 10..25. */
    setup(b, own, 0);
    for (unsigned i = 0; i < 16; i++)
        b->mem[i] = 20;
    r = run(b, UMAX_16, 0xffffu);
    ok = r == GTSIM_EXEC_NEXT;
    for (unsigned i = 0; i < 16; i++)
        ok = ok && b->mem[i] == (10 + i > 20 ? 10 + i : 20) && d32(b, 11, i) == 20;
    tap_ok(ok, "dc1 (16) atomic unsigned max");

    /* No return: the destination is null, memory still adds. */
    setup(b, own, 0);
    r = run(b, ADD_NORET, 0xffffu);
    tap_ok(r == GTSIM_EXEC_NEXT && b->mem[15] == 25 && d32(b, 11, 0) == 0xa5a5a5a5u,
           "dc1 (16) atomic add into null: memory added, no register written");
}

static void check_refused(struct bench *b)
{
    static const struct {
        const char *hex, *what;
    } forms[] = {
        {CMPXCHG, "compare-and-swap"},
        {GATHER, "A64 byte gathering read"},
        {DC0, "data port 0"},
        {BTI254, "binding table 254"},
    };
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
        setup(b, own, 0);
        enum gtsim_exec_result r = run(b, forms[f].hex, 0xffffu);
        tap_ok(r == GTSIM_EXEC_ILLEGAL && b->mem[0] == 0 && d32(b, 11, 0) == 0xa5a5a5a5u,
               "%s: illegal, nothing written", forms[f].what);
    }
    /* An unaligned address is refused, not split. */
    setup(b, own, 2);
    tap_ok(run(b, ADD_16, 0xffffu) == GTSIM_EXEC_ILLEGAL && b->mem[0] == 0,
           "unaligned atomic: illegal, nothing written");
    /* One lane outside memory: a fault, and no lane added. */
    setup(b, own, 0);
    uint64_t bad = 0x1000;
    memcpy(grf(b, 8) + 8 * 5, &bad, 8);
    tap_ok(run(b, ADD_16, 0xffffu) == GTSIM_EXEC_FAULT && b->mem[0] == 0 &&
               d32(b, 11, 0) == 0xa5a5a5a5u,
           "a lane's address outside memory faults, nothing added or returned");
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
    check_printf_reservation(&b);
    check_lanes(&b);
    check_refused(&b);
    free(b.simt);
    free(b.slot);
    return tap_done();
}
