/* SPDX-License-Identifier: MIT */
/* isa: every function of isa/isa.h on real encodings: cr0 as the driver
 * delivers it (little-endian dwords), the edits of a resume and a step,
 * instruction bytes taken from the ocloc zebins of tests/kernels/fixtures
 * (offsets and iga64's reading in the .insns beside them), the stop
 * reasons of protocol 6.1, and the register sets an attach needs (1.1). */
#include <stdio.h>
#include <string.h>

#include "isa/isa.h"
#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

static void cr0_with(uint8_t *cr, uint32_t d0, uint32_t d1, uint32_t ip)
{
    memset(cr, 0, 16);
    isa_cr0_set_dword(cr, 0, d0);
    isa_cr0_set_dword(cr, 1, d1);
    isa_cr0_set_dword(cr, 2, ip);
}

static void test_cr0(void)
{
    uint8_t cr[16];
    static const struct {
        uint32_t d1;
        enum isa_stop_reason want;
        int signal;
    } cases[] = {
        {ISA_CR0_1_PAGE_FAULT, ISA_STOP_PAGE_FAULT, 11},
        {ISA_CR0_1_PAGE_FAULT | ISA_CR0_1_BREAKPOINT, ISA_STOP_PAGE_FAULT, 11},
        {ISA_CR0_1_BREAKPOINT, ISA_STOP_BREAKPOINT, 5},
        {ISA_CR0_1_BREAKPOINT | ISA_CR0_1_ILLEGAL, ISA_STOP_BREAKPOINT, 5},
        {ISA_CR0_1_ILLEGAL, ISA_STOP_ILLEGAL, 4},
        {ISA_CR0_1_ILLEGAL | ISA_CR0_1_SW_EXCEPTION, ISA_STOP_ILLEGAL, 4},
        {ISA_CR0_1_SW_EXCEPTION, ISA_STOP_SW_EXCEPTION, 149},
        {ISA_CR0_1_SW_EXCEPTION | ISA_CR0_1_FORCE, ISA_STOP_SW_EXCEPTION, 149},
        {ISA_CR0_1_FORCE, ISA_STOP_INTERRUPT, 5},
        {ISA_CR0_1_EXT_HALT, ISA_STOP_INTERRUPT, 5},
        {0, ISA_STOP_UNKNOWN, 143},
        {1u << 3, ISA_STOP_UNKNOWN, 143},
    };

    /* Bytes as the driver delivers them: little-endian dwords. */
    const uint8_t raw[16] = {0x00, 0x80, 0, 0, 0, 0, 0x01, 0x80, 0x30, 0x12, 0, 0};
    tap_ok(isa_cr0_suppress(raw) && isa_cr0_breakpoint(raw) && isa_cr0_page_fault(raw) &&
               !isa_cr0_ext_halt(raw) && !isa_cr0_illegal(raw) && !isa_cr0_sw_exception(raw) &&
               !isa_cr0_force(raw),
           "cr0 bits read from raw bytes (suppress 0.15, breakpoint 1.31, page fault 1.16)");
    tap_ok(isa_pc(raw, 0x800000000000ull) == 0x800000001230ull, "pc = isabase + cr0 dword 2");
    cr0_with(cr, 0, 0, 0xfffffff0u);
    tap_ok(isa_pc(cr, 0xffff800000000000ull) == 0xffff8000fffffff0ull,
           "pc with a canonical isabase and a large IP");

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        enum isa_stop_reason r;
        cr0_with(cr, 0, cases[i].d1, 0x40);
        r = isa_stop_reason(cr);
        tap_ok(r == cases[i].want && isa_stop_signal(r) == cases[i].signal,
               "cr0.1 0x%08x -> %s, signal %d (got %s, %d)", cases[i].d1,
               isa_stop_reason_name(cases[i].want), cases[i].signal, isa_stop_reason_name(r),
               isa_stop_signal(r));
    }

    cr0_with(cr, ISA_CR0_0_BP_SUPPRESS, ISA_CR0_1_EXCEPTIONS | 0x5, 0x40);
    tap_ok(isa_cr0_clear_exceptions(cr) && isa_cr0_dword(cr, 1) == 0x5 &&
               isa_cr0_dword(cr, 0) == ISA_CR0_0_BP_SUPPRESS && isa_cr0_dword(cr, 2) == 0x40,
           "clearing exceptions leaves other bits, suppress and the IP");
    tap_ok(!isa_cr0_clear_exceptions(cr), "nothing to clear the second time");
    isa_cr0_set_suppress(cr, false);
    tap_ok(!isa_cr0_suppress(cr), "suppress cleared");
    isa_cr0_set_suppress(cr, true);
    isa_cr0_set_step(cr);
    tap_ok(isa_cr0_suppress(cr) && isa_cr0_breakpoint(cr), "suppress and step set");
}

