/* SPDX-License-Identifier: MIT */
/* zestub merge: one report for a whole job from its per-rank dumps
 * (doc/merge-format.md). merge.c reads and groups, merge_report.c says what
 * the report holds, merge_human.c and merge_json.c write it. */
#ifndef ZESTUB_MERGE_MERGE_H
#define ZESTUB_MERGE_MERGE_H

#include <stdbool.h>
#include <stdio.h>

#include "merge/json_parse.h"

/* The fault address class of a fault in a dump without an XPTI table:
 * the address is known (the dump lists it), what allocation holds it is
 * not. */
#define MERGE_NO_TABLE "unknown (no XPTI table)"

/* One input file: one rank of the job. */
struct merge_rank {
    const char *path;
    /* NULL when the file could not be read. Once merge_add has grouped
     * the rank's threads, only the members the report reads stay
     * (status, program, host, pid, hang): merge holds one whole dump at a
     * time, however many ranks the job has. */
    struct jv *doc;
    char error[256];
    long rank;
    size_t index; /* the file's place on the command line */
    bool faulted; /* page faults listed, or a thread stopped for one */
    bool hung;    /* a hang dump (zestub dump --on hang=): its "hang" object */
    const struct jv *hang;
    bool dumped;   /* threads were dumped (whatever the trigger) */
    bool complete; /* the document says it was not cut short */
    /* A FILE.partial that is nevertheless a whole dump: zestub dump was
     * killed after its last write and before the rename. Read as any
     * other record (nothing lost), and said. */
    bool unrenamed;
};

/* One rank's fault address in a class, with where it was met (rank, file,
 * thread) so that the list reads in rank order whatever the files' order. */
struct merge_address {
    long rank;
    size_t index, thread;
    char *text; /* "rank:address" */
};

/* Threads that are "the same problem": one kernel, one source line, one
 * stop reason, one kind of fault address. Its strings are its own: the
 * documents they came from are freed. */
struct merge_class {
    char *kernel, *file, *function, *reason;
    long line;
    char fault_class[160];
    long *ranks; /* sorted, unique (after merge_finish) */
    size_t nranks, ranks_cap;
    unsigned threads;
    /* The representative: the first thread met in rank order (lowest
     * rank, then command-line order, then file order), copied. rep_rank
     * is set by merge_finish; until then rep_index names the file. */
    const struct merge_rank *rep_rank;
    long rep_rank_no;
    size_t rep_index, rep_thread_no;
    struct jv *rep_thread, *rep_allocation; /* its fault's allocation or NULL */
    /* Each rank's fault addresses in this class, for naming the
     * allocation rank by rank ("rank:address"), in rank order once
     * merge_finish ran. */
    struct merge_address *addresses;
    size_t naddresses, addresses_cap;
};

struct merge {
    struct merge_rank *ranks;
    size_t nranks;
    struct merge_class *classes;
    size_t nclasses; /* room for the next power of two, at least 4 */
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
/* Groups the threads of m->ranks[i] (loaded, read or not) into m's
 * classes, then drops from its document what the report does not read.
 * Ranks may be added in any order. */
void merge_add(struct merge *m, size_t i);
/* Once every rank is added: sorts the ranks, each class's ranks and
 * addresses, and the classes, most threads first. */
void merge_finish(struct merge *m);
/* merge_add of every rank of m, then merge_finish. */
void merge_group(struct merge *m);
/* Frees what merge_load, merge_add and merge_finish allocated (not m
 * itself). */
void merge_free(struct merge *m);
/* The page fault record that lists thread t of its rank's document. */
const struct jv *merge_fault_of(const struct jv *doc, const struct jv *t);

#endif
