/* SPDX-License-Identifier: MIT */
/* Checks symbols/ on every ocloc fixture, placed as a debug zebin at a device
 * address above 4 GiB. The expected file:line of each pc is computed
 * independently of libdwarf: binutils' readelf decodes the raw fixture's line
 * table (section-relative addresses, since it cannot apply machine 205's
 * relocations) and the test adds the kernel address. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/debug_zebin.h"
#include "gtsim/zebin.h"
#include "symbols/symbols.h"
#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

#define BASE 0x800000000ULL

struct erow {
    char file[128];
    uint32_t line;
    uint64_t addr;
    bool end; /* readelf's "-" row: end of sequence */
};

struct etable {
    struct erow *rows;
    size_t n, cap;
};

/* Parses `readelf -W --debug-dump=decodedline`: rows are
 * "<file> <line|-> <address> [view] [x]" under a "File name" header. */
static int readelf_lines(const char *path, struct etable *t)
{
    char cmd[1024], buf[512];
    FILE *p;
    bool in_table = false;
    const char *readelf = getenv("READELF");

    snprintf(cmd, sizeof(cmd), "%s -W --debug-dump=decodedline '%s' 2>/dev/null",
             readelf ? readelf : "readelf", path);
    if (!(p = popen(cmd, "r")))
        return -1;
    while (fgets(buf, sizeof(buf), p)) {
        char file[128], line[32], addr[32];
        struct erow *r;
        if (strncmp(buf, "File name", 9) == 0) {
            in_table = true;
            continue;
        }
        if (!in_table || sscanf(buf, "%127s %31s %31s", file, line, addr) != 3)
            continue;
        if (strncmp(addr, "0x", 2) != 0 && strcmp(addr, "0") != 0)
            continue; /* a CU header or other prose */
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 64;
            t->rows = realloc(t->rows, t->cap * sizeof(*t->rows));
            if (!t->rows)
                break;
        }
        r = &t->rows[t->n++];
        snprintf(r->file, sizeof(r->file), "%s", file);
        r->end = strcmp(line, "-") == 0;
        r->line = r->end ? 0 : (uint32_t)strtoul(line, NULL, 10);
        r->addr = strtoull(addr, NULL, 16);
    }
    return pclose(p) == 0 && t->rows ? 0 : -1;
}

/* The row covering section offset off: row i covers [addr_i, addr_i+1) when
 * i is not the end of its sequence. NULL when no row covers off. */
