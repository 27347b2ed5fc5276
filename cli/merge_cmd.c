/* SPDX-License-Identifier: MIT */
/* zestub merge [--json] FILE...: the command line of merge/ (merge.h reads
 * and groups the per-rank dumps, merge_report.h writes the report). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "merge/merge.h"
#include "merge/merge_report.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: zestub merge [--json] FILE...\n"
               "Merges the per-rank JSON dumps of one job (zestub dump --json 'dump-%%r.json')\n"
               "into one report: which ranks faulted, hung (--on hang dumps) and which did not,\n"
               "and the dumped\n"
               "threads grouped by kernel, source line, stop reason and fault address class,\n"
               "each class with its ranks (0-3,7), thread count and one representative\n"
               "thread. --json: the document described in zestub-merge(1).\n"
               "Exit: 0 no rank faulted or hung, 1 a file could not be read, 2 usage, 5 some\n"
               "rank faulted, 6 some rank hung (and none faulted).\n");
}

/* The options before the files: the emitter, or an exit status (help,
 * usage error) when there is nothing to merge. */
static int parse(int argc, char **argv, int *first, merge_emit_fn **emit)
{
    for (*first = 1; *first < argc && argv[*first][0] == '-'; (*first)++) {
        const char *a = argv[*first];
        if (!strcmp(a, "--json"))
            *emit = merge_emit_json;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--")) {
            (*first)++;
            break;
        } else {
            fprintf(stderr, "zestub merge: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (*first >= argc) {
        usage(stderr);
        return 2;
    }
    return -1;
}

int cli_merge(int argc, char **argv)
{
    struct merge m = {NULL, 0, NULL, 0};
    struct merge_report r;
    merge_emit_fn *emit = merge_emit_human;
    int first, rc = parse(argc, argv, &first, &emit);
    if (rc >= 0)
        return rc;
#ifdef M_TRIM_THRESHOLD
    /* Each dump is parsed into ~2 MB of pool blocks and freed before the
     * next: without this, malloc gives that memory back to the system at
     * every file and faults it in again, a third of merge's time at
     * 10,000 hang dumps. */
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
    m.nranks = (size_t)(argc - first);
    m.ranks = calloc(m.nranks, sizeof(*m.ranks));
    if (!m.ranks)
        return 1;
    for (size_t i = 0; i < m.nranks; i++) {
        merge_load(&m.ranks[i], argv[first + (int)i], i);
        if (!m.ranks[i].doc)
            fprintf(stderr, "zestub merge: %s: %s\n", m.ranks[i].path, m.ranks[i].error);
        else if (m.ranks[i].unrenamed)
            fprintf(stderr,
                    "zestub merge: %s: a whole record, read (zestub dump was stopped before "
                    "renaming it)\n",
                    m.ranks[i].path);
        /* Grouped now, its document dropped but for a summary: one dump in
         * memory at a time. */
        merge_add(&m, i);
    }
    merge_finish(&m);
    if (merge_report_build(&r, &m) != 0) {
        fprintf(stderr, "zestub merge: out of memory\n");
        merge_free(&m);
        return 1;
    }
    emit(stdout, &r);
    rc = merge_report_status(&r);
    merge_report_free(&r);
    merge_free(&m);
    return rc;
}
