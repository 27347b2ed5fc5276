/* SPDX-License-Identifier: MIT */
/* Checks gtsim's instruction decoder against iga64: every instruction of
 * every fixture kernel must start, end and be classified where the .insns
 * files (written by tests/kernels/regen.sh from iga64's disassembly) say.
 * The fixed byte patterns below were each confirmed with iga64 -d. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/isa.h"
#include "gtsim/zebin.h"
#include "isa/isa.h"
#include "tests/lib/tap.h"

static const char *const kernels[] = {"vadd", "loop_call", "oob", "slm"};

static unsigned char *load_fixture(const char *file, size_t *size)
{
    const char *top = getenv("top_srcdir");
    char path[4096];
    unsigned char *buf = NULL;
    long n;
    FILE *f;

    snprintf(path, sizeof(path), "%s/tests/kernels/fixtures/%s", top && *top ? top : ".", file);
    f = fopen(path, "rb");
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        if (buf) {
            buf[n] = '\0';
            *size = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

struct expect {
    unsigned long off;
    unsigned len;
    char mnemonic[16];
    int compacted, send, eot, bp;
};

/* Parses one instruction line of an .insns file. */
static int parse_insn_line(char *line, struct expect *e)
{
    char *save = NULL, *tok;
    int field = 0;

    memset(e, 0, sizeof(*e));
    for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save), field++) {
        if (field == 0)
            e->off = strtoul(tok, NULL, 16);
        else if (field == 1)
            e->len = (unsigned)strtoul(tok, NULL, 10);
        else if (field == 2)
            snprintf(e->mnemonic, sizeof(e->mnemonic), "%s", tok);
        else if (strcmp(tok, "compacted") == 0)
            e->compacted = 1;
        else if (strcmp(tok, "send") == 0)
            e->send = 1;
        else if (strcmp(tok, "eot") == 0)
            e->eot = 1;
        else if (strcmp(tok, "breakpoint") == 0)
            e->bp = 1;
        else
            return -1;
    }
    return field >= 3 ? 0 : -1;
}

/* Flips the breakpoint bit of one instruction in a scratch copy and checks
 * that exactly the documented bit moved and that decoding agrees. */
static int breakpoint_roundtrip(enum gtsim_platform p, const uint8_t *insn,
                                const struct gtsim_insn *orig, char *why, size_t whylen)
{
    uint8_t buf[16];
    struct gtsim_insn d;
    size_t byte = orig->compacted ? GTSIM_ISA_BP_COMPACT_BYTE : GTSIM_ISA_BP_NATIVE_BYTE;
    uint8_t mask = orig->compacted ? GTSIM_ISA_BP_COMPACT_MASK : GTSIM_ISA_BP_NATIVE_MASK;

    memcpy(buf, insn, orig->length);
    gtsim_isa_set_breakpoint(buf, true);
    for (size_t i = 0; i < orig->length; i++) {
        uint8_t want = insn[i] | (i == byte ? mask : 0);
        if (buf[i] != want) {
            snprintf(why, whylen, "set changed byte %zu: %02x -> %02x", i, insn[i], buf[i]);
            return 0;
        }
    }
    if (gtsim_isa_decode(p, buf, orig->length, &d) != 0 || !d.breakpoint ||
        d.length != orig->length || d.opcode != orig->opcode || d.is_send != orig->is_send ||
        d.is_eot != orig->is_eot || d.compacted != orig->compacted) {
        snprintf(why, whylen, "decode after set disagrees");
        return 0;
    }
    gtsim_isa_set_breakpoint(buf, false);
    if (memcmp(buf, insn, orig->length) != 0) {
        snprintf(why, whylen, "clear did not restore the original bytes");
        return 0;
    }
    return 1;
}

/* Walks one kernel and compares with the expectations that follow its
 * "kernel" line; returns the number of mismatches. */
