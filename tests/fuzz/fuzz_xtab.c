/* SPDX-License-Identifier: MIT */
/* Fuzz target for the XPTI table reader: any bytes as a table must give
 * "unusable" or answers, never a crash or an out-of-bounds read (run under
 * ASan). With -DZESTUB_LIBFUZZER this is a libFuzzer target; otherwise a
 * small driver replays files given as arguments and then mutations of a
 * sound table, so `make check` runs it without libFuzzer (TAP output);
 * `fuzz_xtab --write-seed FILE` writes that sound table for a corpus. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpti/xtab_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    struct xtab *t = xtab_open_buffer(data, size, err, sizeof(err));
    if (!t)
        return 0;
    struct xtab_site s[2];
    struct xtab_task task;
    struct xtab_alloc a;
    struct xtab_stats st;
    int have;
    for (size_t i = 0; i < xtab_count(t, XTAB_SITES); i++)
        if (xtab_site_at(t, i, s) == 0)
            xtab_find_kernel(t, s[0].kernel, s, 2, &task, &have);
    for (size_t i = 0; i < xtab_count(t, XTAB_TASKS); i++)
        if (xtab_task_at(t, i, &task) == 0)
            xtab_find_uid(t, task.uid, s);
    for (size_t i = 0; i < xtab_count(t, XTAB_ALLOCS); i++)
        if (xtab_alloc_at(t, i, &a) == 0)
            xtab_find_alloc(t, a.base + a.size, &a);
    xtab_find_kernel(t, "", s, 2, &task, &have);
    xtab_stats(t, &st);
    xtab_refresh(t, err, sizeof(err));
    xtab_close(t);
    return 0;
}

#ifndef ZESTUB_LIBFUZZER
#include "xpti/xtab_writer.h"

#define MUTATIONS 20000

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A sound table with records in every area, the mutations' starting point. */
static unsigned char *seed(size_t *len)
{
    static const struct xtab_caps caps = {.sites = 4, .tasks = 8, .allocs = 4, .strings = 128};
    struct xtab_w w;
    *len = xtab_w_size(&caps);
    unsigned char *b = aligned_alloc(64, (*len + 63) & ~(size_t)63);
    memset(b, 0, *len);
    if (xtab_w_init(&w, b, *len, &caps) != 0)
        return NULL;
    struct xtab_site_in in = {.uid = 1ull << 40, .key1 = 1, .kernel = "k", .file = "a.cpp"};
    xtab_w_site_add(&w, &in);
    in.key1 = 2;
    in.kernel = "k2";
    xtab_w_site_add(&w, &in);
    for (uint64_t i = 1; i < 12; i++) {
        xtab_w_task_begin(&w, i << 40, i, (uint32_t)(i & 1), 0, i);
        if (i % 3)
            xtab_w_task_end(&w, i << 40, i, i + 1);
    }
    xtab_w_alloc(&w, 0x1000, 64, 16, 0, 1ull << 40, 0, 1);
    xtab_w_alloc(&w, 0x2000, 64, 0, 0, 2ull << 40, 1, 2);
    xtab_w_release(&w, 0x2000, 3ull << 40, 0, 3);
    xtab_w_destroy(&w);
    return b;
}

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    static uint8_t buf[1 << 22];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    return LLVMFuzzerTestOneInput(buf, n);
}

/* Seeds a libFuzzer corpus: random bytes rarely get past the magic. */
static int write_seed(const char *path)
{
    size_t len;
    unsigned char *good = seed(&len);
    FILE *f = good ? fopen(path, "wb") : NULL;
    int ok = f && fwrite(good, 1, len, f) == len;
    if (f)
        ok &= fclose(f) == 0;
    free(good);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    int n = 0;
    if (argc == 3 && strcmp(argv[1], "--write-seed") == 0)
        return write_seed(argv[2]);
    for (int i = 1; i < argc; i++)
        printf("%s %d - replayed %s\n", replay_file(argv[i]) == 0 ? "ok" : "not ok", ++n, argv[i]);
    size_t len;
    unsigned char *good = seed(&len);
    unsigned char *b = malloc(len);
    if (!good || !b) {
        printf("Bail out! cannot build the seed table\n");
        return 1;
    }
    for (int m = 0; m < MUTATIONS; m++) {
        memcpy(b, good, len);
        int flips = 1 + (int)(next_random() % 16);
        for (int k = 0; k < flips; k++) {
            /* Half the damage in the header and counters, where it counts most. */
            size_t at = next_random() % 2 ? next_random() % 256 : next_random() % len;
            b[at] = (unsigned char)next_random();
        }
        size_t cut = next_random() % 10 == 0 ? next_random() % len : len;
        LLVMFuzzerTestOneInput(b, cut);
    }
    printf("ok %d - %d mutated tables read without a crash\n", ++n, MUTATIONS);
    printf("1..%d\n", n);
    free(b);
    free(good);
    return 0;
}
#endif
