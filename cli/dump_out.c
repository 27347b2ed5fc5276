/* SPDX-License-Identifier: MIT */
#include "cli/dump_out.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/dump_classes.h"
#include "cli/dump_xpti.h"
#include "report/json.h"
#include "cli/outpattern.h"
#include "regsets/regs.h"

enum phase { PH_HEADER, PH_DEVICES, PH_XPTI, PH_THREADS, PH_DONE };

struct dump_out {
    FILE *f;
    bool json, own;
    /* Guards the stream: the watchdog may finish the document while the
     * main thread is between records. */
    pthread_mutex_t lock;
    enum phase phase;
    unsigned nthreads;
    struct zd *zd;
    /* One register catalogue per device (session), built once. */
    struct regs_catalog **cats;
    unsigned ncats;
    /* The application's XPTI table, NULL without one (not owned). */
    struct sess_xpti *xpti;
    /* Launch mode (dump_out_launch): the program's end, written last. */
    bool launched, has_program;
    char program[512];
    /* Threads whose registers could not all be read, and the last reason:
     * said on stderr when the document is closed. */
    unsigned reg_failures;
    char reg_error[256];
    /* Why no dump could be taken (dump_out_fail), "" otherwise. */
    char failure[256];
    /* A document written to a file goes to PATH.partial and is renamed to
     * PATH once complete: a zestub killed on the way (a job launcher's
     * SIGKILL comes as little as milliseconds after its SIGTERM) leaves
     * PATH.partial, never a PATH that is not a whole document. NULL when
     * writing to stdout or a caller's stream. */
    char *path, *partial;
    /* Human format, unless --all-threads: threads grouped into classes,
     * printed when the collection ends (NULL: one record per thread). */
    struct dump_classes *classes;
};

static const char partial_suffix[] = ".partial";

/* Lock held, document finished and flushed: PATH.partial becomes PATH. */
static void publish(struct dump_out *o)
{
    if (!o->partial)
        return;
    if (rename(o->partial, o->path) != 0)
        fprintf(stderr, "zestub dump: the record stays in %s: cannot rename it to %s: %s\n",
                o->partial, o->path, strerror(errno));
    free(o->partial);
    o->partial = NULL;
}

struct dump_out *dump_out_open(const char *json_path, uint32_t pid, const char *trigger,
                               struct zd *zd)
{
    FILE *f = stdout;
    struct dump_out *o;
    char *path = NULL, *partial = NULL;
    if (json_path && strcmp(json_path, "-") != 0 && out_is_special(json_path)) {
        /* Written in place: see out_is_special. */
        if (!(f = fopen(json_path, "w")))
            return NULL;
    } else if (json_path && strcmp(json_path, "-") != 0) {
        size_t n = strlen(json_path);
        path = strdup(json_path);
        partial = malloc(n + sizeof(partial_suffix));
        if (!path || !partial) {
            free(path);
            free(partial);
            errno = ENOMEM;
            return NULL;
        }
        memcpy(partial, json_path, n);
        memcpy(partial + n, partial_suffix, sizeof(partial_suffix));
        if (!(f = fopen(partial, "w"))) {
            int e = errno;
            free(path);
            free(partial);
            errno = e;
            return NULL;
        }
        /* A record left by an earlier run under the same name would be
         * taken for this run's if this one never completes. */
        if (unlink(json_path) != 0 && errno != ENOENT)
            fprintf(stderr, "zestub dump: cannot remove the earlier %s: %s\n", json_path,
                    strerror(errno));
    }
    o = dump_out_open_stream(f, json_path != NULL, pid, trigger, zd);
    if (!o) {
        if (f != stdout) {
            fclose(f);
            unlink(partial);
        }
        free(path);
        free(partial);
        return NULL;
    }
    o->own = f != stdout;
    o->path = path;
    o->partial = partial;
    fflush(o->f);
    return o;
}

