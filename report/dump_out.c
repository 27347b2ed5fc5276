/* SPDX-License-Identifier: MIT */
/* The document of a dump and the cores of the same pass (report/dump_out.h). */
#include "report/dump_out.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "report/emitter.h"
#include "report/outfile.h"
#include "report/pass.h"

#define MAX_CORES 4
#define MAX_LOST 64 /* devices named as lost; more is a machine of its own */
/* The document's stream buffer: a JSON hang dump of 65,536 threads is
 * some 80 MB, and stdio's default (the file's block size, 4 KiB) made it
 * 20,000 write calls, each starting mid-block (bench/README.md). */
#define DOC_BUFFER (256u * 1024u)

struct dump_out {
    /* Guards the stream: the watchdog may finish the document while the
     * main thread is between records. */
    pthread_mutex_t lock;
    struct report_emitter doc; /* the document's format */
    FILE *f;
    struct outfile *file; /* a file of ours; NULL: f is stdout or the caller's */
    char *iobuf;          /* file's stream buffer (DOC_BUFFER), freed once it is closed */
    bool checked;         /* stdout: its errors are ours to report */
    bool done;
    struct zd *zd;
    /* One register catalogue per device (session), built once. */
    struct regs_catalog **cats;
    unsigned ncats;
    struct sess_xpti *xpti; /* not owned */
    unsigned nthreads;
    /* --core: the cores the next collect writes. */
    const char *core_path[MAX_CORES];
    const struct core_opts *core_opts[MAX_CORES];
    unsigned ncores;
    /* Launch mode: the program's end, written last. */
    bool launched, has_program, dumped;
    char program[4096];
    int exit_code, signal;
    /* Threads whose registers could not all be read, and the last reason:
     * said on stderr when the document is closed. */
    unsigned reg_failures;
    char reg_error[256];
    /* The devices whose session ended before the document did (not by
     * our detach). */
    unsigned lost[MAX_LOST], nlost;
    /* Why no dump could be taken (dump_out_fail), "" otherwise. */
    char failure[256];
};

/* The one place a format becomes its emitter. */
static struct report_emitter report_format_emitter(FILE *f, enum report_format fmt)
{
    switch (fmt) {
    case REPORT_JSON:
        return report_json_new(f);
    case REPORT_HUMAN_EVERY_THREAD:
        return report_human_new(f, false);
    case REPORT_HUMAN:
    default:
        return report_human_new(f, true);
    }
}

struct dump_out *dump_out_open_stream(FILE *f, enum report_format fmt, uint32_t pid,
                                      const char *trigger, struct zd *zd)
{
    struct dump_out *o = calloc(1, sizeof(*o));
    if (!o)
        return NULL;
    o->doc = report_format_emitter(f, fmt);
    if (!o->doc.ctx) {
        free(o);
        return NULL;
    }
    o->zd = zd;
    o->f = f;
    pthread_mutex_init(&o->lock, NULL);
    o->doc.ops->header(o->doc.ctx, pid, trigger);
    return o;
}

struct dump_out *dump_out_open(const char *path, enum report_format fmt, uint32_t pid,
                               const char *trigger, struct zd *zd, char *why, size_t whylen)
{
    struct outfile *file = NULL;
    struct dump_out *o;
    FILE *f = stdout;
    char *iobuf = NULL;
    if (path && strcmp(path, "-") != 0) {
        if (!(file = outfile_open(path, why, whylen)))
            return NULL;
        if (!(f = outfile_stream(file))) {
            outfile_discard(file);
            snprintf(why, whylen, "%s", strerror(ENOMEM));
            errno = ENOMEM;
            return NULL;
        }
        /* Without the memory, stdio's own buffer does. */
        if ((iobuf = malloc(DOC_BUFFER)) && setvbuf(f, iobuf, _IOFBF, DOC_BUFFER) != 0) {
            free(iobuf);
            iobuf = NULL;
        }
    }
    if (!(o = dump_out_open_stream(f, fmt, pid, trigger, zd))) {
        outfile_discard(file);
        free(iobuf);
        snprintf(why, whylen, "%s", strerror(ENOMEM));
        errno = ENOMEM;
        return NULL;
    }
    o->file = file;
    o->iobuf = iobuf;
    o->checked = !file;
    fflush(o->f);
    return o;
}

