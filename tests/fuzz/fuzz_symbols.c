/* SPDX-License-Identifier: MIT */
/* Fuzz target for symbols/: any bytes as a module's ELF image, as a hostile
 * or broken device could hand them to the debugger at a module load. What
 * must hold (symbols/symbols.h): sym_module_open answers 0, -EINVAL with a
 * sentence, or -ENOMEM, and a module it opens is consistent: kernels in
 * address order with readable names that sym_kernel_find finds again,
 * lookups over a spread of addresses answer 0 inside the kernel they name or
 * -ENOENT, with readable strings, and nothing points into the caller's
 * bytes (they are freed before the lookups). Never a crash or a memory error
 * (ASan in CI; libdwarf and libelf are Debian's, not instrumented, so only
 * their crashes show).
 *
 * With -DZESTUB_LIBFUZZER this is a libFuzzer target that aborts on a broken
 * promise; otherwise `main` replays the files named on its command line and
 * then mutations of the sound debug zebins of tests/kernels/fixtures (TAP,
 * one check per promise); `fuzz_symbols --write-seeds DIR` writes those
 * debug zebins as a corpus. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"

enum promise {
    P_REJECT,  /* a refusal is -EINVAL with a sentence, or -ENOMEM; no module */
    P_KERNELS, /* kernels sorted, named, found by name, low/high agree */
    P_LOOKUP,  /* 0 inside the kernel it names, or -ENOENT; readable strings */
    P_FOUND,   /* a pc inside a kernel that overlaps no other is found there */
    P_COUNT
};

static const char *const promise_name[P_COUNT] = {
    "a refused image gives -EINVAL with a reason (or -ENOMEM) and no module",
    "an opened module lists its kernels in address order, named, found again by name",
    "sym_lookup answers 0 inside the kernel it names (readable strings) or -ENOENT",
    "a pc inside a kernel that overlaps no other kernel is found in it",
};

/* What the last image did, for the driver's reach checks. */
static int last_opened, last_lines;

static uint64_t lookup_rng = 0x2545f4914f6cdd1du;

static uint64_t lookup_random(void)
{
    lookup_rng ^= lookup_rng << 13;
    lookup_rng ^= lookup_rng >> 7;
    lookup_rng ^= lookup_rng << 17;
    return lookup_rng;
}

/* Every string a location hands out is read to its end (ASan sees a bad one). */
static int strings_readable(const struct sym_location *l)
{
    size_t n = strlen(l->kernel);
    if (l->function)
        n += strlen(l->function);
    if (l->inlined)
        n += strlen(l->inlined);
    if (l->file)
        n += strlen(l->file);
    return n < SIZE_MAX && (l->has_line ? l->file != NULL : l->file == NULL);
}

static int inside(const struct sym_kernel *k, uint64_t pc)
{
    return pc >= k->addr && pc - k->addr < k->size;
}

/* The kernel holding pc if no other kernel starts inside it and it starts
 * inside no other, else NULL. Kernels that overlap (several .text.<name>
 * sections at one address: a raw zebin, or a hostile image) may hide each
 * other from sym_lookup, which takes the last kernel starting at or below pc. */
static const struct sym_kernel *sole_holder(const struct sym_module *m, uint64_t pc)
{
    const struct sym_kernel *found = NULL;
    size_t n = sym_kernel_count(m);
    for (size_t i = 0; i < n && !found; i++)
        if (inside(sym_kernel_at(m, i), pc))
            found = sym_kernel_at(m, i);
    for (size_t i = 0; i < n && found; i++) {
        const struct sym_kernel *k = sym_kernel_at(m, i);
        if (k != found && (inside(found, k->addr) || inside(k, found->addr)))
            found = NULL;
    }
    return found;
}

