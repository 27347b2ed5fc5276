/* SPDX-License-Identifier: MIT */
/* regsets: the register catalogue built from the Xe-HPC and Gen12LP
 * register sets of level-zero-facts.md section 8 (names, GDB numbers,
 * expedited registers, XML types) and the sets that must be skipped. The
 * PC and stop-reason decoding (protocol 3.4, 6.1) are isa/'s, checked in
 * tests/isa/test_isa.c. */
#include <string.h>

#include "regsets/regs.h"
#include "tests/lib/tap.h"

#define RW(t, c, bits)                                                                             \
    {                                                                                              \
        .type = t, .count = c, .bit_size = bits, .byte_size = (bits) / 8, .readable = true,        \
        .writable = true                                                                           \
    }
#define RO(t, c, bits)                                                                             \
    {                                                                                              \
        .type = t, .count = c, .bit_size = bits, .byte_size = (bits) / 8, .readable = true,        \
        .writable = false                                                                          \
    }

/* As compute-runtime reports them (GRF forced to 128 at device level). */
static const struct zd_regset xehpc[] = {
    RW(REGS_GRF, 128, 512), RW(REGS_ADDR, 1, 256), RW(REGS_FLAG, 4, 32), RO(REGS_CE, 1, 32),
    RW(REGS_SR, 1, 128),    RW(REGS_CR, 1, 128),   RO(REGS_TDR, 1, 128), RW(REGS_ACC, 4, 512),
    RW(REGS_MME, 8, 512),   RW(REGS_SP, 1, 128),   RO(REGS_SBA, 9, 64),  RW(REGS_DBG, 1, 64),
};
static const struct zd_regset gen12lp[] = {
    RW(REGS_GRF, 128, 256), RW(REGS_ADDR, 1, 256), RW(REGS_FLAG, 2, 32), RO(REGS_CE, 1, 32),
    RW(REGS_SR, 1, 128),    RW(REGS_CR, 1, 128),   RO(REGS_TDR, 1, 128), RW(REGS_ACC, 10, 256),
    RW(REGS_SP, 1, 128),    RO(REGS_SBA, 9, 64),
};

static void check_regnum(const struct regs_catalog *c, const char *name, int regnum)
{
    const struct regs_reg *r = regs_catalog_find(c, name);
    if (regnum < 0) {
        tap_ok(r == NULL, "no register %s", name);
        return;
    }
    if (tap_ok(r && r->regnum == (uint32_t)regnum, "%s is regnum %d (got %d)", name, regnum,
               r ? (int)r->regnum : -1))
        tap_ok(regs_catalog_at(c, (size_t)regnum) == r, "regnum %d looks up %s", regnum, name);
}

static void check_type(const struct regs_catalog *c, const char *name, const char *want)
{
    const struct regs_reg *r = regs_catalog_find(c, name);
    char buf[32] = "";
    if (r)
        regs_reg_xml_type(r, buf, sizeof(buf));
    tap_ok(strcmp(buf, want) == 0, "%s has XML type %s (got %s)", name, want, buf);
}

static void expedited(const struct regs_catalog *c, const char *want)
{
    char got[256] = "";
    for (size_t i = 0; i < regs_catalog_count(c); i++) {
        const struct regs_reg *r = regs_catalog_at(c, i);
        if (r->expedited) {
            if (got[0])
                strcat(got, " ");
            strcat(got, r->name);
        }
    }
    tap_ok(strcmp(got, want) == 0, "expedited: %s (got %s)", want, got);
}

static void test_xehpc(void)
{
    struct regs_catalog *c = regs_catalog_new(xehpc, sizeof(xehpc) / sizeof(xehpc[0]));
    const struct regs_reg *r;
    if (!tap_ok(c != NULL, "xehpc catalogue built"))
        return;
    tap_ok(regs_catalog_count(c) == 160, "xehpc: 160 registers (got %zu)", regs_catalog_count(c));
    tap_ok(regs_catalog_set_count(c) == 12, "xehpc: 12 register sets accepted");
    tap_ok(regs_catalog_notes(c)[0] == '\0', "xehpc: nothing skipped");
    check_regnum(c, "r0", 0);
    check_regnum(c, "r26", 26);
    check_regnum(c, "r127", 127);
    check_regnum(c, "r128", -1);
    check_regnum(c, "a0", 128);
    check_regnum(c, "f0", 129);
    check_regnum(c, "f3", 132);
    check_regnum(c, "ce", 133);
    check_regnum(c, "sr0", 134);
    check_regnum(c, "cr0", 135);
    check_regnum(c, "tdr0", 136);
    check_regnum(c, "acc0", 137);
    check_regnum(c, "acc3", 140);
    check_regnum(c, "mme0", 141);
    check_regnum(c, "mme7", 148);
    check_regnum(c, "sp", 149);
    check_regnum(c, "genstbase", 150);
    check_regnum(c, "isabase", 154);
    check_regnum(c, "btbase", 157);
    check_regnum(c, "scrbase", 158);
    check_regnum(c, "scrbase2", -1);
    check_regnum(c, "dbg0", 159);
    expedited(c, "r0 r127 ce sr0 cr0 genstbase isabase");
    check_type(c, "r0", "vector16x32");
    check_type(c, "a0", "vector16x16");
    check_type(c, "f1", "vector2x16");
    check_type(c, "ce", "uint32");
    check_type(c, "cr0", "vector4x32");
    check_type(c, "tdr0", "vector8x16");
    check_type(c, "sp", "uint128");
    check_type(c, "isabase", "uint64");
    check_type(c, "dbg0", "vector2x32");
    r = regs_catalog_find(c, "r5");
    tap_ok(r && r->byte_size == 64 && r->bit_size == 512 && r->regset_type == REGS_GRF &&
               r->index == 5 && r->group == REGS_GROUP_GRF && r->writable,
           "r5: 64 bytes, GRF index 5, group grf, writable");
    r = regs_catalog_find(c, "isabase");
    tap_ok(r && r->index == REGS_SBA_ISABASE && r->group == REGS_GROUP_VIRTUAL && !r->writable &&
               r->byte_size == 8,
           "isabase: SBA index 4, group virtual, read-only, 8 bytes");
    r = regs_catalog_find(c, "ce");
    tap_ok(r && r->group == REGS_GROUP_ARF && !r->writable, "ce: group arf, read-only");
    tap_ok(regs_catalog_lookup(c, REGS_CR, 0) == regs_catalog_find(c, "cr0"),
           "lookup by type and index finds cr0");
    tap_ok(regs_catalog_set(c, 10) && regs_catalog_set(c, 10)->first_regnum == 150 &&
               regs_catalog_set(c, 10)->nregs == 9 &&
               strcmp(regs_catalog_set(c, 10)->feature, "org.gnu.gdb.intelgt.sba") == 0,
           "set 10 is SBA: regnums 150..158, feature org.gnu.gdb.intelgt.sba");
    tap_ok(regs_catalog_at(c, 160) == NULL, "regnum 160 does not exist");
    regs_catalog_free(c);
}

