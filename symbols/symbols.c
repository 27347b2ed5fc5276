/* SPDX-License-Identifier: MIT */
/* Reads a GPU module's ELF with libelf (kernels, function symbols) and its
 * DWARF with libdwarf, and builds sorted arrays for address lookups.
 *
 * libdwarf sees the image through a memory-backed object interface without a
 * relocation hook. Both libdwarf ELF readers (dwarf_init_b on an fd and
 * dwarf_elf_init_b) insist on applying every .rela.debug_* section and fail
 * on machine 205's types (DW_DLE_RELOC_SECTION_RELOC_TARGET_SIZE_UNKNOWN),
 * and the driver leaves those sections in its debug zebin even though it has
 * already applied them. Reading the bytes as they are is exactly right for a
 * debug zebin, and gives section-relative addresses for a raw zebin. */
#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "symbols/symbols.h"

struct line_range {
    uint64_t lo, hi;
    const char *file;
    uint32_t line, column;
    bool is_stmt;
    size_t order; /* insertion order: makes the sort deterministic */
};

struct func_range {
    uint64_t lo, hi;
    const char *name;
    unsigned depth;
    bool inlined;
    size_t order;
};

struct elf_func {
    uint64_t lo, hi;
    const char *name;
};

struct sym_module {
    uint8_t *img;
    size_t size;
    struct sym_kernel *kernels; /* sorted by addr */
    size_t nkernels;
    struct line_range *lines; /* sorted by lo, disjoint */
    size_t nlines;
    struct func_range *funcs; /* sorted by lo; may nest */
    uint64_t *funcs_maxhi;    /* max hi of funcs[0..i]: bounds the backward scan */
    size_t nfuncs;
    struct elf_func *efuncs; /* ELF STT_FUNC symbols, sorted by lo */
    size_t nefuncs;
    char **strings; /* every string handed out, owned here */
    size_t nstrings, cap_strings;
};

/* Everything one open needs besides the module. */
struct builder {
    struct sym_module *m;
    Elf *elf;
    Dwarf_Debug dbg;
    char *err;
    size_t errlen;
    size_t cap_lines, cap_funcs;
};

static int set_err(struct builder *b, int rc, const char *fmt, ...)
{
    va_list ap;
    if (b->errlen == 0)
        return rc;
    va_start(ap, fmt);
    vsnprintf(b->err, b->errlen, fmt, ap);
    va_end(ap);
    return rc;
}

/* Takes ownership of s (malloc'd); returns it, or NULL if out of memory. */
static char *keep(struct sym_module *m, char *s)
{
    if (!s)
        return NULL;
    if (m->nstrings == m->cap_strings) {
        size_t cap = m->cap_strings ? m->cap_strings * 2 : 32;
        char **n = realloc(m->strings, cap * sizeof(*n));
        if (!n) {
            free(s);
            return NULL;
        }
        m->strings = n;
        m->cap_strings = cap;
    }
    m->strings[m->nstrings++] = s;
    return s;
}

static void *grow(void *arr, size_t *cap, size_t n, size_t elem)
{
    void *p;
    size_t c;
    if (n < *cap)
        return arr;
    c = *cap ? *cap * 2 : 64;
    p = realloc(arr, c * elem);
    if (p)
        *cap = c;
    return p;
}

/* ---- ELF: kernels and function symbols -------------------------------- */

