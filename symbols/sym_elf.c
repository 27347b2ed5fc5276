/* SPDX-License-Identifier: MIT */
/* The ELF side of a module (libelf): kernels from the section table,
 * function symbols from the symbol table. */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

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
        return sym_set_err(b, -EINVAL, "unreadable symbol table: %s", elf_errmsg(-1));
    n = sh->sh_size / sh->sh_entsize;
    for (size_t i = 1; i < n; i++) {
        GElf_Sym s;
        const char *name;
        struct elf_func *f;
        if (!gelf_getsym(data, (int)i, &s))
            return sym_set_err(b, -EINVAL, "bad symbol %zu: %s", i, elf_errmsg(-1));
        if (GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_size == 0)
            continue;
        name = elf_strptr(b->elf, sh->sh_link, s.st_name);
        /* IGC's "_entry" marks where a kernel's threads really start (after
         * the per-thread payload load); it is not a function of its own. */
        if (!name || strcmp(name, "_entry") == 0)
            continue;
        if (!(f = sym_grow(m->efuncs, &cap, m->nefuncs, sizeof(*f))))
            return -ENOMEM;
        m->efuncs = f;
        f += m->nefuncs;
        f->lo = s.st_value;
        f->hi = s.st_value + s.st_size;
        if (!(f->name = sym_keep(m, strdup(name))))
            return -ENOMEM;
        m->nefuncs++;
    }
    return 0;
}

int sym_read_elf(struct builder *b)
{
    struct sym_module *m = b->m;
    Elf_Scn *scn = NULL;
    size_t shstrndx, cap = 0;
    GElf_Ehdr eh;

    if (elf_version(EV_CURRENT) == EV_NONE)
        return sym_set_err(b, -EINVAL, "libelf is out of date: %s", elf_errmsg(-1));
    b->elf = elf_memory((char *)m->img, m->size);
    if (!b->elf || elf_kind(b->elf) != ELF_K_ELF || !gelf_getehdr(b->elf, &eh) ||
        gelf_getclass(b->elf) != ELFCLASS64)
        return sym_set_err(b, -EINVAL, "not an ELF64 image: %s", elf_errmsg(-1));
    /* libelf quietly shows no sections when the table lies beyond the end
     * (a truncated read of a module), which would look like an empty module. */
    if (eh.e_shnum == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > m->size ||
        (m->size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
        return sym_set_err(b, -EINVAL,
                           "section header table (%u entries at %#llx) is not inside the "
                           "%zu-byte image",
                           eh.e_shnum, (unsigned long long)eh.e_shoff, m->size);
    if (elf_getshdrstrndx(b->elf, &shstrndx) != 0)
        return sym_set_err(b, -EINVAL, "no section name table: %s", elf_errmsg(-1));
    while ((scn = elf_nextscn(b->elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;
        struct sym_kernel *k;
        int rc;
        if (!gelf_getshdr(scn, &sh))
            return sym_set_err(b, -EINVAL, "bad section header: %s", elf_errmsg(-1));
        if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
            (sh.sh_offset > m->size || sh.sh_size > m->size - sh.sh_offset))
            return sym_set_err(b, -EINVAL, "section %zu lies outside the %zu-byte image",
                               elf_ndxscn(scn), m->size);
        if (sh.sh_type == SHT_SYMTAB && (rc = read_symtab(b, scn, &sh)) != 0)
            return rc;
        name = elf_strptr(b->elf, shstrndx, sh.sh_name);
        if (!name)
            return sym_set_err(b, -EINVAL, "bad section name: %s", elf_errmsg(-1));
        /* Every .text.<kernel> is a kernel; IGC's holder of non-kernel
         * functions (-cl-opt-disable, several kernels) is not. */
        if (strncmp(name, ".text.", 6) != 0 || name[6] == '\0' ||
            strcmp(name, ".text.Intel_Symbol_Table_Void_Program") == 0)
            continue;
        if (!(k = sym_grow(m->kernels, &cap, m->nkernels, sizeof(*k))))
            return -ENOMEM;
        m->kernels = k;
        k += m->nkernels;
        k->addr = sh.sh_addr;
        k->size = sh.sh_size;
        if (!(k->name = sym_keep(m, strdup(name + 6))))
            return -ENOMEM;
        m->nkernels++;
    }
    if (m->nkernels)
        qsort(m->kernels, m->nkernels, sizeof(*m->kernels), cmp_kernel);
    if (m->nefuncs)
        qsort(m->efuncs, m->nefuncs, sizeof(*m->efuncs), cmp_efunc);
    return 0;
}
