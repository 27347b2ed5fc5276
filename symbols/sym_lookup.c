/* SPDX-License-Identifier: MIT */
/* Address lookups and accessors on an opened (read-only) module. */
#include <errno.h>
#include <string.h>

#include "symbols/sym_int.h"

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
