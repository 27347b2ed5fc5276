/* SPDX-License-Identifier: MIT */
/* Fuzz target for what `zestub merge` reads: the JSON reader
 * (merge/json_parse.h) and merge's reading of one rank's dump
 * (merge_read_text, merge/merge.h). The files come from crashed or killed
 * jobs, or are not dumps at all: every input must be refused with a reason
 * or read into a sound tree, never crash or read outside its buffer.
 *
 * The input's first byte chooses (the rest is the text, copied into a
 * buffer of its own size plus the NUL that merge's slurp adds, so ASan sees
 * a read past it): bit 0 clear, a JSON document for jv_parse; bit 0 set,
 * one rank's dump file for merge_read_text, named "rank.json.partial" when
 * bit 1 is set too (what a killed `zestub dump` leaves), else "rank.json".
 * The ASCII digits make readable seeds: '0' + JSON, '1' + a dump, '3' + a
 * partial dump. An empty input is an empty JSON document.
 *
 * With -DZESTUB_LIBFUZZER this is a libFuzzer target that aborts on a
 * broken promise; otherwise a plain program for `make check` that replays
 * the files named on its command line (without any, the checked-in corpus
 * tests/fuzz/corpus/merge_json/) and then mutations of the corpus's real
 * dumps, printing TAP. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/json_parse.h"
#include "merge/merge.h"
#include "merge/merge_report.h"

#define ERRLEN 256
#define RANK_INDEX 7 /* the file's place on a command line: the rank of a dump without one */

enum promise {
    P_PARSE_ERROR, /* a refusal is "line N: <what>", NUL-terminated within errlen */
    P_TREE,        /* an accepted document is a well-formed tree */
    P_ACCESS,      /* jv_get/jv_str/jv_int/jv_is answer what the tree holds */
    P_READER,      /* merge's reader accepts a zestub dump or refuses with a reason */
    P_OUTPUT,      /* merge's reports of the rank are written, the JSON one parses */
    P_COUNT
};

static const char *const promise_name[P_COUNT] = {
    "jv_parse refuses with \"line N: <what>\" (N within the text's lines), NUL-terminated within "
    "errlen; a shorter errlen only truncates the same text",
    "an accepted document is a well-formed tree: object keys and strings NUL-terminated, n "
    "non-NULL items, depth within JV_MAX_DEPTH, no more values than bytes, numbers as RFC 8259 "
    "writes them",
    "jv_get/jv_str/jv_int/jv_is on the tree's own keys and on random ones answer its first member "
    "of that key or the fallback, jv_int within long long",
    "merge_read_text accepts only a \"zestub-dump\" document (rank, hang and complete as it "
    "says) or refuses with a reason: \"line N: ...\", \"not a zestub dump ...\", or for a "
    ".partial file \"an incomplete record ...\"",
    "merge's JSON report of the rank parses again and names the file with its rank or error; "
    "the human report is written",
};

/* What the last input did, for the plain program's reach checks. */
static int last_mode;     /* 0 jv_parse, 1 merge's reader */
static int last_accepted; /* the document (or dump) was read */
static int last_kind;     /* of a refusal: 0 "line N", 1 not a dump, 2 incomplete record */

/* A number as RFC 8259 writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool rfc_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return false;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

/* What jv_int must answer for a number: truncated toward zero, saturated
 * to long long (a 64-bit id or 1e300 is no undefined conversion). */
static long long int_of(double d, long long dflt)
{
    if (isnan(d))
        return dflt;
    if (d >= 0x1p63)
        return INT64_MAX;
    if (d < -0x1p63)
        return INT64_MIN;
    return (long long)d;
}

static const char FALLBACK[] = "fallback";

/* The first member of obj named key, found without jv_get. */
static const struct jv *first_member(const struct jv *obj, const char *key)
{
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->key[i], key))
            return obj->item[i];
    return NULL;
}

