/* SPDX-License-Identifier: MIT */
/* The JSON emitter: the versioned document of doc/dump-format.md, streamed
 * record by record; whatever section is open when it ends early is closed,
 * so that an interrupted run still leaves a well-formed document. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/emitter.h"
#include "report/json.h"
#include "report/regs_text.h"
#include "report/xpti_text.h"

enum phase { PH_HEADER, PH_DEVICES, PH_XPTI, PH_THREADS, PH_DONE };

#define SUBMISSION_MEMO 8 /* kernels of one pass remembered at once */

struct json_em {
    FILE *f;
    enum phase phase;
    unsigned nthreads;
    enum dump_regs regs;
    /* The registers a record of catalogue `cat` prints and the sets they
     * are in, worked out once per catalogue rather than once per thread
     * (a catalogue has hundreds of registers; every thread of a session
     * shares one). */
    const struct regs_catalog *cat;
    uint32_t sets;
    size_t *printed, nprinted;
    /* The `submitted_at` text of the submissions this pass has written:
     * sessions/ answers one submission per (session, kernel), the same
     * object for every thread of that kernel until the pass ends, and
     * its text was a quarter of the pass's time at 65,536 threads
     * (bench/README.md). Forgotten at each pass's start. */
    struct {
        const struct sess_xpti_submission *s;
        char *text;
        size_t len;
    } memo[SUBMISSION_MEMO];
    unsigned nmemo, memo_next;
};

/* Makes j's printed list that of cat; false without memory. */
static bool learn(struct json_em *j, const struct regs_catalog *cat)
{
    size_t n = cat ? regs_catalog_count(cat) : 0, *v;
    if (cat == j->cat && j->printed)
        return true;
    v = realloc(j->printed, (n ? n : 1) * sizeof(*v));
    if (!v)
        return false;
    j->printed = v;
    j->nprinted = 0;
    for (size_t i = 0; i < n; i++)
        if (report_reg_printed(regs_catalog_at(cat, i), j->regs))
            v[j->nprinted++] = i;
    j->sets = report_sets_for(cat, j->regs);
    j->cat = cat;
    return true;
}

static void j_header(void *ctx, uint32_t pid, const char *trigger)
{
    struct json_em *j = ctx;
    fprintf(j->f, "{\"schema\":\"zestub-dump\",\"version\":1,\"pid\":%u,\"trigger\":", pid);
    report_json_str(j->f, trigger);
}

static void j_launch(void *ctx, long rank, const char *host)
{
    struct json_em *j = ctx;
    if (rank >= 0)
        fprintf(j->f, ",\"rank\":%ld,\"host\":", rank);
    else
        fputs(",\"rank\":null,\"host\":", j->f);
    report_json_str(j->f, host);
}

static void j_devices(void *ctx, struct sess_manager *m)
{
    struct json_em *j = ctx;
    fputs(",\"devices\":[", j->f);
    for (unsigned k = 0; k < sess_count(m); k++) {
        const struct zd_device *d = sess_device(m, k);
        fprintf(j->f, "%s{\"session\":%u,\"device\":%u,\"name\":", k ? "," : "", k, d->index);
        report_json_str(j->f, d->name);
        fprintf(j->f, ",\"pci_slot\":\"%s\",\"subdevice\":", d->pci_slot);
        if (d->parent >= 0)
            fprintf(j->f, "%u", d->subdevice_id);
        else
            fputs("null", j->f);
        fprintf(j->f, ",\"threads\":%u}", d->nthreads);
    }
    fputc(']', j->f);
    j->phase = PH_DEVICES;
}

/* A string that may be empty (the table lost it): null then. */
static void json_opt(FILE *f, const char *s)
{
    report_json_str(f, s && *s ? s : NULL);
}

static void json_oldest(FILE *f, const struct report_hang *h)
{
    const struct xtab_task *t = &h->task;
    if (!h->has_task) {
        fputs("null", f);
        return;
    }
    fputs("{\"kernel\":", f);
    json_opt(f, h->has_site ? h->site.kernel : NULL);
    fputs(",\"file\":", f);
    json_opt(f, h->has_site ? h->site.file : NULL);
    if (h->has_site && h->site.line)
        fprintf(f, ",\"line\":%u", h->site.line);
    else
        fputs(",\"line\":null", f);
    if (h->has_site && h->site.column)
        fprintf(f, ",\"column\":%u", h->site.column);
    else
        fputs(",\"column\":null", f);
    fputs(",\"function\":", f);
    json_opt(f, h->has_site ? h->site.function : NULL);
    if (h->has_site)
        fprintf(f, ",\"site_uid\":\"0x%016" PRIx64 "\"", h->site.uid);
    else
        fputs(",\"site_uid\":null", f);
    fprintf(f,
            ",\"task_uid\":\"0x%016" PRIx64 "\",\"instance\":%" PRIu64 ",\"queue\":\"0x%" PRIx64
            "\",\"begin_ns\":%" PRIu64 ",\"host_tid\":%u}",
            t->uid, t->instance, t->queue, t->begin_ns, t->tid);
}