static int cmp_kernel(const void *a, const void *b)
{
    const struct sym_kernel *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_efunc(const void *a, const void *b)
{
    const struct elf_func *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int read_symtab(struct builder *b, Elf_Scn *scn, const GElf_Shdr *sh)
{
    struct sym_module *m = b->m;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t n, cap = 0;
    if (!data || sh->sh_entsize == 0)
        return set_err(b, -EINVAL, "unreadable symbol table: %s", elf_errmsg(-1));
    n = sh->sh_size / sh->sh_entsize;
    for (size_t i = 1; i < n; i++) {
        GElf_Sym s;
        const char *name;
        struct elf_func *f;
        if (!gelf_getsym(data, (int)i, &s))
            return set_err(b, -EINVAL, "bad symbol %zu: %s", i, elf_errmsg(-1));
        if (GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_size == 0)
            continue;
        name = elf_strptr(b->elf, sh->sh_link, s.st_name);
        /* IGC's "_entry" marks where a kernel's threads really start (after
         * the per-thread payload load); it is not a function of its own. */
        if (!name || strcmp(name, "_entry") == 0)
            continue;
        if (!(f = grow(m->efuncs, &cap, m->nefuncs, sizeof(*f))))
            return -ENOMEM;
        m->efuncs = f;
        f += m->nefuncs;
        f->lo = s.st_value;
        f->hi = s.st_value + s.st_size;
        if (!(f->name = keep(m, strdup(name))))
            return -ENOMEM;
        m->nefuncs++;
    }
    return 0;
}

static int read_elf(struct builder *b)
{
    struct sym_module *m = b->m;
    Elf_Scn *scn = NULL;
    size_t shstrndx, cap = 0;
    GElf_Ehdr eh;

    if (elf_version(EV_CURRENT) == EV_NONE)
        return set_err(b, -EINVAL, "libelf is out of date: %s", elf_errmsg(-1));
    b->elf = elf_memory((char *)m->img, m->size);
    if (!b->elf || elf_kind(b->elf) != ELF_K_ELF || !gelf_getehdr(b->elf, &eh) ||
        gelf_getclass(b->elf) != ELFCLASS64)
        return set_err(b, -EINVAL, "not an ELF64 image: %s", elf_errmsg(-1));
    /* libelf quietly shows no sections when the table lies beyond the end
     * (a truncated read of a module), which would look like an empty module. */
    if (eh.e_shnum == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > m->size ||
        (m->size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
        return set_err(b, -EINVAL,
                       "section header table (%u entries at %#llx) is not inside the "
                       "%zu-byte image",
                       eh.e_shnum, (unsigned long long)eh.e_shoff, m->size);
    if (elf_getshdrstrndx(b->elf, &shstrndx) != 0)
        return set_err(b, -EINVAL, "no section name table: %s", elf_errmsg(-1));
    while ((scn = elf_nextscn(b->elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;
        struct sym_kernel *k;
        int rc;
        if (!gelf_getshdr(scn, &sh))
            return set_err(b, -EINVAL, "bad section header: %s", elf_errmsg(-1));
        if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
            (sh.sh_offset > m->size || sh.sh_size > m->size - sh.sh_offset))
            return set_err(b, -EINVAL, "section %zu lies outside the %zu-byte image",
                           elf_ndxscn(scn), m->size);
        if (sh.sh_type == SHT_SYMTAB && (rc = read_symtab(b, scn, &sh)) != 0)
            return rc;
        name = elf_strptr(b->elf, shstrndx, sh.sh_name);
        if (!name)
            return set_err(b, -EINVAL, "bad section name: %s", elf_errmsg(-1));
        /* Every .text.<kernel> is a kernel; IGC's holder of non-kernel
         * functions (-cl-opt-disable, several kernels) is not. */
        if (strncmp(name, ".text.", 6) != 0 || name[6] == '\0' ||
            strcmp(name, ".text.Intel_Symbol_Table_Void_Program") == 0)
            continue;
        if (!(k = grow(m->kernels, &cap, m->nkernels, sizeof(*k))))
            return -ENOMEM;
        m->kernels = k;
        k += m->nkernels;
        k->addr = sh.sh_addr;
        k->size = sh.sh_size;
        if (!(k->name = keep(m, strdup(name + 6))))
            return -ENOMEM;
        m->nkernels++;
    }
    if (m->nkernels)
        qsort(m->kernels, m->nkernels, sizeof(*m->kernels), cmp_kernel);
    if (m->nefuncs)
        qsort(m->efuncs, m->nefuncs, sizeof(*m->efuncs), cmp_efunc);
    return 0;
}

/* ---- libdwarf over the image in memory -------------------------------- */

struct memobj {
    Elf *elf;
    struct sym_module *m;
    size_t shnum, shstrndx;
};

static int mo_section_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *s, int *error)
{
    struct memobj *o = obj;
    Elf_Scn *scn = elf_getscn(o->elf, i);
    GElf_Shdr sh;
    const char *name;
    if (!scn || !gelf_getshdr(scn, &sh))
        return DW_DLV_NO_ENTRY;
    name = elf_strptr(o->elf, o->shstrndx, sh.sh_name);
    s->addr = sh.sh_addr;
    s->type = sh.sh_type;
    s->size = sh.sh_type == SHT_NOBITS ? 0 : sh.sh_size;
    s->name = name ? name : "";
    s->link = sh.sh_link;
    s->info = sh.sh_info;
    s->entrysize = sh.sh_entsize;
    return DW_DLV_OK;
}

static Dwarf_Endianness mo_byte_order(void *obj)
{
    return DW_OBJECT_LSB; /* checked in sym_module_open */
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
    return ((struct memobj *)obj)->shnum;
}

static int mo_load_section(void *obj, Dwarf_Half i, Dwarf_Small **data, int *error)
{
    struct memobj *o = obj;
    Elf_Scn *scn = elf_getscn(o->elf, i);
    GElf_Shdr sh;
    if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
        return DW_DLV_NO_ENTRY;
    /* Bounds were checked in read_elf. The module's private copy: libdwarf
     * would only write to it to relocate, which this interface never asks. */
    *data = o->m->img + sh.sh_offset;
    return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods mo_methods = {
    mo_section_info,  mo_byte_order,   mo_length_size, mo_pointer_size,
    mo_section_count, mo_load_section, NULL,
};

static int dw_fail(struct builder *b, Dwarf_Error e, const char *what)
{
    set_err(b, -EINVAL, "%s: %s", what, e ? dwarf_errmsg(e) : "failed");
    if (e)
        dwarf_dealloc(b->dbg, e, DW_DLA_ERROR);
    return -EINVAL;
}

/* The DIE's own string attribute, or NULL. */
static char *die_string(struct builder *b, Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Attribute a;
    Dwarf_Error e = NULL;
    char *s = NULL, *copy = NULL;
    int rc = dwarf_attr(die, at, &a, &e);
    if (rc == DW_DLV_ERROR)
        dwarf_dealloc(b->dbg, e, DW_DLA_ERROR);
    if (rc != DW_DLV_OK)
        return NULL;
    rc = dwarf_formstring(a, &s, &e);
    if (rc == DW_DLV_OK)
        copy = strdup(s); /* s points into .debug_str or .debug_info */
    else if (rc == DW_DLV_ERROR)
        dwarf_dealloc(b->dbg, e, DW_DLA_ERROR);
    dwarf_dealloc(b->dbg, a, DW_DLA_ATTR);
    return copy;
}

/* A file name from the line table made absolute with the CU's comp_dir. */
static const char *full_path(struct builder *b, const char *name, const char *comp_dir)
{
    char *p;
    if (name[0] == '/' || !comp_dir || !comp_dir[0])
        return keep(b->m, strdup(name));
    if (asprintf(&p, "%s%s%s", comp_dir, comp_dir[strlen(comp_dir) - 1] == '/' ? "" : "/", name) <
        0)
        return NULL;
    return keep(b->m, p);
}

static int read_lines(struct builder *b, Dwarf_Die cu)
{
    struct sym_module *m = b->m;
    Dwarf_Error e = NULL;
    Dwarf_Unsigned version;
    Dwarf_Small tables;
    Dwarf_Line_Context ctx;
    Dwarf_Line *lines;
    Dwarf_Signed n;
    const char **files = NULL; /* by file number, filled on first use */
    size_t nfiles = 0;
    char *comp_dir;
    int rc = dwarf_srclines_b(cu, &version, &tables, &ctx, &e);

    if (rc == DW_DLV_NO_ENTRY)
        return 0;
    if (rc == DW_DLV_ERROR)
        return dw_fail(b, e, "line table");
    if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &e) != DW_DLV_OK) {
        dwarf_srclines_dealloc_b(ctx);
        return dw_fail(b, e, "line table rows");
    }
    comp_dir = die_string(b, cu, DW_AT_comp_dir);
    rc = 0;
    /* Each row covers [its address, the next row's address) within its
     * sequence; of rows sharing an address the last one wins, as in GDB. */
    for (Dwarf_Signed i = 0; i + 1 < n && rc == 0; i++) {
        Dwarf_Addr lo = 0, hi = 0;
        Dwarf_Unsigned ln = 0, col = 0, fno = 0;
        Dwarf_Bool end = 0, stmt = 0;
        struct line_range *r;

        if (dwarf_lineendsequence(lines[i], &end, &e) != DW_DLV_OK ||
            dwarf_lineaddr(lines[i], &lo, &e) != DW_DLV_OK ||
            dwarf_lineaddr(lines[i + 1], &hi, &e) != DW_DLV_OK) {
            rc = dw_fail(b, e, "line row");
            break;
        }
        if (end || hi <= lo)
            continue;
        if (dwarf_lineno(lines[i], &ln, &e) != DW_DLV_OK ||
            dwarf_lineoff_b(lines[i], &col, &e) != DW_DLV_OK ||
            dwarf_linebeginstatement(lines[i], &stmt, &e) != DW_DLV_OK ||
            dwarf_line_srcfileno(lines[i], &fno, &e) != DW_DLV_OK) {
            rc = dw_fail(b, e, "line row");
            break;
        }
        if (fno >= nfiles) {
            size_t nn = (size_t)fno + 1;
            const char **f = realloc(files, nn * sizeof(*f));
            if (!f || nn < nfiles) {
                rc = -ENOMEM;
                break;
            }
            memset(f + nfiles, 0, (nn - nfiles) * sizeof(*f));
            files = f;
            nfiles = nn;
        }
        if (!files[fno]) {
            char *src = NULL;
            if (dwarf_linesrc(lines[i], &src, &e) != DW_DLV_OK) {
                rc = dw_fail(b, e, "line file name");
                break;
            }
            files[fno] = full_path(b, src, comp_dir);
            dwarf_dealloc(b->dbg, src, DW_DLA_STRING);
            if (!files[fno]) {
                rc = -ENOMEM;
                break;
            }
        }
        if (!(r = grow(m->lines, &b->cap_lines, m->nlines, sizeof(*r)))) {
            rc = -ENOMEM;
            break;
        }
        m->lines = r;
        r += m->nlines;
        r->lo = lo;
        r->hi = hi;
        r->file = files[fno];
        r->line = ln > UINT32_MAX ? UINT32_MAX : (uint32_t)ln;
        r->column = col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
        r->is_stmt = stmt != 0;
        r->order = m->nlines++;
    }
    free(files);
    free(comp_dir);
    dwarf_srclines_dealloc_b(ctx);
    return rc;
}

static int add_func(struct builder *b, uint64_t lo, uint64_t hi, const char *name, unsigned depth,
                    bool inlined)
{
    struct sym_module *m = b->m;
    struct func_range *f;
    if (hi <= lo)
        return 0;
    if (!(f = grow(m->funcs, &b->cap_funcs, m->nfuncs, sizeof(*f))))
        return -ENOMEM;
    m->funcs = f;
    f += m->nfuncs;
    f->lo = lo;
    f->hi = hi;
    f->name = name;
    f->depth = depth;
    f->inlined = inlined;
    f->order = m->nfuncs++;
    return 0;
}

/* The name of a subprogram or inlined subroutine, following
 * DW_AT_abstract_origin / DW_AT_specification (inlined copies and
 * out-of-line definitions carry no DW_AT_name of their own). */
static const char *func_name(struct builder *b, Dwarf_Die die, int hops)
{
    static const Dwarf_Half refs[] = {DW_AT_abstract_origin, DW_AT_specification};
    char *s = die_string(b, die, DW_AT_name);
    if (s)
        return keep(b->m, s);
    for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]) && hops < 8; i++) {
        Dwarf_Attribute a;
        Dwarf_Off off;
        Dwarf_Die target;
        Dwarf_Error e = NULL;
        const char *name;
        if (dwarf_attr(die, refs[i], &a, &e) != DW_DLV_OK)
            continue;
        if (dwarf_global_formref(a, &off, &e) != DW_DLV_OK ||
            dwarf_offdie_b(b->dbg, off, 1, &target, &e) != DW_DLV_OK) {
            dwarf_dealloc(b->dbg, a, DW_DLA_ATTR);
            continue;
        }
        dwarf_dealloc(b->dbg, a, DW_DLA_ATTR);
        name = func_name(b, target, hops + 1);
        dwarf_dealloc(b->dbg, target, DW_DLA_DIE);
        if (name)
            return name;
    }
    return NULL;
}

