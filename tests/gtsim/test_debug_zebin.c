/* SPDX-License-Identifier: MIT */
/* Checks gtsim's debug zebin on every ocloc fixture: the kernel text sits at
 * the given device address (section, program header and symbols), and the
 * DWARF line table and frame entries, read with libdwarf, are the fixture's
 * section-relative ones shifted by exactly that address. libdwarf reads both
 * images through a memory-backed object interface without a relocation hook,
 * so it sees the bytes as they are (it refuses machine 205's relocations). */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "gtsim/debug_zebin.h"
#include "gtsim/zebin.h"
#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

/* ---- a libdwarf object interface over an ELF64 image in memory --------- */

struct memobj {
    const uint8_t *img;
    size_t size;
    Elf64_Ehdr eh;
};

static bool shdr_at(const struct memobj *o, size_t i, Elf64_Shdr *sh)
{
    if (i >= o->eh.e_shnum)
        return false;
    memcpy(sh, o->img + o->eh.e_shoff + i * sizeof(*sh), sizeof(*sh));
    return true;
}

static const char *name_of(const struct memobj *o, const Elf64_Shdr *sh)
{
    Elf64_Shdr st;
    if (!shdr_at(o, o->eh.e_shstrndx, &st) || sh->sh_name >= st.sh_size)
        return "";
    return (const char *)o->img + st.sh_offset + sh->sh_name;
}

static int mo_section_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *s, int *error)
{
    struct memobj *o = obj;
    Elf64_Shdr sh;
    if (!shdr_at(o, i, &sh))
        return DW_DLV_NO_ENTRY;
    s->addr = sh.sh_addr;
    s->type = sh.sh_type;
    s->size = sh.sh_size;
    s->name = name_of(o, &sh);
    s->link = sh.sh_link;
    s->info = sh.sh_info;
    s->entrysize = sh.sh_entsize;
    return DW_DLV_OK;
}

static Dwarf_Endianness mo_byte_order(void *obj)
{
    return DW_OBJECT_LSB;
}

static Dwarf_Small mo_length_size(void *obj)
{
    return 4;
}

static Dwarf_Small mo_pointer_size(void *obj)
{
    return 8;
}

static Dwarf_Unsigned mo_section_count(void *obj)
{
    return ((struct memobj *)obj)->eh.e_shnum;
}

static int mo_load_section(void *obj, Dwarf_Half i, Dwarf_Small **data, int *error)
{
    struct memobj *o = obj;
    Elf64_Shdr sh;
    if (!shdr_at(o, i, &sh))
        return DW_DLV_NO_ENTRY;
    /* libdwarf only writes section data when it relocates, which this
     * interface does not offer. */
    *data = (Dwarf_Small *)(uintptr_t)(o->img + sh.sh_offset);
    return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods mo_methods = {
    mo_section_info,  mo_byte_order,   mo_length_size, mo_pointer_size,
    mo_section_count, mo_load_section, NULL,
};

struct dwimg {
    struct memobj o;
    Dwarf_Obj_Access_Interface iface;
    Dwarf_Debug dbg;
};

static int dw_open(struct dwimg *w, const void *img, size_t size)
{
    Dwarf_Error e = NULL;
    memset(w, 0, sizeof(*w));
    w->o.img = img;
    w->o.size = size;
    memcpy(&w->o.eh, img, sizeof(w->o.eh));
    w->iface.object = &w->o;
    w->iface.methods = &mo_methods;
    if (dwarf_object_init_b(&w->iface, NULL, NULL, DW_GROUPNUMBER_ANY, &w->dbg, &e) != DW_DLV_OK) {
        tap_diag("dwarf_object_init_b: %s", e ? dwarf_errmsg(e) : "no DWARF");
        return -1;
    }
    return 0;
}

static void dw_close(struct dwimg *w)
{
    dwarf_object_finish(w->dbg, NULL);
}

struct row {
    uint64_t addr;
    uint64_t line, col;
    int stmt, end;
    char file[256];
};

struct module_dw {
    struct row *rows;
    size_t nrows;
    uint64_t cu_low, cu_high;
    uint64_t fde_low[16];
    size_t nfde;
};

static int read_lines(Dwarf_Debug dbg, Dwarf_Die cu, struct module_dw *m)
{
    Dwarf_Error e = NULL;
    Dwarf_Unsigned version;
    Dwarf_Small tables;
    Dwarf_Line_Context ctx;
    Dwarf_Line *lines;
    Dwarf_Signed n;

    if (dwarf_srclines_b(cu, &version, &tables, &ctx, &e) != DW_DLV_OK)
        return -1;
    if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &e) != DW_DLV_OK) {
        dwarf_srclines_dealloc_b(ctx);
        return -1;
    }
    m->rows = realloc(m->rows, (m->nrows + (size_t)n) * sizeof(*m->rows));
    for (Dwarf_Signed i = 0; i < n && m->rows; i++) {
        struct row *r = &m->rows[m->nrows++];
        Dwarf_Addr a = 0;
        Dwarf_Unsigned ln = 0, col = 0;
        Dwarf_Bool b = 0, end = 0;
        char *src = NULL;
        dwarf_lineaddr(lines[i], &a, &e);
        dwarf_lineno(lines[i], &ln, &e);
        dwarf_lineoff_b(lines[i], &col, &e);
        dwarf_linebeginstatement(lines[i], &b, &e);
        dwarf_lineendsequence(lines[i], &end, &e);
        r->addr = a;
        r->line = ln;
        r->col = col;
        r->stmt = b;
        r->end = end;
        r->file[0] = '\0';
        if (dwarf_linesrc(lines[i], &src, &e) == DW_DLV_OK) {
            snprintf(r->file, sizeof(r->file), "%s", src);
            dwarf_dealloc(dbg, src, DW_DLA_STRING);
        }
    }
    dwarf_srclines_dealloc_b(ctx);
    return m->rows ? 0 : -1;
}

