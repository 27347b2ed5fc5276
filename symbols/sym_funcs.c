/* SPDX-License-Identifier: MIT */
/* Function and inlined-subroutine address ranges from the DIE tree. */
#include <errno.h>

#include <dwarf.h>

#include "symbols/sym_int.h"

static int add_func(struct builder *b, uint64_t lo, uint64_t hi, const char *name, unsigned depth,
                    bool inlined)
{
    struct sym_module *m = b->m;
    struct func_range *f;
    if (hi <= lo)
        return 0;
    if (!(f = sym_grow(m->funcs, &b->cap_funcs, m->nfuncs, sizeof(*f))))
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
    char *s = sym_die_string(b, die, DW_AT_name);
    if (s)
        return sym_keep(b->m, s);
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

/* A sound tree walked in this order is its file order. A DW_AT_sibling
 * that points at itself, backwards or into its own children would have the
 * walk go round for ever or over the same DIEs again and again (found by
 * fuzz_symbols); offsets that only grow bound the walk by the section. */
static int die_in_order(struct builder *b, Dwarf_Die die)
{
    Dwarf_Off off = 0;
    Dwarf_Error e = NULL;
    if (dwarf_dieoffset(die, &off, &e) != DW_DLV_OK)
        return sym_dw_fail(b, e, "DIE offset");
    if (off <= b->last_die)
        return sym_set_err(b, -EINVAL,
                           "DWARF DIE at %#llx comes after the DIE at %#llx: a DW_AT_sibling "
                           "that does not move forward",
                           (unsigned long long)off, (unsigned long long)b->last_die);
    b->last_die = off;
    return 0;
}

/* Walks die and its siblings (all owned by the caller's handoff: each is
 * released here) and their children, collecting function ranges. */
int sym_walk_functions(struct builder *b, Dwarf_Die die, uint64_t cu_base, unsigned depth)
{
    Dwarf_Error e = NULL;
    int rc = 0;

    while (die) {
        Dwarf_Half tag = 0;
        Dwarf_Die child = NULL, next = NULL;
        int r;
        if (depth > 64)
            rc = sym_set_err(b, -EINVAL, "DWARF DIE tree deeper than 64 levels");
        else if ((rc = die_in_order(b, die)) == 0 && dwarf_tag(die, &tag, &e) != DW_DLV_OK)
            rc = sym_dw_fail(b, e, "DIE tag");
        if (rc == 0 && (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine))
            rc = func_ranges(b, die, cu_base, func_name(b, die, 0), depth,
                             tag == DW_TAG_inlined_subroutine);
        if (rc == 0 && (r = dwarf_child(die, &child, &e)) == DW_DLV_OK)
            rc = sym_walk_functions(b, child, cu_base, depth + 1);
        else if (rc == 0 && r == DW_DLV_ERROR)
            rc = sym_dw_fail(b, e, "DIE child");
        if (rc == 0 && dwarf_siblingof_b(b->dbg, die, 1, &next, &e) == DW_DLV_ERROR)
            rc = sym_dw_fail(b, e, "DIE sibling");
        dwarf_dealloc(b->dbg, die, DW_DLA_DIE);
        die = rc == 0 ? next : NULL;
    }
    return rc;
}