struct dump_out *dump_out_open_stream(FILE *f, bool json, uint32_t pid, const char *trigger,
                                      struct zd *zd)
{
    struct dump_out *o = calloc(1, sizeof(*o));
    if (!o)
        return NULL;
    o->json = json;
    o->zd = zd;
    o->f = f;
    pthread_mutex_init(&o->lock, NULL);
    if (o->json) {
        fprintf(o->f, "{\"schema\":\"zestub-dump\",\"version\":1,\"pid\":%u,\"trigger\":", pid);
        report_json_str(o->f, trigger);
    } else {
        fprintf(o->f, "zestub dump of process %u (trigger: %s)\n", pid, trigger);
    }
    return o;
}

static const struct zd_device *dev_of(struct sess_manager *m, unsigned k)
{
    return sess_device(m, k);
}

void dump_out_devices(struct dump_out *o, struct sess_manager *m)
{
    o->ncats = sess_count(m);
    o->cats = calloc(o->ncats ? o->ncats : 1, sizeof(*o->cats));
    for (unsigned k = 0; o->cats && k < o->ncats; k++) {
        size_t nsets;
        const struct zd_regset *sets = sess_regsets(m, k, &nsets);
        o->cats[k] = regs_catalog_new(sets, nsets);
    }
    pthread_mutex_lock(&o->lock);
    if (o->json)
        fputs(",\"devices\":[", o->f);
    for (unsigned k = 0; k < sess_count(m); k++) {
        const struct zd_device *d = dev_of(m, k);
        if (o->json) {
            fprintf(o->f, "%s{\"session\":%u,\"device\":%u,\"name\":", k ? "," : "", k, d->index);
            report_json_str(o->f, d->name);
            fprintf(o->f, ",\"pci_slot\":\"%s\",\"subdevice\":", d->pci_slot);
            if (d->parent >= 0)
                fprintf(o->f, "%u", d->subdevice_id);
            else
                fputs("null", o->f);
            fprintf(o->f, ",\"threads\":%u}", d->nthreads);
        } else {
            fprintf(o->f, "device %u [%s]%s%.0u %s: %u hardware threads\n", d->index, d->pci_slot,
                    d->parent >= 0 ? "." : "", d->parent >= 0 ? d->subdevice_id : 0, d->name,
                    d->nthreads);
        }
    }
    if (o->json)
        fputc(']', o->f);
    o->phase = PH_DEVICES;
    fflush(o->f);
    pthread_mutex_unlock(&o->lock);
}

void dump_out_section(struct dump_out *o, void (*fn)(FILE *f, bool json, const void *ctx),
                      const void *ctx)
{
    pthread_mutex_lock(&o->lock);
    fn(o->f, o->json, ctx);
    fflush(o->f);
    pthread_mutex_unlock(&o->lock);
}

void dump_out_xpti(struct dump_out *o, struct sess_xpti *x, const char *note)
{
    pthread_mutex_lock(&o->lock);
    o->xpti = x;
    dump_xpti_section(o->f, o->json, x, note);
    o->phase = PH_XPTI;
    fflush(o->f);
    pthread_mutex_unlock(&o->lock);
}

static const char *fault_reason(enum zd_fault_reason r)
{
    return r == ZD_FAULT_MAPPING ? "mapping" : r == ZD_FAULT_PERMISSION ? "permission" : "unknown";
}

