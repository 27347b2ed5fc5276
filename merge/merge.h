/* SPDX-License-Identifier: MIT */
/* zestub merge: one report for a whole job from its per-rank dumps
 * (doc/merge-format.md). merge.c reads and groups, merge_report.c says what
 * the report holds, merge_human.c and merge_json.c write it. */
#ifndef ZESTUB_MERGE_MERGE_H
#define ZESTUB_MERGE_MERGE_H

#include <stdbool.h>
#include <stdio.h>

#include "merge/json_parse.h"

/* One input file: one rank of the job. */
struct merge_rank {
    const char *path;
    struct jv *doc; /* NULL when the file could not be read */
    char error[256];
    long rank;
    bool faulted; /* page faults listed, or a thread stopped for one */
    bool hung;    /* a hang dump (zestub dump --on hang=): its "hang" object */
    const struct jv *hang;
    bool dumped;   /* threads were dumped (whatever the trigger) */
    bool complete; /* the document says it was not cut short */
};

/* Threads that are "the same problem": one kernel, one source line, one
 * stop reason, one kind of fault address. */
struct merge_class {
    const char *kernel, *file, *function, *reason;
    long line;
    char fault_class[160];
    long *ranks; /* sorted, unique */
    size_t nranks;
    unsigned threads;
    /* The first thread met (lowest rank, then file order). */
    const struct merge_rank *rep_rank;
    const struct jv *rep_thread, *rep_fault;
    /* Each rank's fault addresses in this class, for naming the
     * allocation rank by rank ("rank:address"). */
    char **addresses;
    size_t naddresses;
};

struct merge {
    struct merge_rank *ranks;
    size_t nranks;
    struct merge_class *classes;
    size_t nclasses;
};

/* Reads the file at path as rank index of the job (its place on the
 * command line) into r: r->doc and the fields read from it, or r->doc NULL
 * and r->error saying why. */
void merge_load(struct merge_rank *r, const char *path, size_t index);
/* One rank's dump from its text (NUL-terminated, as merge reads a whole
 * file) into r, whose path is set: as merge_load after the file is read.
 * index is the file's place on the command line, the rank of a document
 * that names none. merge_load calls it; it is not static so that
 * tests/fuzz/fuzz_merge_json can feed it any bytes without a file. */
void merge_read_text(struct merge_rank *r, const char *text, size_t index);
/* Once every rank of m is loaded: sorts the ranks, groups their threads
 * into classes, most threads first. */
void merge_group(struct merge *m);
/* Frees what merge_load and merge_group allocated (not m itself). */
void merge_free(struct merge *m);
/* The page fault record that lists thread t of its rank's document. */
const struct jv *merge_fault_of(const struct jv *doc, const struct jv *t);

#endif
