/* SPDX-License-Identifier: MIT */
/* The executor's decoder (gtsim/iga.c, libiga64's kernel view) on every
 * instruction of the xehpc fixtures: length, opcode, send and EOT against
 * the .insns listings iga64 wrote, then operands of vadd checked by hand
 * against iga64's text for them (quoted beside each check). Skips, saying
 * why, when libiga64 is not installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/iga.h"
#include "gtsim/isa.h"
#include "gtsim/zebin.h"
#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

static const char *const kernels[] = {"vadd", "oob", "slm", "loop_call", "inline_calls"};
#define NKERNELS (sizeof(kernels) / sizeof(kernels[0]))
#define HAND_CHECKS 13

static struct gtsim_zebin *load(const char *name, const struct gtsim_zebin_kernel **k)
{
    char path[1024], err[256];
    const char *top = getenv("top_srcdir");
    size_t size = 0;
    struct gtsim_zebin *zb = NULL;
    snprintf(path, sizeof(path), "%s/tests/kernels/fixtures/%s-xehpc.elf", top ? top : ".", name);
    void *img = tests_slurp(path, &size);
    if (!img || gtsim_zebin_parse(img, size, &zb, err, sizeof(err)) != 0) {
        tap_diag("cannot load %s", path);
        free(img);
        return NULL;
    }
    free(img);
    *k = gtsim_zebin_find_kernel(zb, name);
    return zb;
}

/* Every listed instruction decodes to what iga64 listed. */
static void check_listing(const char *name)
{
    char path[1024], line[256];
    const char *top = getenv("top_srcdir");
    const struct gtsim_zebin_kernel *k = NULL;
    struct gtsim_zebin *zb = load(name, &k);
    unsigned n = 0, bad = 0;

    snprintf(path, sizeof(path), "%s/tests/kernels/fixtures/%s-xehpc.insns", top ? top : ".", name);
    FILE *f = fopen(path, "r");
    if (!zb || !k || !f) {
        tap_ok(0, "%s: fixture and listing readable", name);
        if (f)
            fclose(f);
        gtsim_zebin_free(zb);
        return;
    }
    while (fgets(line, sizeof(line), f)) {
        unsigned off, len;
        char mnem[32], rest[128] = "";
        if (sscanf(line, "%x %u %31s %127[^\n]", &off, &len, mnem, rest) < 3)
            continue; /* comments, platform, kernel, padding */
        struct gtsim_xinsn x;
        int rc = gtsim_iga_decode(GTSIM_XEHPC, k->text + off, k->text_size - off, &x);
        const char *op = rc == 0 ? gtsim_isa_opcode_name(GTSIM_XEHPC, x.opcode) : NULL;
        bool send = strstr(rest, "send") != NULL, eot = strstr(rest, "eot") != NULL;
        n++;
        if (rc != 0 || x.length != len || !op || strcmp(op, mnem) != 0 || x.is_send != send ||
            x.eot != eot) {
            bad++;
            tap_diag("%s+0x%x: rc %d, length %u opcode %s send %d eot %d; listed %u %s%s%s", name,
                     off, rc, x.length, op ? op : "?", x.is_send, x.eot, len, mnem,
                     send ? " send" : "", eot ? " eot" : "");
        }
    }
    fclose(f);
    tap_ok(n > 0 && bad == 0, "%s: %u instructions decode as iga64 listed them (%u differ)", name,
           n, bad);
    gtsim_zebin_free(zb);
}

static const struct gtsim_xinsn *at(const struct gtsim_zebin_kernel *k, uint32_t off,
                                    struct gtsim_xinsn *x)
{
    return gtsim_iga_decode(GTSIM_XEHPC, k->text + off, k->text_size - off, x) == 0 ? x : NULL;
}

static bool op_is(const struct gtsim_xop *o, uint8_t file, uint16_t reg, uint16_t sub, uint8_t type)
{
    return o->file == file && o->reg == reg && o->subreg == sub && o->type == type;
}