/* jv_get and the typed reads on obj (any value, or NULL) for key. */
static bool access_ok(const struct jv *obj, const char *key)
{
    const struct jv *want = obj && obj->type == JV_OBJECT ? first_member(obj, key) : NULL;
    const struct jv *got = jv_get(obj, key);
    const char *s = jv_str(obj, key, FALLBACK);
    long long i = jv_int(obj, key, -42);
    if (got != want)
        return false;
    if (s != (want && want->type == JV_STRING ? want->str : FALLBACK))
        return false;
    if (i != (want && want->type == JV_NUMBER ? int_of(want->num, -42) : -42))
        return false;
    for (int t = JV_NULL; t <= JV_OBJECT; t++)
        if (jv_is(obj, key, (enum jv_type)t) != (want && (int)want->type == t))
            return false;
    return true;
}

struct walk {
    size_t nodes, max_nodes;
    size_t max_str;
    unsigned bad;
};

/* Checks v and below; depth counts from the document (0). */
static void walk(struct walk *w, const struct jv *v, int depth)
{
    /* A NULL item, too deep (JV_MAX_DEPTH levels of containers, at
     * depths 0 to JV_MAX_DEPTH - 1, and their members), or a cycle. */
    if (!v || depth > JV_MAX_DEPTH || ++w->nodes > w->max_nodes ||
        (depth == JV_MAX_DEPTH && (v->type == JV_ARRAY || v->type == JV_OBJECT))) {
        w->bad |= 1u << P_TREE;
        return;
    }
    switch (v->type) {
    case JV_NULL:
    case JV_BOOL:
        if (v->n || v->str || v->item || v->key)
            w->bad |= 1u << P_TREE;
        return;
    case JV_NUMBER:
        if (v->n || !v->str || !rfc_number(v->str) || v->num != strtod(v->str, NULL))
            w->bad |= 1u << P_TREE;
        return;
    case JV_STRING:
        if (v->n || !v->str || strlen(v->str) > w->max_str)
            w->bad |= 1u << P_TREE;
        return;
    case JV_ARRAY:
        if (v->key || (v->n && !v->item))
            w->bad |= 1u << P_TREE;
        if (!access_ok(v, "") || !access_ok(v, "0"))
            w->bad |= 1u << P_ACCESS;
        break;
    case JV_OBJECT:
        if (v->n && (!v->key || !v->item)) {
            w->bad |= 1u << P_TREE;
            return;
        }
        for (size_t i = 0; i < v->n; i++) {
            if (!v->key[i] || strlen(v->key[i]) > w->max_str) {
                w->bad |= 1u << P_TREE;
                return;
            }
            /* jv_get is linear: the first 32 keys of a big object do. */
            if (i < 32 && !access_ok(v, v->key[i]))
                w->bad |= 1u << P_ACCESS;
        }
        if (!access_ok(v, "") || !access_ok(v, "schema") || !access_ok(v, "rank"))
            w->bad |= 1u << P_ACCESS;
        break;
    default:
        w->bad |= 1u << P_TREE;
        return;
    }
    for (size_t i = 0; i < v->n && !(w->bad & (1u << P_TREE)); i++)
        walk(w, v->item[i], depth + 1);
}

/* The promises of a tree read from a text of len bytes. */
static unsigned check_tree(const struct jv *v, const char *text, size_t len)
{
    /* Every value takes at least one byte of text; a string's bytes at
     * most triple as UTF-8 (a 6-byte \u escape becomes at most 3). */
    struct walk w = {0, len + 1, 3 * len, 0};
    walk(&w, v, 0);
    /* Random keys: pieces of the text itself, and jv_get on nothing. */
    for (size_t k = 0; k < 4 && len; k++) {
        char key[24];
        size_t at = (len * (2 * k + 1)) / 8, n = (at * 7 + k) % sizeof(key);
        if (at + n > len)
            n = len - at;
        memcpy(key, text + at, n);
        key[n] = '\0';
        if (!access_ok(v, key))
            w.bad |= 1u << P_ACCESS;
    }
    if (!access_ok(NULL, "rank"))
        w.bad |= 1u << P_ACCESS;
    return w.bad;
}

/* "line N: <what>" with 1 <= N <= the text's lines. */
static bool line_error_ok(const char *err, const char *text)
{
    unsigned long lines = 1, n;
    char *end;
    if (strncmp(err, "line ", 5) != 0 || !(err[5] >= '1' && err[5] <= '9'))
        return false;
    n = strtoul(err + 5, &end, 10);
    for (const char *q = text; *q; q++)
        lines += *q == '\n';
    return n >= 1 && n <= lines && end[0] == ':' && end[1] == ' ' && end[2] != '\0';
}

