/* SPDX-License-Identifier: MIT */
/* The core emitter: at threads_begin each device's core is planned (which
 * threads, in which order, so each thread's note has a known place) and
 * written but for the threads' notes; each thread's note is then written
 * into its place when its record passes, from the registers the pass read
 * for every emitter at once. A planned thread the pass did not bring (a
 * device that ended mid-pass) is read at the end. */
#include "config.h"

#include <errno.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "report/core_plan.h"
#include "report/outfile.h"
#include "report/pass.h"

struct device_core {
    struct plan p;
    struct outfile *file;
    struct core_io *io;
    int32_t *slot_of;   /* per hardware thread: its place in p.th, -1 none */
    uint64_t *slot_off; /* per place: file offset of its notes */
    bool *filled;
    unsigned unreadable; /* threads with a set that could not be read */
    unsigned from_elf;
    uint64_t mem_unreadable;
    bool failed;
    char name[4200];
};

struct core_em {
    const char *path;
    const struct core_opts *opts;
    struct sess_xpti *x;
    FILE *log;
    struct device_core *dev;
    unsigned n;
};

static void device_free(struct device_core *d)
{
    if (d->file)
        outfile_discard(d->file);
    core_plan_free(&d->p);
    free(d->io);
    free(d->slot_of);
    free(d->slot_off);
    free(d->filled);
}

/* Where each planned thread's notes go. 0, or -1 out of memory. */
static int place_threads(struct device_core *d, struct sess_manager *m, unsigned k)
{
    uint32_t n = sess_thread_count(m, k);
    uint64_t off = d->p.threads_off;
    if (!(d->slot_of = malloc(((size_t)n + 1) * sizeof(*d->slot_of))) ||
        !(d->slot_off = malloc((d->p.th.n + 1) * sizeof(*d->slot_off))) ||
        !(d->filled = calloc(d->p.th.n + 1, sizeof(*d->filled))))
        return -1;
    memset(d->slot_of, 0xff, (size_t)n * sizeof(*d->slot_of));
    for (size_t i = 0; i < d->p.th.n; i++) {
        d->slot_of[d->p.th.t[i].thread] = (int32_t)i;
        d->slot_off[i] = off;
        off += core_thread_note_size(&d->p, &d->p.th.t[i]);
    }
    return 0;
}

/* The core of d is not written: its partial goes. */
static void give_up(struct device_core *d)
{
    d->failed = true;
    outfile_discard(d->file);
    d->file = NULL;
}

/* Plans device k's core and writes all of it but the threads' notes. */
static void begin_device(struct core_em *c, struct device_core *d, struct sess_manager *m,
                         unsigned k, const struct regs_catalog *cat)
{
    char err[256];
    d->p = (struct plan){.m = m, .k = k, .opts = c->opts, .log = c->log, .cat = cat, .x = c->x};
    if (c->n == 1)
        snprintf(d->name, sizeof(d->name), "%s", c->path);
    else
        snprintf(d->name, sizeof(d->name), "%s.%u", c->path, k);
    if (core_plan_make(&d->p) != 0 || !(d->io = calloc(1, sizeof(*d->io)))) {
        fprintf(c->log, "zestub dump: core: out of memory\n");
        d->failed = true;
        return;
    }
    if (d->p.th.n == 0) {
        fprintf(c->log, "zestub dump: core: device %u has no stopped thread: no core written\n", k);
        return;
    }
    if (!(d->file = outfile_open(d->name, err, sizeof(err)))) {
        fprintf(c->log, "zestub dump: cannot write %s: %s\n", d->name, err);
        d->failed = true;
        return;
    }
    d->io->fd = outfile_fd(d->file);
    /* core_write_static says why it failed; place_threads fails only
     * for memory. */
    if (core_write_static(&d->p, d->io, d->name, outfile_in_place(d->file), &d->from_elf,
                          &d->mem_unreadable) != 0) {
        give_up(d);
        return;
    }
    if (place_threads(d, m, k) != 0) {
        fprintf(c->log, "zestub dump: core: out of memory\n");
        give_up(d);
    }
}

static int c_threads_begin(void *ctx, struct sess_manager *m, struct regs_catalog *const *cats,
                           unsigned ncats, enum dump_regs regs)
{
    struct core_em *c = ctx;
    (void)regs;
    if (elf_version(EV_CURRENT) == EV_NONE) {
        fprintf(c->log, "zestub dump: core: libelf: %s\n", elf_errmsg(-1));
        return -1;
    }
    c->n = sess_count(m);
    if (!(c->dev = calloc(c->n ? c->n : 1, sizeof(*c->dev)))) {
        fprintf(c->log, "zestub dump: core: out of memory\n");
        return -1;
    }
    for (unsigned k = 0; k < c->n; k++)
        begin_device(c, &c->dev[k], m, k, k < ncats ? cats[k] : NULL);
    return 0;
}

/* The place of t in its device's core, or NULL. */
static struct device_core *device_of(struct core_em *c, const struct dump_thread *t, size_t *slot)
{
    struct device_core *d = t->session < c->n ? &c->dev[t->session] : NULL;
    if (!d || !d->file || !d->slot_of || d->slot_of[t->thread] < 0)
        return NULL;
    *slot = (size_t)d->slot_of[t->thread];
    return d;
}

static uint32_t all_sets(const struct plan *p)
{
    size_t n = regs_catalog_set_count(p->cat);
    return n >= REPORT_MAX_SETS ? UINT32_MAX : (1u << n) - 1;
}

static uint32_t c_wants(void *ctx, const struct dump_thread *t)
{
    size_t slot;
    struct device_core *d = device_of(ctx, t, &slot);
    return d ? all_sets(&d->p) : 0;
}

