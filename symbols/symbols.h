/* SPDX-License-Identifier: MIT */
/* Symbols of one GPU module: from the module's ELF image (the "debug zebin"
 * a module load event delimits, with absolute device addresses), the kernels
 * and their code ranges, the DWARF line table and the functions, indexed for
 * address lookups. A sym_module is immutable after sym_module_open, so any
 * number of threads may look up in it at once. */
#ifndef ZESTUB_SYMBOLS_H
#define ZESTUB_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_module;

struct sym_kernel {
    const char *name;
    uint64_t addr; /* sh_addr of .text.<name>: the device address in a debug zebin */
    uint64_t size; /* the section's size, IGC's zero padding included */
};

struct sym_location {
    const char *kernel; /* never NULL on success */
    uint64_t kernel_addr, kernel_size;
    /* The innermost DW_TAG_subprogram containing the pc (the frame's
     * function); if DWARF has none, an ELF function symbol, else NULL. */
    const char *function;
    /* The innermost DW_TAG_inlined_subroutine containing the pc, or NULL. */
    const char *inlined;
    /* The source file as DWARF names it, joined with DW_AT_comp_dir when
     * relative (for the test fixtures "tests/kernels/<file>"). NULL if
     * !has_line. */
    const char *file;
    uint32_t line, column; /* column 0: DWARF does not say */
    bool is_stmt;
    bool has_line; /* false for pcs the line table does not cover (e.g. padding) */
};

/* Parses an ELF image (copied; the caller may free it). Returns 0, -EINVAL
 * (not an ELF image, or malformed ELF/DWARF; err says what) or -ENOMEM. An
 * image without DWARF opens and has kernels but no lines or functions. */
int sym_module_open(const void *elf, size_t size, struct sym_module **out, char *err,
                    size_t errlen);
void sym_module_close(struct sym_module *m);

/* Where pc is. Returns 0, or -ENOENT if pc is not inside any kernel. The
 * strings in *out live as long as m. */
int sym_lookup(const struct sym_module *m, uint64_t pc, struct sym_location *out);

size_t sym_kernel_count(const struct sym_module *m);
/* Kernels in address order; NULL if i is out of range. */
const struct sym_kernel *sym_kernel_at(const struct sym_module *m, size_t i);
/* The kernel called name, or NULL. */
const struct sym_kernel *sym_kernel_find(const struct sym_module *m, const char *name);

/* [low, high): the lowest kernel address and the end of the highest kernel
 * (both 0 if the module has no kernels). */
uint64_t sym_module_low(const struct sym_module *m);
uint64_t sym_module_high(const struct sym_module *m);

/* Number of line-table address ranges and functions indexed (for tests and
 * diagnostics). */
size_t sym_line_count(const struct sym_module *m);
size_t sym_function_count(const struct sym_module *m);

#endif
