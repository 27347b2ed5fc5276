/* SPDX-License-Identifier: MIT */
/* What the fuzz targets' plain programs (built without ZESTUB_LIBFUZZER,
 * run by `make check`) share: the random sequence of their mutations and
 * the replay of files (named on the command line, or a checked-in corpus). Header-only, as
 * tests/lib/tap.h is, so a target stays one file for the libFuzzer build. */
#ifndef ZESTUB_TESTS_FUZZ_PLAIN_H
#define ZESTUB_TESTS_FUZZ_PLAIN_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

/* xorshift64 over *state: the same mutations on every run, so a failure
 * in `make check` comes back when the test is run again. */
static inline uint64_t fuzz_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* A target's check of one input: the promises it broke (bit p for promise
 * p), 0 for none. */
typedef unsigned (*fuzz_check_fn)(const uint8_t *data, size_t size);

/* One file through check: the promises it broke; *readable says whether
 * the file could be read at all. An empty file is an input too. */
static inline unsigned fuzz_replay_path(const char *path, int *readable, fuzz_check_fn check)
{
    size_t n = 0;
    uint8_t *buf = tests_slurp(path, &n);
    FILE *f = buf ? NULL : fopen(path, "rb"); /* tests_slurp: NULL when empty */
    unsigned bad;
    *readable = buf != NULL || f != NULL;
    if (f)
        fclose(f);
    if (!*readable)
        return 0;
    bad = check(buf ? buf : (const uint8_t *)"", buf ? n : 0);
    free(buf);
    return bad;
}

/* Every file of tests/fuzz/corpus/<name> (under $top_srcdir) through
 * check, as one TAP check: at least min_files of them, each readable and
 * keeping every promise; each one that does not is named in a diagnostic. */
static inline void fuzz_replay_corpus(const char *name, unsigned min_files, fuzz_check_fn check)
{
    const char *top = getenv("top_srcdir");
    char dir[512], path[1024];
    struct dirent *de;
    unsigned files = 0, bad = 0;
    snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", top ? top : ".", name);
    DIR *d = opendir(dir);
    while (d && (de = readdir(d)) != NULL) {
        int readable;
        unsigned broke;
        if (de->d_name[0] == '.' ||
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
            continue;
        broke = fuzz_replay_path(path, &readable, check);
        files++;
        if (!readable || broke) {
            bad++;
            tap_diag("%s: %s (mask %#x)", path, readable ? "broke a promise" : "unreadable", broke);
        }
    }
    if (d)
        closedir(d);
    tap_ok(files >= min_files && bad == 0, "the %u files of %s keep every promise (%u do not)",
           files, dir, bad);
}

/* The files named on the command line, a TAP check each. */
static inline void fuzz_replay_args(int argc, char **argv, fuzz_check_fn check)
{
    for (int i = 1; i < argc; i++) {
        int readable;
        unsigned bad = fuzz_replay_path(argv[i], &readable, check);
        tap_ok(readable && bad == 0, "replayed %s (broken promises: mask %#x)", argv[i], bad);
    }
}

#endif