/* Thread place `slot` from its sets. Threads in core order follow each
 * other in the file: only a jump moves the buffered output. */
static void write_slot(struct device_core *d, size_t slot,
                       const uint8_t *const data[REPORT_MAX_SETS],
                       const size_t size[REPORT_MAX_SETS], bool failed)
{
    if (core_io_pos(d->io) != d->slot_off[slot]) {
        core_io_flush(d->io);
        d->io->off = d->slot_off[slot];
    }
    core_write_thread(d->io, &d->p, &d->p.th.t[slot], data, size);
    d->filled[slot] = true;
    if (failed)
        d->unreadable++;
}

static void c_thread(void *ctx, const struct dump_thread *t)
{
    const uint8_t *data[REPORT_MAX_SETS] = {0};
    size_t slot;
    struct device_core *d = device_of(ctx, t, &slot);
    if (!d || d->filled[slot])
        return;
    for (size_t s = 0; s < REPORT_MAX_SETS; s++)
        data[s] = t->read & (1u << s) ? t->set_data[s] : NULL;
    write_slot(d, slot, data, t->set_size, (t->failed & all_sets(&d->p)) != 0);
}

/* A planned thread the pass did not bring: read here, and dropped from
 * the session's cache again. */
static void fill_missing(struct device_core *d, size_t slot)
{
    const uint8_t *data[REPORT_MAX_SETS] = {0};
    size_t size[REPORT_MAX_SETS] = {0};
    uint32_t thread = d->p.th.t[slot].thread;
    size_t nsets = regs_catalog_set_count(d->p.cat);
    bool failed = false, had[REPORT_MAX_SETS] = {0};
    for (size_t s = 0; s < nsets && s < REPORT_MAX_SETS; s++) {
        uint32_t type = regs_catalog_set(d->p.cat, s)->props.type;
        struct zd_error err;
        had[s] = sess_regset_cached(d->p.m, d->p.k, thread, type);
        if (sess_read_regset(d->p.m, d->p.k, thread, type, &data[s], &size[s], &err) != 0) {
            data[s] = NULL;
            failed = true;
        }
    }
    write_slot(d, slot, data, size, failed);
    for (size_t s = 0; s < nsets && s < REPORT_MAX_SETS; s++)
        if (!had[s])
            sess_forget_regset(d->p.m, d->p.k, thread, regs_catalog_set(d->p.cat, s)->props.type);
}

/* The missing notes, the file checked and renamed into place. 0, or -1. */
static int end_device(struct core_em *c, struct device_core *d)
{
    char err[256];
    const struct plan *p = &d->p;
    for (size_t i = 0; i < p->th.n; i++)
        if (!d->filled[i])
            fill_missing(d, i);
    core_io_flush(d->io);
    if (outfile_commit(d->file, d->io->err, err, sizeof(err)) != 0) {
        d->file = NULL;
        fprintf(c->log, "zestub dump: writing %s failed: %s\n", d->name, err);
        return -1;
    }
    d->file = NULL;
    core_report_gaps(p, d->unreadable, d->from_elf, d->mem_unreadable);
    fprintf(c->log,
            "zestub dump: core written: %s (%zu thread%s, %zu module%s, %llu bytes of memory",
            d->name, p->th.n, p->th.n == 1 ? "" : "s", p->nmods, p->nmods == 1 ? "" : "s",
            (unsigned long long)p->mem.bytes);
    if (p->mem.slm.size) /* thread ids as the server and Intel's GDB number them */
        fprintf(c->log, ", %llu bytes of SLM of thread %u", (unsigned long long)p->mem.slm.size,
                p->mem.slm_thread + 1);
    fprintf(c->log, ")\n");
    return 0;
}

static int c_threads_end(void *ctx, struct sess_manager *m)
{
    struct core_em *c = ctx;
    int rc = 0;
    (void)m;
    for (unsigned k = 0; k < c->n; k++) {
        if (c->dev[k].failed)
            rc = -1;
        else if (c->dev[k].file && end_device(c, &c->dev[k]) != 0)
            rc = -1;
    }
    return rc;
}

static void c_free(void *ctx)
{
    struct core_em *c = ctx;
    for (unsigned k = 0; c->dev && k < c->n; k++)
        device_free(&c->dev[k]);
    free(c->dev);
    free(c);
}

static const struct report_emitter_ops core_ops = {
    .threads_begin = c_threads_begin,
    .wants = c_wants,
    .thread = c_thread,
    .threads_end = c_threads_end,
    .free = c_free,
};

struct report_emitter report_core_new(const char *path, const struct core_opts *opts,
                                      struct sess_xpti *x)
{
    struct core_em *c = calloc(1, sizeof(*c));
    if (c) {
        c->path = path;
        c->opts = opts;
        c->x = x;
        c->log = opts->log ? opts->log : stderr;
    }
    return (struct report_emitter){&core_ops, c};
}

int core_write_all(struct sess_manager *m, const char *path, const struct core_opts *opts)
{
    unsigned ncats;
    struct regs_catalog **cats = report_catalogs_new(m, &ncats);
    struct report_emitter em = report_core_new(path, opts, opts->xpti);
    struct report_pass p = {.m = m, .em = &em, .nem = 1, .cats = cats, .ncats = ncats};
    int rc = -1;
    if (cats && em.ctx)
        rc = report_pass_run(&p);
    else
        fprintf(opts->log ? opts->log : stderr, "zestub dump: core: out of memory\n");
    if (em.ctx)
        em.ops->free(em.ctx);
    report_catalogs_free(cats, ncats);
    return rc;
}