void dump_out_faults(struct dump_out *o, struct sess_manager *m)
{
    bool first = true;
    /* Stop reasons need cr0 from the device: read them before taking the
     * output lock, so a device that hangs never blocks the watchdog. */
    for (unsigned k = 0; k < sess_count(m); k++)
        for (uint32_t t = 0; sess_fault_count(m, k) && t < sess_thread_count(m, k); t++)
            (void)sess_thread_reason(m, k, t);
    pthread_mutex_lock(&o->lock);
    if (o->json)
        fputs(",\"page_faults\":[", o->f);
    for (unsigned k = 0; k < sess_count(m); k++) {
        for (size_t i = 0; i < sess_fault_count(m, k); i++) {
            uint64_t addr;
            enum zd_fault_reason why;
            unsigned hits = 0;
            if (sess_fault_at(m, k, i, &addr, &why) != 0)
                continue;
            if (o->json) {
                fprintf(o->f,
                        "%s{\"session\":%u,\"address\":\"0x%" PRIx64 "\",\"reason\":\"%s\","
                        "\"threads\":[",
                        first ? "" : ",", k, addr, fault_reason(why));
            }
            /* The threads that hit it: stopped with the page-fault bit. */
            for (uint32_t t = 0; t < sess_thread_count(m, k); t++) {
                struct zd_thread id;
                enum sess_thread_state st = sess_thread_state(m, k, t);
                if ((st != SESS_T_STOPPED && st != SESS_T_HELD) ||
                    sess_thread_reason(m, k, t) != ISA_STOP_PAGE_FAULT)
                    continue;
                id = sess_thread_id(m, k, t);
                if (o->json)
                    fprintf(o->f, "%s\"%u.%u.%u.%u\"", hits ? "," : "", id.slice, id.subslice,
                            id.eu, id.thread);
                hits++;
            }
            if (o->json) {
                fputc(']', o->f);
                dump_xpti_allocation(o->f, true, o->xpti, addr);
                fputc('}', o->f);
            } else {
                fprintf(o->f, "page fault at 0x%" PRIx64 " (%s) on device %u: %u thread%s\n", addr,
                        fault_reason(why), dev_of(m, k)->index, hits, hits == 1 ? "" : "s");
                dump_xpti_allocation(o->f, false, o->xpti, addr);
            }
            first = false;
        }
    }
    if (o->json)
        fputs("],\"threads\":[", o->f);
    o->phase = PH_THREADS;
    fflush(o->f);
    pthread_mutex_unlock(&o->lock);
}

/* Register values as hexadecimal numbers, most significant digit first.
 * Formatted here and written at once: a JSON dump prints five registers of
 * every thread, and one fprintf per byte was a tenth of its time. */
static void hex_value(FILE *f, const uint8_t *p, size_t n)
{
    static const char digit[] = "0123456789abcdef";
    char text[2 + 2 * 64 + 1], *q = text;
    *q++ = '0';
    *q++ = 'x';
    for (size_t i = n; i-- > 0;) {
        *q++ = digit[p[i] >> 4];
        *q++ = digit[p[i] & 15];
        if ((size_t)(q - text) > sizeof(text) - 3) { /* a register wider than 64 bytes */
            fwrite(text, 1, (size_t)(q - text), f);
            q = text;
        }
    }
    fwrite(text, 1, (size_t)(q - text), f);
}

/* The register sets a record prints, read (through the per-stop cache)
 * before the output lock is taken. */
struct reg_data {
    uint32_t type;
    const uint8_t *data;
    size_t size;
    bool filled; /* read from the device for this record, not cached before it */
};

static const struct regs_catalog *catalog(const struct dump_out *o, unsigned session)
{
    return o->cats && session < o->ncats ? o->cats[session] : NULL;
}

/* Reads the register sets that hold a register to print, each once. */
static size_t fetch_registers(struct dump_out *o, struct sess_manager *m,
                              const struct dump_thread *t, enum dump_regs which,
                              struct reg_data *out, size_t max)
{
    const struct regs_catalog *cat = catalog(o, t->session);
    size_t n = 0;
    bool failed = false;
    char err_text[sizeof(o->reg_error)] = "";
    for (size_t i = 0; cat && i < regs_catalog_count(cat) && n < max; i++) {
        const struct regs_reg *r = regs_catalog_at(cat, i);
        struct zd_error err = {0};
        bool have = false;
        if (which == DUMP_REGS_EXPEDITED && !r->expedited)
            continue;
        for (size_t k = 0; k < n && !have; k++)
            have = out[k].type == r->regset_type;
        out[n].type = r->regset_type;
        if (have)
            continue;
        out[n].filled = !sess_regset_cached(m, t->session, t->thread, r->regset_type);
        if (sess_read_regset(m, t->session, t->thread, r->regset_type, &out[n].data, &out[n].size,
                             &err) == 0)
            n++;
        else {
            failed = true;
            snprintf(err_text, sizeof(err_text), "%s", err.msg);
        }
    }
    if (failed) {
        pthread_mutex_lock(&o->lock);
        o->reg_failures++;
        snprintf(o->reg_error, sizeof(o->reg_error), "%s", err_text);
        pthread_mutex_unlock(&o->lock);
    }
    return n;
}

