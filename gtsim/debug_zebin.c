/* SPDX-License-Identifier: MIT */
/* Builds the debug zebin (see debug_zebin.h). The image is patched in place
 * on a byte copy rather than re-encoded, so every section keeps its offset and
 * a reader can compare the two images section by section. All ELF structures
 * are read and written with memcpy: IGC does not align its sections (a
 * .rela.debug_info at an odd file offset is normal). */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/debug_zebin.h"

struct dz {
    uint8_t *img;
    size_t size; /* bytes of the original image inside img */
    Elf64_Ehdr eh;
    const struct gtsim_zebin *zb;
    const uint64_t *kernel_addr;
    int *sec_kernel; /* per section: index of the kernel it holds, or -1 */
    char *err;
    size_t errlen;
};

static int fail(struct dz *d, const char *fmt, ...)
{
    va_list ap;
    if (d->errlen == 0)
        return -EINVAL;
    va_start(ap, fmt);
    vsnprintf(d->err, d->errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

static bool in_image(const struct dz *d, uint64_t off, uint64_t len)
{
    return off <= d->size && len <= d->size - off;
}

static int get_shdr(struct dz *d, size_t i, Elf64_Shdr *sh)
{
    memcpy(sh, d->img + d->eh.e_shoff + i * sizeof(*sh), sizeof(*sh));
    if (sh->sh_type != SHT_NOBITS && sh->sh_type != SHT_NULL &&
        !in_image(d, sh->sh_offset, sh->sh_size))
        return fail(d, "section %zu lies outside the %zu-byte image", i, d->size);
    return 0;
}

static void put_shdr(struct dz *d, size_t i, const Elf64_Shdr *sh)
{
    memcpy(d->img + d->eh.e_shoff + i * sizeof(*sh), sh, sizeof(*sh));
}

/* A NUL-terminated string at off in string-table section strndx, or NULL. */
static const char *str_at(struct dz *d, size_t strndx, uint64_t off)
{
    Elf64_Shdr sh;
    const char *s;
    if (strndx == 0 || strndx >= d->eh.e_shnum || get_shdr(d, strndx, &sh) != 0 ||
        sh.sh_type != SHT_STRTAB || off >= sh.sh_size)
        return NULL;
    s = (const char *)d->img + sh.sh_offset + off;
    return memchr(s, '\0', sh.sh_size - off) ? s : NULL;
}

static const char *section_name(struct dz *d, size_t i)
{
    Elf64_Shdr sh;
    if (i == 0 || i >= d->eh.e_shnum || get_shdr(d, i, &sh) != 0)
        return NULL;
    return str_at(d, d->eh.e_shstrndx, sh.sh_name);
}

/* The kernel whose code section is called name (".text.<kernel>"), or -1. */
static int kernel_by_text_name(const struct dz *d, const char *name)
{
    if (!name || strncmp(name, ".text.", 6) != 0)
        return -1;
    for (size_t i = 0; i < d->zb->nkernels; i++)
        if (d->zb->kernels[i].text_size && strcmp(name + 6, d->zb->kernels[i].name) == 0)
            return (int)i;
    return -1;
}

static int check_headers(struct dz *d)
{
    if (d->size < sizeof(d->eh))
        return fail(d, "image of %zu bytes is smaller than an ELF header", d->size);
    memcpy(&d->eh, d->img, sizeof(d->eh));
    if (memcmp(d->eh.e_ident, ELFMAG, SELFMAG) != 0 || d->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        d->eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return fail(d, "not a little-endian ELF64 image");
    /* Extended section numbering (e_shnum 0) never occurs in a zebin. */
    if (d->eh.e_shnum == 0 || d->eh.e_shentsize != sizeof(Elf64_Shdr) ||
        !in_image(d, d->eh.e_shoff, (uint64_t)d->eh.e_shnum * sizeof(Elf64_Shdr)))
        return fail(d, "bad section header table (%u entries at %#llx)", d->eh.e_shnum,
                    (unsigned long long)d->eh.e_shoff);
    if (d->eh.e_shstrndx == 0 || d->eh.e_shstrndx >= d->eh.e_shnum)
        return fail(d, "bad section name table index %u", d->eh.e_shstrndx);
    return 0;
}

/* Places each kernel's text section at its device address. */
static int place_text(struct dz *d)
{
    for (size_t i = 0; i < d->zb->nkernels; i++) {
        const struct gtsim_zebin_kernel *k = &d->zb->kernels[i];
        Elf64_Shdr sh;
        int rc;
        if (k->text_size == 0)
            continue; /* a kernel without code has nothing to place */
        if (k->text_section == 0 || k->text_section >= d->eh.e_shnum)
            return fail(d, "kernel %s: bad text section index %u", k->name, k->text_section);
        if ((rc = get_shdr(d, k->text_section, &sh)) != 0)
            return rc;
        sh.sh_addr = d->kernel_addr[i];
        put_shdr(d, k->text_section, &sh);
        d->sec_kernel[k->text_section] = (int)i;
    }
    return 0;
}

/* Shifts symbols by their kernel's address, the way the driver does: a
 * symbol defined in a kernel's text section moves with it, and so does a
 * symbol *named* ".text.<kernel>" that IGC files under a .debug_* section
 * (IGC's section symbols carry wrong section indices; the name is the part
 * that is right, and the DWARF relocations go through these symbols). */
static int shift_symbols(struct dz *d, size_t symndx)
{
    Elf64_Shdr sh;
    size_t n;
    int rc;

    if ((rc = get_shdr(d, symndx, &sh)) != 0)
        return rc;
    if (sh.sh_entsize != sizeof(Elf64_Sym))
        return fail(d, "symbol table entry size %llu", (unsigned long long)sh.sh_entsize);
    n = sh.sh_size / sizeof(Elf64_Sym);
    for (size_t i = 1; i < n; i++) {
        uint8_t *p = d->img + sh.sh_offset + i * sizeof(Elf64_Sym);
        Elf64_Sym sym;
        const char *secname, *name;
        int k = -1;

        memcpy(&sym, p, sizeof(sym));
        if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= d->eh.e_shnum)
            continue; /* SHN_ABS, SHN_COMMON and friends are not code */
        if (d->sec_kernel[sym.st_shndx] >= 0) {
            k = d->sec_kernel[sym.st_shndx];
        } else {
            secname = section_name(d, sym.st_shndx);
            name = str_at(d, sh.sh_link, sym.st_name);
            if (secname && strncmp(secname, ".debug", 6) == 0)
                k = kernel_by_text_name(d, name);
        }
        if (k < 0)
            continue;
        sym.st_value += d->kernel_addr[k];
        memcpy(p, &sym, sizeof(sym));
    }
    return 0;
}

static uint64_t get_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_le(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Applies one SHT_RELA or SHT_REL section whose target is a .debug_* section.
 * Symbol values are read from the already shifted symbol table, so a
 * relocation against a kernel's symbol yields an absolute device address. */
static int apply_relocs(struct dz *d, size_t relndx, const Elf64_Shdr *rsh)
{
    bool rela = rsh->sh_type == SHT_RELA;
    size_t entsize = rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
    Elf64_Shdr tsh, ssh;
    size_t n, nsyms;
    int rc;

    if (rsh->sh_entsize != entsize)
        return fail(d, "relocation section %zu: entry size %llu", relndx,
                    (unsigned long long)rsh->sh_entsize);
    if (rsh->sh_link == 0 || rsh->sh_link >= d->eh.e_shnum)
        return fail(d, "relocation section %zu: bad symbol table index", relndx);
    if ((rc = get_shdr(d, rsh->sh_info, &tsh)) != 0 || (rc = get_shdr(d, rsh->sh_link, &ssh)) != 0)
        return rc;
    if (ssh.sh_type != SHT_SYMTAB || ssh.sh_entsize != sizeof(Elf64_Sym))
        return fail(d, "relocation section %zu does not link a symbol table", relndx);
    nsyms = ssh.sh_size / sizeof(Elf64_Sym);
    n = rsh->sh_size / entsize;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *e = d->img + rsh->sh_offset + i * entsize;
        Elf64_Rela r = {0};
        Elf64_Sym sym;
        size_t width, sidx;
        uint64_t value;
        uint8_t *where;

        memcpy(&r, e, entsize); /* an Elf64_Rel is an Elf64_Rela without addend */
        switch (ELF64_R_TYPE(r.r_info)) {
        case GTSIM_R_ZE_SYM_ADDR:
            width = 8;
            break;
        case GTSIM_R_ZE_SYM_ADDR_32:
        case GTSIM_R_ZE_SYM_ADDR_32_HI:
            width = 4;
            break;
        default:
            continue; /* the driver leaves other types alone too */
        }
        if (r.r_offset > tsh.sh_size || width > tsh.sh_size - r.r_offset)
            return fail(d, "relocation %zu of section %zu patches beyond its target", i, relndx);
        sidx = ELF64_R_SYM(r.r_info);
        if (sidx >= nsyms)
            return fail(d, "relocation %zu of section %zu: symbol %zu of %zu", i, relndx, sidx,
                        nsyms);
        memcpy(&sym, d->img + ssh.sh_offset + sidx * sizeof(sym), sizeof(sym));
        where = d->img + tsh.sh_offset + r.r_offset;
        /* SHT_REL keeps the addend in the patched field (ELF rule). */
        value = sym.st_value + (rela ? (uint64_t)r.r_addend : get_le(where, width));
        if (ELF64_R_TYPE(r.r_info) == GTSIM_R_ZE_SYM_ADDR_32_HI)
            value >>= 32;
        put_le(where, value, width);
    }
    return 0;
}

static int relocate_debug_sections(struct dz *d)
{
    for (size_t i = 1; i < d->eh.e_shnum; i++) {
        Elf64_Shdr sh;
        const char *target;
        int rc;
        if ((rc = get_shdr(d, i, &sh)) != 0)
            return rc;
        if (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL)
            continue;
        if (sh.sh_info == 0 || sh.sh_info >= d->eh.e_shnum)
            return fail(d, "relocation section %zu: bad target index %u", i, sh.sh_info);
        /* Code relocations are left alone: gtsim runs the code unlinked, and
         * the ELF copy must show the bytes the device executes. */
        target = section_name(d, sh.sh_info);
        if (!target || strncmp(target, ".debug", 6) != 0)
            continue;
        if ((rc = apply_relocs(d, i, &sh)) != 0)
            return rc;
    }
    return 0;
}

/* Appends one PT_LOAD per placed kernel and turns the image into ET_EXEC, as
 * the current driver does: readers then take addresses as they are instead
 * of treating the file as an object still to be linked. */
static void add_program_headers(struct dz *d, size_t phoff, size_t nph)
{
    size_t j = 0;
    for (size_t i = 0; i < d->zb->nkernels && j < nph; i++) {
        const struct gtsim_zebin_kernel *k = &d->zb->kernels[i];
        Elf64_Phdr ph = {0};
        if (k->text_size == 0)
            continue;
        ph.p_type = PT_LOAD;
        ph.p_flags = PF_R | PF_X;
        ph.p_offset = k->text_offset;
        ph.p_vaddr = ph.p_paddr = d->kernel_addr[i];
        ph.p_filesz = ph.p_memsz = k->text_size;
        ph.p_align = 1; /* IGC's section offsets are not aligned to anything */
        memcpy(d->img + phoff + j++ * sizeof(ph), &ph, sizeof(ph));
    }
    d->eh.e_type = ET_EXEC;
    d->eh.e_phoff = nph ? phoff : 0;
    d->eh.e_phnum = (Elf64_Half)nph;
    d->eh.e_phentsize = nph ? sizeof(Elf64_Phdr) : 0;
    memcpy(d->img, &d->eh, sizeof(d->eh));
}

int gtsim_debug_zebin_create(const struct gtsim_zebin *zb, const uint64_t *kernel_addr, void **out,
                             size_t *out_size, char *err, size_t errlen)
{
    struct dz d = {.zb = zb, .kernel_addr = kernel_addr, .err = err, .errlen = errlen};
    size_t nph = 0, phoff, total;
    int rc;

    *out = NULL;
    *out_size = 0;
    if (errlen)
        err[0] = '\0';
    if (!zb || !zb->image || (zb->nkernels && !kernel_addr))
        return fail(&d, "no zebin or no kernel addresses");
    for (size_t i = 0; i < zb->nkernels; i++)
        nph += zb->kernels[i].text_size != 0;
    if (nph > 0xff00) /* PN_XNUM and up would need extended numbering */
        return fail(&d, "%zu kernels are more than an ELF program header table holds", nph);
    d.size = zb->image_size;
    phoff = (zb->image_size + 7) & ~(size_t)7;
    if (phoff < zb->image_size)
        return fail(&d, "image too large");
    total = phoff + nph * sizeof(Elf64_Phdr);
    d.img = calloc(1, total);
    if (!d.img)
        return -ENOMEM;
    memcpy(d.img, zb->image, zb->image_size);
    if ((rc = check_headers(&d)) != 0)
        goto out;
    d.sec_kernel = malloc(d.eh.e_shnum * sizeof(*d.sec_kernel));
    if (!d.sec_kernel) {
        rc = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < d.eh.e_shnum; i++)
        d.sec_kernel[i] = -1;
    if ((rc = place_text(&d)) != 0)
        goto out;
    for (size_t i = 1; i < d.eh.e_shnum; i++) {
        Elf64_Shdr sh;
        if ((rc = get_shdr(&d, i, &sh)) != 0)
            goto out;
        if (sh.sh_type == SHT_SYMTAB && (rc = shift_symbols(&d, i)) != 0)
            goto out;
    }
    if ((rc = relocate_debug_sections(&d)) != 0)
        goto out;
    add_program_headers(&d, phoff, nph);
    *out = d.img;
    *out_size = total;
    d.img = NULL;
out:
    free(d.sec_kernel);
    free(d.img);
    return rc;
}