static unsigned check_parse(const char *text, size_t len)
{
    char err[ERRLEN];
    unsigned bad = 0;
    memset(err, 0x7f, sizeof(err));
    struct jv *v = jv_parse(text, err, sizeof(err));
    last_accepted = v != NULL;
    last_kind = 0;
    if (v) {
        bad |= check_tree(v, text, len);
        jv_free(v);
        return bad;
    }
    if (!memchr(err, 0, sizeof(err)) || !line_error_ok(err, text))
        return 1u << P_PARSE_ERROR;
    /* The same refusal into a small buffer of its own (ASan sees a write
     * past it): the same text, cut. */
    size_t small = 1 + len % 24;
    char *e2 = malloc(small);
    if (!e2)
        return bad;
    memset(e2, 0x7f, small);
    v = jv_parse(text, e2, small);
    if (v || !memchr(e2, 0, small) ||
        strlen(e2) != (strlen(err) < small ? strlen(err) : small - 1) ||
        strncmp(e2, err, strlen(e2)) != 0)
        bad |= 1u << P_PARSE_ERROR;
    jv_free(v);
    free(e2);
    return bad;
}

/* merge's reports of one rank: JSON (parsed again) and text. */
static unsigned check_output(struct merge_rank *r)
{
    struct merge m = {r, 1, NULL, 0};
    struct merge_report rep;
    char *out = NULL, err[ERRLEN];
    size_t outlen = 0;
    unsigned bad = 0;
    FILE *f;
    if (merge_report_build(&rep, &m) != 0)
        return 0;
    f = open_memstream(&out, &outlen);
    if (!f) {
        merge_report_free(&rep);
        return 0;
    }
    merge_emit_json(f, &rep);
    fclose(f);
    struct jv *doc = jv_parse(out, err, sizeof(err));
    const struct jv *files = jv_get(doc, "files");
    const struct jv *file =
        files && files->type == JV_ARRAY && files->n == 1 ? files->item[0] : NULL;
    if (!doc || strcmp(jv_str(doc, "schema", ""), "zestub-merge") != 0 || !file ||
        strcmp(jv_str(file, "path", ""), r->path) != 0)
        bad |= 1u << P_OUTPUT;
    else if (r->doc ? !jv_is(file, "rank", JV_NUMBER) || jv_int(file, "rank", -1) != r->rank
                    : strcmp(jv_str(file, "error", ""), r->error) != 0)
        bad |= 1u << P_OUTPUT;
    if (doc)
        bad |= check_tree(doc, out, outlen) & (1u << P_TREE) ? 1u << P_OUTPUT : 0;
    jv_free(doc);
    free(out);
    out = NULL;
    f = open_memstream(&out, &outlen);
    if (!f) {
        merge_report_free(&rep);
        return bad;
    }
    merge_emit_human(f, &rep);
    fclose(f);
    merge_report_free(&rep);
    if (strncmp(out, "zestub merge: ", 14) != 0)
        bad |= 1u << P_OUTPUT;
    free(out);
    return bad;
}

static unsigned check_reader(const char *text, size_t len, bool partial)
{
    struct merge_rank r;
    unsigned bad = 0;
    memset(&r, 0, sizeof(r));
    r.path = partial ? "rank.json.partial" : "rank.json";
    merge_read_text(&r, text, RANK_INDEX);
    last_accepted = r.doc != NULL;
    if (r.doc) {
        const struct jv *d = r.doc;
        long want =
            jv_is(d, "rank", JV_NUMBER) ? (long)int_of(jv_get(d, "rank")->num, 0) : RANK_INDEX;
        if (strcmp(jv_str(d, "schema", ""), "zestub-dump") != 0 || r.rank != want ||
            r.hung != jv_is(d, "hang", JV_OBJECT) || r.hang != jv_get(d, "hang") ||
            r.complete != (jv_is(d, "complete", JV_BOOL) && jv_get(d, "complete")->b) ||
            r.error[0] != '\0')
            bad |= 1u << P_READER;
        bad |= check_tree(d, text, len);
    } else {
        bool nul = memchr(r.error, 0, sizeof(r.error)) != NULL;
        last_kind = !nul                                                       ? -1
                    : !strncmp(r.error, "not a zestub dump", 17)               ? 1
                    : partial && !strncmp(r.error, "an incomplete record", 20) ? 2
                    : line_error_ok(r.error, text)                             ? 0
                                                                               : -1;
        if (last_kind < 0 || r.rank < 0)
            bad |= 1u << P_READER;
    }
    bad |= check_output(&r);
    jv_free(r.doc);
    return bad;
}

