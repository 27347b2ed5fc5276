/* SPDX-License-Identifier: MIT */
/* A hand-made corpus of malformed module images for symbols/: each case is
 * a small ELF built here byte by byte (a kernel, DWARF 4 .debug_abbrev,
 * .debug_info and .debug_line written by hand, so every field is known),
 * broken in one way. Each case says what sym_module_open must answer:
 * refused with -EINVAL and a sentence, or opened (with what), never a
 * crash, a hang or a memory error (the ASan run). `test_malformed --write
 * DIR` writes the cases as files, the seed corpus of fuzz_symbols. */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"
#include "tests/lib/tap.h"

#define KADDR 0x10000ull
#define KSIZE 0x40u

enum { S_NULL, S_TEXT, S_ABBREV, S_INFO, S_LINE, S_SHSTR, S_COUNT };

struct buf {
    uint8_t b[2048];
    size_t n;
};

static void put(struct buf *d, const void *p, size_t n)
{
    if (d->n + n > sizeof(d->b))
        tap_bail("test image too big");
    memcpy(d->b + d->n, p, n);
    d->n += n;
}

static void u8(struct buf *d, uint8_t v)
{
    put(d, &v, 1);
}

static void u16(struct buf *d, uint16_t v)
{
    put(d, &v, 2);
}

static void u32(struct buf *d, uint32_t v)
{
    put(d, &v, 4);
}

static void u64(struct buf *d, uint64_t v)
{
    put(d, &v, 8);
}

static void str(struct buf *d, const char *s)
{
    put(d, s, strlen(s) + 1);
}

/* How a case breaks the DWARF; 0 everywhere is the sound module. */
struct dwarf_faults {
    uint32_t line_length;   /* .debug_line unit_length, 0: the real one */
    uint16_t line_version;  /* 0: 4 */
    uint32_t line_file;     /* DW_LNS_set_file operand before the rows, 0: none */
    uint32_t info_length;   /* .debug_info unit_length, 0: the real one */
    uint32_t abbrev_offset; /* .debug_info's abbrev offset */
    uint8_t bad_abbrev;     /* a DIE using an abbreviation code that is not defined */
    int origin_self;        /* a subprogram whose abstract origin is itself */
    uint32_t origin_to;     /* a subprogram whose abstract origin is this unit offset */
    int sibling_self;       /* a DIE whose DW_AT_sibling points at itself */
    int sibling_back;       /* a DIE whose DW_AT_sibling points back at the first subprogram */
    int line_overlap;       /* a second line sequence over the first's bytes (line 7) */
};

static void abbrevs(struct buf *d)
{
    /* 1: compile unit; 2: named subprogram with a range; 3: subprogram
     * named through DW_AT_abstract_origin; 4: subprogram with a sibling. */
    static const uint8_t a[] = {1,    0x11, 1,    0x03, 0x08, 0x1b, 0x08, 0x10, 0x17, 0x11, 0x01, 0,
                                0,    2,    0x2e, 0,    0x03, 0x08, 0x11, 0x01, 0x12, 0x06, 0,    0,
                                3,    0x2e, 0,    0x31, 0x13, 0x11, 0x01, 0x12, 0x06, 0,    0,    4,
                                0x2e, 0,    0x01, 0x13, 0x03, 0x08, 0,    0,    0};
    put(d, a, sizeof(a));
}

