/* SPDX-License-Identifier: MIT */
/* Checks the zebin reader on the committed ocloc fixtures and on broken
 * images. The expectations were read off each fixture's .ze_info (and its
 * section table) when the fixtures were generated; tests/kernels/regen.sh
 * output that changes them must be reflected here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/zebin.h"
#include "tests/lib/tap.h"

#define IMPL GTSIM_ZEBIN_ARG_IMPLICIT
#define BYV GTSIM_ZEBIN_ARG_BYVALUE
#define GPTR GTSIM_ZEBIN_ARG_GLOBAL_PTR
#define LPTR GTSIM_ZEBIN_ARG_LOCAL_PTR
#define BOFF GTSIM_ZEBIN_ARG_BUFFER_OFFSET

#define MAX_ARGS 12

struct exp_arg {
    const char *type;
    uint32_t offset, size;
    int index;
    const char *addrmode, *addrspace;
    enum gtsim_zebin_arg_kind kind;
};

struct exp_kernel {
    const char *file, *name;
    uint32_t simd, grf, slm, barriers;
    bool stack_calls;
    unsigned text_section;
    size_t text_offset, text_size;
    struct exp_arg args[MAX_ARGS];
};

static const struct exp_kernel expected[] = {
    {"vadd-gen12lp.elf",
     "vadd",
     32,
     128,
     0,
     0,
     false,
     1,
     64,
     0x1c0,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"buffer_address", 32, 8, 0, "", "", GPTR},
         {"arg_bypointer", 0, 0, 1, "stateful", "global", GPTR},
         {"buffer_address", 40, 8, 1, "", "", GPTR},
         {"arg_bypointer", 0, 0, 2, "stateful", "global", GPTR},
         {"buffer_address", 48, 8, 2, "", "", GPTR},
         {"enqueued_local_size", 64, 12, -1, "", "", IMPL},
     }},
    {"loop_call-gen12lp.elf",
     "loop_call",
     8,
     128,
     0,
     0,
     true,
     1,
     64,
     0x1800,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"arg_bypointer", 32, 8, 0, "stateless", "global", GPTR},
         {"arg_bypointer", 0, 0, 1, "stateful", "global", GPTR},
         {"arg_bypointer", 40, 8, 1, "stateless", "global", GPTR},
         {"arg_byvalue", 48, 4, 2, "", "", BYV},
         {"arg_byvalue", 52, 4, 3, "", "", BYV},
         {"private_base_stateless", 56, 8, -1, "", "", IMPL},
         {"enqueued_local_size", 64, 12, -1, "", "", IMPL},
     }},
    {"oob-gen12lp.elf",
     "oob",
     32,
     128,
     0,
     0,
     false,
     1,
     64,
     0x180,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"buffer_address", 32, 8, 0, "", "", GPTR},
         {"arg_byvalue", 40, 8, 1, "", "", BYV},
         {"arg_byvalue", 48, 4, 2, "", "", BYV},
         {"buffer_offset", 52, 4, 0, "", "", BOFF},
         {"enqueued_local_size", 64, 12, -1, "", "", IMPL},
     }},
    {"slm-gen12lp.elf",
     "slm",
     32,
     128,
     256,
     1,
     false,
     1,
     64,
     0x400,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 32, 8, 2, "slm", "local", LPTR},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"buffer_address", 40, 8, 0, "", "", GPTR},
         {"arg_bypointer", 0, 0, 1, "stateful", "global", GPTR},
         {"buffer_address", 48, 8, 1, "", "", GPTR},
         {"local_size", 64, 12, -1, "", "", IMPL},
         {"enqueued_local_size", 76, 12, -1, "", "", IMPL},
     }},
    {"vadd-xehpg.elf",
     "vadd",
     32,
     128,
     0,
     0,
     false,
     1,
     64,
     0x2c0,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"buffer_address", 32, 8, 0, "", "", GPTR},
         {"arg_bypointer", 0, 0, 1, "stateful", "global", GPTR},
         {"buffer_address", 40, 8, 1, "", "", GPTR},
         {"arg_bypointer", 0, 0, 2, "stateful", "global", GPTR},
         {"buffer_address", 48, 8, 2, "", "", GPTR},
         {"enqueued_local_size", 64, 12, -1, "", "", IMPL},
     }},
    {"loop_call-xehpg.elf",
     "loop_call",
     8,
     128,
     0,
     0,
     true,
     1,
     64,
     0x1880,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"arg_bypointer", 32, 8, 0, "stateless", "global", GPTR},
         {"arg_bypointer", 0, 0, 1, "stateful", "global", GPTR},
         {"arg_bypointer", 40, 8, 1, "stateless", "global", GPTR},
         {"arg_byvalue", 48, 4, 2, "", "", BYV},
         {"arg_byvalue", 52, 4, 3, "", "", BYV},
         {"private_base_stateless", 56, 8, -1, "", "", IMPL},
         {"enqueued_local_size", 64, 12, -1, "", "", IMPL},
     }},
    {"oob-xehpg.elf",
     "oob",
     32,
     128,
     0,
     0,
     false,
     1,
     64,
     0x2c0,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"buffer_address", 32, 8, 0, "", "", GPTR},
         {"arg_byvalue", 40, 8, 1, "", "", BYV},
         {"arg_byvalue", 48, 4, 2, "", "", BYV},
         {"buffer_offset", 52, 4, 0, "", "", BOFF},
         {"enqueued_local_size", 64, 12, -1, "", "", IMPL},
     }},
    {"slm-xehpg.elf",
     "slm",
     32,
     128,
     256,
     1,
     false,
     1,
     64,
     0x500,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 32, 8, 2, "slm", "local", LPTR},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"buffer_address", 40, 8, 0, "", "", GPTR},
         {"arg_bypointer", 0, 0, 1, "stateful", "global", GPTR},
         {"buffer_address", 48, 8, 1, "", "", GPTR},
         {"private_base_stateless", 56, 8, -1, "", "", IMPL},
         {"local_size", 64, 12, -1, "", "", IMPL},
         {"enqueued_local_size", 76, 12, -1, "", "", IMPL},
     }},
    {"vadd-xehpc.elf",
     "vadd",
     32,
     128,
     0,
     0,
     false,
     1,
     64,
     0x240,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"arg_bypointer", 32, 8, 0, "stateless", "global", GPTR},
         {"arg_bypointer", 0, 0, 1, "stateful", "global", GPTR},
         {"arg_bypointer", 40, 8, 1, "stateless", "global", GPTR},
         {"arg_bypointer", 0, 0, 2, "stateful", "global", GPTR},
         {"arg_bypointer", 48, 8, 2, "stateless", "global", GPTR},
         {"enqueued_local_size", 64, 12, -1, "", "", IMPL},
     }},
    {"loop_call-xehpc.elf",
     "loop_call",
     16,
     128,
     0,
     0,
     true,
     1,
     64,
     0xf00,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"arg_bypointer", 32, 8, 0, "stateless", "global", GPTR},
         {"arg_bypointer", 0, 0, 1, "stateful", "global", GPTR},
         {"arg_bypointer", 40, 8, 1, "stateless", "global", GPTR},
         {"arg_byvalue", 48, 4, 2, "", "", BYV},
         {"arg_byvalue", 52, 4, 3, "", "", BYV},
         {"private_base_stateless", 56, 8, -1, "", "", IMPL},
         {"enqueued_local_size", 64, 12, -1, "", "", IMPL},
     }},
    {"oob-xehpc.elf",
     "oob",
     32,
     128,
     0,
     0,
     false,
     1,
     64,
     0x200,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"arg_bypointer", 32, 8, 0, "stateless", "global", GPTR},
         {"arg_byvalue", 40, 8, 1, "", "", BYV},
         {"arg_byvalue", 48, 4, 2, "", "", BYV},
         {"enqueued_local_size", 52, 12, -1, "", "", IMPL},
     }},
    {"slm-xehpc.elf",
     "slm",
     32,
     128,
     256,
     1,
     false,
     1,
     64,
     0x340,
     {
         {"global_id_offset", 0, 12, -1, "", "", IMPL},
         {"local_size", 12, 12, -1, "", "", IMPL},
         {"arg_bypointer", 32, 8, 2, "slm", "local", LPTR},
         {"arg_bypointer", 0, 0, 0, "stateful", "global", GPTR},
         {"arg_bypointer", 40, 8, 0, "stateless", "global", GPTR},
         {"arg_bypointer", 0, 0, 1, "stateful", "global", GPTR},
         {"arg_bypointer", 48, 8, 1, "stateless", "global", GPTR},
         {"private_base_stateless", 56, 8, -1, "", "", IMPL},
         {"local_size", 64, 12, -1, "", "", IMPL},
         {"enqueued_local_size", 76, 12, -1, "", "", IMPL},
     }},
};

static unsigned char *load_fixture(const char *file, size_t *size)
{
    const char *top = getenv("top_srcdir");
    char path[4096];
    unsigned char *buf = NULL;
    long n;
    FILE *f;

    snprintf(path, sizeof(path), "%s/tests/kernels/fixtures/%s", top && *top ? top : ".", file);
    f = fopen(path, "rb");
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n ? (size_t)n : 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        if (buf)
            *size = (size_t)n;
    }
    fclose(f);
    return buf;
}

static size_t count_args(const struct exp_kernel *e)
{
    size_t n = 0;

    while (n < MAX_ARGS && e->args[n].type)
        n++;
    return n;
}

static int args_match(const struct exp_kernel *e, const struct gtsim_zebin_kernel *k)
{
    size_t n = count_args(e);

    if (k->nargs != n) {
        tap_diag("%s: %zu payload arguments, expected %zu", e->file, k->nargs, n);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const struct exp_arg *x = &e->args[i];
        const struct gtsim_zebin_arg *a = &k->args[i];
        if (strcmp(a->arg_type, x->type) != 0 || a->offset != x->offset || a->size != x->size ||
            a->arg_index != x->index || strcmp(a->addrmode, x->addrmode) != 0 ||
            strcmp(a->addrspace, x->addrspace) != 0 || a->kind != x->kind) {
            tap_diag("%s arg %zu: got %s off %u size %u idx %d '%s' '%s' kind %d", e->file, i,
                     a->arg_type, a->offset, a->size, a->arg_index, a->addrmode, a->addrspace,
                     (int)a->kind);
            return 0;
        }
    }
    return 1;
}

static void check_expected(const struct exp_kernel *e)
{
    struct gtsim_zebin *zb = NULL;
    unsigned char *image;
    size_t size = 0;
    char err[256] = "";

    image = load_fixture(e->file, &size);
    if (!tap_ok(image != NULL, "%s: fixture readable", e->file))
        return;
    if (!tap_ok(gtsim_zebin_parse(image, size, &zb, err, sizeof(err)) == 0 && zb, "%s: parses (%s)",
                e->file, err)) {
        free(image);
        return;
    }
    /* ocloc writes relocatable zebins: ET_REL for the Intel GT machine. */
    tap_ok(zb->e_machine == GTSIM_EM_INTELGT && zb->e_type == 1 &&
               strcmp(zb->ze_info_version, "1.20") == 0,
           "%s: EM_INTELGT, ET_REL, .ze_info version 1.20", e->file);
    if (tap_ok(zb->nkernels == 1 && strcmp(zb->kernels[0].name, e->name) == 0,
               "%s: one kernel named %s", e->file, e->name)) {
        const struct gtsim_zebin_kernel *k = gtsim_zebin_find_kernel(zb, e->name);
        tap_ok(k == &zb->kernels[0], "%s: find_kernel", e->file);
        tap_ok(k->simd_size == e->simd && k->grf_count == e->grf && k->slm_size == e->slm &&
                   k->barrier_count == e->barriers && k->has_stack_calls == e->stack_calls,
               "%s: simd %u grf %u slm %u barriers %u stack calls %d", e->file, e->simd, e->grf,
               e->slm, e->barriers, (int)e->stack_calls);
        tap_ok(k->text_section == e->text_section && k->text_offset == e->text_offset &&
                   k->text_size == e->text_size && zb->text_size == e->text_size &&
                   memcmp(k->text, image + e->text_offset, e->text_size) == 0,
               "%s: .text.%s is section %u at 0x%zx, 0x%zx bytes", e->file, e->name,
               e->text_section, e->text_offset, e->text_size);
        tap_ok(args_match(e, k), "%s: %zu payload arguments as in .ze_info", e->file,
               count_args(e));
    }
    gtsim_zebin_free(zb);
    free(image);
}