static int read_dwarf(const void *img, size_t size, struct module_dw *m)
{
    struct dwimg w;
    Dwarf_Error e = NULL;
    Dwarf_Unsigned hlen, abbrev, typeoff, next;
    Dwarf_Half ver, asz, osz, xsz, ctype;
    Dwarf_Sig8 sig;
    Dwarf_Cie *cies = NULL;
    Dwarf_Fde *fdes = NULL;
    Dwarf_Signed ncie = 0, nfde = 0;
    int rc = 0;

    memset(m, 0, sizeof(*m));
    if (dw_open(&w, img, size) != 0)
        return -1;
    while (dwarf_next_cu_header_d(w.dbg, 1, &hlen, &ver, &abbrev, &asz, &osz, &xsz, &sig, &typeoff,
                                  &next, &ctype, &e) == DW_DLV_OK) {
        Dwarf_Die cu = NULL;
        Dwarf_Addr lo = 0, hi = 0;
        Dwarf_Half form = 0;
        enum Dwarf_Form_Class cls;
        if (dwarf_siblingof_b(w.dbg, NULL, 1, &cu, &e) != DW_DLV_OK) {
            rc = -1;
            break;
        }
        if (dwarf_lowpc(cu, &lo, &e) == DW_DLV_OK)
            m->cu_low = lo;
        if (dwarf_highpc_b(cu, &hi, &form, &cls, &e) == DW_DLV_OK)
            m->cu_high = cls == DW_FORM_CLASS_ADDRESS ? hi : lo + hi;
        if (read_lines(w.dbg, cu, m) != 0)
            rc = -1;
        dwarf_dealloc(w.dbg, cu, DW_DLA_DIE);
    }
    if (dwarf_get_fde_list(w.dbg, &cies, &ncie, &fdes, &nfde, &e) == DW_DLV_OK) {
        for (Dwarf_Signed i = 0; i < nfde && m->nfde < 16; i++) {
            Dwarf_Addr lo = 0;
            Dwarf_Unsigned len = 0;
            if (dwarf_get_fde_range(fdes[i], &lo, &len, NULL, NULL, NULL, NULL, NULL, &e) ==
                DW_DLV_OK)
                m->fde_low[m->nfde++] = lo;
        }
        dwarf_fde_cie_list_dealloc(w.dbg, cies, ncie, fdes, nfde);
    }
    dw_close(&w);
    return rc;
}

/* ---- the checks ------------------------------------------------------ */

static void check_symbols(const char *fx, const uint8_t *raw, const uint8_t *dbg,
                          const struct gtsim_zebin_kernel *k, uint64_t addr)
{
    struct memobj o = {.img = raw};
    int bad = 0, seen_kernel = 0;
    memcpy(&o.eh, raw, sizeof(o.eh));
    for (size_t s = 1; s < o.eh.e_shnum; s++) {
        Elf64_Shdr sh;
        shdr_at(&o, s, &sh);
        if (sh.sh_type != SHT_SYMTAB)
            continue;
        for (size_t i = 1; i < sh.sh_size / sizeof(Elf64_Sym); i++) {
            Elf64_Sym a, b;
            Elf64_Shdr strs;
            memcpy(&a, raw + sh.sh_offset + i * sizeof(a), sizeof(a));
            memcpy(&b, dbg + sh.sh_offset + i * sizeof(b), sizeof(b));
            if (a.st_shndx != k->text_section)
                continue;
            if (b.st_value != a.st_value + addr)
                bad++;
            shdr_at(&o, sh.sh_link, &strs);
            if (ELF64_ST_TYPE(a.st_info) == STT_FUNC &&
                strcmp((const char *)raw + strs.sh_offset + a.st_name, k->name) == 0)
                seen_kernel = b.st_value == addr;
        }
    }
    tap_ok(!bad && seen_kernel, "%s: symbols of .text.%s shifted by %#" PRIx64, fx, k->name, addr);
}