/* After a record is written: the register sets fetch_registers read for
 * it leave the session's cache, so that a dump of every thread's registers
 * reuses one thread's worth of memory instead of keeping them all (at
 * 65,536 threads half a GiB of GRF, and most of the dump's time went into the
 * kernel clearing those fresh pages). What was cached before the record
 * (cr0, read to locate every thread) stays. */
static void release_registers(struct sess_manager *m, const struct dump_thread *t,
                              const struct reg_data *rd, size_t nrd)
{
    for (size_t k = 0; k < nrd; k++)
        if (rd[k].filled)
            sess_forget_regset(m, t->session, t->thread, rd[k].type);
}

static void emit_registers(struct dump_out *o, const struct dump_thread *t, enum dump_regs which,
                           const struct reg_data *rd, size_t nrd)
{
    const struct regs_catalog *cat = catalog(o, t->session);
    bool first = true;
    if (!cat)
        return;
    if (o->json)
        fputs(",\"registers\":{", o->f);
    for (size_t i = 0; i < regs_catalog_count(cat); i++) {
        const struct regs_reg *r = regs_catalog_at(cat, i);
        const struct reg_data *d = NULL;
        if (which == DUMP_REGS_EXPEDITED && !r->expedited)
            continue;
        for (size_t k = 0; k < nrd && !d; k++)
            if (rd[k].type == r->regset_type)
                d = &rd[k];
        if (!d || (size_t)(r->index + 1) * r->byte_size > d->size)
            continue;
        if (o->json) {
            fprintf(o->f, "%s\"%s\":\"", first ? "" : ",", r->name);
            hex_value(o->f, d->data + (size_t)r->index * r->byte_size, r->byte_size);
            fputc('"', o->f);
        } else {
            fprintf(o->f, "      %-10s ", r->name);
            hex_value(o->f, d->data + (size_t)r->index * r->byte_size, r->byte_size);
            fputc('\n', o->f);
        }
        first = false;
    }
    if (o->json)
        fputc('}', o->f);
}

/* Lock held: the record, onto o->f. */
static void write_thread(struct dump_out *o, const struct zd_device *d, const struct dump_thread *t,
                         enum dump_regs regs, struct reg_data *rd, size_t nrd)
{
    const struct sym_location *l = &t->loc;
    if (o->json) {
        fprintf(o->f, "%s{\"session\":%u,\"device\":%u,\"thread\":\"%u.%u.%u.%u\",",
                o->nthreads ? "," : "", t->session, d->index, t->id.slice, t->id.subslice, t->id.eu,
                t->id.thread);
        fprintf(o->f,
                "\"state\":\"stopped\",\"reason\":\"%s\",\"pc\":", isa_stop_reason_name(t->reason));
        if (t->has_pc)
            fprintf(o->f, "\"0x%" PRIx64 "\"", t->pc);
        else
            fputs("null", o->f);
        fputs(",\"kernel\":", o->f);
        if (t->has_location)
            report_json_str(o->f, l->kernel);
        else
            fputs("null", o->f);
        fputs(",\"kernel_address\":", o->f);
        if (t->has_location)
            fprintf(o->f, "\"0x%" PRIx64 "\"", l->kernel_addr);
        else
            fputs("null", o->f);
        fputs(",\"module\":", o->f);
        if (t->has_module)
            fprintf(o->f, "{\"begin\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64 "\"}",
                    t->module_begin, t->module_end);
        else
            fputs("null", o->f);
        fputs(",\"function\":", o->f);
        if (t->has_location && l->function)
            report_json_str(o->f, l->function);
        else
            fputs("null", o->f);
        fputs(",\"file\":", o->f);
        if (t->has_location && l->has_line)
            report_json_str(o->f, l->file);
        else
            fputs("null", o->f);
        if (t->has_location && l->has_line)
            fprintf(o->f, ",\"line\":%u,\"column\":%u", l->line, l->column);
        else
            fputs(",\"line\":null,\"column\":null", o->f);
        dump_xpti_submission(o->f, true, t->submitted);
    } else {
        fprintf(o->f, "  thread %u.%u.%u.%u on device %u: %s", t->id.slice, t->id.subslice,
                t->id.eu, t->id.thread, d->index, isa_stop_reason_name(t->reason));
        if (t->has_pc)
            fprintf(o->f, " at pc 0x%" PRIx64, t->pc);
        if (t->has_location) {
            fprintf(o->f, " in %s", l->function ? l->function : l->kernel);
            if (l->has_line)
                fprintf(o->f, " (%s:%u:%u)", l->file, l->line, l->column);
        }
        fputc('\n', o->f);
        dump_xpti_submission(o->f, false, t->submitted);
    }
    if (regs != DUMP_REGS_NONE)
        emit_registers(o, t, regs, rd, nrd);
    if (o->json)
        fputc('}', o->f);
}