static void test_gen12lp(void)
{
    struct regs_catalog *c = regs_catalog_new(gen12lp, sizeof(gen12lp) / sizeof(gen12lp[0]));
    if (!tap_ok(c != NULL, "gen12lp catalogue built"))
        return;
    tap_ok(regs_catalog_count(c) == 155, "gen12lp: 155 registers (got %zu)", regs_catalog_count(c));
    check_regnum(c, "r127", 127);
    check_regnum(c, "a0", 128);
    check_regnum(c, "f1", 130);
    check_regnum(c, "f2", -1);
    check_regnum(c, "ce", 131);
    check_regnum(c, "sr0", 132);
    check_regnum(c, "cr0", 133);
    check_regnum(c, "tdr0", 134);
    check_regnum(c, "acc9", 144);
    check_regnum(c, "mme0", -1);
    check_regnum(c, "sp", 145);
    check_regnum(c, "genstbase", 146);
    check_regnum(c, "isabase", 150);
    check_regnum(c, "scrbase", 154);
    check_regnum(c, "dbg0", -1);
    expedited(c, "r0 r127 ce sr0 cr0 genstbase isabase");
    check_type(c, "r0", "vector8x32");
    check_type(c, "acc0", "vector8x32");
    regs_catalog_free(c);
}

static void test_skipped(void)
{
    const struct zd_regset sets[] = {
        RW(REGS_GRF, 256, 512),
        RW(REGS_ADDR, 0, 256), /* no registers */
        {.type = REGS_FLAG, .count = 2, .bit_size = 32, .byte_size = 4, .readable = false},
        RO(REGS_CE, 2, 32), /* CE keeps one register */
        RW(REGS_SR, 1, 128),
        RW(REGS_CR, 1, 128),
        {.type = REGS_SBA,
         .version = 1,
         .count = 9,
         .bit_size = 64,
         .byte_size = 8,
         .readable = true}, /* unknown SBA version */
        RO(15, 1, 32),      /* MODE_FLAGS: unknown to GDB */
        RW(18, 1, 256),     /* SCALAR */
        RW(REGS_DBG, 1, 96),
        RW(REGS_FC, 3, 512),
    };
    struct regs_catalog *c = regs_catalog_new(sets, sizeof(sets) / sizeof(sets[0]));
    if (!tap_ok(c != NULL, "catalogue with odd sets built"))
        return;
    tap_ok(regs_catalog_count(c) == 256 + 1 + 1 + 1 + 1 + 3,
           "skipped sets add no registers (got %zu)", regs_catalog_count(c));
    check_regnum(c, "r255", 255);
    check_regnum(c, "a0", -1);
    check_regnum(c, "f0", -1);
    check_regnum(c, "ce", 256);
    check_regnum(c, "sr0", 257);
    check_regnum(c, "cr0", 258);
    check_regnum(c, "isabase", -1);
    check_regnum(c, "dbg0", 259);
    check_regnum(c, "fc0", 260);
    check_regnum(c, "fc2", 262);
    expedited(c, "r0 r255 ce sr0 cr0");
    check_type(c, "dbg0", "vector3x32");
    tap_ok(strstr(regs_catalog_notes(c), "unknown type 15") != NULL &&
               strstr(regs_catalog_notes(c), "unknown type 18") != NULL &&
               strstr(regs_catalog_notes(c), "version 1") != NULL &&
               strstr(regs_catalog_notes(c), "not readable") != NULL,
           "notes name every skipped set");
    regs_catalog_free(c);
    c = regs_catalog_new(NULL, 0);
    tap_ok(c && regs_catalog_count(c) == 0 && regs_catalog_at(c, 0) == NULL,
           "an empty list gives an empty catalogue");
    regs_catalog_free(c);
}

int main(void)
{
    tap_plan(117);
    test_xehpc();
    test_gen12lp();
    test_skipped();
    return tap_done();
}