static void info(struct buf *d, const struct dwarf_faults *f)
{
    size_t start = d->n, die2;
    u32(d, 0); /* unit_length, patched below */
    u16(d, 4);
    u32(d, f->abbrev_offset);
    u8(d, 8);
    u8(d, 1); /* the compile unit */
    str(d, "k.cl");
    str(d, "/src");
    u32(d, 0);
    u64(d, KADDR);
    die2 = d->n - start;
    u8(d, 2);
    str(d, "k");
    u64(d, KADDR);
    u32(d, KSIZE);
    if (f->origin_self || f->origin_to) {
        uint32_t self = (uint32_t)(d->n - start);
        u8(d, 3);
        u32(d, f->origin_self ? self : f->origin_to);
        u64(d, KADDR + 0x10);
        u32(d, 0x10);
    }
    if (f->sibling_self || f->sibling_back) {
        uint32_t self = (uint32_t)(d->n - start);
        u8(d, 4);
        u32(d, f->sibling_self ? self : (uint32_t)die2);
        str(d, "s");
    }
    if (f->bad_abbrev)
        u8(d, f->bad_abbrev);
    u8(d, 0); /* end of the unit's children */
    uint32_t len = f->info_length ? f->info_length : (uint32_t)(d->n - start - 4);
    memcpy(d->b + start, &len, 4);
}

static void line(struct buf *d, const struct dwarf_faults *f)
{
    static const uint8_t std_lengths[] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
    size_t start = d->n, hdr;
    u32(d, 0); /* unit_length, patched below */
    u16(d, f->line_version ? f->line_version : 4);
    u32(d, 0); /* header_length, patched below */
    hdr = d->n;
    u8(d, 1);    /* minimum_instruction_length */
    u8(d, 1);    /* maximum_operations_per_instruction */
    u8(d, 1);    /* default_is_stmt */
    u8(d, 0xfb); /* line_base -5 */
    u8(d, 14);   /* line_range */
    u8(d, 13);   /* opcode_base */
    put(d, std_lengths, sizeof(std_lengths));
    u8(d, 0); /* no include directories */
    str(d, "k.cl");
    u8(d, 0);
    u8(d, 0);
    u8(d, 0);
    u8(d, 0); /* end of file names */
    uint32_t hlen = (uint32_t)(d->n - hdr);
    memcpy(d->b + hdr - 4, &hlen, 4);
    /* set_address KADDR; [set_file]; copy; advance_pc 16, advance_line 1,
     * copy; advance_pc 48; end_sequence. */
    u8(d, 0);
    u8(d, 9);
    u8(d, 2);
    u64(d, KADDR);
    if (f->line_file) {
        u8(d, 4);
        for (uint32_t v = f->line_file; v; v >>= 7) /* ULEB128 */
            u8(d, (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0)));
    }
    u8(d, 1);
    u8(d, 2);
    u8(d, 16);
    u8(d, 3);
    u8(d, 1);
    u8(d, 1);
    u8(d, 2);
    u8(d, 48);
    u8(d, 0);
    u8(d, 1);
    u8(d, 1);
    if (f->line_overlap) {
        /* set_address KADDR; advance_line 6; copy; advance_pc 0x18;
         * end_sequence: [KADDR, KADDR + 0x18) is line 7 as well. */
        u8(d, 0);
        u8(d, 9);
        u8(d, 2);
        u64(d, KADDR);
        u8(d, 3);
        u8(d, 6);
        u8(d, 1);
        u8(d, 2);
        u8(d, 0x18);
        u8(d, 0);
        u8(d, 1);
        u8(d, 1);
    }
    uint32_t len = f->line_length ? f->line_length : (uint32_t)(d->n - start - 4);
    memcpy(d->b + start, &len, 4);
}

