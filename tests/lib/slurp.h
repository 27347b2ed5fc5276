/* SPDX-License-Identifier: MIT */
/* Reads a whole fixture file for the C tests. Header-only so each test
 * program stays a single translation unit plus what it tests. */
#ifndef ZESTUB_TESTS_SLURP_H
#define ZESTUB_TESTS_SLURP_H

#include <stdio.h>
#include <stdlib.h>

/* The file's bytes (caller frees) and their count, or NULL. */
static inline void *tests_slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    void *buf = NULL;
    long n = 0;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0)
        buf = malloc((size_t)n);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        *size = (size_t)n;
    return buf;
}

#endif