/* Parsing must fail with -EINVAL, leave *out NULL and explain why; want is
 * a fragment the explanation must contain. */
static void expect_reject(const void *image, size_t size, const char *want, const char *what)
{
    struct gtsim_zebin *zb = (struct gtsim_zebin *)&zb;
    char err[256] = "";
    int rc = gtsim_zebin_parse(image, size, &zb, err, sizeof(err));

    tap_ok(rc == -EINVAL && zb == NULL && strstr(err, want) != NULL, "rejects %s: \"%s\"", what,
           err);
    if (rc == 0)
        gtsim_zebin_free(zb);
}

/* Finds needle in the image; returns its offset or (size_t)-1. */
static size_t find_bytes(const unsigned char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);

    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return i;
    return (size_t)-1;
}

static void check_rejections(void)
{
    static const char text[] = "this is not an ELF file at all, just some text";
    unsigned char *image, *bad;
    size_t size = 0, at;
    uint64_t shoff;

    expect_reject(text, sizeof(text), "not an ELF", "a text buffer");
    expect_reject(NULL, 0, "not an ELF", "a NULL image");
    image = load_fixture("vadd-xehpc.elf", &size);
    if (!tap_ok(image != NULL && size > 0x200, "vadd-xehpc.elf readable for corruption tests"))
        return;
    bad = malloc(size);
    if (!bad) {
        free(image);
        tap_bail("out of memory");
    }

    expect_reject(image, 10, "not an ELF", "a 10-byte prefix");
    expect_reject(image, 0x100, "truncated", "an image cut after 256 bytes");
    expect_reject(image, size / 2, "truncated", "an image cut in half");
    expect_reject(image, size - 1, "truncated", "an image missing its last byte");

    memcpy(bad, image, size);
    bad[18] = 62; /* e_machine = EM_X86_64 */
    bad[19] = 0;
    expect_reject(bad, size, "205", "an x86-64 ELF");

    memcpy(bad, image, size);
    bad[4] = 1; /* ELFCLASS32 */
    expect_reject(bad, size, "64-bit", "a 32-bit ELF");

    memcpy(bad, image, size);
    at = find_bytes(bad, size, ".ze_info");
    if (at != (size_t)-1)
        bad[at + 7] = 'X';
    expect_reject(bad, size, "no .ze_info", "a zebin without .ze_info");

    memcpy(bad, image, size);
    at = find_bytes(bad, size, "simd_size:       32");
    if (at != (size_t)-1)
        bad[at + 17] = 'x';
    expect_reject(bad, size, "simd_size", "a .ze_info with a non-numeric simd_size");

    memcpy(bad, image, size);
    at = find_bytes(bad, size, "simd_size:       32");
    if (at != (size_t)-1)
        bad[at + 17] = '4';
    expect_reject(bad, size, "simd_size 42", "a .ze_info with simd_size 42");

    memcpy(bad, image, size);
    at = find_bytes(bad, size, "- name:            vadd");
    if (at != (size_t)-1)
        bad[at + 22] = 'x';
    expect_reject(bad, size, "no .text.vadx", "a kernel without its .text section");

    /* Section 1 (.text.vadd): move its sh_offset far beyond the image. */
    memcpy(bad, image, size);
    memcpy(&shoff, bad + 0x28, sizeof(shoff));
    if (shoff + 2 * 64 <= size) {
        uint64_t huge = (uint64_t)size * 4;
        memcpy(bad + shoff + 64 + 24, &huge, sizeof(huge));
    }
    expect_reject(bad, size, "outside", "a section beyond the end of the image");

    /* Every single-byte corruption of the headers and of .ze_info must end
     * in success or a clean -EINVAL with a message (run under ASan/UBSan to
     * make this bite). */
    {
        size_t tried = 0, odd = 0;
        for (size_t i = 0; i < size; i++) {
            struct gtsim_zebin *zb = NULL;
            char err[256] = "";
            int rc;
            bool in_shdrs = i >= shoff && i < shoff + 15 * 64;
            bool in_zeinfo = i >= 0x100b && i < 0x100b + 0xb60; /* readelf -S */
            if (i >= 64 && !in_shdrs && !in_zeinfo)
                continue;
            memcpy(bad, image, size);
            bad[i] ^= 0xa5;
            rc = gtsim_zebin_parse(bad, size, &zb, err, sizeof(err));
            tried++;
            if (rc == 0)
                gtsim_zebin_free(zb);
            else if (rc != -EINVAL || zb != NULL || err[0] == '\0')
                odd++;
        }
        tap_ok(odd == 0 && tried > 1000, "%zu single-byte corruptions fail cleanly or parse",
               tried);
    }

    {
        struct gtsim_zebin *zb = NULL;
        tap_ok(gtsim_zebin_parse(image, size, NULL, NULL, 0) == -EINVAL &&
                   gtsim_zebin_parse(text, sizeof(text), &zb, NULL, 0) == -EINVAL && zb == NULL,
               "no crash without an error buffer or result pointer");
    }
    free(bad);
    free(image);
}

int main(void)
{
    /* 8 checks per expected kernel, 16 in check_rejections. */
    tap_plan(8 * (int)(sizeof(expected) / sizeof(expected[0])) + 16);
    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
        check_expected(&expected[i]);
    check_rejections();
    return tap_done();
}
