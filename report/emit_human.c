/* SPDX-License-Identifier: MIT */
/* The human emitter: a page meant to be read. Threads are grouped into
 * classes (report/dump_classes.h) unless every thread is asked for. Every
 * string that came from the debuggee, the driver or the environment
 * (kernel, file and function names, device name, host, program path) goes
 * through report_put_safe: this page goes to a terminal. */
#include <inttypes.h>
#include <stdlib.h>

#include "report/dump_classes.h"
#include "report/emitter.h"
#include "report/regs_text.h"
#include "report/safe_text.h"
#include "report/xpti_text.h"

struct human_em {
    FILE *f;
    enum dump_regs regs;
    /* Grouped: the classes so far (NULL: one record per thread), and
     * whether the record passing now is its class's first. */
    struct dump_classes *classes;
    bool first_of_class;
    bool done;
};

static void h_header(void *ctx, uint32_t pid, const char *trigger)
{
    FILE *f = ((struct human_em *)ctx)->f;
    fprintf(f, "zestub dump of process %u (trigger: ", pid);
    report_put_safe(f, trigger);
    fputs(")\n", f);
}

static void h_launch(void *ctx, long rank, const char *host)
{
    FILE *f = ((struct human_em *)ctx)->f;
    if (rank < 0)
        return;
    fprintf(f, "rank %ld on ", rank);
    report_put_safe(f, host);
    fputc('\n', f);
}

static void h_devices(void *ctx, struct sess_manager *m)
{
    FILE *f = ((struct human_em *)ctx)->f;
    for (unsigned k = 0; k < sess_count(m); k++) {
        const struct zd_device *d = sess_device(m, k);
        fprintf(f, "device %u [", d->index);
        report_put_safe(f, d->pci_slot);
        fprintf(f, "]%s%.0u ", d->parent >= 0 ? "." : "", d->parent >= 0 ? d->subdevice_id : 0);
        report_put_safe(f, d->name);
        fprintf(f, ": %u hardware threads\n", d->nthreads);
    }
}

static void h_hang(void *ctx, const struct report_hang *h)
{
    FILE *f = ((struct human_em *)ctx)->f;
    if (h->rule == REPORT_HANG_DEADLINE) {
        fprintf(f,
                "hang (rule: deadline, no XPTI table): device threads still running %.1f s "
                "after zestub attached (limit %g s; without the table zestub cannot see kernels "
                "end)\n",
                h->running_s, h->limit_s);
    } else {
        fprintf(f,
                "hang (rule: xpti): the oldest of %u submission%s in flight had been running "
                "%.1f s (limit %g s)\n",
                h->in_flight, h->in_flight == 1 ? "" : "s", h->running_s, h->limit_s);
        if (h->has_site) {
            fputs("  kernel ", f);
            report_put_safe(f, h->site.kernel[0] ? h->site.kernel : "?");
            fputs(" submitted at ", f);
            report_put_safe(f, h->site.file[0] ? h->site.file : "?");
            fprintf(f, ":%u in ", h->site.line);
            report_put_safe(f, h->site.function[0] ? h->site.function : "?");
            fputs(": ", f);
        } else
            fputs("  submission site unknown: ", f);
        fprintf(f, "task instance %" PRIu64 " on queue 0x%" PRIx64 " (uid 0x%016" PRIx64 ")\n",
                h->task.instance, h->task.queue, h->task.uid);
    }
    fprintf(f, "after the dump the program is %s\n", h->kill_after ? "killed" : "resumed");
}

static void h_xpti(void *ctx, const struct xtab_stats *st, const char *note)
{
    human_xpti_section(((struct human_em *)ctx)->f, st, note);
}

static const char *fault_reason(enum zd_fault_reason r)
{
    return r == ZD_FAULT_MAPPING ? "mapping" : r == ZD_FAULT_PERMISSION ? "permission" : "unknown";
}

static void h_faults(void *ctx, const struct report_fault *fa, size_t n)
{
    FILE *f = ((struct human_em *)ctx)->f;
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "page fault at 0x%" PRIx64 " (%s) on device %u: %u thread%s\n", fa[i].addr,
                fault_reason(fa[i].why), fa[i].device, fa[i].nthreads,
                fa[i].nthreads == 1 ? "" : "s");
        human_xpti_allocation(f, &fa[i]);
    }
    /* A PAGE_FAULT event names an address, not a thread: every thread a
     * device holds with the page-fault bit is under each of its
     * addresses. Said once per device with several, so that four lines of
     * "4 threads" are not read as sixteen. */
    for (size_t i = 0; i < n; i++) {
        size_t same = 0;
        bool first = true;
        for (size_t j = 0; j < n; j++) {
            if (fa[j].device != fa[i].device)
                continue;
            first = first && j >= i;
            same++;
        }
        if (first && same > 1)
            fprintf(f,
                    "(device %u: the driver does not say which thread faulted at which of its %zu "
                    "addresses; each line counts all %u threads it holds at a page fault)\n",
                    fa[i].device, same, fa[i].nthreads);
    }
}