/* Grouped human format: the thread joins its class; only a class's first
 * thread has its registers read and its record kept, for the class. */
static void group_thread(struct dump_out *o, struct sess_manager *m, const struct dump_thread *t,
                         enum dump_regs regs)
{
    const struct zd_device *d = dev_of(m, t->session);
    struct reg_data rd[32];
    size_t nrd, len;
    char *text = NULL;
    FILE *mem, *real;
    bool first;
    pthread_mutex_lock(&o->lock);
    first = dump_classes_add(o->classes, t, d->index, t->thread);
    o->nthreads++;
    pthread_mutex_unlock(&o->lock);
    if (!first)
        return;
    nrd = regs != DUMP_REGS_NONE ? fetch_registers(o, m, t, regs, rd, 32) : 0;
    if (!(mem = open_memstream(&text, &len))) {
        release_registers(m, t, rd, nrd);
        return;
    }
    pthread_mutex_lock(&o->lock);
    real = o->f;
    o->f = mem;
    write_thread(o, d, t, regs, rd, nrd);
    o->f = real;
    fclose(mem);
    dump_classes_set_record(o->classes, text);
    pthread_mutex_unlock(&o->lock);
    release_registers(m, t, rd, nrd);
}

void dump_out_thread(struct dump_out *o, struct sess_manager *m, const struct dump_thread *t,
                     enum dump_regs regs)
{
    struct reg_data rd[32];
    size_t nrd;
    if (o->classes) {
        group_thread(o, m, t, regs);
        return;
    }
    nrd = regs != DUMP_REGS_NONE ? fetch_registers(o, m, t, regs, rd, 32) : 0;
    pthread_mutex_lock(&o->lock);
    write_thread(o, dev_of(m, t->session), t, regs, rd, nrd);
    o->nthreads++;
    fflush(o->f);
    pthread_mutex_unlock(&o->lock);
    release_registers(m, t, rd, nrd);
}

void dump_out_group(struct dump_out *o)
{
    if (!o->json && !o->classes)
        o->classes = dump_classes_new();
}

/* Lock held: the classes gathered so far, once. */
static void print_classes(struct dump_out *o)
{
    if (o->classes && dump_classes_count(o->classes)) {
        dump_classes_print(o->classes, o->f);
        fflush(o->f);
    }
}

/* The human format's word for a document cut short. */
static const char *incomplete_reason(const struct dump_out *o, int status)
{
    if (o->failure[0])
        return o->failure;
    if (!o->launched && status == 4)
        return "the application exited before the trigger";
    return "timed out";
}

void dump_out_fail(struct dump_out *o, const char *reason)
{
    pthread_mutex_lock(&o->lock);
    snprintf(o->failure, sizeof(o->failure), "%s", reason);
    pthread_mutex_unlock(&o->lock);
}