static int walk_kernel(enum gtsim_platform p, const struct gtsim_zebin_kernel *k, FILE *in,
                       const char *where, int *bp_bad, int *eot_bad, unsigned *ninsns)
{
    char line[256], orig[256];
    size_t off = 0;
    int bad = 0;

    while (fgets(line, sizeof(line), in)) {
        struct expect e;
        struct gtsim_insn d;
        char why[128];
        int rc;

        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (strncmp(line, "padding ", 8) == 0) {
            unsigned long poff = strtoul(line + 8, NULL, 16);
            rc = gtsim_isa_decode(p, k->text + off, k->text_size - off, &d);
            if (poff != off || rc != -EINVAL) {
                tap_diag("%s: padding at 0x%lx, walk at 0x%zx, decode rc %d", where, poff, off, rc);
                bad++;
            }
            off = k->text_size;
            break;
        }
        if (strncmp(line, "kernel ", 7) == 0) {
            tap_diag("%s: unexpected kernel line before the end of the walk", where);
            return bad + 1;
        }
        line[strcspn(line, "\n")] = '\0';
        memcpy(orig, line, sizeof(orig));
        if (parse_insn_line(line, &e) != 0) {
            tap_diag("%s: bad .insns line '%s'", where, orig);
            return bad + 1;
        }
        if (e.off != off) {
            tap_diag("%s: expected an instruction at 0x%lx, walk is at 0x%zx", where, e.off, off);
            return bad + 1;
        }
        rc = gtsim_isa_decode(p, k->text + off, k->text_size - off, &d);
        if (rc != 0) {
            tap_diag("%s+0x%zx: decode failed (%d)", where, off, rc);
            return bad + 1;
        }
        const char *mn = gtsim_isa_opcode_name(p, d.opcode);
        if (d.length != e.len || d.compacted != !!e.compacted || d.is_send != !!e.send ||
            d.is_eot != !!e.eot || d.breakpoint != !!e.bp || !mn || strcmp(mn, e.mnemonic) != 0 ||
            d.is_illegal != (strcmp(e.mnemonic, "illegal") == 0)) {
            tap_diag("%s+0x%zx: got len %u cmp %d send %d eot %d bp %d op 0x%02x (%s) illegal %d; "
                     "iga64 says %s",
                     where, off, d.length, d.compacted, d.is_send, d.is_eot, d.breakpoint, d.opcode,
                     mn ? mn : "?", d.is_illegal, orig);
            if (++bad > 10)
                return bad;
        }
        /* zestub's own decoding (isa/, which must not use gtsim's)
         * against iga64 too: length, breakpoint bit, end of thread. */
        if (isa_insn_length(k->text + off) != e.len ||
            isa_insn_breakpoint(k->text + off) != !!e.bp ||
            (e.len == 16 && isa_insn_is_eot(k->text + off) != !!e.eot)) {
            tap_diag("%s+0x%zx: isa/ decodes len %u bp %d eot %d; iga64 says %s", where, off,
                     isa_insn_length(k->text + off), isa_insn_breakpoint(k->text + off),
                     e.len == 16 && isa_insn_is_eot(k->text + off), orig);
            if (++bad > 10)
                return bad;
        }
        if (!breakpoint_roundtrip(p, k->text + off, &d, why, sizeof(why))) {
            if (++*bp_bad <= 3)
                tap_diag("%s+0x%zx: breakpoint: %s", where, off, why);
        }
        if (d.is_send) {
            /* iga64: toggling bit 34 alone adds or removes {EOT}. */
            uint8_t buf[16];
            struct gtsim_insn t;
            memcpy(buf, k->text + off, 16);
            buf[GTSIM_ISA_EOT_BYTE] ^= GTSIM_ISA_EOT_MASK;
            if (gtsim_isa_decode(p, buf, 16, &t) != 0 || t.is_eot == d.is_eot || !t.is_send)
                ++*eot_bad;
        }
        off += d.length;
        ++*ninsns;
    }
    if (off != k->text_size) {
        tap_diag("%s: walk ended at 0x%zx, section is 0x%zx bytes", where, off, k->text_size);
        bad++;
    }
    return bad;
}

