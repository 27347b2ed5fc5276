/* SPDX-License-Identifier: MIT */
/* What zestub merge's report says, computed once from a grouped merge
 * (merge.h): the files read, the ranks that faulted, did not, and hung,
 * the classes, the exit status. Each format is one emitter that reads this
 * and writes the whole report (merge_human.c, merge_json.c); none decides
 * anything the other must agree with. */
#ifndef ZESTUB_MERGE_MERGE_REPORT_H
#define ZESTUB_MERGE_MERGE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "merge/merge.h"

/* Sorted, unique ranks. */
struct merge_rank_list {
    long *v;
    size_t n;
};

struct merge_report {
    const struct merge *m; /* ranks in rank order, classes most threads first */
    size_t read, unread;   /* files read as dumps, files that could not be */
    struct merge_rank_list faulted, not_faulted, hung;
};

/* 0, or -1 when memory ran out (r then holds nothing to free). */
int merge_report_build(struct merge_report *r, const struct merge *m);
void merge_report_free(struct merge_report *r);
/* zestub merge's exit status (doc/merge-format.md): 1 a file could not be
 * read, else 5 some rank faulted, else 6 some rank hung, else 0. */
int merge_report_status(const struct merge_report *r);
/* "0-3,7" from sorted unique values. */
void merge_ranges(FILE *f, const long *v, size_t n);

/* An emitter: writes the whole report in its format. */
typedef void merge_emit_fn(FILE *f, const struct merge_report *r);
/* Text for a person. */
void merge_emit_human(FILE *f, const struct merge_report *r);
/* The zestub-merge JSON document (doc/merge-format.md). */
void merge_emit_json(FILE *f, const struct merge_report *r);

#endif
