/* SPDX-License-Identifier: MIT */
/* Opening a module: a private copy of the image, the readers in order
 * under the process-wide parse lock, then the sorted index. */
#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

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
 * file names (tests/symbols/test_symbols_threads reproduces it). Parsing is
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
        return sym_set_err(&b, -EINVAL, "not an ELF image");
    if (((const uint8_t *)elf)[EI_DATA] != ELFDATA2LSB)
        return sym_set_err(&b, -EINVAL, "not a little-endian ELF image");
    m = calloc(1, sizeof(*m));
    if (!m || !(m->img = malloc(size))) {
        free(m);
        return -ENOMEM;
    }
    memcpy(m->img, elf, size);
    m->size = size;
    b.m = m;
    pthread_mutex_lock(&parse_lock);
    rc = sym_read_elf(&b);
    if (rc == 0)
        rc = sym_read_dwarf(&b);
    if (rc == 0)
        rc = build_index(m);
    if (b.dbg)
        dwarf_object_finish(b.dbg, NULL);
    if (b.elf)
        elf_end(b.elf);
    pthread_mutex_unlock(&parse_lock);
    if (rc != 0) {
        if (rc == -ENOMEM)
            sym_set_err(&b, rc, "out of memory");
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