/* Is there a FUNC symbol at section offset off of section sec in raw? */
static bool has_func_at(const uint8_t *raw, size_t sec, uint64_t off)
{
    struct memobj o = {.img = raw};
    memcpy(&o.eh, raw, sizeof(o.eh));
    for (size_t s = 1; s < o.eh.e_shnum; s++) {
        Elf64_Shdr sh;
        shdr_at(&o, s, &sh);
        for (size_t i = 1; sh.sh_type == SHT_SYMTAB && i < sh.sh_size / sizeof(Elf64_Sym); i++) {
            Elf64_Sym y;
            memcpy(&y, raw + sh.sh_offset + i * sizeof(y), sizeof(y));
            if (y.st_shndx == sec && ELF64_ST_TYPE(y.st_info) == STT_FUNC && y.st_value == off)
                return true;
        }
    }
    return false;
}

static void check_fixture(const char *dir, const char *fx, uint64_t base)
{
    char path[512], err[256];
    size_t size = 0, dsize = 0;
    void *raw = NULL, *dbg = NULL;
    struct gtsim_zebin *zb = NULL;
    uint64_t *addr = NULL;
    struct module_dw rm = {0}, dm = {0};
    Elf64_Ehdr eh;

    /* A fixture path longer than the buffer is a broken checkout. */
    if (snprintf(path, sizeof(path), "%s/%s", dir, fx) >= (int)sizeof(path))
        tap_bail("fixture path too long");
    raw = tests_slurp(path, &size);
    if (!tap_ok(raw && gtsim_zebin_parse(raw, size, &zb, err, sizeof(err)) == 0,
                "%s: read and parse", fx))
        goto out;
    addr = calloc(zb->nkernels, sizeof(*addr));
    for (size_t i = 0; addr && i < zb->nkernels; i++)
        addr[i] = base + i * 0x10000;
    if (!tap_ok(addr && gtsim_debug_zebin_create(zb, addr, &dbg, &dsize, err, sizeof(err)) == 0,
                "%s: debug zebin created (%s)", fx, err))
        goto out;
    memcpy(&eh, dbg, sizeof(eh));
    tap_ok(memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_type == ET_EXEC &&
               eh.e_machine == GTSIM_EM_INTELGT && eh.e_phnum == zb->nkernels &&
               eh.e_phentsize == sizeof(Elf64_Phdr) &&
               eh.e_phoff + eh.e_phnum * sizeof(Elf64_Phdr) <= dsize,
           "%s: ELF header is ET_EXEC, machine 205, one program header per kernel", fx);
    for (size_t i = 0; i < zb->nkernels; i++) {
        const struct gtsim_zebin_kernel *k = &zb->kernels[i];
        struct memobj o = {.img = dbg};
        Elf64_Shdr sh;
        Elf64_Phdr ph;
        memcpy(&o.eh, dbg, sizeof(o.eh));
        shdr_at(&o, k->text_section, &sh);
        tap_ok(sh.sh_addr == addr[i] && sh.sh_offset == k->text_offset &&
                   sh.sh_size == k->text_size &&
                   memcmp((uint8_t *)dbg + sh.sh_offset, k->text, k->text_size) == 0,
               "%s: .text.%s at %#" PRIx64 ", code unchanged", fx, k->name, addr[i]);
        memcpy(&ph, (uint8_t *)dbg + eh.e_phoff + i * sizeof(ph), sizeof(ph));
        tap_ok(ph.p_type == PT_LOAD && ph.p_vaddr == addr[i] && ph.p_offset == k->text_offset &&
                   ph.p_filesz == k->text_size && ph.p_memsz == k->text_size,
               "%s: PT_LOAD for %s at %#" PRIx64, fx, k->name, addr[i]);
        check_symbols(fx, raw, dbg, k, addr[i]);
    }

    /* One kernel per fixture (see tests/kernels/README.md), so one shift. */
    if (!tap_ok(read_dwarf(raw, size, &rm) == 0 && read_dwarf(dbg, dsize, &dm) == 0,
                "%s: libdwarf reads both images", fx))
        goto out;
    {
        size_t bad = 0;
        uint64_t a0 = addr[0];
        if (tap_ok(rm.nrows > 2 && rm.nrows == dm.nrows, "%s: %zu line rows in both", fx,
                   rm.nrows)) {
            for (size_t i = 0; i < rm.nrows; i++) {
                const struct row *r = &rm.rows[i], *d = &dm.rows[i];
                if (d->addr != r->addr + a0 || d->line != r->line || d->col != r->col ||
                    d->stmt != r->stmt || d->end != r->end || strcmp(d->file, r->file) != 0) {
                    if (bad++ < 3)
                        tap_diag("row %zu: raw %#" PRIx64 " %s:%" PRIu64 " debug %#" PRIx64
                                 " %s:%" PRIu64,
                                 i, r->addr, r->file, r->line, d->addr, d->file, d->line);
                }
            }
            tap_ok(bad == 0, "%s: every line row moved by exactly %#" PRIx64, fx, a0);
            tap_ok(rm.rows[0].addr == 0 && dm.rows[rm.nrows - 1].end &&
                       dm.rows[dm.nrows - 1].addr <= a0 + zb->kernels[0].text_size,
                   "%s: raw rows start at 0, debug rows end inside the kernel", fx);
        }
        tap_ok(rm.cu_low == 0 && dm.cu_low == a0 && dm.cu_high > a0 &&
                   dm.cu_high <= a0 + zb->kernels[0].text_size,
               "%s: CU low_pc %#" PRIx64 ", high_pc %#" PRIx64 " inside the kernel", fx, dm.cu_low,
               dm.cu_high);
        /* The raw FDEs all say 0 (their offsets are only relocation
         * addends), so the debug FDEs are checked against the functions'
         * symbols: each frame starts where a function starts. */
        if (rm.nfde == 0) {
            /* IGC writes a .debug_frame only for a kernel that makes a
             * real stack call (loop_call's); inlined helpers need none. */
            char why[160];
            snprintf(why, sizeof(why), "%s: no .debug_frame (IGC writes one only for a stack call)",
                     fx);
            tap_skip(why);
        } else {
            bad = rm.nfde != dm.nfde;
            for (size_t i = 0; !bad && i < dm.nfde; i++) {
                bad += rm.fde_low[i] != 0;
                bad += !has_func_at(raw, zb->kernels[0].text_section, dm.fde_low[i] - a0);
                for (size_t j = 0; j < i; j++)
                    bad += dm.fde_low[j] == dm.fde_low[i];
            }
            tap_ok(bad == 0, "%s: %zu FDEs start at distinct functions, moved by %#" PRIx64, fx,
                   dm.nfde, a0);
        }
    }
out:
    free(rm.rows);
    free(dm.rows);
    free(dbg);
    free(addr);
    gtsim_zebin_free(zb);
    free(raw);
}