/* cr0 after one of the edits, as dwords 0 and 1 (the IP must not move). */
static bool cr0_is(const uint8_t *cr, uint32_t d0, uint32_t d1)
{
    return isa_cr0_dword(cr, 0) == d0 && isa_cr0_dword(cr, 1) == d1 && isa_cr0_dword(cr, 2) == 0x40;
}

static void test_prepare_resume(void)
{
    uint8_t cr[16];
    const uint32_t halt = ISA_CR0_1_EXT_HALT | ISA_CR0_1_FORCE;

    cr0_with(cr, 0, ISA_CR0_1_BREAKPOINT | 0x5, 0x40);
    tap_ok(isa_cr0_prepare_resume(cr, false) && cr0_is(cr, 0, 0x5),
           "resume after a breakpoint: its bit cleared, cr0 written, other bits kept");
    cr0_with(cr, 0, ISA_CR0_1_BREAKPOINT, 0x40);
    tap_ok(isa_cr0_prepare_resume(cr, true) && cr0_is(cr, 0, ISA_CR0_1_BREAKPOINT),
           "step after a breakpoint: the status bit is set again for the step");
    cr0_with(cr, 0, halt, 0x40);
    tap_ok(!isa_cr0_prepare_resume(cr, false),
           "resume after the interrupt alone: not worth a write");
    cr0_with(cr, 0, halt, 0x40);
    tap_ok(isa_cr0_prepare_resume(cr, true) && cr0_is(cr, 0, ISA_CR0_1_BREAKPOINT),
           "step after the interrupt: halt bits cleared, the status bit set, written");
    cr0_with(cr, 0, ISA_CR0_1_PAGE_FAULT | ISA_CR0_1_EXT_HALT, 0x40);
    tap_ok(isa_cr0_prepare_resume(cr, false) && cr0_is(cr, 0, 0),
           "resume after a fault (with a halt): every exception bit cleared, written");
    cr0_with(cr, ISA_CR0_0_BP_SUPPRESS, 0, 0x40);
    tap_ok(!isa_cr0_prepare_resume(cr, false) && cr0_is(cr, ISA_CR0_0_BP_SUPPRESS, 0),
           "resume with no exception bit: nothing to write, cr0 unchanged");
}

/* Instructions of vadd.cl as ocloc built it for dg2 (vadd-xehpg.elf,
 * .text.vadd; vadd-xehpg.insns has iga64's reading of each offset). */