static unsigned check_pc(const struct sym_module *m, uint64_t pc)
{
    struct sym_location l;
    const struct sym_kernel *k = sole_holder(m, pc);
    int rc = sym_lookup(m, pc, &l);
    unsigned bad = 0;
    if (rc == 0) {
        if (!l.kernel || pc < l.kernel_addr || pc - l.kernel_addr >= l.kernel_size ||
            !strings_readable(&l))
            bad |= 1u << P_LOOKUP;
        last_lines |= l.has_line;
    } else if (rc != -ENOENT) {
        bad |= 1u << P_LOOKUP;
    }
    if (k && (rc != 0 || l.kernel_addr != k->addr || strcmp(l.kernel, k->name) != 0))
        bad |= 1u << P_FOUND;
    return bad;
}

static unsigned check_kernels(const struct sym_module *m)
{
    size_t n = sym_kernel_count(m);
    unsigned bad = 0;
    if (sym_kernel_at(m, n) != NULL)
        bad |= 1u << P_KERNELS;
    if (n == 0)
        return bad | (sym_module_low(m) || sym_module_high(m) ? 1u << P_KERNELS : 0);
    if (sym_module_low(m) != sym_kernel_at(m, 0)->addr)
        bad |= 1u << P_KERNELS;
    for (size_t i = 0; i < n; i++) {
        const struct sym_kernel *k = sym_kernel_at(m, i);
        const struct sym_kernel *f = k && k->name ? sym_kernel_find(m, k->name) : NULL;
        if (!f || strcmp(f->name, k->name) != 0 || (i && sym_kernel_at(m, i - 1)->addr > k->addr))
            bad |= 1u << P_KERNELS;
    }
    return bad;
}

/* Where to look: around each kernel's edges and middle, far away, random. */
static unsigned check_lookups(const struct sym_module *m)
{
    static const uint64_t far[] = {0, 1, 0x800000000ull, UINT64_MAX, UINT64_MAX / 2};
    unsigned bad = 0;
    for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++)
        bad |= check_pc(m, far[i]);
    for (size_t i = 0; i < sym_kernel_count(m) && i < 64; i++) {
        const struct sym_kernel *k = sym_kernel_at(m, i);
        uint64_t pcs[] = {k->addr - 1, k->addr, k->addr + k->size / 2, k->addr + k->size - 1,
                          k->addr + k->size};
        for (size_t j = 0; j < sizeof(pcs) / sizeof(pcs[0]); j++)
            bad |= check_pc(m, pcs[j]);
        /* Every 16th byte of a small kernel, a few random ones of a big one. */
        if (k->size <= 1u << 16)
            for (uint64_t off = 0; off < k->size; off += 16)
                bad |= check_pc(m, k->addr + off);
        else
            for (int r = 0; r < 64; r++)
                bad |= check_pc(m, k->addr + lookup_random() % k->size);
    }
    return bad;
}

/* Opens `data` as a module and returns the promises it broke (a mask). The
 * bytes are copied first and the copy freed before any lookup, so a module
 * that kept a pointer into its caller's image is a use after free. */
static unsigned check_image(const uint8_t *data, size_t size)
{
    char err[256] = "";
    struct sym_module *m = (struct sym_module *)1;
    uint8_t *copy = malloc(size ? size : 1);
    int rc;
    unsigned bad = 0;
    last_opened = last_lines = 0;
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    rc = sym_module_open(copy, size, &m, err, sizeof(err));
    free(copy);
    if (rc != 0)
        return (rc == -ENOMEM || (rc == -EINVAL && err[0])) && m == NULL ? 0 : 1u << P_REJECT;
    last_opened = 1;
    if (!m)
        return 1u << P_KERNELS;
    bad |= check_kernels(m);
    bad |= check_lookups(m);
    (void)sym_line_count(m);
    (void)sym_function_count(m);
    sym_module_close(m);
    return bad;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned bad = check_image(data, size);
    for (int p = 0; p < P_COUNT; p++)
        if (bad & (1u << p)) {
            fprintf(stderr, "fuzz_symbols: broken promise: %s\n", promise_name[p]);
            abort();
        }
    return 0;
}

