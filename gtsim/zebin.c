/* SPDX-License-Identifier: MIT */
#include "gtsim/zebin.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* .ze_info: a line-oriented reader for the block-style YAML subset ocloc
 * writes (mappings, "- " sequences, plain or quoted scalars, no anchors, no
 * multi-line scalars). Each line is interpreted against the chain of open
 * mapping keys above it, which is all the structure ocloc's output needs. */

#define YAML_MAX_DEPTH 8

struct yaml_frame {
    size_t indent;
    char key[64];
};

struct zeinfo_parser {
    struct gtsim_zebin *zb;
    struct yaml_frame stack[YAML_MAX_DEPTH];
    size_t depth;
    size_t cap_kernels;
    size_t cap_args;  /* of the current (last) kernel */
    bool in_kernel;   /* a "kernels" item has been opened */
    bool in_arg;      /* a payload_arguments item of the last kernel is open */
    char pt_type[32]; /* arg_type of the open per_thread_payload_arguments item */
    unsigned line;
    char *err;
    size_t errlen;
};

static bool path_is(const struct zeinfo_parser *ps, size_t n, const char *k0, const char *k1)
{
    if (ps->depth != n)
        return false;
    if (n >= 1 && strcmp(ps->stack[0].key, k0) != 0)
        return false;
    if (n >= 2 && strcmp(ps->stack[1].key, k1) != 0)
        return false;
    return true;
}

static int parse_u32(struct zeinfo_parser *ps, const char *key, const char *v, uint32_t *out)
{
    char *end;
    unsigned long long n;
    int base = 10;

    if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
        base = 16;
    if (v[0] == '-' || v[0] == '+' || v[0] == '\0')
        goto bad;
    errno = 0;
    n = strtoull(v, &end, base);
    if (errno || *end != '\0' || n > UINT32_MAX)
        goto bad;
    *out = (uint32_t)n;
    return 0;
bad:
    set_err(ps->err, ps->errlen, ".ze_info line %u: %s: '%s' is not an unsigned 32-bit number",
            ps->line, key, v);
    return -EINVAL;
}

static int parse_bool(struct zeinfo_parser *ps, const char *key, const char *v, bool *out)
{
    if (strcmp(v, "true") == 0) {
        *out = true;
        return 0;
    }
    if (strcmp(v, "false") == 0) {
        *out = false;
        return 0;
    }
    set_err(ps->err, ps->errlen, ".ze_info line %u: %s: '%s' is not true or false", ps->line, key,
            v);
    return -EINVAL;
}

/* Truncates silently: the short string fields only label arguments, and the
 * classification is done on the full value before it gets here. */
static void copy_str(char *dst, size_t dstlen, const char *src)
{
    snprintf(dst, dstlen, "%s", src);
}

static struct gtsim_zebin_kernel *cur_kernel(struct zeinfo_parser *ps)
{
    return ps->in_kernel ? &ps->zb->kernels[ps->zb->nkernels - 1] : NULL;
}

static int open_item(struct zeinfo_parser *ps)
{
    struct gtsim_zebin *zb = ps->zb;

    if (path_is(ps, 1, "kernels", NULL)) {
        if (zb->nkernels == ps->cap_kernels) {
            size_t cap = ps->cap_kernels ? ps->cap_kernels * 2 : 4;
            void *p = realloc(zb->kernels, cap * sizeof(*zb->kernels));
            if (!p)
                return -ENOMEM;
            zb->kernels = p;
            ps->cap_kernels = cap;
        }
        memset(&zb->kernels[zb->nkernels], 0, sizeof(zb->kernels[0]));
        zb->nkernels++;
        ps->in_kernel = true;
        ps->in_arg = false;
        ps->cap_args = 0;
        return 0;
    }
    if (path_is(ps, 2, "kernels", "payload_arguments")) {
        struct gtsim_zebin_kernel *k = cur_kernel(ps);
        if (!k) {
            set_err(ps->err, ps->errlen, ".ze_info line %u: payload argument outside a kernel",
                    ps->line);
            return -EINVAL;
        }
        if (k->nargs == ps->cap_args) {
            size_t cap = ps->cap_args ? ps->cap_args * 2 : 8;
            void *p = realloc(k->args, cap * sizeof(*k->args));
            if (!p)
                return -ENOMEM;
            k->args = p;
            ps->cap_args = cap;
        }
        memset(&k->args[k->nargs], 0, sizeof(k->args[0]));
        k->args[k->nargs].arg_index = -1;
        k->nargs++;
        ps->in_arg = true;
        return 0;
    }
    if (path_is(ps, 2, "kernels", "per_thread_payload_arguments"))
        ps->pt_type[0] = '\0';
    return 0; /* items of sections gtsim does not use */
}