static const uint8_t mov_0000[16] = {0x61, 0x00, 0x03, 0x80, 0x20, 0x42, 0x05, 0x7f,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
static const uint8_t send_0060[16] = {0x31, 0x90, 0x03, 0x80, 0x00, 0x00, 0x24, 0x01,
                                      0x0c, 0x7f, 0xfa, 0xa9, 0x00, 0x00, 0x10, 0x02};
static const uint8_t send_eot_0210[16] = {0x31, 0x09, 0x03, 0x80, 0x04, 0x00, 0x00, 0x00,
                                          0x0c, 0x7f, 0x20, 0x30, 0x00, 0x00, 0x00, 0x00};
/* "sync compacted": dword 0 has bit 30 set too, which is not the
 * breakpoint bit of a compacted instruction. */
static const uint8_t sync_0110[8] = {0x01, 0x09, 0x00, 0xe8, 0x01, 0x00, 0x11, 0x00};
static const uint8_t mul_0120[8] = {0x41, 0x09, 0x20, 0x22, 0x16, 0x09, 0x11, 0x03};

static void test_insn(void)
{
    uint8_t b[16];

    tap_ok(!isa_insn_compacted(mov_0000) && isa_insn_length(mov_0000) == 16 &&
               !isa_insn_breakpoint(mov_0000) && !isa_insn_is_eot(mov_0000),
           "mov (native): 16 bytes, no breakpoint bit, not an end of thread");
    tap_ok(isa_insn_length(send_0060) == 16 && !isa_insn_is_eot(send_0060),
           "send without EOT: not an end of thread");
    tap_ok(isa_insn_length(send_eot_0210) == 16 && isa_insn_is_eot(send_eot_0210) &&
               !isa_insn_breakpoint(send_eot_0210),
           "send with EOT (iga64: {EOT}): an end of thread");
    memcpy(b, send_eot_0210, 16);
    b[0] = (uint8_t)((b[0] & 0x80) | 0x32);
    tap_ok(isa_insn_is_eot(b), "sendc (opcode 0x32) with EOT: an end of thread");
    memcpy(b, send_eot_0210, 16);
    b[4] &= (uint8_t)~0x04;
    tap_ok(!isa_insn_is_eot(b), "the same send with bit 34 cleared: not an end of thread");
    tap_ok(isa_insn_compacted(sync_0110) && isa_insn_length(sync_0110) == 8 &&
               !isa_insn_breakpoint(sync_0110) && !isa_insn_is_eot(sync_0110),
           "sync (compacted): 8 bytes; dword 0 bit 30 is not its breakpoint bit");
    tap_ok(isa_insn_compacted(mul_0120) && isa_insn_length(mul_0120) == 8,
           "mul (compacted): 8 bytes");
    memset(b, 0, sizeof(b));
    memcpy(b, sync_0110, 8);
    b[0] = 0x31;
    b[4] |= 0x04;
    tap_ok(!isa_insn_is_eot(b), "no compacted send: a compacted 0x31 with bit 34 is no end");

    memcpy(b, mov_0000, 16);
    isa_insn_set_breakpoint(b, true);
    tap_ok(isa_insn_breakpoint(b) && b[3] == 0xc0 && memcmp(b + 4, mov_0000 + 4, 12) == 0 &&
               b[0] == mov_0000[0] && isa_insn_length(b) == 16,
           "native: the breakpoint bit is dword 0 bit 30, nothing else changes");
    isa_insn_set_breakpoint(b, false);
    tap_ok(!isa_insn_breakpoint(b) && memcmp(b, mov_0000, 16) == 0,
           "native: clearing the bit gives the instruction back");
    memset(b, 0, sizeof(b));
    memcpy(b, sync_0110, 8);
    isa_insn_set_breakpoint(b, true);
    tap_ok(isa_insn_breakpoint(b) && b[0] == 0x81 && memcmp(b + 1, sync_0110 + 1, 7) == 0 &&
               isa_insn_compacted(b),
           "compacted: the breakpoint bit is byte 0 bit 7, nothing else changes");
    isa_insn_set_breakpoint(b, false);
    tap_ok(!isa_insn_breakpoint(b) && memcmp(b, sync_0110, 8) == 0,
           "compacted: clearing the bit gives the instruction back");
    memcpy(b, send_eot_0210, 16);
    isa_insn_set_breakpoint(b, true);
    tap_ok(isa_insn_breakpoint(b) && isa_insn_is_eot(b),
           "a breakpoint on an end-of-thread send: still an end of thread");
}

static void test_suppress_at(void)
{
    uint8_t cr[16], b[16];

    memcpy(b, mov_0000, 16);
    isa_insn_set_breakpoint(b, true);
    cr0_with(cr, 0x1, 0, 0x40);
    tap_ok(isa_cr0_suppress_at(cr, b) && cr0_is(cr, 0x1 | ISA_CR0_0_BP_SUPPRESS, 0),
           "at a native breakpoint: suppress set, other bits kept");
    tap_ok(!isa_cr0_suppress_at(cr, b), "already suppressed: nothing changes");
    cr0_with(cr, 0, 0, 0x40);
    tap_ok(!isa_cr0_suppress_at(cr, mov_0000) && cr0_is(cr, 0, 0),
           "at an instruction without the bit: nothing changes");
    memset(b, 0, sizeof(b));
    memcpy(b, sync_0110, 8);
    isa_insn_set_breakpoint(b, true);
    tap_ok(isa_cr0_suppress_at(cr, b) && isa_cr0_suppress(cr),
           "at a compacted breakpoint: suppress set");
    cr0_with(cr, 0, 0, 0x40);
    tap_ok(!isa_cr0_suppress_at(cr, sync_0110),
           "a compacted instruction's dword 0 bit 30 is no breakpoint");
}

static void test_stop_kinds(void)
{
    static const enum isa_stop_reason all[] = {ISA_STOP_PAGE_FAULT, ISA_STOP_BREAKPOINT,
                                               ISA_STOP_ILLEGAL,    ISA_STOP_SW_EXCEPTION,
                                               ISA_STOP_INTERRUPT,  ISA_STOP_UNKNOWN};
    bool own_ok = true, hit_ok = true;
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        enum isa_stop_reason r = all[i];
        own_ok &= isa_stop_is_own(r) == (r != ISA_STOP_INTERRUPT && r != ISA_STOP_UNKNOWN);
        hit_ok &= r == ISA_STOP_BREAKPOINT ||
                  (!isa_stop_is_breakpoint_hit(r, false) && !isa_stop_is_step_end(r, true));
    }
    tap_ok(own_ok, "a stop of the thread's own: all but the interrupt and no bit at all");
    tap_ok(isa_stop_is_breakpoint_hit(ISA_STOP_BREAKPOINT, false) &&
               !isa_stop_is_step_end(ISA_STOP_BREAKPOINT, false),
           "the breakpoint status bit with no step armed: a breakpoint hit");
    tap_ok(isa_stop_is_step_end(ISA_STOP_BREAKPOINT, true) &&
               !isa_stop_is_breakpoint_hit(ISA_STOP_BREAKPOINT, true),
           "the breakpoint status bit with a step armed: the step's end");
    tap_ok(hit_ok, "no other reason is a breakpoint hit or a step's end");
}