/* The module: ELF header, the sections' bodies, then the section table. */
static size_t build(uint8_t *out, size_t cap, const struct dwarf_faults *f)
{
    static const char *const names[S_COUNT] = {
        "", ".text.k", ".debug_abbrev", ".debug_info", ".debug_line", ".shstrtab"};
    struct buf body[S_COUNT] = {0};
    Elf64_Shdr sh[S_COUNT] = {0};
    Elf64_Ehdr eh = {0};
    size_t at = sizeof(eh);
    memset(body[S_TEXT].b, 0, KSIZE);
    body[S_TEXT].n = KSIZE;
    abbrevs(&body[S_ABBREV]);
    info(&body[S_INFO], f);
    line(&body[S_LINE], f);
    for (int i = 0; i < S_COUNT; i++) {
        sh[i].sh_name = (uint32_t)body[S_SHSTR].n;
        str(&body[S_SHSTR], names[i]);
    }
    for (int i = 1; i < S_COUNT; i++) {
        sh[i].sh_type = i == S_SHSTR ? SHT_STRTAB : SHT_PROGBITS;
        sh[i].sh_offset = at;
        sh[i].sh_size = body[i].n;
        sh[i].sh_addr = i == S_TEXT ? KADDR : 0;
        sh[i].sh_flags = i == S_TEXT ? SHF_ALLOC | SHF_EXECINSTR : 0;
        sh[i].sh_addralign = 1;
        at += body[i].n;
    }
    at = (at + 7) & ~(size_t)7;
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_EXEC;
    eh.e_machine = 205; /* Intel GT */
    eh.e_version = EV_CURRENT;
    eh.e_ehsize = sizeof(eh);
    eh.e_shoff = at;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = S_COUNT;
    eh.e_shstrndx = S_SHSTR;
    if (at + sizeof(sh) > cap)
        tap_bail("test image too big");
    memset(out, 0, at);
    memcpy(out, &eh, sizeof(eh));
    for (int i = 1; i < S_COUNT; i++)
        memcpy(out + sh[i].sh_offset, body[i].b, body[i].n);
    memcpy(out + at, sh, sizeof(sh));
    return at + sizeof(sh);
}

/* What a case expects. */
enum expect {
    REFUSED,      /* -EINVAL, no module, a sentence */
    SOUND,        /* opens; pc KADDR is in k, function k, k.cl:1; KADDR+0x10 is line 2 */
    KERNELS_ONLY, /* opens; kernel k found, no lines */
    OVERLAP,      /* opens; the later sequence wins where two claim the same bytes */
};

struct result {
    int rc;
    char err[256];
    struct sym_module *m;
};

static struct result open_image(const uint8_t *img, size_t n)
{
    struct result r = {.m = (struct sym_module *)1};
    r.rc = sym_module_open(img, n, &r.m, r.err, sizeof(r.err));
    return r;
}

static int sound(const struct sym_module *m)
{
    struct sym_location a, b;
    return sym_kernel_count(m) == 1 && sym_lookup(m, KADDR, &a) == 0 &&
           sym_lookup(m, KADDR + 0x10, &b) == 0 && a.has_line && a.line == 1 &&
           strcmp(a.file, "/src/k.cl") == 0 && a.function && strcmp(a.function, "k") == 0 &&
           b.has_line && b.line == 2 && sym_lookup(m, KADDR + KSIZE, &a) == -ENOENT;
}

static int kernels_only(const struct sym_module *m)
{
    struct sym_location a;
    return sym_kernel_count(m) == 1 && sym_lookup(m, KADDR + 4, &a) == 0 &&
           strcmp(a.kernel, "k") == 0 && !a.has_line && sym_line_count(m) == 0;
}

/* Rows of two sequences at one address: the last read wins, as in GDB;
 * the earlier ranges are cut where a later-starting one begins. */
static int overlap(const struct sym_module *m)
{
    struct sym_location a, b, c;
    return sym_lookup(m, KADDR, &a) == 0 && sym_lookup(m, KADDR + 8, &b) == 0 &&
           sym_lookup(m, KADDR + 0x10, &c) == 0 && a.has_line && a.line == 7 && b.has_line &&
           b.line == 7 && c.has_line && c.line == 2 && sym_line_count(m) == 3;
}

static const char *write_dir;