static int kernel_scalar(struct zeinfo_parser *ps, const char *key, const char *v)
{
    struct gtsim_zebin_kernel *k = cur_kernel(ps);

    if (!k) {
        set_err(ps->err, ps->errlen, ".ze_info line %u: 'kernels' must be a list", ps->line);
        return -EINVAL;
    }
    if (strcmp(key, "name") == 0) {
        if (strlen(v) >= sizeof(k->name)) {
            set_err(ps->err, ps->errlen, ".ze_info line %u: kernel name too long", ps->line);
            return -EINVAL;
        }
        copy_str(k->name, sizeof(k->name), v);
    }
    return 0;
}

static int env_scalar(struct zeinfo_parser *ps, const char *key, const char *v)
{
    struct gtsim_zebin_kernel *k = cur_kernel(ps);

    if (!k) {
        set_err(ps->err, ps->errlen, ".ze_info line %u: execution_env outside a kernel", ps->line);
        return -EINVAL;
    }
    if (strcmp(key, "simd_size") == 0)
        return parse_u32(ps, key, v, &k->simd_size);
    if (strcmp(key, "grf_count") == 0)
        return parse_u32(ps, key, v, &k->grf_count);
    if (strcmp(key, "slm_size") == 0)
        return parse_u32(ps, key, v, &k->slm_size);
    if (strcmp(key, "barrier_count") == 0)
        return parse_u32(ps, key, v, &k->barrier_count);
    if (strcmp(key, "offset_to_skip_per_thread_data_load") == 0)
        return parse_u32(ps, key, v, &k->offset_to_skip_per_thread_data_load);
    if (strcmp(key, "has_stack_calls") == 0)
        return parse_bool(ps, key, v, &k->has_stack_calls);
    return 0;
}

static enum gtsim_zebin_arg_kind classify(const char *arg_type, const char *addrspace)
{
    if (strcmp(arg_type, "arg_byvalue") == 0)
        return GTSIM_ZEBIN_ARG_BYVALUE;
    /* Optimised Gen12LP and Xe-HPG builds pass a buffer's address this way
     * instead of as a stateless arg_bypointer. */
    if (strcmp(arg_type, "buffer_address") == 0)
        return GTSIM_ZEBIN_ARG_GLOBAL_PTR;
    if (strcmp(arg_type, "buffer_offset") == 0)
        return GTSIM_ZEBIN_ARG_BUFFER_OFFSET;
    if (strcmp(arg_type, "arg_bypointer") != 0)
        return GTSIM_ZEBIN_ARG_IMPLICIT;
    if (strcmp(addrspace, "global") == 0)
        return GTSIM_ZEBIN_ARG_GLOBAL_PTR;
    if (strcmp(addrspace, "local") == 0)
        return GTSIM_ZEBIN_ARG_LOCAL_PTR;
    if (strcmp(addrspace, "constant") == 0)
        return GTSIM_ZEBIN_ARG_CONST_PTR;
    return GTSIM_ZEBIN_ARG_OTHER;
}

static int arg_scalar(struct zeinfo_parser *ps, const char *key, const char *v)
{
    struct gtsim_zebin_kernel *k = cur_kernel(ps);
    struct gtsim_zebin_arg *a;
    uint32_t n;
    int rc;

    if (!k || !ps->in_arg || k->nargs == 0) {
        set_err(ps->err, ps->errlen, ".ze_info line %u: 'payload_arguments' must be a list",
                ps->line);
        return -EINVAL;
    }
    a = &k->args[k->nargs - 1];
    if (strcmp(key, "arg_type") == 0) {
        copy_str(a->arg_type, sizeof(a->arg_type), v);
    } else if (strcmp(key, "addrmode") == 0) {
        copy_str(a->addrmode, sizeof(a->addrmode), v);
    } else if (strcmp(key, "addrspace") == 0) {
        copy_str(a->addrspace, sizeof(a->addrspace), v);
    } else if (strcmp(key, "offset") == 0) {
        return parse_u32(ps, key, v, &a->offset);
    } else if (strcmp(key, "size") == 0) {
        return parse_u32(ps, key, v, &a->size);
    } else if (strcmp(key, "arg_index") == 0) {
        rc = parse_u32(ps, key, v, &n);
        if (rc)
            return rc;
        if (n > INT32_MAX) {
            set_err(ps->err, ps->errlen, ".ze_info line %u: arg_index out of range", ps->line);
            return -EINVAL;
        }
        a->arg_index = (int)n;
    }
    return 0;
}