static void check_fixture(enum gtsim_platform p, const char *kname)
{
    char elf_name[128], insns_name[128], path[4096], err[256], line[256];
    const char *top = getenv("top_srcdir");
    struct gtsim_zebin *zb = NULL;
    unsigned char *image;
    size_t size = 0;
    FILE *in;
    int kernels_seen = 0;

    snprintf(elf_name, sizeof(elf_name), "%s-%s.elf", kname, gtsim_platform_name(p));
    snprintf(insns_name, sizeof(insns_name), "%s-%s.insns", kname, gtsim_platform_name(p));
    image = load_fixture(elf_name, &size);
    if (!tap_ok(image != NULL, "%s: fixture readable (top_srcdir=%s)", elf_name,
                top ? top : "unset")) {
        return;
    }
    if (!tap_ok(gtsim_zebin_parse(image, size, &zb, err, sizeof(err)) == 0, "%s: zebin parses %s",
                elf_name, err)) {
        free(image);
        return;
    }
    snprintf(path, sizeof(path), "%s/tests/kernels/fixtures/%s", top && *top ? top : ".",
             insns_name);
    in = fopen(path, "r");
    if (!tap_ok(in != NULL, "%s: readable", insns_name)) {
        gtsim_zebin_free(zb);
        free(image);
        return;
    }
    while (fgets(line, sizeof(line), in)) {
        char name[128], where[272];
        unsigned long sz;
        int bp_bad = 0, eot_bad = 0;
        unsigned n = 0;

        if (strncmp(line, "platform ", 9) == 0) {
            enum gtsim_platform fp;
            line[strcspn(line, "\n")] = '\0';
            tap_ok(gtsim_platform_from_name(line + 9, &fp) == 0 && fp == p,
                   "%s: platform line names %s", insns_name, gtsim_platform_name(p));
            continue;
        }
        if (sscanf(line, "kernel %127s size %lx", name, &sz) != 2)
            continue;
        kernels_seen++;
        snprintf(where, sizeof(where), "%s:%s", insns_name, name);
        const struct gtsim_zebin_kernel *k = gtsim_zebin_find_kernel(zb, name);
        if (!tap_ok(k && k->text_size == sz, "%s: .text.%s is 0x%lx bytes", where, name, sz))
            break;
        int bad = walk_kernel(p, k, in, where, &bp_bad, &eot_bad, &n);
        tap_ok(bad == 0, "%s: %u instruction boundaries, lengths and send/eot flags match iga64",
               where, n);
        tap_ok(bp_bad == 0, "%s: breakpoint bit sets, decodes and clears on every instruction",
               where);
        tap_ok(eot_bad == 0, "%s: toggling bit 34 of every send toggles EOT", where);
    }
    tap_ok(kernels_seen == 1, "%s: one kernel listed", insns_name);
    fclose(in);
    gtsim_zebin_free(zb);
    free(image);
}

/* Real instructions from the fixtures and what iga64 -d prints for them:
 * an end-of-thread send ("(W) send.<sfid> (8|M0) null r127 ... {EOT,...}")
 * and a compacted instruction (gen12lp "(W) mul (1|M0) acc0.0 ...", xehpg
 * "sync.nop null", xehpc "(W) add (1|M0) r127.0 ... 0x40:uw", each
 * {Compacted}); with bit 7 set iga64 adds {Breakpoint} to the latter. */
static const struct {
    enum gtsim_platform p;
    uint8_t eot_send[16];
    uint8_t compact[8];
    uint8_t compact_opcode;
} known[] = {
    {GTSIM_GEN12LP,
     {0x31, 0x01, 0x03, 0x80, 0x04, 0x00, 0x00, 0x00, 0x0c, 0x7f, 0x20, 0x70, 0, 0, 0, 0},
     {0x41, 0x01, 0x20, 0x22, 0x16, 0x09, 0x11, 0x03},
     0x41},
    {GTSIM_XEHPG,
     {0x31, 0x09, 0x03, 0x80, 0x04, 0x00, 0x00, 0x00, 0x0c, 0x7f, 0x20, 0x30, 0, 0, 0, 0},
     {0x01, 0x09, 0x00, 0xe8, 0x01, 0x00, 0x11, 0x00},
     0x01},
    {GTSIM_XEHPC,
     {0x31, 0x11, 0x0c, 0x80, 0x04, 0x00, 0x00, 0x00, 0x0c, 0x7f, 0x20, 0x30, 0, 0, 0, 0},
     {0x40, 0xa2, 0x84, 0xf4, 0x7f, 0x7f, 0x00, 0x04},
     0x40},
};

