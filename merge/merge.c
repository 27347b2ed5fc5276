/* SPDX-License-Identifier: MIT */
/* zestub merge's reading: the per-rank dumps of a job (zestub dump --json
 * 'dump-%r.json' under mpirun or srun) and each rank's state (faulted,
 * hung, complete). merge_class.c groups their threads. */
#include "merge/merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A name given that does not exist, where zestub dump wrote one file per
 * rank instead (a name without %r in a job of several ranks gets .rN
 * before its extension, doc/dump-format.md): the error says what to merge. */
static void hint_per_rank(const char *path, char *err, size_t errlen)
{
    const char *base = strrchr(path, '/'), *dot;
    char probe[4096];
    size_t at, used = strlen(err);
    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    at = dot && dot > base ? (size_t)(dot - path) : strlen(path);
    for (int rank = 0; rank < 2; rank++) {
        struct stat st;
        int n = snprintf(probe, sizeof(probe), "%.*s.r%d%s", (int)at, path, rank, path + at);
        if (n <= 0 || (size_t)n >= sizeof(probe) || stat(probe, &st) != 0)
            continue;
        snprintf(err + used, errlen - used,
                 "; zestub dump wrote one file per rank beside it (%.*s.r*%s): merge those",
                 (int)at, path, path + at);
        return;
    }
}

/* The whole file as a C string, or NULL with err saying why: it cannot be
 * opened or read (a directory: "Is a directory"), memory ran out, it is
 * empty, or it holds a NUL byte, which no JSON text does (what a crash
 * leaves in a file's last blocks) and which would end the text early. */
static char *slurp(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    const char *nul;
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "%s", strerror(e));
        if (e == ENOENT)
            hint_per_rank(path, err, errlen);
        return NULL;
    }
    for (;;) {
        size_t got;
        if (cap - n < 65536) {
            char *b = realloc(buf, cap + 65536 + 1);
            if (!b) {
                snprintf(err, errlen, "out of memory after reading %zu bytes", n);
                break;
            }
            buf = b;
            cap += 65536;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f) && !err[0])
        snprintf(err, errlen, "%s", strerror(errno));
    fclose(f);
    if (!err[0] && n == 0)
        snprintf(err, errlen, "an empty file (a dump stopped before it wrote anything?)");
    if (!err[0] && (nul = memchr(buf, '\0', n)) != NULL)
        snprintf(err, errlen, "a NUL byte at offset %zu: not a JSON text", (size_t)(nul - buf));
    if (err[0]) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static bool is_partial(const char *path)
{
    static const char suffix[] = ".partial";
    size_t n = strlen(path), k = sizeof(suffix) - 1;
    return n >= k && strcmp(path + n - k, suffix) == 0;
}

/* FILE.partial is what `zestub dump` leaves when it is killed before its
 * record is whole (a job launcher's SIGKILL): say so, and take the rank
 * from its header, written first, so that the report names the rank. */
static void explain_partial(struct merge_rank *r, const char *text)
{
    const char *at = strstr(text, "\"rank\":");
    if (!is_partial(r->path))
        return;
    snprintf(r->error, sizeof(r->error),
             "an incomplete record: zestub dump was stopped before it finished it "
             "(killed by the job launcher?)");
    if (at) {
        char *end;
        long rank = strtol(at + 7, &end, 10);
        if (end != at + 7 && rank >= 0)
            r->rank = rank;
    }
}

void merge_read_text(struct merge_rank *r, const char *text, size_t index)
{
    const struct jv *threads, *faults, *program;
    r->rank = (long)index;
    r->index = index;
    r->unrenamed = false;
    r->doc = jv_parse(text, r->error, sizeof(r->error));
    if (!r->doc)
        explain_partial(r, text);
    if (r->doc && strcmp(jv_str(r->doc, "schema", ""), "zestub-dump") != 0) {
        snprintf(r->error, sizeof(r->error), "not a zestub dump (no \"schema\":\"zestub-dump\")");
        jv_free(r->doc);
        r->doc = NULL;
    }
    if (!r->doc)
        return;
    /* No rank (a dump made without a launcher): its place on the command
     * line stands in. */
    r->rank = jv_is(r->doc, "rank", JV_NUMBER) ? (long)jv_int(r->doc, "rank", 0) : (long)index;
    threads = jv_get(r->doc, "threads");
    faults = jv_get(r->doc, "page_faults");
    program = jv_get(r->doc, "program");
    r->complete = jv_is(r->doc, "complete", JV_BOOL) && jv_get(r->doc, "complete")->b;
    r->dumped = threads && threads->n > 0;
    if (jv_is(program, "dumped", JV_BOOL))
        r->dumped = jv_get(program, "dumped")->b;
    r->faulted = faults && faults->n > 0;
    for (size_t i = 0; threads && i < threads->n; i++)
        r->faulted |= !strcmp(jv_str(threads->item[i], "reason", ""), "page-fault");
    r->hang = jv_get(r->doc, "hang");
    r->hung = jv_is(r->doc, "hang", JV_OBJECT);
    /* The writer's last byte closes the document, so a FILE.partial that
     * parses was written to its end and only its rename was missed (the
     * launcher's SIGKILL came in between): the record is whole. */
    r->unrenamed = is_partial(r->path);
}

void merge_load(struct merge_rank *r, const char *path, size_t index)
{
    char *text;
    r->path = path;
    r->index = index;
    text = slurp(r->path, r->error, sizeof(r->error));
    r->rank = (long)index;
    if (!text)
        return;
    merge_read_text(r, text, index);
    free(text);
}

const struct jv *merge_fault_of(const struct jv *doc, const struct jv *t)
{
    const struct jv *faults = jv_get(doc, "page_faults");
    const char *id = jv_str(t, "thread", "");
    long long session = jv_int(t, "session", -1);
    for (size_t i = 0; faults && i < faults->n; i++) {
        const struct jv *f = faults->item[i], *ths = jv_get(f, "threads");
        if (jv_int(f, "session", -2) != session)
            continue;
        for (size_t k = 0; ths && k < ths->n; k++)
            if (ths->item[k]->type == JV_STRING && !strcmp(ths->item[k]->str, id))
                return f;
    }
    return NULL;
}
