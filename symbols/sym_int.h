/* SPDX-License-Identifier: MIT */
/* What the files of symbols/ share while a module is opened: the module's
 * layout, the builder an open carries through the readers, and the readers
 * themselves. Not installed; only symbols/ includes it. The readers run one
 * after the other, in sym_module_open (sym_module.c): ELF (sym_elf.c), then
 * DWARF (sym_dwarf.c, which reads lines with sym_lines.c and functions with
 * sym_funcs.c), then the index. Every reader uses the helpers of
 * sym_builder.c and nothing else of its siblings. */
#ifndef ZESTUB_SYMBOLS_SYM_INT_H
#define ZESTUB_SYMBOLS_SYM_INT_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    Dwarf_Off last_die; /* .debug_info offset of the last DIE walked */
};

/* sym_builder.c: errors, owned strings, growing arrays. */
int sym_set_err(struct builder *b, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Takes ownership of s (malloc'd); returns it, or NULL if out of memory. */
char *sym_keep(struct sym_module *m, char *s);
/* arr, grown to hold at least n + 1 elements (NULL when out of memory;
 * arr is still valid then). */
void *sym_grow(void *arr, size_t *cap, size_t n, size_t elem);
/* Records a libdwarf failure (and releases e); returns -EINVAL. */
int sym_dw_fail(struct builder *b, Dwarf_Error e, const char *what);
/* The DIE's own string attribute (malloc'd), or NULL. */
char *sym_die_string(struct builder *b, Dwarf_Die die, Dwarf_Half at);
/* A file name from the line table joined with the CU's comp_dir (once:
 * a name already under it is kept); owned by the module. NULL if out of
 * memory. */
const char *sym_full_path(struct builder *b, const char *name, const char *comp_dir);

/* sym_elf.c: kernels (.text.<name> sections) and ELF function symbols. */
int sym_read_elf(struct builder *b);
/* sym_dwarf.c: every compilation unit's lines and functions; 0 without DWARF. */
int sym_read_dwarf(struct builder *b);
/* sym_lines.c: the line table of one compilation unit. */
int sym_read_lines(struct builder *b, Dwarf_Die cu);
/* sym_funcs.c: function ranges of die, its siblings and their children
 * (each DIE is released). */
int sym_walk_functions(struct builder *b, Dwarf_Die die, uint64_t cu_base, unsigned depth);

#endif