/* per_thread_payload_arguments: only local_id (the per-lane local ids the
 * kernel's prologue loads) matters to the executor; IGC writes arg_type
 * before offset and size. */
static int per_thread_scalar(struct zeinfo_parser *ps, const char *key, const char *v)
{
    struct gtsim_zebin_kernel *k = cur_kernel(ps);
    if (!k)
        return 0;
    if (strcmp(key, "arg_type") == 0)
        copy_str(ps->pt_type, sizeof(ps->pt_type), v);
    else if (strcmp(ps->pt_type, "local_id") == 0 && strcmp(key, "size") == 0)
        return parse_u32(ps, key, v, &k->local_id_size);
    else if (strcmp(ps->pt_type, "local_id") == 0 && strcmp(key, "offset") == 0)
        return parse_u32(ps, key, v, &k->local_id_offset);
    return 0;
}

static int on_scalar(struct zeinfo_parser *ps, const char *key, const char *v)
{
    if (ps->depth == 0) {
        if (strcmp(key, "version") == 0)
            copy_str(ps->zb->ze_info_version, sizeof(ps->zb->ze_info_version), v);
        return 0;
    }
    if (path_is(ps, 1, "kernels", NULL))
        return kernel_scalar(ps, key, v);
    if (path_is(ps, 2, "kernels", "execution_env"))
        return env_scalar(ps, key, v);
    if (path_is(ps, 2, "kernels", "payload_arguments"))
        return arg_scalar(ps, key, v);
    if (path_is(ps, 2, "kernels", "per_thread_payload_arguments"))
        return per_thread_scalar(ps, key, v);
    return 0;
}

static char *trim_right(char *s)
{
    size_t n = strlen(s);

    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static char *unquote(char *v)
{
    size_t n = strlen(v);

    if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) {
        v[n - 1] = '\0';
        return v + 1;
    }
    return v;
}

static int parse_line(struct zeinfo_parser *ps, char *line)
{
    size_t col = 0;
    char *rest, *colon, *value;
    bool item = false;
    int rc;

    while (line[col] == ' ')
        col++;
    if (line[col] == '\t') {
        set_err(ps->err, ps->errlen, ".ze_info line %u: tab in indentation", ps->line);
        return -EINVAL;
    }
    rest = trim_right(line + col);
    if (*rest == '\0' || *rest == '#')
        return 0;
    if (col == 0 && (strcmp(rest, "---") == 0 || strcmp(rest, "...") == 0))
        return 0;
    if (rest[0] == '-' && (rest[1] == ' ' || rest[1] == '\0')) {
        item = true;
        rest++;
        col++;
        while (*rest == ' ') {
            rest++;
            col++;
        }
    }
    while (ps->depth > 0 && ps->stack[ps->depth - 1].indent >= col)
        ps->depth--;
    if (item) {
        rc = open_item(ps);
        if (rc)
            return rc;
    }
    if (*rest == '\0')
        return 0;

    /* A key ends at the first ':' followed by a space or the end of line;
     * quoted values such as 'int*;8' never contain that. */
    colon = rest;
    while ((colon = strchr(colon, ':')) != NULL && colon[1] != ' ' && colon[1] != '\0')
        colon++;
    if (!colon) {
        if (item)
            return 0; /* a plain scalar list entry: nothing gtsim reads */
        set_err(ps->err, ps->errlen, ".ze_info line %u: expected 'key: value'", ps->line);
        return -EINVAL;
    }
    *colon = '\0';
    trim_right(rest);
    value = colon + 1;
    while (*value == ' ')
        value++;
    if (*value == '\0') {
        if (ps->depth == YAML_MAX_DEPTH) {
            set_err(ps->err, ps->errlen, ".ze_info line %u: nested too deeply", ps->line);
            return -EINVAL;
        }
        ps->stack[ps->depth].indent = col;
        copy_str(ps->stack[ps->depth].key, sizeof(ps->stack[ps->depth].key), rest);
        ps->depth++;
        return 0;
    }
    return on_scalar(ps, rest, unquote(value));
}