static void check_fixed_encodings(void)
{
    struct gtsim_insn d;
    uint8_t buf[16];

    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        enum gtsim_platform p = known[i].p;
        const uint8_t *send = known[i].eot_send, *cmp = known[i].compact;
        const char *pn = gtsim_platform_name(p);

        memcpy(buf, send, 16);
        tap_ok(gtsim_isa_decode(p, buf, 16, &d) == 0 && d.length == 16 && !d.compacted &&
                   d.opcode == GTSIM_OP_SEND && d.is_send && d.is_eot && !d.breakpoint &&
                   !d.is_illegal,
               "%s: iga64's EOT send decodes as a native EOT send", pn);
        buf[4] &= (uint8_t)~0x04; /* iga64 then prints the same send without {EOT} */
        tap_ok(gtsim_isa_decode(p, buf, 16, &d) == 0 && d.is_send && !d.is_eot,
               "%s: clearing bit 34 clears EOT", pn);
        buf[0] = GTSIM_OP_SENDC; /* iga64: sendc.<sfid> with the same operands */
        buf[4] |= 0x04;
        tap_ok(gtsim_isa_decode(p, buf, 16, &d) == 0 && d.is_send && d.is_eot &&
                   d.opcode == GTSIM_OP_SENDC,
               "%s: sendc (0x32) is a send and carries EOT the same way", pn);
        memcpy(buf, send, 16);
        gtsim_isa_set_breakpoint(buf, true); /* iga64: {Breakpoint,...} */
        tap_ok(buf[3] == (send[3] | 0x40) && gtsim_isa_decode(p, buf, 16, &d) == 0 &&
                   d.breakpoint && d.is_eot,
               "%s: native breakpoint is bit 30 (byte 3 mask 0x40)", pn);
        memcpy(buf, send, 16);
        buf[0] |= 0x80; /* iga64 ignores bit 7 of a native instruction */
        tap_ok(gtsim_isa_decode(p, buf, 16, &d) == 0 && !d.breakpoint && d.opcode == GTSIM_OP_SEND,
               "%s: bit 7 is neither breakpoint nor opcode in a native instruction", pn);
        memcpy(buf, send, 16);
        buf[3] |= 0x20; /* iga64: "no compacted form" */
        tap_ok(gtsim_isa_decode(p, buf, 16, &d) == 0 && d.compacted && d.length == 8 &&
                   !d.is_send && !d.is_eot && d.is_illegal,
               "%s: a compacted send does not exist and is illegal", pn);

        memcpy(buf, cmp, 8);
        tap_ok(gtsim_isa_decode(p, buf, 8, &d) == 0 && d.compacted && d.length == 8 &&
                   d.opcode == known[i].compact_opcode && !d.breakpoint && !d.is_illegal &&
                   !d.is_send,
               "%s: compacted instruction decodes with 8 bytes available", pn);
        gtsim_isa_set_breakpoint(buf, true);
        tap_ok(buf[0] == (cmp[0] | 0x80) && memcmp(buf + 1, cmp + 1, 7) == 0 &&
                   gtsim_isa_decode(p, buf, 8, &d) == 0 && d.breakpoint &&
                   d.opcode == known[i].compact_opcode,
               "%s: compacted breakpoint is bit 7 (byte 0 mask 0x80)", pn);
        gtsim_isa_set_breakpoint(buf, false);
        tap_ok(memcmp(buf, cmp, 8) == 0, "%s: compacted breakpoint clears", pn);
        buf[3] |= 0x40; /* iga64 shows no {Breakpoint} for bit 30 of a compacted insn */
        tap_ok(gtsim_isa_decode(p, buf, 8, &d) == 0 && !d.breakpoint,
               "%s: bit 30 is not the breakpoint of a compacted instruction", pn);

        memset(buf, 0, sizeof(buf));
        tap_ok(gtsim_isa_decode(p, buf, 16, &d) == 0 && d.length == 16 && d.is_illegal &&
                   d.opcode == GTSIM_OP_ILLEGAL,
               "%s: all-zero bytes are iga64's 16-byte 'illegal'", pn);
        tap_ok(gtsim_isa_decode(p, buf, 8, &d) == -EINVAL, "%s: native needs 16 bytes", pn);
        tap_ok(gtsim_isa_decode(p, buf, 3, &d) == -EINVAL, "%s: fewer than 4 bytes rejected", pn);
        tap_ok(gtsim_isa_decode(p, NULL, 16, &d) == -EINVAL, "%s: NULL code rejected", pn);
        buf[0] = 0x7f; /* not an opcode on any of these platforms */
        tap_ok(gtsim_isa_decode(p, buf, 16, &d) == 0 && d.is_illegal, "%s: opcode 0x7f illegal",
               pn);
    }
}

