/* SPDX-License-Identifier: MIT */
/* The reader's private state, shared by xtab_reader.c, xtab_records.c,
 * xtab_query.c and xtab_locate.c. */
#ifndef ZESTUB_XPTI_XTAB_INT_H
#define ZESTUB_XPTI_XTAB_INT_H

#include <stdbool.h>

#include "xpti/xtab_format.h"
#include "xpti/xtab_reader.h"

/* The geometry is copied out of the header once and validated; the reader
 * never re-reads it from the table, so a writer changing it later cannot
 * move a checked bound. */
struct xtab_geom {
    uint64_t total_size;
    pid_t pid;
    uint64_t start_ns;
    struct xtab_area sites, tasks, allocs;
    uint64_t strings_offset, strings_size;
    uint32_t flags;
};

struct xtab {
    const unsigned char *base; /* the mapping or the private copy */
    size_t size;
    void *map;   /* munmap on close, or NULL */
    void *copy;  /* free on close, or NULL */
    bool broken; /* a refresh failed: every query finds nothing */
    struct xtab_geom g;
    uint64_t bad_records;
};

/* Checks the header in [base, base + size) and fills `g`. Returns 0, or -1
 * with the reason (no prefix) in `why`. */
int xtab_validate(const unsigned char *base, size_t size, struct xtab_geom *g, char *why,
                  size_t whylen);

/* Wraps a mapping or a copy; takes ownership of map/copy on success. */
struct xtab *xtab_wrap(const unsigned char *base, size_t size, void *map, void *copy, char *err,
                       size_t errlen);

/* A stable copy of counter `field` (an offsetof into struct xtab_counters);
 * 0 if the table is broken. */
uint64_t xtab_counter(const struct xtab *t, size_t field);

/* Formats err as "XPTI table unusable: ..." (err may be NULL). */
void xtab_unusable(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