static int parse_ze_info(struct gtsim_zebin *zb, const char *text, size_t len, char *err,
                         size_t errlen)
{
    struct zeinfo_parser ps;
    char *buf, *line, *nl;
    int rc = 0;

    memset(&ps, 0, sizeof(ps));
    ps.zb = zb;
    ps.err = err;
    ps.errlen = errlen;
    buf = malloc(len + 1);
    if (!buf)
        return -ENOMEM;
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (memchr(buf, '\0', len)) {
        /* Section padding may leave trailing NULs; anything after one is not
         * part of the document. */
        len = strlen(buf);
    }
    line = buf;
    while (rc == 0 && line < buf + len) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        ps.line++;
        rc = parse_line(&ps, line);
        line = nl ? nl + 1 : buf + len;
    }
    free(buf);
    if (rc == -ENOMEM)
        set_err(err, errlen, "out of memory while parsing .ze_info");
    return rc;
}

/* ------------------------------------------------------------------------ */

static int check_kernels(struct gtsim_zebin *zb, char *err, size_t errlen)
{
    if (zb->nkernels == 0) {
        set_err(err, errlen, ".ze_info lists no kernels");
        return -EINVAL;
    }
    for (size_t i = 0; i < zb->nkernels; i++) {
        struct gtsim_zebin_kernel *k = &zb->kernels[i];
        uint32_t s = k->simd_size;

        if (k->name[0] == '\0') {
            set_err(err, errlen, ".ze_info kernel #%zu has no name", i);
            return -EINVAL;
        }
        if (s != 1 && s != 8 && s != 16 && s != 32) {
            set_err(err, errlen, "kernel %s: simd_size %u is not 1, 8, 16 or 32", k->name, s);
            return -EINVAL;
        }
        for (size_t j = 0; j < k->nargs; j++)
            k->args[j].kind = classify(k->args[j].arg_type, k->args[j].addrspace);
    }
    return 0;
}

void gtsim_zebin_free(struct gtsim_zebin *zb)
{
    if (!zb)
        return;
    for (size_t i = 0; i < zb->nkernels; i++)
        free(zb->kernels[i].args);
    free(zb->kernels);
    free(zb->image);
    free(zb);
}

const struct gtsim_zebin_kernel *gtsim_zebin_find_kernel(const struct gtsim_zebin *zb,
                                                         const char *name)
{
    if (!zb || !name)
        return NULL;
    for (size_t i = 0; i < zb->nkernels; i++)
        if (strcmp(zb->kernels[i].name, name) == 0)
            return &zb->kernels[i];
    return NULL;
}

/* Attaches every kernel to its .text.<name> section and totals all code
 * sections, refusing any section whose bytes lie outside the image. */
static int walk_sections(Elf *elf, size_t shstrndx, struct gtsim_zebin *zb, const char **ze_info,
                         size_t *ze_info_len, char *err, size_t errlen)
{
    Elf_Scn *scn = NULL;

    *ze_info = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;
        bool is_text;

        if (!gelf_getshdr(scn, &sh)) {
            set_err(err, errlen, "bad section header: %s", elf_errmsg(-1));
            return -EINVAL;
        }
        name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (!name) {
            set_err(err, errlen, "bad section name: %s", elf_errmsg(-1));
            return -EINVAL;
        }
        is_text = strcmp(name, ".text") == 0 || strncmp(name, ".text.", 6) == 0;
        if (!is_text && strcmp(name, ".ze_info") != 0)
            continue;
        if (sh.sh_type == SHT_NOBITS || sh.sh_offset > zb->image_size ||
            sh.sh_size > zb->image_size - sh.sh_offset) {
            set_err(err, errlen,
                    "section %s (offset %#llx, size %#llx) lies outside the %zu-byte image", name,
                    (unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size,
                    zb->image_size);
            return -EINVAL;
        }
        if (!is_text) {
            *ze_info = (const char *)zb->image + sh.sh_offset;
            *ze_info_len = sh.sh_size;
            continue;
        }
        zb->text_size += sh.sh_size;
        for (size_t i = 0; i < zb->nkernels; i++) {
            struct gtsim_zebin_kernel *k = &zb->kernels[i];
            if (name[5] == '.' && strcmp(name + 6, k->name) == 0) {
                k->text = zb->image + sh.sh_offset;
                k->text_size = sh.sh_size;
                k->text_offset = sh.sh_offset;
                k->text_section = (unsigned)elf_ndxscn(scn);
            }
        }
    }
    return 0;
}