#ifndef ZESTUB_LIBFUZZER
#include <dirent.h>
#include <elf.h>

#include "gtsim/debug_zebin.h"
#include "gtsim/zebin.h"
#include "tests/fuzz/plain.h"
#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

/* Bounded so that `make check` under ASan stays well under a minute. */
#define MUTATIONS 10000
#define MAX_SEEDS 16

struct seed {
    char name[64];
    uint8_t *img;
    size_t size;
};

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    return fuzz_xorshift(&rng);
}

/* The fixture as the driver would hand it out: a debug zebin. */
static int make_seed(const char *dir, const char *name, uint64_t kaddr, struct seed *s)
{
    char path[512], err[256];
    size_t size = 0;
    void *raw;
    struct gtsim_zebin *zb = NULL;
    void *dbg = NULL;
    int rc = -1;
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
        return -1;
    raw = tests_slurp(path, &size);
    if (raw && gtsim_zebin_parse(raw, size, &zb, err, sizeof(err)) == 0 && zb->nkernels == 1 &&
        gtsim_debug_zebin_create(zb, &kaddr, &dbg, &s->size, err, sizeof(err)) == 0) {
        s->img = dbg;
        /* Fixture names are short; a longer one is cut, which only
         * shortens its label in the TAP lines. */
        snprintf(s->name, sizeof(s->name), "%.*s", (int)sizeof(s->name) - 1, name);
        rc = 0;
    }
    gtsim_zebin_free(zb);
    free(raw);
    return rc;
}

static size_t load_seeds(struct seed *seeds)
{
    const char *top = getenv("top_srcdir");
    char dir[512];
    struct dirent *de;
    size_t n = 0;
    snprintf(dir, sizeof(dir), "%s/tests/kernels/fixtures", top ? top : ".");
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL && n < MAX_SEEDS) {
        size_t len = strlen(de->d_name);
        if (len > 4 && len < 60 && strcmp(de->d_name + len - 4, ".elf") == 0 &&
            make_seed(dir, de->d_name, 0x800000040ull + n * 0x100000, &seeds[n]) == 0)
            n++;
    }
    closedir(d);
    return n;
}

static int write_seeds(const char *dir)
{
    struct seed seeds[MAX_SEEDS];
    size_t n = load_seeds(seeds);
    int ok = n > 0;
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        FILE *f = NULL;
        if (snprintf(path, sizeof(path), "%s/%s", dir, seeds[i].name) < (int)sizeof(path))
            f = fopen(path, "wb");
        ok &= f && fwrite(seeds[i].img, 1, seeds[i].size, f) == seeds[i].size;
        if (f)
            ok &= fclose(f) == 0;
        free(seeds[i].img);
    }
    return ok ? 0 : 1;
}

static const uint64_t interesting[] = {0,          1,           0x7f,      0x80,      0xff,
                                       0x100,      0x7fff,      0xffff,    0x10000,   0x7fffffff,
                                       0xffffffff, 0x100000000, INT64_MAX, UINT64_MAX};

/* Writes an 'interesting' or random value of width 1, 2, 4 or 8 at b+at. */
static void poke(uint8_t *b, size_t len, size_t at)
{
    size_t w = (size_t)1 << (next_random() % 4);
    uint64_t v =
        next_random() % 3 ? interesting[next_random() % (sizeof(interesting) / 8)] : next_random();
    if (at + w > len)
        return;
    memcpy(b + at, &v, w); /* little-endian, as the image */
}

/* A byte inside a random section header, or inside a random section's body
 * (most of a module is its .debug_* sections, where libdwarf parses). */