/* Closes whatever sections are open; lock held. */
static void finish(struct dump_out *o, struct sess_manager *m, int status, bool complete)
{
    struct zd_stats st;
    struct sess_stats ss = {0, 0};
    if (o->phase == PH_DONE)
        return;
    if (o->json) {
        if (o->phase < PH_DEVICES)
            fputs(",\"devices\":[]", o->f);
        if (o->phase < PH_XPTI)
            fputs(",\"xpti\":null", o->f);
        if (o->phase < PH_THREADS)
            fputs(",\"page_faults\":[],\"threads\":[", o->f);
        zd_get_stats(o->zd, &st);
        if (o->has_program)
            fprintf(o->f, "],\"program\":%s,\"stats\":{", o->program);
        else
            fputs("],\"stats\":{", o->f);
        if (m)
            sess_get_stats(m, &ss);
        fprintf(o->f,
                "\"stopped_threads\":%u,\"zet_calls\":{\"read_event\":%" PRIu64
                ",\"acknowledge\":%" PRIu64 ",\"interrupt\":%" PRIu64 ",\"resume\":%" PRIu64
                ",\"read_memory\":%" PRIu64 ",\"write_memory\":%" PRIu64
                ",\"read_registers\":%" PRIu64 ",\"write_registers\":%" PRIu64
                "},\"register_reads\":%" PRIu64 ",\"probes_failed\":%" PRIu64 "},",
                o->nthreads, st.read_event, st.ack, st.interrupt, st.resume, st.read_memory,
                st.write_memory, st.read_registers, st.write_registers, ss.register_reads,
                ss.probes_failed);
        if (o->failure[0]) {
            fputs("\"error\":", o->f);
            report_json_str(o->f, o->failure);
            fputc(',', o->f);
        }
        fprintf(o->f, "\"status\":%d,\"complete\":%s}\n", status, complete ? "true" : "false");
    } else {
        print_classes(o); /* cut short before the collection ended */
        fprintf(o->f, "%u stopped thread%s", o->nthreads, o->nthreads == 1 ? "" : "s");
        if (!complete)
            fprintf(o->f, " (incomplete: %s)", incomplete_reason(o, status));
        fputc('\n', o->f);
        if (o->has_program)
            fprintf(o->f, "%s\n", o->program);
    }
    o->phase = PH_DONE;
    fflush(o->f);
}

void dump_out_close(struct dump_out *o, struct sess_manager *m, int status, bool complete)
{
    pthread_mutex_lock(&o->lock);
    if (o->reg_failures)
        fprintf(stderr,
                "zestub dump: the registers of %u thread%s could not all be read, so their "
                "records lack them: %s\n",
                o->reg_failures, o->reg_failures == 1 ? "" : "s", o->reg_error);
    /* In launch mode the status is the program's when nothing was dumped:
     * the caller says whether the document is complete. */
    finish(o, m, status,
           o->launched ? complete
                       : complete && (status == 0 || status == DUMP_OUT_STATUS_HANG ||
                                      status == DUMP_OUT_STATUS_CORE));
    if (o->own && fclose(o->f) != 0)
        fprintf(stderr, "zestub dump: writing %s failed: %s\n", o->partial ? o->partial : "",
                strerror(errno));
    else
        publish(o);
    pthread_mutex_unlock(&o->lock);
    free(o->partial);
    free(o->path);
    dump_classes_free(o->classes);
    pthread_mutex_destroy(&o->lock);
    for (unsigned k = 0; k < o->ncats; k++)
        regs_catalog_free(o->cats[k]);
    free(o->cats);
    free(o);
}