static void test_regsets_needed(void)
{
    char buf[64];
    unsigned all = 0;
    bool one_each = true;
    static const uint32_t types[] = {ISA_RS_GRF, ISA_RS_CE, ISA_RS_CR, ISA_RS_SR, ISA_RS_SBA};

    for (size_t i = 0; i < 5; i++) {
        unsigned bit = isa_regset_needed(types[i], 0, 10, true);
        one_each &= bit != 0 && (bit & (bit - 1)) == 0 && !(all & bit);
        all |= bit;
    }
    tap_ok(one_each, "GRF, CE, CR, SR, SBA: each needed, each its own bit");
    tap_ok(ISA_RS_GRF == 1 && ISA_RS_CE == 4 && ISA_RS_SR == 5 && ISA_RS_CR == 6 &&
               ISA_RS_SBA == 11 && ISA_RS_FC == 13,
           "register-set numbers are the driver's (zet_debug_regset_type_intel_gpu_t)");
    tap_ok(!isa_regset_needed(ISA_RS_ADDR, 0, 1, true) &&
               !isa_regset_needed(ISA_RS_ACC, 0, 2, true) && !isa_regset_needed(14, 0, 1, true) &&
               !isa_regset_needed(0, 0, 1, true),
           "other and unknown sets are not needed");
    tap_ok(!isa_regset_needed(ISA_RS_GRF, 0, 128, false) &&
               !isa_regset_needed(ISA_RS_CR, 0, 0, true),
           "an unreadable or empty set counts as absent");
    tap_ok(!isa_regset_needed(ISA_RS_SBA, 1, 10, true) &&
               !isa_regset_needed(ISA_RS_SBA, 0, 4, true) &&
               isa_regset_needed(ISA_RS_SBA, 0, 5, true),
           "SBA counts only at version 0 and up to isabase (5 registers)");
    tap_ok(!isa_attach_missing(all, buf, sizeof(buf)) && buf[0] == '\0',
           "all five present: nothing missing");
    tap_ok(isa_attach_missing(0, buf, sizeof(buf)) &&
               strcmp(buf, " GRF CE CR SR SBA(version 0, isabase)") == 0,
           "none present: every one named (%s)", buf);
    tap_ok(isa_attach_missing(isa_regset_needed(ISA_RS_GRF, 0, 1, true) |
                                  isa_regset_needed(ISA_RS_CE, 0, 1, true) |
                                  isa_regset_needed(ISA_RS_SR, 0, 1, true),
                              buf, sizeof(buf)) &&
               strcmp(buf, " CR SBA(version 0, isabase)") == 0,
           "CR and SBA absent: those two named (%s)", buf);
    tap_ok(isa_attach_missing(0, buf, 12) && strcmp(buf, " GRF CE CR") == 0,
           "a short buffer holds whole names only (%s)", buf);
}

/* ---- a walk over real kernels ------------------------------------------------ */

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n--)
        v = v << 8 | p[n];
    return v;
}