static size_t section_spot(const uint8_t *b, size_t len, int header)
{
    Elf64_Ehdr eh;
    Elf64_Shdr sh;
    memcpy(&eh, b, sizeof(eh));
    if (eh.e_shnum == 0 || eh.e_shoff > len || (len - eh.e_shoff) / sizeof(sh) < eh.e_shnum)
        return next_random() % len;
    size_t i = next_random() % eh.e_shnum;
    memcpy(&sh, b + eh.e_shoff + i * sizeof(sh), sizeof(sh));
    if (header)
        return eh.e_shoff + i * sizeof(sh) + next_random() % sizeof(sh);
    if (sh.sh_offset >= len || sh.sh_size == 0)
        return next_random() % len;
    return sh.sh_offset +
           next_random() % (sh.sh_size < len - sh.sh_offset ? sh.sh_size : len - sh.sh_offset);
}

/* One mutation of a sound image into b; returns the length to read. */
static size_t mutate(uint8_t *b, const struct seed *s)
{
    size_t len = s->size;
    memcpy(b, s->img, len);
    int edits = 1 + (int)(next_random() % 8);
    for (int k = 0; k < edits; k++) {
        size_t at;
        switch (next_random() % 4) {
        case 0: /* the ELF header */
            at = next_random() % sizeof(Elf64_Ehdr);
            break;
        case 1: /* a section header */
            at = section_spot(b, len, 1);
            break;
        default: /* a section's contents */
            at = section_spot(b, len, 0);
            break;
        }
        if (next_random() % 2)
            b[at] ^= (uint8_t)(1u << (next_random() % 8));
        else
            poke(b, len, at);
    }
    return next_random() % 10 == 0 ? next_random() % len : len;
}

/* Without arguments (`make check`) it replays the checked-in corpus: the
 * malformed cases of tests/symbols/test_malformed and what earlier runs
 * found. */
int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
        return write_seeds(argv[2]);
    /* Plan: one check per replayed file (or one for the checked-in corpus),
     * the seeds, one per promise, and that the mutations reached refusals,
     * modules, and line tables. */
    tap_plan((argc > 1 ? argc - 1 : 1) + 1 + P_COUNT + 3);
    fuzz_replay_args(argc, argv, check_image);
    if (argc == 1)
        fuzz_replay_corpus("symbols", 30, check_image);
    struct seed seeds[MAX_SEEDS];
    size_t nseeds = load_seeds(seeds), maxlen = 0;
    unsigned seed_bad = 0;
    int seeds_read = 1;
    for (size_t i = 0; i < nseeds; i++) {
        seed_bad |= check_image(seeds[i].img, seeds[i].size);
        seeds_read &= last_opened && last_lines;
        maxlen = seeds[i].size > maxlen ? seeds[i].size : maxlen;
    }
    tap_ok(nseeds >= 12 && seed_bad == 0 && seeds_read,
           "%zu sound debug zebins open with lines and keep every promise", nseeds);
    uint8_t *b = malloc(maxlen ? maxlen : 1);
    unsigned violations[P_COUNT] = {0}, refused = 0, opened = 0, with_lines = 0;
    for (int m = 0; b && nseeds && m < MUTATIONS; m++) {
        const struct seed *s = &seeds[next_random() % nseeds];
        size_t cut = mutate(b, s);
        unsigned bad = check_image(b, cut);
        refused += !last_opened;
        opened += last_opened;
        with_lines += last_lines;
        for (int p = 0; p < P_COUNT; p++)
            if ((bad >> p) & 1 && violations[p]++ == 0)
                tap_diag("mutation %d of %s (%zu bytes) broke: %s", m, s->name, cut,
                         promise_name[p]);
    }
    for (int p = 0; p < P_COUNT; p++)
        tap_ok(nseeds && violations[p] == 0, "%s (%u of %d images broke it)", promise_name[p],
               violations[p], MUTATIONS);
    tap_ok(refused > 0, "some mutated images are refused (%u)", refused);
    tap_ok(opened > 0, "some mutated images open (%u)", opened);
    tap_ok(with_lines > 0, "some mutated images still answer with lines (%u)", with_lines);
    for (size_t i = 0; i < nseeds; i++)
        free(seeds[i].img);
    free(b);
    return tap_failed_ ? 1 : 0;
}
#endif