/* Calls op of the document under the lock, then flushes. */
#define DOC(o, op, ...)                                                                            \
    do {                                                                                           \
        pthread_mutex_lock(&(o)->lock);                                                            \
        if ((o)->doc.ops->op && !(o)->done)                                                        \
            (o)->doc.ops->op((o)->doc.ctx, __VA_ARGS__);                                           \
        fflush((o)->f);                                                                            \
        pthread_mutex_unlock(&(o)->lock);                                                          \
    } while (0)

void dump_out_devices(struct dump_out *o, struct sess_manager *m)
{
    if (!o->cats)
        o->cats = report_catalogs_new(m, &o->ncats);
    DOC(o, devices, m);
}

void dump_out_hang(struct dump_out *o, const struct report_hang *h)
{
    DOC(o, hang, h);
}

void dump_out_xpti(struct dump_out *o, struct sess_xpti *x, const char *note)
{
    struct xtab_stats st;
    if (x)
        sess_xpti_stats(x, &st);
    o->xpti = x;
    DOC(o, xpti, x ? &st : NULL, note);
}

void dump_out_faults(struct dump_out *o, struct sess_manager *m)
{
    struct report_fault *f;
    size_t n;
    /* Stop reasons need cr0 from the device: read before the output lock
     * is taken, so a device that hangs never blocks the watchdog. */
    if (report_faults_collect(m, o->xpti, &f, &n) != 0)
        n = 0;
    DOC(o, faults, f, n);
    report_faults_free(f, n);
}

void dump_out_add_core(struct dump_out *o, const char *path, const struct core_opts *opts)
{
    if (o->ncores < MAX_CORES) {
        o->core_path[o->ncores] = path;
        o->core_opts[o->ncores++] = opts;
    }
}

int dump_out_collect(struct dump_out *o, struct sess_manager *m, enum dump_regs regs,
                     struct sess_xpti *x, uint64_t stop_ns, FILE *progress)
{
    struct report_emitter em[1 + MAX_CORES];
    struct report_pass p = {.m = m,
                            .em = em,
                            .lock = &o->lock,
                            .regs = regs,
                            .x = x,
                            .stop_ns = stop_ns,
                            .progress = progress};
    int rc = 0, cores_rc = 0;
    if (!o->cats)
        o->cats = report_catalogs_new(m, &o->ncats);
    p.cats = o->cats;
    p.ncats = o->cats ? o->ncats : 0;
    em[p.nem++] = o->doc;
    for (unsigned i = 0; i < o->ncores; i++) {
        em[p.nem] = report_core_new(o->core_path[i], o->core_opts[i], x);
        if (em[p.nem].ctx)
            p.nem++;
        else
            cores_rc = -1;
    }
    rc = report_pass_run(&p);
    pthread_mutex_lock(&o->lock);
    fflush(o->f);
    o->nthreads += p.nthreads;
    if (p.reg_failures[0]) {
        o->reg_failures += p.reg_failures[0];
        snprintf(o->reg_error, sizeof(o->reg_error), "%s", p.reg_error);
    }
    pthread_mutex_unlock(&o->lock);
    for (size_t i = 1; i < p.nem; i++)
        em[i].ops->free(em[i].ctx);
    o->ncores = 0;
    /* The document itself reports its failures when it closes. */
    return rc != 0 || cores_rc != 0 ? -1 : 0;
}

void dump_out_launch(struct dump_out *o, long rank, const char *host)
{
    o->launched = true;
    DOC(o, launch, rank, host);
}

void dump_out_program(struct dump_out *o, const char *path, int exit_code, int signal, bool dumped)
{
    pthread_mutex_lock(&o->lock);
    snprintf(o->program, sizeof(o->program), "%s", path);
    o->exit_code = exit_code;
    o->signal = signal;
    o->dumped = dumped;
    o->has_program = true;
    pthread_mutex_unlock(&o->lock);
}