static void check(const char *name, const uint8_t *img, size_t n, enum expect want, const char *why)
{
    struct result r = open_image(img, n);
    int ok;
    if (want == REFUSED)
        ok = r.rc == -EINVAL && r.m == NULL && r.err[0];
    else
        ok = r.rc == 0 && r.m &&
             (want == SOUND     ? sound(r.m)
              : want == OVERLAP ? overlap(r.m)
                                : kernels_only(r.m));
    tap_ok(ok, "%s: %s (%s: rc %d%s%s)", name,
           want == REFUSED   ? "refused"
           : want == SOUND   ? "opens whole"
           : want == OVERLAP ? "opens, the later sequence wins"
                             : "opens without lines",
           why, r.rc, r.rc ? ", " : "", r.rc ? r.err : "");
    if (r.rc == 0)
        sym_module_close(r.m);
    if (write_dir) {
        char path[1024];
        FILE *f = NULL;
        if (snprintf(path, sizeof(path), "%s/malformed-%s", write_dir, name) < (int)sizeof(path))
            f = fopen(path, "wb");
        if (!f || fwrite(img, 1, n, f) != n || fclose(f) != 0)
            tap_diag("cannot write %s", path);
    }
}

static uint8_t img[4096];

static size_t sound_image(void)
{
    static const struct dwarf_faults none = {0};
    return build(img, sizeof(img), &none);
}

static Elf64_Ehdr *ehdr(void)
{
    return (Elf64_Ehdr *)img;
}

static Elf64_Shdr *shdr(int i)
{
    return (Elf64_Shdr *)(img + ehdr()->e_shoff) + i;
}

/* The ELF container broken: each refused, as a module without its section
 * table or with a section outside the image has nothing trustworthy. */
static void elf_cases(void)
{
    size_t n = sound_image();
    check("sound", img, n, SOUND, "the hand-made module itself");
    check("empty", img, 0, REFUSED, "a zero-size image");
    check("ident-only", img, EI_NIDENT, REFUSED, "16 bytes of ELF identification");
    check("header-only", img, sizeof(Elf64_Ehdr), REFUSED, "an ELF header, no sections");
    check("cut-in-section-table", img, n - sizeof(Elf64_Shdr) / 2, REFUSED,
          "the image ends inside its section table");
    check("cut-in-debug-line", img, shdr(S_LINE)->sh_offset + 8, REFUSED,
          "the image ends inside .debug_line");

    n = sound_image();
    ehdr()->e_ident[EI_CLASS] = ELFCLASS32;
    check("class32", img, n, REFUSED, "ELFCLASS32 header on a 64-bit layout");
    n = sound_image();
    ehdr()->e_ident[EI_DATA] = ELFDATA2MSB;
    check("big-endian", img, n, REFUSED, "ELFDATA2MSB: the device is little-endian");
    n = sound_image();
    ehdr()->e_ident[EI_MAG1] = 'X';
    check("bad-magic", img, n, REFUSED, "not \\177ELF");
    /* symbols/ reads section names and DWARF, which do not depend on the
     * machine: the device says what the module is for, and sessions/ only
     * hands over module images the device delivered. */
    n = sound_image();
    ehdr()->e_machine = EM_X86_64;
    check("machine-x86-64", img, n, SOUND, "machine is not checked: layout and DWARF are the same");

    n = sound_image();
    ehdr()->e_shoff = n + 64;
    check("shoff-past-end", img, n, REFUSED, "section table offset past the end");
    n = sound_image();
    ehdr()->e_shnum = 0x7fff;
    check("shnum-huge", img, n, REFUSED, "32767 sections in a small image");
    n = sound_image();
    ehdr()->e_shentsize = 32;
    check("shentsize-wrong", img, n, REFUSED, "section headers of 32 bytes");
    n = sound_image();
    ehdr()->e_shstrndx = 77;
    check("shstrndx-out-of-range", img, n, REFUSED, "section names in section 77 of 6");
    n = sound_image();
    shdr(S_LINE)->sh_offset = n + 4096;
    check("section-offset-past-end", img, n, REFUSED, ".debug_line starts past the end");
    n = sound_image();
    shdr(S_INFO)->sh_size = n;
    check("section-size-past-end", img, n, REFUSED, ".debug_info runs past the end");
    n = sound_image();
    shdr(S_ABBREV)->sh_size = UINT64_MAX;
    check("section-size-wraps", img, n, REFUSED, "offset + size wraps around 2^64");
    /* An SHT_NULL entry is inactive and its other fields mean nothing, so
     * symbols/ hands libdwarf no bytes for it (fuzz_symbols found libdwarf
     * reading 2^61 bytes past the image through one); a .debug_info
     * without bytes is broken DWARF, which libdwarf names. */
    n = sound_image();
    shdr(S_INFO)->sh_type = SHT_NULL;
    shdr(S_INFO)->sh_offset = 1ull << 61;
    check("debug-info-sht-null-far", img, n, REFUSED, ".debug_info is SHT_NULL at 2^61");
    /* No .debug_* sections at all: a module built without -g. */
    n = sound_image();
    for (int i = S_ABBREV; i <= S_LINE; i++)
        shdr(i)->sh_name = shdr(S_SHSTR)->sh_name;
    check("no-dwarf", img, n, KERNELS_ONLY, "no .debug_* section: kernels, no lines");
    n = sound_image();
    shdr(S_TEXT)->sh_name = 0xffff;
    check("section-name-out-of-table", img, n, REFUSED, "a name offset past .shstrtab");
}

