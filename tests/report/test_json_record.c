/* SPDX-License-Identifier: MIT */
/* The JSON emitter's thread records, written by hand rather than through
 * fprintf, and their `submitted_at` texts, written once per submission
 * and pass and copied after: every field as doc/dump-format.md gives it
 * (numbers at their limits, 0 as "0x0", nulls), the same text as a fresh
 * rendering for every thread however many submissions a pass has (more
 * than the emitter remembers), and a submission changed between two
 * passes written anew. The texts are checked against what the emitter's
 * building blocks (report_json_str, json_xpti_submission) write on their
 * own. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/emitter.h"
#include "report/json.h"
#include "report/xpti_text.h"
#include "tests/lib/tap.h"

/* The text a FILE-writing function leaves. */
#define CAPTURE(text, len, call)                                                                   \
    do {                                                                                           \
        FILE *mem_ = open_memstream(&(text), &(len));                                              \
        FILE *f = mem_;                                                                            \
        call;                                                                                      \
        fclose(mem_);                                                                              \
    } while (0)

static struct report_emitter em;
static FILE *out;
static char *out_text;
static size_t out_len;

/* A document up to its threads list (no devices: they need a session). */
static void open_doc(void)
{
    out = open_memstream(&out_text, &out_len);
    em = report_json_new(out);
    em.ops->header(em.ctx, 42, "now");
    em.ops->faults(em.ctx, NULL, 0);
}

static void begin_pass(void)
{
    em.ops->threads_begin(em.ctx, NULL, NULL, 0, DUMP_REGS_NONE);
}

/* What the emitter wrote since the last call. */
static char *written(size_t *from)
{
    char *piece;
    fflush(out);
    piece = strndup(out_text + *from, out_len - *from);
    *from = out_len;
    return piece;
}

static struct sess_xpti_submission *submission(unsigned n)
{
    struct sess_xpti_submission *s = calloc(1, sizeof(*s));
    s->how = SESS_XPTI_UNIQUE;
    s->total = s->ncand = 1;
    s->nsites = 1;
    snprintf(s->sites[0].kernel, sizeof(s->sites[0].kernel), "kernel_%u", n);
    snprintf(s->sites[0].file, sizeof(s->sites[0].file), "src/\"quoted\"_%u.cpp", n);
    snprintf(s->sites[0].function, sizeof(s->sites[0].function), "run_%u", n);
    snprintf(s->sites[0].device, sizeof(s->sites[0].device), "device %u", n);
    s->sites[0].line = 10 + n;
    s->sites[0].uid = 0x1000u + n;
    s->cand[0].site = &s->sites[0];
    s->cand[0].has_task = true;
    s->cand[0].task.uid = 0x2000u + n;
    s->cand[0].task.instance = n;
    s->cand[0].task.queue = 1;
    s->cand[0].task.begin_ns = 1000u * n;
    s->cand[0].task.tid = 77;
    return s;
}

static char *fresh(const struct sess_xpti_submission *s)
{
    char *t = NULL;
    size_t n = 0;
    CAPTURE(t, n, json_xpti_submission(f, s));
    (void)n;
    return t;
}

static struct dump_thread thread_at(uint32_t tid, const struct sess_xpti_submission *s)
{
    struct dump_thread t;
    memset(&t, 0, sizeof(t));
    t.session = 1;
    t.device = 2;
    t.id.slice = 3;
    t.id.subslice = 4;
    t.id.eu = 5;
    t.id.thread = tid;
    t.reason = ISA_STOP_INTERRUPT;
    t.has_pc = true;
    t.pc = 0x7f00001000u + tid;
    t.submitted = s;
    return t;
}

/* The submitted_at part of a record: from its key to the record's end. */
static const char *submitted_part(const char *record)
{
    const char *p = strstr(record, ",\"submitted_at\":");
    return p ? p : "";
}

static bool ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