/* Adds the address ranges of a function DIE: low_pc/high_pc, or the DWARF 4
 * .debug_ranges list of DW_AT_ranges (relative to the CU's base address). */
static int func_ranges(struct builder *b, Dwarf_Die die, uint64_t cu_base, const char *name,
                       unsigned depth, bool inlined)
{
    Dwarf_Addr lo = 0, hi = 0;
    Dwarf_Half form = 0;
    enum Dwarf_Form_Class cls;
    Dwarf_Error e = NULL;
    Dwarf_Attribute a;
    Dwarf_Off off = 0;
    Dwarf_Ranges *rl = NULL;
    Dwarf_Signed n = 0;
    Dwarf_Unsigned bytes = 0;
    uint64_t base = cu_base;
    int rc = 0;

    if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK) {
        if (dwarf_highpc_b(die, &hi, &form, &cls, &e) != DW_DLV_OK) {
            if (e)
                dwarf_dealloc(b->dbg, e, DW_DLA_ERROR);
            return 0;
        }
        return add_func(b, lo, cls == DW_FORM_CLASS_ADDRESS ? hi : lo + hi, name, depth, inlined);
    }
    if (e) {
        dwarf_dealloc(b->dbg, e, DW_DLA_ERROR);
        e = NULL;
    }
    if (dwarf_attr(die, DW_AT_ranges, &a, &e) != DW_DLV_OK)
        return 0;
    if (dwarf_global_formref(a, &off, &e) != DW_DLV_OK) {
        dwarf_dealloc(b->dbg, a, DW_DLA_ATTR);
        return 0;
    }
    dwarf_dealloc(b->dbg, a, DW_DLA_ATTR);
    if (dwarf_get_ranges_a(b->dbg, off, die, &rl, &n, &bytes, &e) != DW_DLV_OK)
        return 0; /* DWARF 5 rnglists are not read: IGC emits DWARF 4 */
    for (Dwarf_Signed i = 0; i < n && rc == 0; i++) {
        if (rl[i].dwr_type == DW_RANGES_END)
            break;
        if (rl[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
            base = rl[i].dwr_addr2;
        else
            rc = add_func(b, base + rl[i].dwr_addr1, base + rl[i].dwr_addr2, name, depth, inlined);
    }
    dwarf_ranges_dealloc(b->dbg, rl, n);
    return rc;
}

/* Walks die and its siblings (all owned by the caller's handoff: each is
 * released here) and their children, collecting function ranges. */
static int walk(struct builder *b, Dwarf_Die die, uint64_t cu_base, unsigned depth)
{
    Dwarf_Error e = NULL;
    int rc = 0;

    while (die) {
        Dwarf_Half tag = 0;
        Dwarf_Die child = NULL, next = NULL;
        int r;
        if (depth > 64)
            rc = set_err(b, -EINVAL, "DWARF DIE tree deeper than 64 levels");
        else if (dwarf_tag(die, &tag, &e) != DW_DLV_OK)
            rc = dw_fail(b, e, "DIE tag");
        if (rc == 0 && (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine))
            rc = func_ranges(b, die, cu_base, func_name(b, die, 0), depth,
                             tag == DW_TAG_inlined_subroutine);
        if (rc == 0 && (r = dwarf_child(die, &child, &e)) == DW_DLV_OK)
            rc = walk(b, child, cu_base, depth + 1);
        else if (rc == 0 && r == DW_DLV_ERROR)
            rc = dw_fail(b, e, "DIE child");
        if (rc == 0 && dwarf_siblingof_b(b->dbg, die, 1, &next, &e) == DW_DLV_ERROR)
            rc = dw_fail(b, e, "DIE sibling");
        dwarf_dealloc(b->dbg, die, DW_DLA_DIE);
        die = rc == 0 ? next : NULL;
    }
    return rc;
}

static int read_dwarf(struct builder *b)
{
    struct memobj o = {.elf = b->elf, .m = b->m};
    Dwarf_Obj_Access_Interface iface = {.object = &o, .methods = &mo_methods};
    Dwarf_Error e = NULL;
    int rc;

    if (elf_getshdrnum(b->elf, &o.shnum) != 0 || elf_getshdrstrndx(b->elf, &o.shstrndx) != 0)
        return set_err(b, -EINVAL, "section table: %s", elf_errmsg(-1));
    rc = dwarf_object_init_b(&iface, NULL, NULL, DW_GROUPNUMBER_ANY, &b->dbg, &e);
    if (rc == DW_DLV_NO_ENTRY)
        return 0; /* no DWARF: kernels only */
    if (rc != DW_DLV_OK) {
        set_err(b, -EINVAL, "DWARF: %s", e ? dwarf_errmsg(e) : "cannot be read");
        if (e)
            dwarf_dealloc(NULL, e, DW_DLA_ERROR);
        return -EINVAL;
    }
    rc = 0;
    for (;;) {
        Dwarf_Unsigned hlen, abbrev, typeoff, next;
        Dwarf_Half ver, asz, osz, xsz, ctype;
        Dwarf_Sig8 sig;
        Dwarf_Die cu = NULL;
        Dwarf_Addr base = 0;
        int r = dwarf_next_cu_header_d(b->dbg, 1, &hlen, &ver, &abbrev, &asz, &osz, &xsz, &sig,
                                       &typeoff, &next, &ctype, &e);
        if (r == DW_DLV_NO_ENTRY)
            break;
        if (r == DW_DLV_ERROR) {
            rc = dw_fail(b, e, "compilation unit header");
            break;
        }
        if (dwarf_siblingof_b(b->dbg, NULL, 1, &cu, &e) != DW_DLV_OK) {
            rc = dw_fail(b, e, "compilation unit DIE");
            break;
        }
        if (dwarf_lowpc(cu, &base, &e) == DW_DLV_ERROR) {
            dwarf_dealloc(b->dbg, e, DW_DLA_ERROR);
            e = NULL;
        }
        rc = read_lines(b, cu);
        if (rc == 0) {
            Dwarf_Die child = NULL;
            int c = dwarf_child(cu, &child, &e);
            if (c == DW_DLV_OK)
                rc = walk(b, child, base, 1);
            else if (c == DW_DLV_ERROR)
                rc = dw_fail(b, e, "compilation unit children");
        }
        dwarf_dealloc(b->dbg, cu, DW_DLA_DIE);
        if (rc != 0)
            break;
    }
    /* dwarf_object_finish does not touch iface afterwards; o and iface
     * must only outlive the Dwarf_Debug, which ends here. */
    dwarf_object_finish(b->dbg, NULL);
    b->dbg = NULL;
    return rc;
}

/* ---- index ------------------------------------------------------------ */

static int cmp_line(const void *a, const void *b)
{
    const struct line_range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_func(const void *a, const void *b)
{
    const struct func_range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int build_index(struct sym_module *m)
{
    if (m->nlines)
        qsort(m->lines, m->nlines, sizeof(*m->lines), cmp_line);
    /* Two sequences claiming the same bytes would be malformed DWARF; the
     * earlier range is cut so that the ranges stay disjoint and the binary
     * search stays exact. */
    for (size_t i = 0; i + 1 < m->nlines; i++)
        if (m->lines[i].hi > m->lines[i + 1].lo)
            m->lines[i].hi = m->lines[i + 1].lo;
    if (m->nfuncs) {
        qsort(m->funcs, m->nfuncs, sizeof(*m->funcs), cmp_func);
        m->funcs_maxhi = malloc(m->nfuncs * sizeof(*m->funcs_maxhi));
        if (!m->funcs_maxhi)
            return -ENOMEM;
        for (size_t i = 0; i < m->nfuncs; i++)
            m->funcs_maxhi[i] = i && m->funcs_maxhi[i - 1] > m->funcs[i].hi ? m->funcs_maxhi[i - 1]
                                                                            : m->funcs[i].hi;
    }
    return 0;
}

/* Debian 12's libdwarf (20210528) is not safe to use from two threads at
 * once, even on separate Dwarf_Debug objects: with one event pump per
 * device, two modules parsed together sometimes got each other's line-table
 * file names (tests/unit/test_symbols_threads reproduces it). Parsing is
 * therefore serialised process-wide. It runs once per module load, so the
 * lock costs nothing that matters; lookups on a finished sym_module take no
 * lock. This is the one piece of global mutable state in symbols/. */
static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;

int sym_module_open(const void *elf, size_t size, struct sym_module **out, char *err, size_t errlen)
{
    struct builder b = {.err = err, .errlen = errlen};
    struct sym_module *m;
    int rc;

    *out = NULL;
    if (errlen)
        err[0] = '\0';
    if (!elf || size < EI_NIDENT || memcmp(elf, ELFMAG, SELFMAG) != 0)
        return set_err(&b, -EINVAL, "not an ELF image");
    if (((const uint8_t *)elf)[EI_DATA] != ELFDATA2LSB)
        return set_err(&b, -EINVAL, "not a little-endian ELF image");
    m = calloc(1, sizeof(*m));
    if (!m || !(m->img = malloc(size))) {
        free(m);
        return -ENOMEM;
    }
    memcpy(m->img, elf, size);
    m->size = size;
    b.m = m;
    pthread_mutex_lock(&parse_lock);
    rc = read_elf(&b);
    if (rc == 0)
        rc = read_dwarf(&b);
    if (rc == 0)
        rc = build_index(m);
    if (b.dbg)
        dwarf_object_finish(b.dbg, NULL);
    if (b.elf)
        elf_end(b.elf);
    pthread_mutex_unlock(&parse_lock);
    if (rc != 0) {
        if (rc == -ENOMEM)
            set_err(&b, rc, "out of memory");
        sym_module_close(m);
        return rc;
    }
    *out = m;
    return 0;
}

void sym_module_close(struct sym_module *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nstrings; i++)
        free(m->strings[i]);
    free(m->strings);
    free(m->kernels);
    free(m->lines);
    free(m->funcs);
    free(m->funcs_maxhi);
    free(m->efuncs);
    free(m->img);
    free(m);
}

/* Sets outidx to the index of the last element of arr (sorted by field)
 * whose field <= pc, or -1. A macro because three arrays of different types
 * share it. */
#define LAST_AT_OR_BELOW(arr, n, field, pc, outidx)                                                \
    do {                                                                                           \
        size_t lo_ = 0, hi_ = (n);                                                                 \
        while (lo_ < hi_) {                                                                        \
            size_t mid_ = lo_ + (hi_ - lo_) / 2;                                                   \
            if ((arr)[mid_].field <= (pc))                                                         \
                lo_ = mid_ + 1;                                                                    \
            else                                                                                   \
                hi_ = mid_;                                                                        \
        }                                                                                          \
        (outidx) = (ptrdiff_t)lo_ - 1;                                                             \
    } while (0)

int sym_lookup(const struct sym_module *m, uint64_t pc, struct sym_location *out)
{
    ptrdiff_t i;
    const struct sym_kernel *k;
    unsigned best_sub = 0, best_inl = 0;

    memset(out, 0, sizeof(*out));
    LAST_AT_OR_BELOW(m->kernels, m->nkernels, addr, pc, i);
    if (i < 0 || pc - m->kernels[i].addr >= m->kernels[i].size)
        return -ENOENT;
    k = &m->kernels[i];
    out->kernel = k->name;
    out->kernel_addr = k->addr;
    out->kernel_size = k->size;

    LAST_AT_OR_BELOW(m->lines, m->nlines, lo, pc, i);
    if (i >= 0 && pc < m->lines[i].hi) {
        const struct line_range *r = &m->lines[i];
        out->has_line = true;
        out->file = r->file;
        out->line = r->line;
        out->column = r->column;
        out->is_stmt = r->is_stmt;
    }

    /* Function ranges nest, so walk back from the last one starting at or
     * below pc while some earlier range could still reach pc. */
    LAST_AT_OR_BELOW(m->funcs, m->nfuncs, lo, pc, i);
    for (; i >= 0 && m->funcs_maxhi[i] > pc; i--) {
        const struct func_range *f = &m->funcs[i];
        if (pc >= f->hi || !f->name)
            continue;
        if (f->inlined && (!out->inlined || f->depth > best_inl)) {
            out->inlined = f->name;
            best_inl = f->depth;
        } else if (!f->inlined && (!out->function || f->depth > best_sub)) {
            out->function = f->name;
            best_sub = f->depth;
        }
    }
    if (!out->function) {
        LAST_AT_OR_BELOW(m->efuncs, m->nefuncs, lo, pc, i);
        for (; i >= 0 && !out->function; i--)
            if (pc < m->efuncs[i].hi)
                out->function = m->efuncs[i].name;
    }
    return 0;
}

size_t sym_kernel_count(const struct sym_module *m)
{
    return m->nkernels;
}

const struct sym_kernel *sym_kernel_at(const struct sym_module *m, size_t i)
{
    return i < m->nkernels ? &m->kernels[i] : NULL;
}

const struct sym_kernel *sym_kernel_find(const struct sym_module *m, const char *name)
{
    for (size_t i = 0; i < m->nkernels; i++)
        if (strcmp(m->kernels[i].name, name) == 0)
            return &m->kernels[i];
    return NULL;
}

uint64_t sym_module_low(const struct sym_module *m)
{
    return m->nkernels ? m->kernels[0].addr : 0;
}

uint64_t sym_module_high(const struct sym_module *m)
{
    uint64_t hi = 0;
    for (size_t i = 0; i < m->nkernels; i++)
        if (m->kernels[i].addr + m->kernels[i].size > hi)
            hi = m->kernels[i].addr + m->kernels[i].size;
    return hi;
}

size_t sym_line_count(const struct sym_module *m)
{
    return m->nlines;
}

size_t sym_function_count(const struct sym_module *m)
{
    return m->nfuncs;
}