static const struct erow *expect_at(const struct etable *t, uint64_t off)
{
    for (size_t i = 0; i + 1 < t->n; i++)
        if (!t->rows[i].end && t->rows[i].addr <= off && off < t->rows[i + 1].addr)
            return &t->rows[i];
    return NULL;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Checks sym_lookup at pc against readelf's row for pc - kaddr. */
static int check_pc(const struct sym_module *m, const struct etable *t, uint64_t kaddr,
                    const char *kernel, uint64_t pc, char *why, size_t whylen)
{
    struct sym_location loc;
    const struct erow *e = expect_at(t, pc - kaddr);
    char want[160];
    int rc = sym_lookup(m, pc, &loc);

    if (rc != 0) {
        snprintf(why, whylen, "pc %#" PRIx64 ": sym_lookup %d", pc, rc);
        return -1;
    }
    if (strcmp(loc.kernel, kernel) != 0 || loc.kernel_addr != kaddr) {
        snprintf(why, whylen, "pc %#" PRIx64 ": kernel %s@%#" PRIx64, pc, loc.kernel,
                 loc.kernel_addr);
        return -1;
    }
    if (!e != !loc.has_line) {
        snprintf(why, whylen, "pc %#" PRIx64 ": has_line %d, readelf %s", pc, loc.has_line,
                 e ? "has a row" : "has none");
        return -1;
    }
    if (!e)
        return 0;
    snprintf(want, sizeof(want), "tests/kernels/%s", e->file);
    if (loc.line != e->line || strcmp(base_name(loc.file), e->file) != 0 ||
        strcmp(loc.file, want) != 0) {
        snprintf(why, whylen, "pc %#" PRIx64 ": %s:%u, readelf %s:%u", pc, loc.file, loc.line,
                 e->file, e->line);
        return -1;
    }
    return 0;
}

/* Every FUNC symbol of the raw fixture (but IGC's _entry marker) must be
 * the function sym_lookup names in the middle of its range. */
static void check_functions(const char *fx, const uint8_t *raw, const struct sym_module *m,
                            const struct gtsim_zebin_kernel *k, uint64_t kaddr)
{
    Elf64_Ehdr eh;
    int checked = 0, bad = 0;
    memcpy(&eh, raw, sizeof(eh));
    for (size_t s = 1; s < eh.e_shnum; s++) {
        Elf64_Shdr sh, strs;
        memcpy(&sh, raw + eh.e_shoff + s * sizeof(sh), sizeof(sh));
        if (sh.sh_type != SHT_SYMTAB)
            continue;
        memcpy(&strs, raw + eh.e_shoff + sh.sh_link * sizeof(strs), sizeof(strs));
        for (size_t i = 1; i < sh.sh_size / sizeof(Elf64_Sym); i++) {
            Elf64_Sym y;
            const char *name;
            struct sym_location loc;
            uint64_t pc;
            memcpy(&y, raw + sh.sh_offset + i * sizeof(y), sizeof(y));
            name = (const char *)raw + strs.sh_offset + y.st_name;
            if (ELF64_ST_TYPE(y.st_info) != STT_FUNC || y.st_shndx != k->text_section ||
                y.st_size == 0 || strcmp(name, "_entry") == 0)
                continue;
            pc = kaddr + y.st_value + y.st_size / 2;
            checked++;
            if (sym_lookup(m, pc, &loc) != 0)
                loc.function = NULL;
            if (!loc.function || strcmp(loc.function, name) != 0) {
                bad++;
                tap_diag("%s: pc %#" PRIx64 " in %s, sym_lookup says %s", fx, pc, name,
                         loc.function ? loc.function : "(none)");
            }
        }
    }
    tap_ok(checked > 0 && bad == 0, "%s: %d function symbols named by sym_lookup", fx, checked);
}

static void check_fixture(const char *dir, const char *fx, uint64_t kaddr)
{
    char path[512], err[256] = "", why[256] = "";
    size_t size = 0, dsize = 0;
    void *raw = NULL, *dbg = NULL;
    struct gtsim_zebin *zb = NULL;
    struct sym_module *m = NULL;
    struct etable t = {0};
    struct sym_location loc;
    const struct gtsim_zebin_kernel *k;
    const struct sym_kernel *sk;
    size_t checked = 0, bad = 0;

    /* A fixture path longer than the buffer is a broken checkout. */
    if (snprintf(path, sizeof(path), "%s/%s", dir, fx) >= (int)sizeof(path))
        tap_bail("fixture path too long");
    raw = tests_slurp(path, &size);
    if (!tap_ok(raw && gtsim_zebin_parse(raw, size, &zb, err, sizeof(err)) == 0 &&
                    zb->nkernels == 1 &&
                    gtsim_debug_zebin_create(zb, &kaddr, &dbg, &dsize, err, sizeof(err)) == 0,
                "%s: debug zebin at %#" PRIx64 " %s", fx, kaddr, err))
        goto out;
    k = &zb->kernels[0];
    if (!tap_ok(sym_module_open(dbg, dsize, &m, err, sizeof(err)) == 0, "%s: sym_module_open %s",
                fx, err))
        goto out;
    sk = sym_kernel_at(m, 0);
    tap_ok(sym_kernel_count(m) == 1 && sk && strcmp(sk->name, k->name) == 0 && sk->addr == kaddr &&
               sk->size == k->text_size && sym_kernel_find(m, k->name) == sk &&
               sym_module_low(m) == kaddr && sym_module_high(m) == kaddr + k->text_size,
           "%s: kernel %s at [%#" PRIx64 ", %#" PRIx64 ")", fx, k->name, sym_module_low(m),
           sym_module_high(m));
    if (!tap_ok(readelf_lines(path, &t) == 0 && t.n > 2, "%s: readelf gives %zu line rows", fx,
                t.n))
        goto out;

    /* Each row's start, a byte inside its range, and every 8th byte of the
     * kernel (padding included, where neither side has a line). */
    for (size_t i = 0; i < t.n; i++) {
        uint64_t pcs[2] = {kaddr + t.rows[i].addr, kaddr + t.rows[i].addr + 3};
        for (size_t j = 0; j < 2; j++) {
            if (pcs[j] >= kaddr + k->text_size)
                continue;
            checked++;
            if (check_pc(m, &t, kaddr, k->name, pcs[j], why, sizeof(why)) != 0 && bad++ < 3)
                tap_diag("%s: %s", fx, why);
        }
    }
    for (uint64_t off = 0; off < k->text_size; off += 8) {
        checked++;
        if (check_pc(m, &t, kaddr, k->name, kaddr + off, why, sizeof(why)) != 0 && bad++ < 3)
            tap_diag("%s: %s", fx, why);
    }
    tap_ok(bad == 0, "%s: file:line of %zu pcs agree with readelf + %#" PRIx64, fx, checked, kaddr);
    if (sym_lookup(m, kaddr, &loc) != 0)
        loc.function = NULL;
    tap_ok(loc.function && strcmp(loc.function, k->name) == 0,
           "%s: the kernel's first instruction is in function %s", fx,
           loc.function ? loc.function : "(none)");
    check_functions(fx, raw, m, k, kaddr);
    tap_ok(sym_lookup(m, kaddr - 1, &loc) == -ENOENT &&
               sym_lookup(m, kaddr + k->text_size, &loc) == -ENOENT &&
               sym_lookup(m, 0, &loc) == -ENOENT && sym_lookup(m, UINT64_MAX, &loc) == -ENOENT,
           "%s: pcs outside the kernel give -ENOENT", fx);
out:
    sym_module_close(m);
    free(t.rows);
    free(dbg);
    gtsim_zebin_free(zb);
    free(raw);
}

/* Broken images must fail with a message, never crash (ASan runs this). */
static void check_corrupt(const char *dir)
{
    char path[512], err[256];
    size_t size = 0, dsize = 0;
    void *raw, *dbg = NULL;
    struct gtsim_zebin *zb = NULL;
    struct sym_module *m = NULL;
    uint64_t kaddr = BASE;
    uint8_t junk[256];
    int rc;

    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = (uint8_t)(i * 37 + 11);
    err[0] = '\0';
    tap_ok(sym_module_open(junk, sizeof(junk), &m, err, sizeof(err)) == -EINVAL && !m && err[0],
           "junk refused: %s", err);

    /* A fixture path longer than the buffer is a broken checkout. */
    if (snprintf(path, sizeof(path), "%s/loop_call-xehpc.elf", dir) >= (int)sizeof(path))
        tap_bail("fixture path too long");
    raw = tests_slurp(path, &size);
    if (!raw || gtsim_zebin_parse(raw, size, &zb, err, sizeof(err)) != 0 ||
        gtsim_debug_zebin_create(zb, &kaddr, &dbg, &dsize, err, sizeof(err)) != 0) {
        tap_ok(0, "corrupt images: fixture usable");
        goto out;
    }
    err[0] = '\0';
    rc = sym_module_open(dbg, dsize / 2, &m, err, sizeof(err));
    tap_ok(rc == -EINVAL && !m && err[0], "truncated image refused: %s", err);
    sym_module_close(m);
    m = NULL;

    /* Scribble over the DWARF (everything between the symbol table and
     * .ze_info holds .spv and the .debug_* sections). */
    {
        Elf64_Ehdr eh;
        memcpy(&eh, dbg, sizeof(eh));
        for (size_t s = 1; s < eh.e_shnum; s++) {
            Elf64_Shdr sh, st;
            memcpy(&sh, (uint8_t *)dbg + eh.e_shoff + s * sizeof(sh), sizeof(sh));
            memcpy(&st, (uint8_t *)dbg + eh.e_shoff + eh.e_shstrndx * sizeof(st), sizeof(st));
            if (strncmp((char *)dbg + st.sh_offset + sh.sh_name, ".debug_", 7) == 0)
                memset((uint8_t *)dbg + sh.sh_offset, 0xff, sh.sh_size);
        }
    }
    err[0] = '\0';
    rc = sym_module_open(dbg, dsize, &m, err, sizeof(err));
    tap_ok((rc == -EINVAL && !m && err[0]) || (rc == 0 && m),
           "DWARF overwritten with 0xff: rc %d, %s", rc, rc ? err : "opened");
    sym_module_close(m);
out:
    free(dbg);
    gtsim_zebin_free(zb);
    free(raw);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    const char *top = getenv("top_srcdir");
    char dir[512];
    char *names[64];
    size_t n = 0;
    DIR *d;
    struct dirent *de;

    snprintf(dir, sizeof(dir), "%s/tests/kernels/fixtures", top ? top : ".");
    d = opendir(dir);
    while (d && (de = readdir(d)) != NULL && n < 64) {
        size_t len = strlen(de->d_name);
        if (len > 4 && strcmp(de->d_name + len - 4, ".elf") == 0)
            names[n++] = strdup(de->d_name);
    }
    /* The plan comes from the listing: check_fixture makes 8 checks, check_corrupt 3. */
    tap_plan(2 + 8 * (int)n + 3);
    tap_ok(d != NULL, "open %s", dir);
    if (d)
        closedir(d);
    qsort(names, n, sizeof(names[0]), by_name);
    tap_ok(n >= 12, "%zu fixtures", n);
    for (size_t i = 0; i < n; i++) {
        check_fixture(dir, names[i], BASE + 0x40 + i * 0x100000);
        free(names[i]);
    }
    check_corrupt(dir);
    return tap_done();
}
