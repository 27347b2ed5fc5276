/* SPDX-License-Identifier: MIT */
/* Opens a module's DWARF and walks its compilation units.
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

#include <dwarf.h>

#include <stdbool.h>

#include "symbols/sym_int.h"

struct memobj {
    Elf *elf;
    struct sym_module *m;
    size_t shnum, shstrndx;
};

/* Whether a section's bytes lie in the image. read_elf checked every
 * section elf_nextscn walks, which leaves out section 0: a file may still
 * give that one a type, offset and size (fuzz_symbols, 2026-11-29: an
 * offset that wrapped the image pointer). */
static bool in_image(const struct memobj *o, const GElf_Shdr *sh)
{
    return sh->sh_offset <= o->m->size && sh->sh_size <= o->m->size - sh->sh_offset;
}

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
    /* An SHT_NULL entry is inactive: its other fields mean nothing, and
     * read_elf does not check them (fuzz_symbols: an SHT_NULL .debug_info
     * at offset 2^61 had libdwarf read far outside the image). */
    s->size =
        sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL || !in_image(o, &sh) ? 0 : sh.sh_size;
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
    if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL ||
        !in_image(o, &sh))
        return DW_DLV_NO_ENTRY;
    /* read_elf checked the bounds of every other type. The module's
     * private copy: libdwarf would only write to it to relocate, which
     * this interface never asks. */
    *data = o->m->img + sh.sh_offset;
    return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods mo_methods = {
    mo_section_info,  mo_byte_order,   mo_length_size, mo_pointer_size,
    mo_section_count, mo_load_section, NULL,
};

int sym_read_dwarf(struct builder *b)
{
    struct memobj o = {.elf = b->elf, .m = b->m};
    Dwarf_Obj_Access_Interface iface = {.object = &o, .methods = &mo_methods};
    Dwarf_Error e = NULL;
    int rc;

    if (elf_getshdrnum(b->elf, &o.shnum) != 0 || elf_getshdrstrndx(b->elf, &o.shstrndx) != 0)
        return sym_set_err(b, -EINVAL, "section table: %s", elf_errmsg(-1));
    rc = dwarf_object_init_b(&iface, NULL, NULL, DW_GROUPNUMBER_ANY, &b->dbg, &e);
    if (rc == DW_DLV_NO_ENTRY)
        return 0; /* no DWARF: kernels only */
    if (rc != DW_DLV_OK) {
        sym_set_err(b, -EINVAL, "DWARF: %s", e ? dwarf_errmsg(e) : "cannot be read");
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
            rc = sym_dw_fail(b, e, "compilation unit header");
            break;
        }
        if (dwarf_siblingof_b(b->dbg, NULL, 1, &cu, &e) != DW_DLV_OK) {
            rc = sym_dw_fail(b, e, "compilation unit DIE");
            break;
        }
        if (dwarf_lowpc(cu, &base, &e) == DW_DLV_ERROR) {
            dwarf_dealloc(b->dbg, e, DW_DLA_ERROR);
            e = NULL;
        }
        rc = sym_read_lines(b, cu);
        if (rc == 0) {
            Dwarf_Die child = NULL;
            int c = dwarf_child(cu, &child, &e);
            if (c == DW_DLV_OK)
                rc = sym_walk_functions(b, child, base, 1);
            else if (c == DW_DLV_ERROR)
                rc = sym_dw_fail(b, e, "compilation unit children");
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