static int h_threads_begin(void *ctx, struct sess_manager *m, struct regs_catalog *const *cats,
                           unsigned ncats, enum dump_regs regs)
{
    (void)m;
    (void)cats;
    (void)ncats;
    ((struct human_em *)ctx)->regs = regs;
    return 0;
}

/* Grouped: the thread joins its class here; only a class's first thread
 * has its registers read and its record kept, for the class. */
static uint32_t h_wants(void *ctx, const struct dump_thread *t)
{
    struct human_em *h = ctx;
    if (h->classes && !(h->first_of_class = dump_classes_add(h->classes, t, t->device, t->thread)))
        return 0;
    return h->regs == DUMP_REGS_NONE ? 0 : report_sets_for(t->cat, h->regs);
}

static void record(FILE *f, const struct dump_thread *t, enum dump_regs regs)
{
    const struct sym_location *l = &t->loc;
    fprintf(f, "  thread %u.%u.%u.%u on device %u: %s", t->id.slice, t->id.subslice, t->id.eu,
            t->id.thread, t->device, isa_stop_reason_name(t->reason));
    if (t->has_pc)
        fprintf(f, " at pc 0x%" PRIx64, t->pc);
    if (t->has_location) {
        fputs(" in ", f);
        report_put_safe(f, l->function ? l->function : l->kernel);
        if (l->has_line) {
            fputs(" (", f);
            report_put_safe(f, l->file);
            fprintf(f, ":%u:%u)", l->line, l->column);
        }
    }
    fputc('\n', f);
    human_xpti_submission(f, t->submitted);
    for (size_t i = 0; regs != DUMP_REGS_NONE && t->cat && i < regs_catalog_count(t->cat); i++) {
        const struct regs_reg *r = regs_catalog_at(t->cat, i);
        const uint8_t *v = report_reg_printed(r, regs) ? report_reg_bytes(t, r) : NULL;
        if (!v)
            continue;
        fprintf(f, "      %-10s ", r->name);
        report_hex_value(f, v, r->byte_size);
        fputc('\n', f);
    }
}

static void h_thread(void *ctx, const struct dump_thread *t)
{
    struct human_em *h = ctx;
    char *text = NULL;
    size_t len;
    FILE *mem;
    if (!h->classes) {
        record(h->f, t, h->regs);
        return;
    }
    if (!h->first_of_class || !(mem = open_memstream(&text, &len)))
        return;
    record(mem, t, h->regs);
    fclose(mem);
    dump_classes_set_record(h->classes, text);
}

/* The classes gathered so far, once. */
static int h_threads_end(void *ctx, struct sess_manager *m)
{
    struct human_em *h = ctx;
    (void)m;
    if (h->classes && dump_classes_count(h->classes))
        dump_classes_print(h->classes, h->f);
    return 0;
}

/* The word for a document cut short. */
static const char *incomplete_reason(const struct report_end *e)
{
    if (e->failure && e->failure[0])
        return e->failure;
    if (!e->launched && e->status == 4)
        return "the application exited before the trigger";
    return "timed out";
}

static void h_end(void *ctx, const struct report_end *e)
{
    struct human_em *h = ctx;
    if (h->done)
        return;
    h_threads_end(h, NULL); /* cut short before the collection ended */
    fprintf(h->f, "%u stopped thread%s", e->nthreads, e->nthreads == 1 ? "" : "s");
    if (!e->complete) {
        fputs(" (incomplete: ", h->f);
        report_put_safe(h->f, incomplete_reason(e));
        fputc(')', h->f);
    }
    fputc('\n', h->f);
    for (unsigned i = 0; i < e->nlost; i++)
        fprintf(h->f,
                "device %u: its debug session was lost; its threads' records may be incomplete\n",
                e->lost_devices[i]);
    if (e->reg_failures) {
        fprintf(h->f,
                "the registers of %u thread%s could not all be read; their records lack them: ",
                e->reg_failures, e->reg_failures == 1 ? "" : "s");
        report_put_safe(h->f, e->reg_error ? e->reg_error : "");
        fputc('\n', h->f);
    }
    if (e->has_program) {
        fputs("program ", h->f);
        report_put_safe(h->f, e->program_path);
        fprintf(h->f, ": exit code %d%s\n", e->exit_code,
                e->dumped ? "" : " (no fault: nothing dumped)");
    }
    h->done = true;
}

static void h_free(void *ctx)
{
    struct human_em *h = ctx;
    dump_classes_free(h->classes);
    free(h);
}

static const struct report_emitter_ops human_ops = {
    .header = h_header,
    .launch = h_launch,
    .devices = h_devices,
    .hang = h_hang,
    .xpti = h_xpti,
    .faults = h_faults,
    .threads_begin = h_threads_begin,
    .wants = h_wants,
    .thread = h_thread,
    .threads_end = h_threads_end,
    .end = h_end,
    .abort = h_end,
    .free = h_free,
};

struct report_emitter report_human_new(FILE *f, bool grouped)
{
    struct human_em *h = calloc(1, sizeof(*h));
    if (h) {
        h->f = f;
        if (grouped && !(h->classes = dump_classes_new())) {
            free(h);
            h = NULL;
        }
    }
    return (struct report_emitter){&human_ops, h};
}