static int parse_elf(struct gtsim_zebin *zb, char *err, size_t errlen)
{
    Elf *elf;
    GElf_Ehdr eh;
    size_t shstrndx;
    const char *ze_info = NULL;
    size_t ze_info_len = 0;
    int rc = -EINVAL;

    if (elf_version(EV_CURRENT) == EV_NONE) {
        set_err(err, errlen, "libelf is out of date: %s", elf_errmsg(-1));
        return -EINVAL;
    }
    elf = elf_memory((char *)zb->image, zb->image_size);
    if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        set_err(err, errlen, "not a readable ELF image: %s", elf_errmsg(-1));
        goto out;
    }
    zb->e_machine = eh.e_machine;
    zb->e_type = eh.e_type;
    if (eh.e_machine != GTSIM_EM_INTELGT) {
        set_err(err, errlen, "ELF machine is %u, expected %u (EM_INTELGT): not an Intel GT zebin",
                (unsigned)eh.e_machine, (unsigned)GTSIM_EM_INTELGT);
        goto out;
    }
    /* libelf quietly presents a truncated image as one without sections;
     * say what is really wrong instead of "no .ze_info". */
    {
        uint64_t nsh = eh.e_shnum ? eh.e_shnum : (eh.e_shoff ? 1 : 0);
        if (nsh && (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > zb->image_size ||
                    (zb->image_size - eh.e_shoff) / sizeof(Elf64_Shdr) < nsh)) {
            set_err(err, errlen,
                    "truncated or corrupt ELF: %llu section headers at offset %#llx do not fit "
                    "in the %zu-byte image",
                    (unsigned long long)nsh, (unsigned long long)eh.e_shoff, zb->image_size);
            goto out;
        }
    }
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
        set_err(err, errlen, "no section name table: %s", elf_errmsg(-1));
        goto out;
    }

    /* Two passes: .ze_info names the kernels, then the sections are matched
     * to them; the first pass only needs .ze_info's location. */
    rc = walk_sections(elf, shstrndx, zb, &ze_info, &ze_info_len, err, errlen);
    if (rc)
        goto out;
    if (!ze_info) {
        set_err(err, errlen, "no .ze_info section: not a zebin (legacy patch-token binary?)");
        rc = -EINVAL;
        goto out;
    }
    rc = parse_ze_info(zb, ze_info, ze_info_len, err, errlen);
    if (rc)
        goto out;
    rc = check_kernels(zb, err, errlen);
    if (rc)
        goto out;
    zb->text_size = 0;
    rc = walk_sections(elf, shstrndx, zb, &ze_info, &ze_info_len, err, errlen);
    if (rc)
        goto out;
    for (size_t i = 0; i < zb->nkernels; i++) {
        if (!zb->kernels[i].text) {
            set_err(err, errlen, "kernel %s has no .text.%s section", zb->kernels[i].name,
                    zb->kernels[i].name);
            rc = -EINVAL;
            goto out;
        }
    }
out:
    if (elf)
        elf_end(elf);
    return rc;
}

int gtsim_zebin_parse(const void *image, size_t size, struct gtsim_zebin **out, char *err,
                      size_t errlen)
{
    static const unsigned char magic[4] = {0x7f, 'E', 'L', 'F'};
    const unsigned char *id = image;
    struct gtsim_zebin *zb;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!out) {
        set_err(err, errlen, "no place to store the result");
        return -EINVAL;
    }
    *out = NULL;
    if (!image || size < EI_NIDENT || memcmp(id, magic, sizeof(magic)) != 0) {
        set_err(err, errlen, "not an ELF image (bad magic or shorter than an ELF header)");
        return -EINVAL;
    }
    if (id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB) {
        set_err(err, errlen, "ELF class %u / data %u: a zebin is 64-bit little endian",
                (unsigned)id[EI_CLASS], (unsigned)id[EI_DATA]);
        return -EINVAL;
    }

    zb = calloc(1, sizeof(*zb));
    if (!zb)
        return -ENOMEM;
    /* A private copy: libelf wants a mutable buffer, and the kernels' text
     * pointers must not depend on the caller keeping the image alive. */
    zb->image = malloc(size);
    if (!zb->image) {
        free(zb);
        return -ENOMEM;
    }
    memcpy(zb->image, image, size);
    zb->image_size = size;

    rc = parse_elf(zb, err, errlen);
    if (rc) {
        if (rc == -ENOMEM)
            set_err(err, errlen, "out of memory");
        gtsim_zebin_free(zb);
        return rc;
    }
    *out = zb;
    return 0;
}