void dump_out_fail(struct dump_out *o, const char *reason)
{
    pthread_mutex_lock(&o->lock);
    snprintf(o->failure, sizeof(o->failure), "%s", reason);
    pthread_mutex_unlock(&o->lock);
}

/* Lock held: how the document ends. */
static struct report_end end_of(struct dump_out *o, struct sess_manager *m, int status,
                                bool complete)
{
    struct report_end e = {.status = status,
                           .complete = complete,
                           .nthreads = o->nthreads,
                           .failure = o->failure,
                           .launched = o->launched,
                           .has_program = o->has_program,
                           .program_path = o->program,
                           .exit_code = o->exit_code,
                           .signal = o->signal,
                           .dumped = o->dumped};
    zd_get_stats(o->zd, &e.zd);
    e.reg_failures = o->reg_failures;
    e.reg_error = o->reg_error;
    if (m) {
        sess_get_stats(m, &e.sess);
        o->nlost = 0;
        /* Ended, not detached by us: launch mode closes the document after
         * its detach, and a device let go of is not a lost one. Nor does a
         * program that ran to its end without a dump lose any record. */
        for (unsigned k = 0; k < sess_count(m) && o->nlost < MAX_LOST; k++)
            if (sess_exited(m, k) && !(o->launched && !o->dumped))
                o->lost[o->nlost++] = sess_device(m, k)->index;
    }
    e.nlost = o->nlost;
    e.lost_devices = o->lost;
    return e;
}

/* Lock held: the stream's end checked, the file renamed into place. */
static int finish_output(struct dump_out *o)
{
    char err[256];
    int rc = 0;
    if (o->file) {
        const char *name = outfile_name(o->file);
        char shown[4096];
        snprintf(shown, sizeof(shown), "%s", name);
        rc = outfile_commit(o->file, 0, err, sizeof(err));
        o->file = NULL;
        if (rc != 0)
            fprintf(stderr, "zestub dump: writing %s failed: %s\n", shown, err);
    } else if (o->checked && (rc = outfile_check_stream(o->f, err, sizeof(err))) != 0) {
        fprintf(stderr, "zestub dump: writing the report to standard output failed: %s\n", err);
    }
    return rc;
}

int dump_out_close(struct dump_out *o, struct sess_manager *m, int status, bool complete)
{
    struct report_end e;
    int rc;
    pthread_mutex_lock(&o->lock);
    if (o->reg_failures)
        fprintf(stderr,
                "zestub dump: the registers of %u thread%s could not all be read, so their "
                "records lack them: %s\n",
                o->reg_failures, o->reg_failures == 1 ? "" : "s", o->reg_error);
    /* In launch mode the status is the program's when nothing was dumped:
     * the caller says whether the document is complete. */
    e = end_of(o, m, status,
               o->launched ? complete
                           : complete && (status == 0 || status == DUMP_OUT_STATUS_HANG ||
                                          status == DUMP_OUT_STATUS_CORE));
    if (!o->done)
        o->doc.ops->end(o->doc.ctx, &e);
    o->done = true;
    rc = finish_output(o);
    pthread_mutex_unlock(&o->lock);
    o->doc.ops->free(o->doc.ctx);
    pthread_mutex_destroy(&o->lock);
    report_catalogs_free(o->cats, o->ncats);
    free(o->iobuf); /* its stream was closed by finish_output */
    free(o);
    return rc;
}

void dump_out_abort(struct dump_out *o, int status)
{
    struct report_end e;
    char err[256];
    /* If the main thread holds the lock it is inside a record write, which
     * never waits on the device; wait for it. */
    pthread_mutex_lock(&o->lock);
    /* No sessions statistics: their lock may be held by the hung call. */
    e = end_of(o, NULL, status, false);
    if (!o->done)
        o->doc.ops->abort(o->doc.ctx, &e);
    o->done = true;
    fflush(o->f);
    /* The caller exits next: the flushed document is whole. */
    if (o->file && outfile_publish(o->file, err, sizeof(err)) != 0)
        fprintf(stderr, "zestub dump: the record stays in %s: %s\n", outfile_partial(o->file), err);
    pthread_mutex_unlock(&o->lock);
}