static void check_tables(void)
{
    for (int i = 0; i < GTSIM_PLATFORM_COUNT; i++) {
        enum gtsim_platform p = (enum gtsim_platform)i, back;
        const char *pn = gtsim_platform_name(p);
        tap_ok(gtsim_platform_from_name(pn, &back) == 0 && back == p, "%s: name round-trips", pn);
        tap_ok(strcmp(gtsim_isa_opcode_name(p, 0x31), "send") == 0 &&
                   strcmp(gtsim_isa_opcode_name(p, 0x32), "sendc") == 0 &&
                   strcmp(gtsim_isa_opcode_name(p, 0x60), "nop") == 0 &&
                   strcmp(gtsim_isa_opcode_name(p, 0x61), "mov") == 0 &&
                   gtsim_isa_opcode_name(p, 0x30) == NULL && gtsim_isa_opcode_name(p, 0x80) == NULL,
               "%s: send 0x31, sendc 0x32, nop 0x60, mov 0x61; no sends/sendsc", pn);
    }
    tap_ok(gtsim_isa_opcode_name(GTSIM_GEN12LP, 0x52) == NULL &&
               strcmp(gtsim_isa_opcode_name(GTSIM_XEHPG, 0x52), "add3") == 0 &&
               strcmp(gtsim_isa_opcode_name(GTSIM_XEHPG, 0x5a), "dpasw") == 0 &&
               gtsim_isa_opcode_name(GTSIM_XEHPC, 0x5a) == NULL &&
               strcmp(gtsim_isa_opcode_name(GTSIM_XEHPC, 0x53), "macl") == 0,
           "platform-specific opcodes: add3 from Xe-HPG, dpasw only Xe-HPG, macl only Xe-HPC");
    tap_ok(strcmp(gtsim_platform_name((enum gtsim_platform)99), "unknown") == 0 &&
               gtsim_platform_from_name("gen9", &(enum gtsim_platform){GTSIM_GEN12LP}) == -EINVAL,
           "unknown platforms are reported as such");
}

/* check_tables: 2 per platform and 2; check_fixed_encodings: 15 per known
 * encoding; check_fixture: 3, the platform line, 4 for its one kernel
 * (check_fixture asserts there is one) and the kernel count. */
#define FIXTURE_CHECKS 9

int main(void)
{
    tap_plan(2 * GTSIM_PLATFORM_COUNT + 2 + 15 * (int)(sizeof(known) / sizeof(known[0])) +
             GTSIM_PLATFORM_COUNT * (int)(sizeof(kernels) / sizeof(kernels[0])) * FIXTURE_CHECKS);
    check_tables();
    check_fixed_encodings();
    for (int p = 0; p < GTSIM_PLATFORM_COUNT; p++)
        for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
            check_fixture((enum gtsim_platform)p, kernels[k]);
    return tap_done();
}