static void j_hang(void *ctx, const struct report_hang *h)
{
    FILE *f = ((struct json_em *)ctx)->f;
    fprintf(f, ",\"hang\":{\"rule\":\"%s\",\"limit_s\":%.3f,\"running_s\":%.3f,",
            h->rule == REPORT_HANG_XPTI ? "xpti" : "deadline", h->limit_s, h->running_s);
    if (h->rule == REPORT_HANG_XPTI)
        fprintf(f, "\"in_flight\":%u,\"idle_checks\":null,", h->in_flight);
    else
        fprintf(f, "\"in_flight\":null,\"idle_checks\":%u,", h->checks);
    fputs("\"oldest\":", f);
    json_oldest(f, h);
    fprintf(f, ",\"after\":\"%s\"}", h->kill_after ? "kill" : "resume");
}

static void j_xpti(void *ctx, const struct xtab_stats *st, const char *note)
{
    struct json_em *j = ctx;
    json_xpti_section(j->f, st, note);
    j->phase = PH_XPTI;
}

static const char *fault_reason(enum zd_fault_reason r)
{
    return r == ZD_FAULT_MAPPING ? "mapping" : r == ZD_FAULT_PERMISSION ? "permission" : "unknown";
}

static void j_faults(void *ctx, const struct report_fault *fa, size_t n)
{
    struct json_em *j = ctx;
    fputs(",\"page_faults\":[", j->f);
    for (size_t i = 0; i < n; i++) {
        fprintf(j->f,
                "%s{\"session\":%u,\"address\":\"0x%" PRIx64 "\",\"reason\":\"%s\","
                "\"threads\":[",
                i ? "," : "", fa[i].session, fa[i].addr, fault_reason(fa[i].why));
        for (unsigned t = 0; t < fa[i].nthreads; t++) {
            const struct zd_thread *id = &fa[i].threads[t];
            fprintf(j->f, "%s\"%u.%u.%u.%u\"", t ? "," : "", id->slice, id->subslice, id->eu,
                    id->thread);
        }
        fputc(']', j->f);
        json_xpti_allocation(j->f, &fa[i]);
        fputc('}', j->f);
    }
    fputs("],\"threads\":[", j->f);
    j->phase = PH_THREADS;
}

static void forget_submissions(struct json_em *j)
{
    for (unsigned i = 0; i < j->nmemo; i++)
        free(j->memo[i].text);
    j->nmemo = j->memo_next = 0;
}

static int j_threads_begin(void *ctx, struct sess_manager *m, struct regs_catalog *const *cats,
                           unsigned ncats, enum dump_regs regs)
{
    struct json_em *j = ctx;
    (void)m;
    (void)cats;
    (void)ncats;
    j->regs = regs;
    j->cat = NULL; /* what is printed depends on regs */
    /* A new pass has a new XPTI view: its submissions may reuse the
     * addresses of the last pass's. */
    forget_submissions(j);
    return 0;
}

/* `,"submitted_at":...` of s, written once per pass and copied after. */
static void submission(struct json_em *j, const struct sess_xpti_submission *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m;
    unsigned i;
    bool bad;
    for (i = 0; s && i < j->nmemo; i++)
        if (j->memo[i].s == s) {
            fwrite(j->memo[i].text, 1, j->memo[i].len, j->f);
            return;
        }
    if (!s || !(m = open_memstream(&text, &len))) {
        json_xpti_submission(j->f, s);
        return;
    }
    json_xpti_submission(m, s);
    bad = ferror(m) != 0;
    if (fclose(m) != 0 || bad) { /* no memory: the text may be cut short */
        free(text);
        json_xpti_submission(j->f, s);
        return;
    }
    fwrite(text, 1, len, j->f);
    if (j->nmemo < SUBMISSION_MEMO) {
        i = j->nmemo++;
    } else { /* full: the oldest goes */
        i = j->memo_next++ % SUBMISSION_MEMO;
        free(j->memo[i].text);
    }
    j->memo[i].s = s;
    j->memo[i].text = text;
    j->memo[i].len = len;
}