/* One input (selector byte and text); the promises it broke, a mask. */
static unsigned check_input(const uint8_t *data, size_t size)
{
    uint8_t sel = size ? data[0] : 0;
    size_t len = size ? size - 1 : 0;
    char *text = malloc(len + 1);
    unsigned bad;
    if (!text)
        return 0;
    memcpy(text, data + (size ? 1 : 0), len);
    text[len] = '\0';
    last_mode = sel & 1;
    bad = last_mode ? check_reader(text, len, sel & 2) : check_parse(text, len);
    free(text);
    return bad;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned bad = check_input(data, size);
    for (int p = 0; p < P_COUNT; p++)
        if (bad & (1u << p)) {
            fprintf(stderr, "fuzz_merge_json: broken promise: %s\n", promise_name[p]);
            abort();
        }
    return 0;
}

#ifndef ZESTUB_LIBFUZZER
#include <dirent.h>

#include "tests/fuzz/plain.h"
#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

#define MUTATIONS 20000
#define MAX_SEEDS 16
#define EDITS_MAX 8
#define SPAN_MAX 16

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t next_random(void)
{
    return fuzz_xorshift(&rng);
}

struct seed {
    char name[256]; /* a d_name */
    uint8_t *bytes;
    size_t size;
};

/* The corpus's real dumps (dump-*: `zestub dump --json` on gtsim, after
 * the selector byte '1'), the mutations' starting points. */
