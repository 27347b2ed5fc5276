/* SPDX-License-Identifier: MIT */
/* regsets: the register catalogue built from the Xe-HPC and Gen12LP
 * register sets of level-zero-facts.md section 8 (names, GDB numbers,
 * expedited registers, XML types), the sets that must be skipped, the PC
 * and the stop-reason decoding of intelgt-remote-protocol.md 3.4 and 6.1. */
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

static void cr0_with(uint8_t *cr, uint32_t d0, uint32_t d1, uint32_t ip)
{
    memset(cr, 0, 16);
    regs_cr0_set_dword(cr, 0, d0);
    regs_cr0_set_dword(cr, 1, d1);
    regs_cr0_set_dword(cr, 2, ip);
}

static void test_cr0(void)
{
    uint8_t cr[16];
    static const struct {
        uint32_t d1;
        enum regs_stop_reason want;
        int signal;
    } cases[] = {
        {REGS_CR0_1_PAGE_FAULT, REGS_STOP_PAGE_FAULT, 11},
        {REGS_CR0_1_PAGE_FAULT | REGS_CR0_1_BREAKPOINT, REGS_STOP_PAGE_FAULT, 11},
        {REGS_CR0_1_BREAKPOINT, REGS_STOP_BREAKPOINT, 5},
        {REGS_CR0_1_BREAKPOINT | REGS_CR0_1_ILLEGAL, REGS_STOP_BREAKPOINT, 5},
        {REGS_CR0_1_ILLEGAL, REGS_STOP_ILLEGAL, 4},
        {REGS_CR0_1_ILLEGAL | REGS_CR0_1_SW_EXCEPTION, REGS_STOP_ILLEGAL, 4},
        {REGS_CR0_1_SW_EXCEPTION, REGS_STOP_SW_EXCEPTION, 149},
        {REGS_CR0_1_SW_EXCEPTION | REGS_CR0_1_FORCE, REGS_STOP_SW_EXCEPTION, 149},
        {REGS_CR0_1_FORCE, REGS_STOP_INTERRUPT, 5},
        {REGS_CR0_1_EXT_HALT, REGS_STOP_INTERRUPT, 5},
        {0, REGS_STOP_UNKNOWN, 143},
        {1u << 3, REGS_STOP_UNKNOWN, 143},
    };

    /* Bytes as the driver delivers them: little-endian dwords. */
    const uint8_t raw[16] = {0x00, 0x80, 0, 0, 0, 0, 0x01, 0x80, 0x30, 0x12, 0, 0};
    tap_ok(regs_cr0_suppress(raw) && regs_cr0_breakpoint(raw) && regs_cr0_page_fault(raw) &&
               !regs_cr0_ext_halt(raw) && !regs_cr0_illegal(raw) && !regs_cr0_sw_exception(raw) &&
               !regs_cr0_force(raw),
           "cr0 bits read from raw bytes (suppress 0.15, breakpoint 1.31, page fault 1.16)");
    tap_ok(regs_pc(raw, 0x800000000000ull) == 0x800000001230ull, "pc = isabase + cr0 dword 2");
    cr0_with(cr, 0, 0, 0xfffffff0u);
    tap_ok(regs_pc(cr, 0xffff800000000000ull) == 0xffff8000fffffff0ull,
           "pc with a canonical isabase and a large IP");

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        enum regs_stop_reason r;
        cr0_with(cr, 0, cases[i].d1, 0x40);
        r = regs_stop_reason(cr);
        tap_ok(r == cases[i].want && regs_stop_signal(r) == cases[i].signal,
               "cr0.1 0x%08x -> %s, signal %d (got %s, %d)", cases[i].d1,
               regs_stop_reason_name(cases[i].want), cases[i].signal, regs_stop_reason_name(r),
               regs_stop_signal(r));
    }

    cr0_with(cr, REGS_CR0_0_BP_SUPPRESS, REGS_CR0_1_EXCEPTIONS | 0x5, 0x40);
    tap_ok(regs_clear_exceptions(cr) && regs_cr0_dword(cr, 1) == 0x5 &&
               regs_cr0_dword(cr, 0) == REGS_CR0_0_BP_SUPPRESS && regs_cr0_dword(cr, 2) == 0x40,
           "clearing exceptions leaves other bits, suppress and the IP");
    tap_ok(!regs_clear_exceptions(cr), "nothing to clear the second time");
    regs_cr0_set_suppress(cr, false);
    tap_ok(!regs_cr0_suppress(cr), "suppress cleared");
    regs_cr0_set_suppress(cr, true);
    regs_cr0_set_step(cr);
    tap_ok(regs_cr0_suppress(cr) && regs_cr0_breakpoint(cr), "suppress and step set");
}

int main(void)
{
    tap_plan(136);
    test_xehpc();
    test_gen12lp();
    test_skipped();
    test_cr0();
    return tap_done();
}