int main(void)
{
    size_t at = 0;
    char *rec, *want, *kernel_text = NULL, *file_text = NULL;
    size_t len;
    struct dump_thread t;
    struct sym_location loc = {0};
    struct sess_xpti_submission *subs[12];
    bool all_same = true;

    tap_plan(14);
    open_doc();
    begin_pass();
    free(written(&at)); /* the header */

    /* Every field, numbers at their limits. */
    t = thread_at(UINT32_MAX, NULL);
    t.session = UINT32_MAX;
    t.device = 0;
    t.id.slice = 0;
    t.pc = UINT64_MAX;
    t.has_location = t.has_module = true;
    loc.kernel = "k\"x";
    loc.kernel_addr = 0;
    loc.function = "f";
    loc.file = "a\\b.cl";
    loc.has_line = true;
    loc.line = 4294967295u;
    loc.column = 0;
    t.loc = loc;
    t.module_begin = 0x10;
    t.module_end = 0xfedcba9876543210u;
    em.ops->thread(em.ctx, &t);
    rec = written(&at);
    CAPTURE(kernel_text, len, report_json_str(f, loc.kernel));
    CAPTURE(file_text, len, report_json_str(f, loc.file));
    if (asprintf(&want,
                 "{\"session\":4294967295,\"device\":0,\"thread\":\"0.4.5.4294967295\","
                 "\"state\":\"stopped\",\"reason\":\"interrupt\",\"pc\":\"0xffffffffffffffff\","
                 "\"kernel\":%s,\"kernel_address\":\"0x0\",\"module\":{\"begin\":\"0x10\","
                 "\"end\":\"0xfedcba9876543210\"},\"function\":\"f\",\"file\":%s,"
                 "\"line\":4294967295,\"column\":0,\"submitted_at\":null}",
                 kernel_text, file_text) < 0)
        want = NULL;
    tap_ok(want && strcmp(rec, want) == 0, "a whole record: every field, numbers at their limits");
    if (want && strcmp(rec, want) != 0)
        tap_diag("got  %s\nwant %s", rec, want);
    free(rec);
    free(want);
    free(kernel_text);
    free(file_text);

    /* No pc, no location, no module: nulls. */
    t = thread_at(0, NULL);
    t.has_pc = false;
    em.ops->thread(em.ctx, &t);
    rec = written(&at);
    tap_ok(strcmp(rec, ",{\"session\":1,\"device\":2,\"thread\":\"3.4.5.0\",\"state\":\"stopped\","
                       "\"reason\":\"interrupt\",\"pc\":null,\"kernel\":null,\"kernel_address\":"
                       "null,\"module\":null,\"function\":null,\"file\":null,\"line\":null,"
                       "\"column\":null,\"submitted_at\":null}") == 0,
           "the second record starts with a comma; unknown fields are null");
    free(rec);

    /* A pc of 0 and one of a single digit. */
    t = thread_at(7, NULL);
    t.pc = 0;
    em.ops->thread(em.ctx, &t);
    rec = written(&at);
    tap_ok(strstr(rec, "\"pc\":\"0x0\",") != NULL, "pc 0 is \"0x0\", as %%#x would not write it");
    free(rec);
    t.pc = 0xa;
    em.ops->thread(em.ctx, &t);
    rec = written(&at);
    tap_ok(strstr(rec, "\"pc\":\"0xa\",") != NULL, "pc 10 is \"0xa\"");
    free(rec);

    /* Twelve submissions (the emitter remembers eight), threads visiting
     * them in turn, twice round: each record's text is a fresh rendering. */
    for (unsigned i = 0; i < 12; i++)
        subs[i] = submission(i);
    for (unsigned round = 0; round < 3; round++) {
        for (unsigned i = 0; i < 12; i++) {
            unsigned which = round == 2 ? (i * 5) % 12 : i;
            char *f1 = fresh(subs[which]);
            t = thread_at(i, subs[which]);
            em.ops->thread(em.ctx, &t);
            rec = written(&at);
            if (strcmp(submitted_part(rec), "") == 0 || !ends_with(rec, "}") ||
                strncmp(submitted_part(rec), f1, strlen(f1)) != 0 ||
                strlen(submitted_part(rec)) != strlen(f1) + 1) {
                all_same = false;
                tap_diag("round %u thread %u: %s\nfresh: %s", round, i, rec, f1);
            }
            free(f1);
            free(rec);
        }
    }
    tap_ok(all_same, "12 submissions, more than remembered, visited in three orders: every "
                     "record's submitted_at is the submission's own text");

    /* The same submission for many threads: the same text each time. */
    {
        char *first = NULL;
        bool same = true;
        for (unsigned i = 0; i < 100; i++) {
            t = thread_at(i, subs[3]);
            em.ops->thread(em.ctx, &t);
            rec = written(&at);
            if (!first)
                first = strdup(submitted_part(rec));
            else if (strcmp(first, submitted_part(rec)) != 0)
                same = false;
            free(rec);
        }
        tap_ok(same && strstr(first, "\"kernel\":\"kernel_3\"") &&
                   strstr(first, "\"file\":\"src/\\\"quoted\\\"_3.cpp\""),
               "100 threads of one submission: one text, with its kernel and escaped file");
        free(first);
    }

    /* A new pass may hand out a different submission at the same address:
     * the text is written anew. */
    begin_pass();
    snprintf(subs[3]->sites[0].kernel, sizeof(subs[3]->sites[0].kernel), "changed");
    subs[3]->sites[0].line = 999;
    t = thread_at(1, subs[3]);
    em.ops->thread(em.ctx, &t);
    rec = written(&at);
    tap_ok(strstr(rec, "\"kernel\":\"changed\"") && strstr(rec, "\"line\":999"),
           "after a new pass, the same address with new content is written anew");
    free(rec);
    /* Within a pass it is not (the contract: a submission does not change
     * while its pass runs) -- shown so that the contract is a test. */
    snprintf(subs[3]->sites[0].kernel, sizeof(subs[3]->sites[0].kernel), "changed again");
    em.ops->thread(em.ctx, &t);
    rec = written(&at);
    tap_ok(strstr(rec, "\"kernel\":\"changed\"") != NULL,
           "within a pass a submission's text is written once (sessions/ keeps it unchanged)");
    free(rec);

    /* The document as a whole still parses: the records were a list. */
    t = thread_at(2, subs[0]);
    em.ops->thread(em.ctx, &t);
    rec = written(&at);
    tap_ok(rec[0] == ',' && rec[1] == '{', "records after the first keep their comma");
    free(rec);

    {
        struct report_end e;
        memset(&e, 0, sizeof(e));
        e.status = 0;
        e.complete = true;
        em.ops->end(em.ctx, &e);
        rec = written(&at);
        tap_ok(strstr(rec, "\"status\":0,\"complete\":true}") != NULL, "the document ends");
        free(rec);
    }
    fflush(out);
    tap_ok(out_text[0] == '{' && out_text[out_len - 1] == '\n', "one JSON object, newline-ended");
    {
        /* Balanced braces and brackets outside strings: a cheap whole-document check. */
        int depth = 0, min = 0;
        bool in_str = false;
        for (size_t i = 0; i < out_len; i++) {
            char c = out_text[i];
            if (in_str) {
                if (c == '\\')
                    i++;
                else if (c == '"')
                    in_str = false;
                continue;
            }
            if (c == '"')
                in_str = true;
            else if (c == '{' || c == '[')
                depth++;
            else if (c == '}' || c == ']')
                depth--;
            if (depth < min)
                min = depth;
        }
        tap_ok(depth == 0 && min == 0 && !in_str, "braces and brackets balance");
    }
    tap_ok(strstr(out_text, "\"threads\":[{\"session\":4294967295") != NULL,
           "the first record opens the threads list");
    {
        size_t n = 0;
        for (const char *p = out_text; (p = strstr(p, "\"state\":\"stopped\"")); p++)
            n++;
        tap_ok(n == 2 + 2 + 36 + 100 + 3, "every record written once (%zu)", n);
    }

    em.ops->free(em.ctx);
    fclose(out);
    free(out_text);
    for (unsigned i = 0; i < 12; i++)
        free(subs[i]);
    return tap_done();
}