/* A relocation that patches beyond its target must be refused, not written. */
static void check_corrupt(const char *dir)
{
    char path[512], err[256] = "";
    size_t size = 0, dsize = 0;
    void *raw, *dbg = NULL;
    struct gtsim_zebin *zb = NULL;
    uint64_t addr = 0x800000000;
    struct memobj o;
    bool done = false;

    /* A fixture path longer than the buffer is a broken checkout. */
    if (snprintf(path, sizeof(path), "%s/vadd-xehpc.elf", dir) >= (int)sizeof(path))
        tap_bail("fixture path too long");
    raw = tests_slurp(path, &size);
    if (!raw || gtsim_zebin_parse(raw, size, &zb, err, sizeof(err)) != 0) {
        tap_ok(0, "corrupt relocation: fixture readable");
        free(raw);
        return;
    }
    o.img = zb->image;
    memcpy(&o.eh, zb->image, sizeof(o.eh));
    for (size_t s = 1; s < o.eh.e_shnum && !done; s++) {
        Elf64_Shdr sh;
        Elf64_Rela r;
        shdr_at(&o, s, &sh);
        if (sh.sh_type != SHT_RELA || sh.sh_size < sizeof(r))
            continue;
        memcpy(&r, zb->image + sh.sh_offset, sizeof(r));
        r.r_offset = 0xfffffff0;
        memcpy(zb->image + sh.sh_offset, &r, sizeof(r));
        done = true;
    }
    tap_ok(done && gtsim_debug_zebin_create(zb, &addr, &dbg, &dsize, err, sizeof(err)) == -EINVAL &&
               dbg == NULL && err[0] != '\0',
           "corrupt relocation refused: %s", err);
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
    /* The plan comes from the listing: check_fixture makes 9 checks and 3 per kernel, one kernel
     * per fixture (tests/kernels/README.md); check_corrupt 1. */
    tap_plan(2 + 12 * (int)n + 1);
    tap_ok(d != NULL, "open %s", dir);
    if (d)
        closedir(d);
    qsort(names, n, sizeof(names[0]), by_name);
    tap_ok(n >= 12, "%zu fixtures", n);
    for (size_t i = 0; i < n; i++) {
        /* Above 4 GiB, so a relocation cut to 32 bits would show. */
        check_fixture(dir, names[i], 0x800000000ULL + 0x1040 + i * 0x200000);
        free(names[i]);
    }
    check_corrupt(dir);
    return tap_done();
}
