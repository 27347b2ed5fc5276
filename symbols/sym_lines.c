/* SPDX-License-Identifier: MIT */
/* The DWARF line program of a compilation unit, as address ranges. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "symbols/sym_int.h"

/* The unit's file names by line-table file number, made absolute on first
 * use (most units name a handful of files, most rows the same one). */
struct file_names {
    const char **by_number;
    size_t n;
    char *comp_dir;
};

/* The full name of the row's file: 0 and *out set, or an error. */
static int row_file(struct builder *b, struct file_names *fn, Dwarf_Line row, Dwarf_Unsigned fno,
                    const char **out)
{
    Dwarf_Error e = NULL;
    char *src = NULL;
    if (fno < fn->n && fn->by_number[fno]) {
        *out = fn->by_number[fno];
        return 0;
    }
    /* libdwarf checks fno against the unit's file list here, so a hostile
     * file number (fuzz_symbols found 2^28) fails before it sizes the
     * cache below instead of allocating gigabytes. */
    if (dwarf_linesrc(row, &src, &e) != DW_DLV_OK)
        return sym_dw_fail(b, e, "line file name");
    if (fno >= fn->n) {
        size_t nn = (size_t)fno + 1;
        const char **f = nn > fn->n ? realloc(fn->by_number, nn * sizeof(*f)) : NULL;
        if (!f) {
            dwarf_dealloc(b->dbg, src, DW_DLA_STRING);
            return -ENOMEM;
        }
        memset(f + fn->n, 0, (nn - fn->n) * sizeof(*f));
        fn->by_number = f;
        fn->n = nn;
    }
    fn->by_number[fno] = sym_full_path(b, src, fn->comp_dir);
    dwarf_dealloc(b->dbg, src, DW_DLA_STRING);
    if (!fn->by_number[fno])
        return -ENOMEM;
    *out = fn->by_number[fno];
    return 0;
}

/* Row i covers [its address, row i+1's address) within its sequence; of
 * rows sharing an address the last one wins, as in GDB. Adds that range
 * unless it is empty or ends a sequence. */
static int add_row(struct builder *b, struct file_names *fn, Dwarf_Line *lines, Dwarf_Signed i)
{
    struct sym_module *m = b->m;
    Dwarf_Error e = NULL;
    Dwarf_Addr lo = 0, hi = 0;
    Dwarf_Unsigned ln = 0, col = 0, fno = 0;
    Dwarf_Bool end = 0, stmt = 0;
    const char *file = NULL;
    struct line_range *r;
    int rc;

    if (dwarf_lineendsequence(lines[i], &end, &e) != DW_DLV_OK ||
        dwarf_lineaddr(lines[i], &lo, &e) != DW_DLV_OK ||
        dwarf_lineaddr(lines[i + 1], &hi, &e) != DW_DLV_OK)
        return sym_dw_fail(b, e, "line row");
    if (end || hi <= lo)
        return 0;
    if (dwarf_lineno(lines[i], &ln, &e) != DW_DLV_OK ||
        dwarf_lineoff_b(lines[i], &col, &e) != DW_DLV_OK ||
        dwarf_linebeginstatement(lines[i], &stmt, &e) != DW_DLV_OK ||
        dwarf_line_srcfileno(lines[i], &fno, &e) != DW_DLV_OK)
        return sym_dw_fail(b, e, "line row");
    if ((rc = row_file(b, fn, lines[i], fno, &file)) != 0)
        return rc;
    if (!(r = sym_grow(m->lines, &b->cap_lines, m->nlines, sizeof(*r))))
        return -ENOMEM;
    m->lines = r;
    r += m->nlines;
    r->lo = lo;
    r->hi = hi;
    r->file = file;
    r->line = ln > UINT32_MAX ? UINT32_MAX : (uint32_t)ln;
    r->column = col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
    r->is_stmt = stmt != 0;
    r->order = m->nlines++;
    return 0;
}

int sym_read_lines(struct builder *b, Dwarf_Die cu)
{
    Dwarf_Error e = NULL;
    Dwarf_Unsigned version;
    Dwarf_Small tables;
    Dwarf_Line_Context ctx;
    Dwarf_Line *lines;
    Dwarf_Signed n;
    struct file_names fn = {NULL, 0, NULL};
    int rc = dwarf_srclines_b(cu, &version, &tables, &ctx, &e);

    if (rc == DW_DLV_NO_ENTRY)
        return 0;
    if (rc == DW_DLV_ERROR)
        return sym_dw_fail(b, e, "line table");
    if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &e) != DW_DLV_OK) {
        dwarf_srclines_dealloc_b(ctx);
        return sym_dw_fail(b, e, "line table rows");
    }
    fn.comp_dir = sym_die_string(b, cu, DW_AT_comp_dir);
    rc = 0;
    for (Dwarf_Signed i = 0; i + 1 < n && rc == 0; i++)
        rc = add_row(b, &fn, lines, i);
    free(fn.by_number);
    free(fn.comp_dir);
    dwarf_srclines_dealloc_b(ctx);
    return rc;
}