void dump_out_abort(struct dump_out *o, int status)
{
    /* If the main thread holds the lock it is inside a record write, which
     * never waits on the device; wait for it. */
    pthread_mutex_lock(&o->lock);
    /* No sessions statistics: their lock may be held by the hung call. */
    finish(o, NULL, status, false);
    /* The caller exits next: the flushed document is whole. */
    publish(o);
    pthread_mutex_unlock(&o->lock);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void dump_out_collect(struct dump_out *out, struct sess_manager *m, enum dump_regs regs,
                      struct sess_xpti *x, uint64_t stop_ns, FILE *progress)
{
    /* A dump of tens of thousands of threads with their registers takes
     * seconds: say how far it got, so that nobody kills a dump that works. */
    double t0 = progress ? mono_s() : 0, next = t0 + 1.0;
    uint64_t total = 0, done = 0;
    for (unsigned k = 0; progress && k < sess_count(m); k++)
        total += sess_thread_count(m, k);
    for (unsigned k = 0; k < sess_count(m); k++) {
        uint32_t n = sess_thread_count(m, k);
        for (uint32_t t = 0; t < n; t++, done++) {
            struct dump_thread rec;
            struct zd_error err;
            enum sess_thread_state st = sess_thread_state(m, k, t);
            double now;
            if (progress && (done & 255) == 0 && (now = mono_s()) >= next) {
                fprintf(progress,
                        "zestub dump: %" PRIu64 " of %" PRIu64 " threads looked at, %u written, "
                        "%.1f s so far\n",
                        done, total, out->nthreads, now - t0);
                next = now + 1.0;
            }
            if (st != SESS_T_STOPPED && st != SESS_T_HELD)
                continue;
            memset(&rec, 0, sizeof(rec));
            rec.session = k;
            rec.thread = t;
            rec.id = sess_thread_id(m, k, t);
            rec.reason = sess_thread_reason(m, k, t);
            rec.has_pc = sess_thread_pc(m, k, t, &rec.pc, &err) == 0;
            if (rec.has_pc) {
                const struct sym_module *sym =
                    sess_module_for_pc(m, k, rec.pc, &rec.module_begin, &rec.module_end);
                rec.has_module = sym != NULL;
                if (sym)
                    rec.has_location = sym_lookup(sym, rec.pc, &rec.loc) == 0;
            }
            if (rec.has_location)
                rec.submitted = sess_xpti_submission(x, m, k, rec.loc.kernel, stop_ns);
            dump_out_thread(out, m, &rec, regs);
        }
    }
    pthread_mutex_lock(&out->lock);
    print_classes(out);
    pthread_mutex_unlock(&out->lock);
    if (progress && mono_s() - t0 >= 1.0)
        fprintf(progress, "zestub dump: %u threads written in %.1f s\n", out->nthreads,
                mono_s() - t0);
}

void dump_out_launch(struct dump_out *o, long rank, const char *host)
{
    pthread_mutex_lock(&o->lock);
    o->launched = true;
    if (o->json) {
        if (rank >= 0)
            fprintf(o->f, ",\"rank\":%ld,\"host\":", rank);
        else
            fputs(",\"rank\":null,\"host\":", o->f);
        report_json_str(o->f, host);
    } else if (rank >= 0) {
        fprintf(o->f, "rank %ld on %s\n", rank, host);
    }
    fflush(o->f);
    pthread_mutex_unlock(&o->lock);
}

void dump_out_program(struct dump_out *o, const char *path, int exit_code, int signal, bool dumped)
{
    FILE *f;
    pthread_mutex_lock(&o->lock);
    f = fmemopen(o->program, sizeof(o->program), "w");
    if (f && o->json) {
        fputs("{\"path\":", f);
        report_json_str(f, path);
        fprintf(f, ",\"exit_code\":%d,\"signal\":", exit_code);
        if (signal)
            fprintf(f, "%d", signal);
        else
            fputs("null", f);
        fprintf(f, ",\"dumped\":%s}", dumped ? "true" : "false");
    } else if (f) {
        fprintf(f, "program %s: exit code %d%s", path, exit_code,
                dumped ? "" : " (no fault: nothing dumped)");
    }
    if (f) {
        fclose(f);
        o->has_program = true;
    }
    pthread_mutex_unlock(&o->lock);
}
