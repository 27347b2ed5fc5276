/* SPDX-License-Identifier: MIT */
/* The helpers every reader of a module uses while it is opened. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "symbols/sym_int.h"

int sym_set_err(struct builder *b, int rc, const char *fmt, ...)
{
    va_list ap;
    if (b->errlen == 0)
        return rc;
    va_start(ap, fmt);
    vsnprintf(b->err, b->errlen, fmt, ap);
    va_end(ap);
    return rc;
}

char *sym_keep(struct sym_module *m, char *s)
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

void *sym_grow(void *arr, size_t *cap, size_t n, size_t elem)
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

int sym_dw_fail(struct builder *b, Dwarf_Error e, const char *what)
{
    sym_set_err(b, -EINVAL, "%s: %s", what, e ? dwarf_errmsg(e) : "failed");
    if (e)
        dwarf_dealloc(b->dbg, e, DW_DLA_ERROR);
    return -EINVAL;
}

char *sym_die_string(struct builder *b, Dwarf_Die die, Dwarf_Half at)
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

/* True when name already starts with the directory dir (libdwarf's
 * dwarf_linesrc joins the unit's directory itself; only a relative one,
 * such as the fixtures' "tests/kernels/", leaves a relative result). */
static bool under_dir(const char *name, const char *dir)
{
    size_t k = strlen(dir);
    return strncmp(name, dir, k) == 0 && (dir[k - 1] == '/' || name[k] == '/');
}

const char *sym_full_path(struct builder *b, const char *name, const char *comp_dir)
{
    char *p;
    if (name[0] == '/' || !comp_dir || !comp_dir[0] || under_dir(name, comp_dir))
        return sym_keep(b->m, strdup(name));
    if (asprintf(&p, "%s%s%s", comp_dir, comp_dir[strlen(comp_dir) - 1] == '/' ? "" : "/", name) <
        0)
        return NULL;
    return sym_keep(b->m, p);
}