/* The DWARF broken. A header that lies about its size or version is
 * refused: libdwarf stops at it, and a module whose units cannot be read
 * cannot answer for any of its code. DIE references that go nowhere or
 * round in circles only lose a name: the unit is otherwise sound. */
static void dwarf_case(const char *name, struct dwarf_faults f, enum expect want, const char *why)
{
    size_t n = build(img, sizeof(img), &f);
    check(name, img, n, want, why);
}

static void dwarf_cases(void)
{
    dwarf_case("line-length-past-end", (struct dwarf_faults){.line_length = 0xfffff0}, REFUSED,
               ".debug_line unit_length beyond the section");
    dwarf_case("line-version-99", (struct dwarf_faults){.line_version = 99}, REFUSED,
               ".debug_line version 99");
    dwarf_case("line-file-huge", (struct dwarf_faults){.line_file = 1u << 28}, REFUSED,
               "a row in file 268435456 of 1 (found by fuzz_symbols: allocated 2 GiB)");
    dwarf_case("info-length-past-end", (struct dwarf_faults){.info_length = 0xfffff0}, REFUSED,
               ".debug_info unit_length beyond the section");
    dwarf_case("info-abbrev-offset-past-end", (struct dwarf_faults){.abbrev_offset = 0x1000},
               REFUSED, "abbreviations at 0x1000 of a 45-byte .debug_abbrev");
    dwarf_case("info-undefined-abbrev", (struct dwarf_faults){.bad_abbrev = 9}, REFUSED,
               "a DIE with abbreviation code 9, never defined");
    dwarf_case("origin-cycle", (struct dwarf_faults){.origin_self = 1}, SOUND,
               "DW_AT_abstract_origin of a DIE is itself: the name search stops, k stays");
    dwarf_case("origin-past-unit", (struct dwarf_faults){.origin_to = 0xfff0}, SOUND,
               "DW_AT_abstract_origin past the unit: no name for that range");
    dwarf_case("sibling-self", (struct dwarf_faults){.sibling_self = 1}, REFUSED,
               "DW_AT_sibling of a DIE is itself");
    dwarf_case("line-overlap", (struct dwarf_faults){.line_overlap = 1}, OVERLAP,
               "a second line sequence over the first one's bytes");
    dwarf_case("sibling-back", (struct dwarf_faults){.sibling_back = 1}, REFUSED,
               "DW_AT_sibling points back at an earlier DIE");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        write_dir = argv[2];
    tap_plan(20 + 11);
    elf_cases();
    dwarf_cases();
    return tap_failed_ ? 1 : 0;
}