static void check_vadd_operands(void)
{
    const struct gtsim_zebin_kernel *k = NULL;
    struct gtsim_zebin *zb = load("vadd", &k);
    struct gtsim_xinsn x;
    if (!zb || !k) {
        for (int i = 0; i < HAND_CHECKS; i++)
            tap_ok(0, "vadd fixture loads");
        gtsim_zebin_free(zb);
        return;
    }
    /* 0x0010 (W) and (1|M0) r127.2<1>:ud r0.0<0;1,0>:ud 0xFFFFFFC0:ud */
    tap_ok(at(k, 0x10, &x) && x.opcode == 0x65 && x.exec_size == 1 && x.nomask &&
               op_is(&x.dst, GTSIM_XF_GRF, 127, 2, GTSIM_XT_UD) && x.dst.hs == 1 &&
               op_is(&x.src[0], GTSIM_XF_GRF, 0, 0, GTSIM_XT_UD) && x.src[0].vs == 0 &&
               x.src[0].w == 1 && x.src[0].hs == 0 && x.src[1].file == GTSIM_XF_IMM &&
               x.src[1].imm == 0xffffffc0u,
           "0x10 and: r127.2:ud = r0.0<0;1,0>:ud & 0xFFFFFFC0, (W), SIMD1");
    /* 0x0040 (W) mad (1|M0) r127.0<1>:ud r127.2<0;0>:ud r127.0<0;0>:uw 0xC0:uw */
    tap_ok(at(k, 0x40, &x) && x.opcode == 0x5b && x.nsrc == 3 &&
               op_is(&x.src[0], GTSIM_XF_GRF, 127, 2, GTSIM_XT_UD) &&
               op_is(&x.src[1], GTSIM_XF_GRF, 127, 0, GTSIM_XT_UW) &&
               x.src[1].w == GTSIM_XRGN_NONE && x.src[2].file == GTSIM_XF_IMM &&
               x.src[2].type == GTSIM_XT_UW && x.src[2].imm == 0xc0,
           "0x40 mad: ternary regions without width, immediate src2 0xC0:uw");
    /* 0x0050 send.ugm (1|M0) r1 r127 null:0 0xFF000000 0x6228E500 (not (W)) */
    tap_ok(at(k, 0x50, &x) && x.is_send && !x.nomask && x.sfid == GTSIM_SFID_UGM &&
               x.desc == 0x6228e500u && x.exdesc == 0xff000000u && x.mlen == 1 && x.rlen == 2 &&
               x.emlen == 0 && x.dst.reg == 1 && x.src[0].reg == 127 && !x.eot,
           "0x50 send.ugm: descriptors, lengths, dst r1, address r127");
    /* 0x00b8 (W) or (1|M0) cr0.0<1>:ud cr0.0<0;1,0>:ud 0x4C0:uw {Compacted} */
    tap_ok(at(k, 0xb8, &x) && x.length == 8 && x.opcode == 0x66 &&
               op_is(&x.dst, GTSIM_XF_CR, 0, 0, GTSIM_XT_UD) && x.src[1].imm == 0x4c0,
           "0xb8 compacted or: destination cr0.0, immediate 0x4C0");
    /* 0x00c0 (W) mul (1|M0) acc0.0<1>:d r5.0<0;1,0>:d r0.2<0;1,0>:uw {Compacted} */
    tap_ok(at(k, 0xc0, &x) && x.length == 8 && x.opcode == 0x41 &&
               op_is(&x.dst, GTSIM_XF_ACC, 0, 0, GTSIM_XT_D) &&
               op_is(&x.src[1], GTSIM_XF_GRF, 0, 2, GTSIM_XT_UW),
           "0xc0 compacted mul: accumulator destination, r0.2:uw");
    /* 0x00d8 sync.nop null {Compacted} */
    tap_ok(at(k, 0xd8, &x) && x.opcode == GTSIM_OP_SYNC && x.syncfc == 0 && x.length == 8,
           "0xd8 compacted sync.nop");
    /* 0x00e0 add3 (32|M0) r6.0<1>:d r2.0<0;0>:d r1.0<1;0>:uw r4.0<0>:d */
    tap_ok(at(k, 0xe0, &x) && x.opcode == 0x52 && x.exec_size == 32 && !x.nomask &&
               x.src[1].vs == 1 && x.src[1].hs == 0 && x.src[2].vs == GTSIM_XRGN_NONE &&
               x.src[2].hs == 0 && op_is(&x.src[2], GTSIM_XF_GRF, 4, 0, GTSIM_XT_D),
           "0xe0 add3 SIMD32: src1 <1;0>:uw, src2 <0>:d");
    /* 0x00f8 mov (16|M16) r28.0<2>:ud r7.0<1;1,0>:ud {Compacted} */
    tap_ok(at(k, 0xf8, &x) && x.exec_size == 16 && x.chan_off == 16 && x.dst.hs == 2 &&
               op_is(&x.dst, GTSIM_XF_GRF, 28, 0, GTSIM_XT_UD) && x.src[0].vs == 1 &&
               x.src[0].w == 1 && x.src[0].hs == 0,
           "0xf8 compacted mov (16|M16): mask offset 16, dst stride 2");
    /* 0x0100 shl (16|M0) r30.0<1>:q r26.0<2;1,0>:ud 2:w {Compacted} */
    tap_ok(at(k, 0x100, &x) && x.opcode == 0x69 && x.dst.type == GTSIM_XT_Q && x.src[0].vs == 2 &&
               x.src[1].type == GTSIM_XT_W && x.src[1].imm == 2,
           "0x100 compacted shl: :q destination, <2;1,0>:ud, 2:w");
    /* 0x0170 send.ugm (32|M0) null r22 r20:2 0x0 0x08000584: store.ugm.d32.a64 */
    tap_ok(at(k, 0x170, &x) && x.is_send && x.desc == 0x08000584u && x.mlen == 4 && x.emlen == 2 &&
               x.rlen == 0 && x.dst.file == GTSIM_XF_NULL && x.src[0].reg == 22 &&
               x.src[1].reg == 20,
           "0x170 store.ugm.d32.a64: address r22 (4 GRF), data r20 (2 GRF)");
    /* 0x0180 (W) send.gtwy (8|M0) null r127 null:0 0x0 0x02000010 {EOT} */
    tap_ok(at(k, 0x180, &x) && x.is_send && x.eot && x.sfid == GTSIM_SFID_GATEWAY &&
               x.desc == 0x02000010u,
           "0x180 end-of-thread send to the gateway");
    /* A breakpoint bit is not part of the instruction. */
    uint8_t copy[16];
    memcpy(copy, k->text + 0x170, 16);
    gtsim_isa_set_breakpoint(copy, true);
    struct gtsim_xinsn y;
    tap_ok(at(k, 0x170, &x) && gtsim_iga_decode(GTSIM_XEHPC, copy, 16, &y) == 0 &&
               memcmp(&x, &y, sizeof(x)) == 0,
           "the breakpoint bit changes nothing decoded");
    gtsim_zebin_free(zb);
}

/* A branch decoded alone still has its target: loop_call+0xa70 is
 * "(W) jmpi L1952" in iga64's listing of the whole kernel. */
static void check_branch_target(void)
{
    const struct gtsim_zebin_kernel *k = NULL;
    struct gtsim_zebin *zb = load("loop_call", &k);
    struct gtsim_xinsn x;
    tap_ok(zb && k && at(k, 0xa70, &x) && x.opcode == GTSIM_OP_JMPI && x.ntargets == 1 &&
               x.targets[0] == 1952 - 0xa70,
           "loop_call+0xa70 jmpi: target -720 bytes (L1952)");
    gtsim_zebin_free(zb);
}

int main(void)
{
    const char *why = NULL;
    tap_plan((int)NKERNELS + HAND_CHECKS);
    if (!gtsim_iga_available(&why)) {
        for (unsigned i = 0; i < NKERNELS + HAND_CHECKS; i++)
            tap_skip(why);
        return tap_done();
    }
    for (unsigned i = 0; i < NKERNELS; i++)
        check_listing(kernels[i]);
    check_vadd_operands();
    check_branch_target();
    return tap_done();
}