static uint32_t j_wants(void *ctx, const struct dump_thread *t)
{
    struct json_em *j = ctx;
    if (j->regs == DUMP_REGS_NONE)
        return 0;
    return learn(j, t->cat) ? j->sets : report_sets_for(t->cat, j->regs);
}

static uint32_t j_wants_ahead(void *ctx, const struct regs_catalog *cat)
{
    struct json_em *j = ctx;
    return j->regs == DUMP_REGS_NONE ? 0 : report_sets_for(cat, j->regs);
}

static void registers(struct json_em *j, const struct dump_thread *t)
{
    FILE *f = j->f;
    bool first = true, known = learn(j, t->cat);
    size_t n = known ? j->nprinted : regs_catalog_count(t->cat);
    fputs(",\"registers\":{", f);
    for (size_t k = 0; k < n; k++) {
        const struct regs_reg *r = regs_catalog_at(t->cat, known ? j->printed[k] : k);
        const uint8_t *v = report_reg_printed(r, j->regs) ? report_reg_bytes(t, r) : NULL;
        if (!v)
            continue;
        fputs(first ? "\"" : ",\"", f);
        fputs(r->name, f);
        fputs("\":\"", f);
        report_hex_value(f, v, r->byte_size);
        fputc('"', f);
        first = false;
    }
    fputc('}', f);
}

/* A record's numbers are written by hand into a line buffer, flushed with
 * one fwrite per run of fields: fprintf's format parsing was a fifth of
 * the pass's time at 65,536 threads (bench/README.md). Each put_ returns
 * the end of what it wrote. */
static char *put_s(char *q, const char *s)
{
    size_t n = strlen(s);
    memcpy(q, s, n);
    return q + n;
}

static char *put_u(char *q, uint64_t v)
{
    char d[20];
    unsigned n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n)
        *q++ = d[--n];
    return q;
}

/* A quoted "0x..." in lower case without leading zeros: what "0x%" PRIx64
 * writes, 0 as "0x0". */
static char *put_hex(char *q, uint64_t v)
{
    static const char digit[] = "0123456789abcdef";
    unsigned n = 1;
    while (n < 16 && v >> (4 * n))
        n++;
    *q++ = '"';
    *q++ = '0';
    *q++ = 'x';
    while (n--)
        *q++ = digit[(v >> (4 * n)) & 15];
    *q++ = '"';
    return q;
}

static void put_out(FILE *f, const char *buf, const char *q)
{
    fwrite(buf, 1, (size_t)(q - buf), f);
}

/* A string field, or null when the record has none. */
static void opt_str(FILE *f, const char *name, bool has, const char *s)
{
    char buf[64], *q = buf;
    *q++ = ',';
    *q++ = '"';
    q = put_s(q, name); /* one of ours, short */
    *q++ = '"';
    *q++ = ':';
    put_out(f, buf, q);
    report_json_str(f, has ? s : NULL);
}

static void j_thread(void *ctx, const struct dump_thread *t)
{
    struct json_em *j = ctx;
    const struct sym_location *l = &t->loc;
    FILE *f = j->f;
    char buf[512], *q = buf;
    q = put_s(q, j->nthreads ? ",{\"session\":" : "{\"session\":");
    q = put_u(q, t->session);
    q = put_s(q, ",\"device\":");
    q = put_u(q, t->device);
    q = put_s(q, ",\"thread\":\"");
    q = put_u(q, t->id.slice);
    *q++ = '.';
    q = put_u(q, t->id.subslice);
    *q++ = '.';
    q = put_u(q, t->id.eu);
    *q++ = '.';
    q = put_u(q, t->id.thread);
    q = put_s(q, "\",\"state\":\"stopped\",\"reason\":\"");
    q = put_s(q, isa_stop_reason_name(t->reason));
    q = put_s(q, "\",\"pc\":");
    q = t->has_pc ? put_hex(q, t->pc) : put_s(q, "null");
    put_out(f, buf, q);
    opt_str(f, "kernel", t->has_location, l->kernel);
    q = put_s(buf, ",\"kernel_address\":");
    q = t->has_location ? put_hex(q, l->kernel_addr) : put_s(q, "null");
    q = put_s(q, ",\"module\":");
    if (t->has_module) {
        q = put_s(q, "{\"begin\":");
        q = put_hex(q, t->module_begin);
        q = put_s(q, ",\"end\":");
        q = put_hex(q, t->module_end);
        *q++ = '}';
    } else {
        q = put_s(q, "null");
    }
    put_out(f, buf, q);
    opt_str(f, "function", t->has_location && l->function, l->function);
    opt_str(f, "file", t->has_location && l->has_line, l->file);
    if (t->has_location && l->has_line) {
        q = put_s(buf, ",\"line\":");
        q = put_u(q, l->line);
        q = put_s(q, ",\"column\":");
        q = put_u(q, l->column);
    } else {
        q = put_s(buf, ",\"line\":null,\"column\":null");
    }
    put_out(f, buf, q);
    submission(j, t->submitted);
    if (j->regs != DUMP_REGS_NONE && t->cat)
        registers(j, t);
    fputc('}', f);
    j->nthreads++;
}