/* The bytes of section `name` of an ELF64 little-endian file, or NULL. */
static const uint8_t *section(const uint8_t *elf, size_t size, const char *name, size_t *len)
{
    uint64_t shoff = le(elf + 0x28, 8);
    unsigned shentsize = (unsigned)le(elf + 0x3a, 2), shnum = (unsigned)le(elf + 0x3c, 2);
    unsigned shstrndx = (unsigned)le(elf + 0x3e, 2);
    const uint8_t *strs;
    if (size < 0x40 || shoff + (uint64_t)shnum * shentsize > size || shstrndx >= shnum)
        return NULL;
    strs = elf + le(elf + shoff + (uint64_t)shstrndx * shentsize + 24, 8);
    for (unsigned i = 0; i < shnum; i++) {
        const uint8_t *sh = elf + shoff + (uint64_t)i * shentsize;
        uint64_t off = le(sh + 24, 8), n = le(sh + 32, 8);
        if (strcmp((const char *)strs + le(sh, 4), name) == 0 && off + n <= size) {
            *len = (size_t)n;
            return elf + off;
        }
    }
    return NULL;
}

/* Walks every kernel of one fixture with isa_insn_length and checks each
 * instruction start, length, breakpoint bit and end of thread against
 * iga64's reading in the .insns file. Returns the mismatches. */
static int walk_fixture(const char *top, const char *name, unsigned *ninsns)
{
    char path[4096], line[256], kernel[64] = "", sec[80];
    size_t esize = 0, tlen = 0, off = 0;
    uint8_t *elf;
    const uint8_t *text = NULL;
    int bad = 0;
    FILE *f;

    snprintf(path, sizeof(path), "%s/tests/kernels/fixtures/%s.elf", top, name);
    elf = tests_slurp(path, &esize);
    snprintf(path, sizeof(path), "%s/tests/kernels/fixtures/%s.insns", top, name);
    f = fopen(path, "r");
    if (!elf || !f) {
        tap_diag("%s: cannot read the fixture", name);
        free(elf);
        if (f)
            fclose(f);
        return 1;
    }
    while (fgets(line, sizeof(line), f)) {
        unsigned long at, ksize;
        unsigned len;
        if (sscanf(line, "kernel %63s size %lx", kernel, &ksize) == 2) {
            bad += text && off != tlen; /* the previous kernel walked to its end */
            snprintf(sec, sizeof(sec), ".text.%s", kernel);
            text = section(elf, esize, sec, &tlen);
            off = 0;
            bad += text == NULL || tlen != ksize;
            continue;
        }
        if (text && sscanf(line, "padding %lx %u", &at, &len) == 2) {
            /* An 8-byte tail whose clear compaction bit asks for 16: iga64
             * calls it padding, the walk must not take it for a whole
             * instruction. */
            bad += at != off || off + isa_insn_length(text + off) <= tlen;
            off = tlen;
            continue;
        }
        if (!text || sscanf(line, "%lx %u", &at, &len) != 2)
            continue;
        if (at != off || off + len > tlen || isa_insn_length(text + off) != len ||
            isa_insn_compacted(text + off) != (strstr(line, " compacted") != NULL) ||
            isa_insn_breakpoint(text + off) != (strstr(line, " breakpoint") != NULL) ||
            (len == 16 && isa_insn_is_eot(text + off) != (strstr(line, " eot") != NULL))) {
            if (++bad <= 5)
                tap_diag("%s %s: walk at 0x%zx, iga64 says: %s", name, kernel, off, line);
            off = at + len; /* on from where iga64 is */
        } else {
            off += isa_insn_length(text + off);
        }
        ++*ninsns;
    }
    bad += text && off != tlen;
    fclose(f);
    free(elf);
    return bad;
}

/* One kernel per platform, and a long one with calls. */
static const char *const fixtures[] = {"vadd-gen12lp", "vadd-xehpg", "vadd-xehpc",
                                       "loop_call-xehpg"};
#define NFIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

static void test_walk(void)
{
    const char *top = getenv("top_srcdir");
    for (size_t i = 0; i < NFIXTURES; i++) {
        unsigned n = 0;
        int bad = walk_fixture(top && *top ? top : ".", fixtures[i], &n);
        tap_ok(bad == 0 && n > 0, "%s: %u instructions walked as iga64 reads them", fixtures[i], n);
    }
}

int main(void)
{
    /* cr0, resume edits, instructions, suppress, stop kinds, register
     * sets, one walk per fixture. */
    tap_plan(19 + 6 + 13 + 5 + 4 + 9 + (int)NFIXTURES);
    test_cr0();
    test_prepare_resume();
    test_insn();
    test_suppress_at();
    test_stop_kinds();
    test_regsets_needed();
    test_walk();
    return tap_done();
}