static size_t load_seeds(struct seed *seeds)
{
    const char *top = getenv("top_srcdir");
    char dir[512], path[1024];
    struct dirent *de;
    size_t n = 0;
    snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/merge_json", top ? top : ".");
    DIR *d = opendir(dir);
    while (d && n < MAX_SEEDS && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "dump-", 5) != 0 ||
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
            continue;
        seeds[n].bytes = tests_slurp(path, &seeds[n].size);
        if (!seeds[n].bytes)
            continue;
        snprintf(seeds[n].name, sizeof(seeds[n].name), "%s", de->d_name);
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* One mutation of s into b (room for s->size + EDITS_MAX * SPAN_MAX bytes);
 * returns its length. JSON's own bytes are what breaks a parser's
 * bookkeeping, so most edits write them. */
static size_t mutate(uint8_t *b, const struct seed *s)
{
    static const char json_bytes[] = "{}[]\",:\\-+.0123456789eEtfnu \n";
    size_t len = s->size;
    int edits = 1 + (int)(next_random() % EDITS_MAX);
    memcpy(b, s->bytes, len);
    for (int k = 0; k < edits && len > 1; k++) {
        size_t at = 1 + next_random() % (len - 1), span = 1 + next_random() % SPAN_MAX;
        switch (next_random() % 5) {
        case 0: /* any byte */
            b[at] = (uint8_t)next_random();
            break;
        case 1: /* a byte of JSON's grammar */
            b[at] = (uint8_t)json_bytes[next_random() % (sizeof(json_bytes) - 1)];
            break;
        case 2: /* a span deleted */
            if (span > len - at)
                span = len - at;
            memmove(b + at, b + at + span, len - at - span);
            len -= span;
            break;
        case 3: /* a span repeated */
            if (span > len - at)
                span = len - at;
            memmove(b + at + span, b + at, len - at);
            len += span;
            break;
        default: /* a digit run: huge numbers */
            for (size_t i = 0; i < span && at + i < len; i++)
                b[at + i] = (uint8_t)('0' + next_random() % 10);
            break;
        }
    }
    /* The selector: mostly a dump (some partial), a JSON document in four. */
    b[0] = (uint8_t) "1103"[next_random() % 4];
    /* A file from a killed job is cut short: one in four. */
    return next_random() % 4 == 0 ? 1 + next_random() % len : len;
}

/* 100,000 '[' (and the depth just below the limit) as a JSON document
 * and as a dump: the reader must refuse without exhausting the stack. */
static int deep_nesting(void)
{
    size_t deep = 100000, i;
    uint8_t *b = malloc(deep + 1);
    uint8_t ok_doc[1 + 2 * JV_MAX_DEPTH];
    int good = b != NULL;
    char want[64];
    if (!b)
        return 0;
    snprintf(want, sizeof(want), "line 1: nested deeper than %d", JV_MAX_DEPTH);
    memset(b + 1, '[', deep);
    for (int sel = 0; sel < 2; sel++) {
        char err[ERRLEN] = "";
        b[0] = (uint8_t)('0' + sel);
        good &= check_input(b, deep + 1) == 0 && !last_accepted;
        b[deep] = '\0';
        struct jv *v = jv_parse((const char *)b + 1, err, sizeof(err));
        good &= v == NULL && strcmp(err, want) == 0;
        b[deep] = '[';
        jv_free(v);
    }
    ok_doc[0] = '0';
    for (i = 0; i < JV_MAX_DEPTH; i++) {
        ok_doc[1 + i] = '[';
        ok_doc[1 + JV_MAX_DEPTH + i] = ']';
    }
    good &= check_input(ok_doc, sizeof(ok_doc)) == 0 && last_accepted;
    free(b);
    return good;
}

int main(int argc, char **argv)
{
    /* Plan: one check per replayed file (or one for the checked-in
     * corpus), the seeds, deep nesting, one per promise, and that the
     * mutations reached accepted documents, accepted dumps and each kind
     * of refusal. */
    tap_plan((argc > 1 ? argc - 1 : 1) + 2 + P_COUNT + 4);
    fuzz_replay_args(argc, argv, check_input);
    if (argc == 1)
        fuzz_replay_corpus("merge_json", 10, check_input);
    struct seed seeds[MAX_SEEDS];
    size_t nseeds = load_seeds(seeds), maxlen = 0;
    unsigned seed_bad = 0;
    int seeds_read = 1;
    for (size_t i = 0; i < nseeds; i++) {
        seed_bad |= check_input(seeds[i].bytes, seeds[i].size);
        seeds_read &= last_mode == 1 && last_accepted;
        maxlen = seeds[i].size > maxlen ? seeds[i].size : maxlen;
    }
    tap_ok(nseeds >= 4 && seed_bad == 0 && seeds_read,
           "%zu real dumps are read by merge and keep every promise", nseeds);
    tap_ok(deep_nesting(),
           "100,000 '[' are refused with \"line 1: nested deeper than %d\", as "
           "JSON and as a dump; %d levels are read",
           JV_MAX_DEPTH, JV_MAX_DEPTH);
    uint8_t *b = malloc(maxlen + EDITS_MAX * SPAN_MAX);
    unsigned violations[P_COUNT] = {0}, docs = 0, dumps = 0, kinds[3] = {0};
    for (int m = 0; b && nseeds && m < MUTATIONS; m++) {
        const struct seed *s = &seeds[next_random() % nseeds];
        size_t cut = mutate(b, s);
        unsigned bad = check_input(b, cut);
        docs += last_mode == 0 && last_accepted;
        dumps += last_mode == 1 && last_accepted;
        if (!last_accepted && last_kind >= 0)
            kinds[last_kind]++;
        for (int p = 0; p < P_COUNT; p++)
            if ((bad >> p) & 1 && violations[p]++ == 0)
                tap_diag("mutation %d of %s (%zu bytes) broke: %s", m, s->name, cut,
                         promise_name[p]);
    }
    for (int p = 0; p < P_COUNT; p++)
        tap_ok(nseeds && violations[p] == 0, "%s (%u of %d inputs broke it)", promise_name[p],
               violations[p], MUTATIONS);
    tap_ok(docs > 0, "some mutations are read as JSON documents (%u)", docs);
    tap_ok(dumps > 0, "some mutations are read as dumps (%u)", dumps);
    tap_ok(kinds[0] > 0 && kinds[1] > 0, "some are refused as JSON (%u) and as not a dump (%u)",
           kinds[0], kinds[1]);
    tap_ok(kinds[2] > 0, "some partial files are refused as an incomplete record (%u)", kinds[2]);
    for (size_t i = 0; i < nseeds; i++)
        free(seeds[i].bytes);
    free(b);
    return tap_done();
}
#endif