/* Closes whatever sections are open. */
static void j_end(void *ctx, const struct report_end *e)
{
    struct json_em *j = ctx;
    FILE *f = j->f;
    if (j->phase == PH_DONE)
        return;
    if (j->phase < PH_DEVICES)
        fputs(",\"devices\":[]", f);
    if (j->phase < PH_XPTI)
        fputs(",\"xpti\":null", f);
    if (j->phase < PH_THREADS)
        fputs(",\"page_faults\":[],\"threads\":[", f);
    fputc(']', f);
    if (e->has_program) {
        fputs(",\"program\":{\"path\":", f);
        report_json_str(f, e->program_path);
        fprintf(f, ",\"exit_code\":%d,\"signal\":", e->exit_code);
        if (e->signal)
            fprintf(f, "%d", e->signal);
        else
            fputs("null", f);
        fprintf(f, ",\"dumped\":%s}", e->dumped ? "true" : "false");
    }
    fprintf(f,
            ",\"stats\":{\"stopped_threads\":%u,\"zet_calls\":{\"read_event\":%" PRIu64
            ",\"acknowledge\":%" PRIu64 ",\"interrupt\":%" PRIu64 ",\"resume\":%" PRIu64
            ",\"read_memory\":%" PRIu64 ",\"write_memory\":%" PRIu64 ",\"read_registers\":%" PRIu64
            ",\"write_registers\":%" PRIu64 "},\"register_reads\":%" PRIu64
            ",\"probes_failed\":%" PRIu64 "},",
            e->nthreads, e->zd.read_event, e->zd.ack, e->zd.interrupt, e->zd.resume,
            e->zd.read_memory, e->zd.write_memory, e->zd.read_registers, e->zd.write_registers,
            e->sess.register_reads, e->sess.probes_failed);
    if (e->reg_failures) {
        fprintf(f, "\"register_failures\":{\"threads\":%u,\"last_error\":", e->reg_failures);
        report_json_str(f, e->reg_error ? e->reg_error : "");
        fputs("},", f);
    }
    if (e->nlost) {
        fputs("\"lost_devices\":[", f);
        for (unsigned i = 0; i < e->nlost; i++)
            fprintf(f, "%s%u", i ? "," : "", e->lost_devices[i]);
        fputs("],", f);
    }
    if (e->failure && e->failure[0]) {
        fputs("\"error\":", f);
        report_json_str(f, e->failure);
        fputc(',', f);
    }
    fprintf(f, "\"status\":%d,\"complete\":%s}\n", e->status, e->complete ? "true" : "false");
    j->phase = PH_DONE;
}

static void j_free(void *ctx)
{
    struct json_em *j = ctx;
    if (j) {
        free(j->printed);
        forget_submissions(j);
    }
    free(j);
}

static const struct report_emitter_ops json_ops = {
    .header = j_header,
    .launch = j_launch,
    .devices = j_devices,
    .hang = j_hang,
    .xpti = j_xpti,
    .faults = j_faults,
    .threads_begin = j_threads_begin,
    .wants = j_wants,
    .wants_ahead = j_wants_ahead,
    .thread = j_thread,
    .end = j_end,
    .abort = j_end,
    .free = j_free,
};

struct report_emitter report_json_new(FILE *f)
{
    struct json_em *j = calloc(1, sizeof(*j));
    if (j)
        j->f = f;
    return (struct report_emitter){&json_ops, j};
}
