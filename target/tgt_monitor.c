/* SPDX-License-Identifier: MIT */
/* "monitor threads|thread|modules|devices|xpti" for the sessions target. A
 * device has thousands of hardware threads, so `threads` groups identical
 * ones (state, stop reason, kernel, source line) and prints one line per
 * group, largest first, at most MAX_GROUPS per device unless "all" is
 * given; `threads by-site` puts the groups under the host line that
 * submitted their kernel (the application's XPTI table, tgt_xpti.h). Nothing here resumes, stops
 * or writes: PCs and stop reasons come through the sessions register cache (read once per stop).
 * The server sends the text as console output, split over as many O packets as it needs. */
#include "target/tgt_monitor.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/packet.h"
#include "target/tgt_xpti.h"
#include "regsets/regs.h"
#include "sessions/sess.h"
#include "sessions/sess_where.h"
#include "sessions/sess_xpti.h"
#include "symbols/symbols.h"

/* Enough for a terminal: a stopped kernel rarely has more distinct lines. */
#define MAX_GROUPS 16
/* Kernel names listed per module before "(+N more)". */
#define MAX_KERNELS 8
/* Candidate tasks listed under an ambiguous submission site. */
#define MAX_CANDIDATES 4

enum mstate { M_STOPPED, M_RUNNING, M_UNAVAILABLE };
static const char *const state_name[] = {"stopped", "running", "unavailable"};

static enum mstate mstate_of(struct sess_manager *m, unsigned k, uint32_t th)
{
    switch (sess_thread_state(m, k, th)) {
    case SESS_T_STOPPED:
    case SESS_T_HELD: /* stopped, only its report is deferred */
        return M_STOPPED;
    case SESS_T_UNAVAILABLE:
        return M_UNAVAILABLE;
    default:
        return M_RUNNING;
    }
}

static const char *reason_text(enum isa_stop_reason r)
{
    return r == ISA_STOP_UNKNOWN ? "no exception bit set" : isa_stop_reason_name(r);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* "process 1, device 0 [0000:3a:00.0] NAME", sub-devices as "[slot].N"
 * like Intel's GDB names tiles. One numbering everywhere: the process is
 * GDB's (Thread 1.T, p1.T on the wire), the device is zestub's device
 * index, as `zestub devices` and `zestub dump` print it. */
static void put_device(struct rsp_buf *out, struct sess_manager *m, unsigned k)
{
    const struct zd_device *d = sess_device(m, k);
    rsp_buf_printf(out, "process %u, device %u [%s]", k + 1, (unsigned)d->index, d->pci_slot);
    if (d->parent >= 0)
        rsp_buf_printf(out, ".%u", (unsigned)d->subdevice_id);
    rsp_buf_printf(out, " %s", d->name);
}

/* A device the client detached is no longer listed: the user asked for
 * it to be gone (one whose application exited stays, saying so). */
static bool detached(struct sess_manager *m, unsigned k)
{
    return !sess_alive(m, k) && !sess_exited(m, k);
}

static int none_attached(unsigned listed, struct rsp_buf *out)
{
    if (!listed)
        rsp_buf_puts(out, "no device is attached\n");
    return 0;
}

/* ---- threads ------------------------------------------------------------ */

/* What a thread is doing, as far as grouping cares. Strings point into the
 * module's symbols, which live while the module stays loaded. */
struct trec {
    enum mstate state;
    enum isa_stop_reason reason;
    bool has_pc;
    const char *kernel; /* NULL: no module covers the PC */
    const char *file;   /* base name; NULL: no line */
    uint32_t line;
    /* by-site: the kernel's submission (cached per stop, so one pointer
     * per kernel and device); NULL: none known. */
    const struct sess_xpti_submission *sub;
    uint32_t count; /* in groups: how many threads */
    uint32_t block; /* by-site, in groups: threads under the same submission */
};

static int strcmp_null(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int trec_cmp(const void *pa, const void *pb)
{
    const struct trec *a = pa, *b = pb;
    int c;
    if (a->state != b->state)
        return a->state < b->state ? -1 : 1;
    if (a->reason != b->reason)
        return a->reason < b->reason ? -1 : 1;
    if (a->has_pc != b->has_pc)
        return a->has_pc ? -1 : 1;
    if ((c = strcmp_null(a->kernel, b->kernel)) || (c = strcmp_null(a->file, b->file)))
        return c;
    return a->line < b->line ? -1 : a->line > b->line;
}

static int group_cmp(const void *pa, const void *pb)
{
    const struct trec *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return trec_cmp(a, b);
}

static void thread_rec(struct sess_manager *m, struct tgt_xpti *xp, unsigned k, uint32_t th,
                       struct trec *r)
{
    struct zd_error e;
    uint64_t pc;
    struct sess_where w;

    memset(r, 0, sizeof(*r));
    r->state = mstate_of(m, k, th);
    r->reason = ISA_STOP_UNKNOWN;
    r->count = 1;
    /* Running and unavailable threads have no PC to read: no device call. */
    if (r->state != M_STOPPED)
        return;
    r->reason = sess_thread_reason(m, k, th);
    r->has_pc = sess_thread_pc(m, k, th, &pc, &e) == 0;
    if (!r->has_pc)
        return;
    if (sess_where_pc(m, k, pc, &w) != 0)
        return;
    r->kernel = w.loc.kernel;
    if (w.loc.has_line) {
        r->file = base_name(w.loc.file);
        r->line = w.loc.line;
    }
    if (xp)
        r->sub = tgt_xpti_submission(xp, m, k, w.loc.kernel);
}

static int ptr_cmp(const void *a, const void *b)
{
    return (uintptr_t)a < (uintptr_t)b ? -1 : (uintptr_t)a > (uintptr_t)b;
}

/* by-site: groups of the same submission together, the largest block
 * first but threads without a submission (not stopped in a known kernel)
 * last, then as group_cmp. */
static int block_cmp(const void *pa, const void *pb)
{
    const struct trec *a = pa, *b = pb;
    if (!a->sub != !b->sub)
        return a->sub ? -1 : 1;
    if (a->block != b->block)
        return a->block > b->block ? -1 : 1;
    if (a->sub != b->sub)
        return ptr_cmp(a->sub, b->sub);
    return group_cmp(a, b);
}

static int sub_cmp(const void *pa, const void *pb)
{
    const struct trec *a = pa, *b = pb;
    return ptr_cmp(a->sub, b->sub);
}

/* by-site: block = the threads of all groups with the same submission. */
static void order_blocks(struct trec *g, uint32_t n)
{
    qsort(g, n, sizeof(*g), sub_cmp);
    for (uint32_t i = 0, j; i < n; i = j) {
        uint32_t sum = 0;
        for (j = i; j < n && g[j].sub == g[i].sub; j++)
            sum += g[j].count;
        for (uint32_t h = i; h < j; h++)
            g[h].block = sum;
    }
    qsort(g, n, sizeof(*g), block_cmp);
}

/* "FILE:LINE in FUNCTION", the host line as the table recorded it. */
static void put_xsite(struct rsp_buf *out, const struct xtab_site *s)
{
    rsp_buf_printf(out, "%s:%u", s->file[0] ? s->file : "(unknown file)", (unsigned)s->line);
    if (s->function[0])
        rsp_buf_printf(out, " in %s", s->function);
}

static void put_xtask(struct rsp_buf *out, const struct sess_xpti_candidate *c)
{
    rsp_buf_printf(out, "task instance %llu on queue 0x%llx (uid 0x%llx)",
                   (unsigned long long)c->task.instance, (unsigned long long)c->task.queue,
                   (unsigned long long)c->task.uid);
}

/* The head of a by-site block: where the kernel was submitted, and when
 * the table cannot tell which task a thread belongs to, that it cannot
 * and who the candidates are. */
static void put_block(struct rsp_buf *out, const struct sess_xpti_submission *s, uint32_t n)
{
    const struct xtab_site *site = tgt_xpti_common_site(s);
    bool list; /* the candidates, when they differ in something shown */
    if (!s) {
        rsp_buf_printf(out, "  without a submission site: %u threads\n", (unsigned)n);
        return;
    }
    if (s->how == SESS_XPTI_UNIQUE) {
        rsp_buf_puts(out, "  submitted at ");
        put_xsite(out, s->cand[0].site);
        rsp_buf_puts(out, ", ");
        put_xtask(out, &s->cand[0]);
        rsp_buf_printf(out, ": %u threads\n", (unsigned)n);
        return;
    }
    if (site) {
        rsp_buf_puts(out, "  submitted at ");
        put_xsite(out, site);
    } else {
        rsp_buf_printf(out, "  submitted from one of %zu sites",
                       s->how == SESS_XPTI_AMBIGUOUS ? s->nsites : s->total);
    }
    if (s->how == SESS_XPTI_AMBIGUOUS)
        rsp_buf_printf(out, ", by one of %zu running tasks (ambiguous)", s->total);
    else
        rsp_buf_puts(out, " (no task of it was running)");
    rsp_buf_printf(out, ": %u threads\n", (unsigned)n);
    list = !site || s->how == SESS_XPTI_AMBIGUOUS;
    for (size_t i = 0; list && i < s->ncand; i++) {
        if (i == MAX_CANDIDATES) {
            rsp_buf_printf(out, "      ... and %zu more\n", s->total - i);
            break;
        }
        rsp_buf_puts(out, "      candidate: ");
        if (!site) {
            put_xsite(out, s->cand[i].site);
            rsp_buf_puts(out, s->cand[i].has_task ? ", " : "");
        }
        if (s->cand[i].has_task)
            put_xtask(out, &s->cand[i]);
        rsp_buf_putc(out, '\n');
    }
}

static void put_group(struct rsp_buf *out, const struct trec *g, const char *indent)
{
    rsp_buf_printf(out, "%s%u %s", indent, (unsigned)g->count, state_name[g->state]);
    if (g->state != M_STOPPED) {
        rsp_buf_putc(out, '\n');
        return;
    }
    if (!g->has_pc)
        rsp_buf_puts(out, ", PC unreadable");
    else if (!g->kernel)
        rsp_buf_puts(out, " outside every known kernel");
    else if (g->file)
        rsp_buf_printf(out, " at %s:%u in %s", g->file, (unsigned)g->line, g->kernel);
    else
        rsp_buf_printf(out, " in %s, no line information", g->kernel);
    rsp_buf_printf(out, " (%s)\n", reason_text(g->reason));
}

/* "12 stopped, 4 unavailable": the non-zero state counts. */
static void put_state_counts(struct rsp_buf *out, const uint32_t *n)
{
    const char *sep = "";
    for (int s = M_STOPPED; s <= M_UNAVAILABLE; s++) {
        if (!n[s])
            continue;
        rsp_buf_printf(out, "%s%u %s", sep, (unsigned)n[s], state_name[s]);
        sep = ", ";
    }
    rsp_buf_putc(out, '\n');
}

/* xp non-NULL: by-site. */
static int threads_of_device(struct sess_manager *m, struct tgt_xpti *xp, unsigned k, bool all,
                             struct rsp_buf *out)
{
    uint32_t n = sess_thread_count(m, k), ngroups = 0, per_state[3] = {0};
    struct trec *recs;

    put_device(out, m, k);
    if (!sess_alive(m, k)) {
        rsp_buf_puts(out, ": the application has exited\n");
        return 0;
    }
    if (!(recs = malloc((n ? n : 1) * sizeof(*recs)))) {
        rsp_buf_puts(out, ": out of memory\n");
        return -ENOMEM;
    }
    for (uint32_t th = 0; th < n; th++) {
        thread_rec(m, xp, k, th, &recs[th]);
        per_state[recs[th].state]++;
    }
    /* Sort so that equal records are adjacent, fold them, then order the
     * groups largest first. */
    qsort(recs, n, sizeof(*recs), trec_cmp);
    for (uint32_t i = 0; i < n; i++) {
        if (ngroups && trec_cmp(&recs[ngroups - 1], &recs[i]) == 0)
            recs[ngroups - 1].count++;
        else
            recs[ngroups++] = recs[i];
    }
    if (xp)
        order_blocks(recs, ngroups);
    else
        qsort(recs, ngroups, sizeof(*recs), group_cmp);
    rsp_buf_printf(out, ": %u threads: ", (unsigned)n);
    put_state_counts(out, per_state);
    for (uint32_t g = 0; g < ngroups; g++) {
        if (!all && g == MAX_GROUPS) {
            uint32_t rest = 0;
            for (uint32_t h = g; h < ngroups; h++)
                rest += recs[h].count;
            rsp_buf_printf(out, "  ... %u more groups of %u threads ('monitor threads%s all')\n",
                           (unsigned)(ngroups - g), (unsigned)rest, xp ? " by-site" : "");
            break;
        }
        if (xp && (g == 0 || recs[g].sub != recs[g - 1].sub))
            put_block(out, recs[g].sub, recs[g].block);
        put_group(out, &recs[g], xp ? "    " : "  ");
    }
    free(recs);
    return 0;
}

/* xp non-NULL: by-site (the caller found the table). */
static int cmd_threads(struct sess_manager *m, struct tgt_xpti *xp, bool all, struct rsp_buf *out)
{
    unsigned alive = 0;
    uint32_t total = 0, per_state[3] = {0};
    int rc = 0;

    for (unsigned k = 0; k < sess_count(m); k++) {
        if (!sess_alive(m, k))
            continue;
        alive++;
        for (uint32_t th = 0; th < sess_thread_count(m, k); th++, total++)
            per_state[mstate_of(m, k, th)]++;
    }
    /* A total first only when there is more than one device to add up. */
    if (alive > 1) {
        rsp_buf_printf(out, "%u devices, %u threads: ", alive, (unsigned)total);
        put_state_counts(out, per_state);
    }
    unsigned listed = 0;
    for (unsigned k = 0; k < sess_count(m) && rc == 0; k++)
        if (!detached(m, k) && ++listed)
            rc = threads_of_device(m, xp, k, all, out);
    return rc ? rc : none_attached(listed, out);
}

/* ---- thread ------------------------------------------------------------- */

/* "pP.T" (hex, the protocol's form) or "P.T" (decimal, GDB's "Thread P.T").
 * false when it is neither. */
static bool parse_thread(const char *s, bool *hex, unsigned long *pid, unsigned long *tid)
{
    const char *digits;
    char *end;
    *hex = s[0] == 'p';
    s += *hex;
    digits = *hex ? "0123456789abcdefABCDEF" : "0123456789";
    /* A digit first: strtoul alone would also take signs and spaces. */
    if (!s[0] || !strchr(digits, s[0]))
        return false;
    *pid = strtoul(s, &end, *hex ? 16 : 10);
    if (end[0] != '.' || !end[1] || !strchr(digits, end[1]))
        return false;
    *tid = strtoul(end + 1, &end, *hex ? 16 : 10);
    return *end == 0;
}

static void put_tid(struct rsp_buf *out, bool hex, unsigned long pid, unsigned long tid)
{
    rsp_buf_printf(out, hex ? "p%lx.%lx" : "%lu.%lu", pid, tid);
}

static void put_location(struct rsp_buf *out, struct sess_manager *m, unsigned k, uint64_t pc)
{
    struct sess_where w;
    const struct sym_location *l = &w.loc;

    rsp_buf_printf(out, "  pc 0x%llx", (unsigned long long)pc);
    if (sess_where_pc(m, k, pc, &w) != 0) {
        rsp_buf_puts(out, ", outside every known kernel\n");
        return;
    }
    if (l->inlined)
        rsp_buf_printf(out, " in %s inlined into %s", l->inlined,
                       l->function ? l->function : l->kernel);
    else
        rsp_buf_printf(out, " in %s", l->function ? l->function : l->kernel);
    if (l->function && strcmp(l->function, l->kernel) != 0)
        rsp_buf_printf(out, " (kernel %s)", l->kernel);
    if (l->has_line) {
        rsp_buf_printf(out, " at %s:%u", l->file, (unsigned)l->line);
        if (l->column)
            rsp_buf_printf(out, ":%u", (unsigned)l->column);
    } else {
        rsp_buf_puts(out, ", no line information");
    }
    rsp_buf_printf(out, "\n  kernel 0x%llx+0x%llx, module ELF 0x%llx-0x%llx\n",
                   (unsigned long long)l->kernel_addr, (unsigned long long)l->kernel_size,
                   (unsigned long long)w.module_begin, (unsigned long long)w.module_end);
}

int tgt_monitor_thread(struct sess_manager *m, const char *arg, struct rsp_buf *out)
{
    bool hex;
    unsigned long pid, tid;
    unsigned k;
    uint32_t n;
    struct zd_thread id;
    enum mstate st;

    if (!parse_thread(arg, &hex, &pid, &tid)) {
        rsp_buf_puts(out, "usage: monitor thread pP.T (hex, as in the remote protocol) or P.T "
                          "(decimal, as GDB's \"Thread P.T\")\n");
        return -EINVAL;
    }
    if (!m || pid < 1 || pid > sess_count(m)) {
        rsp_buf_puts(out, "no thread ");
        put_tid(out, hex, pid, tid);
        if (!m || sess_count(m) == 0)
            rsp_buf_puts(out, ": no device is attached");
        else
            rsp_buf_printf(out, ": the processes are %s1..%s%u", hex ? "p" : "", hex ? "p" : "",
                           sess_count(m));
        /* After "attach PID" in extended mode a stock GDB shows device 1
         * under the host pid ("Thread PID.T"); only the server knows it. */
        if (m && sess_count(m) && !hex)
            rsp_buf_puts(out, " (a stock GDB that attached to host pid H shows process 1's threads "
                              "as Thread H.T)");
        rsp_buf_putc(out, '\n');
        return -EINVAL;
    }
    k = (unsigned)(pid - 1);
    n = sess_thread_count(m, k);
    if (tid < 1 || tid > n || !sess_alive(m, k)) {
        rsp_buf_puts(out, "no thread ");
        put_tid(out, hex, pid, tid);
        rsp_buf_puts(out, ": ");
        put_device(out, m, k);
        if (!sess_alive(m, k)) {
            rsp_buf_puts(out, " is detached\n");
        } else {
            rsp_buf_puts(out, " has threads ");
            put_tid(out, hex, pid, 1);
            rsp_buf_puts(out, "..");
            put_tid(out, hex, pid, n);
            rsp_buf_putc(out, '\n');
        }
        return -EINVAL;
    }
    id = sess_thread_id(m, k, (uint32_t)(tid - 1));
    st = mstate_of(m, k, (uint32_t)(tid - 1));
    /* Every name the thread goes by: protocol id, GDB's, the hardware's. */
    rsp_buf_printf(out, "p%lx.%lx (Thread %lu.%lu, ZE %u.%u.%u.%u) of ", pid, tid, pid, tid,
                   (unsigned)id.slice, (unsigned)id.subslice, (unsigned)id.eu, (unsigned)id.thread);
    put_device(out, m, k);
    rsp_buf_printf(out, ": %s", state_name[st]);
    if (st == M_STOPPED) {
        uint64_t pc;
        struct zd_error e;
        rsp_buf_printf(out, " (%s)\n", reason_text(sess_thread_reason(m, k, (uint32_t)(tid - 1))));
        if (sess_thread_pc(m, k, (uint32_t)(tid - 1), &pc, &e) == 0)
            put_location(out, m, k, pc);
        else
            rsp_buf_printf(out, "  PC unreadable: %s\n", e.msg);
    } else if (st == M_RUNNING) {
        rsp_buf_puts(out, " (no PC while it runs)\n");
    } else {
        rsp_buf_puts(out, " (idle or running other work: no registers)\n");
    }
    return 0;
}

/* ---- modules ------------------------------------------------------------ */

/* " [FILE:LINE]" after a kernel name: the host line that submitted it
 * (base name; "+N" when more lines did), nothing when the table has none. */
static void put_kernel_sites(struct rsp_buf *out, struct sess_xpti *t, const char *kernel)
{
    struct xtab_site *site = t ? malloc(sizeof(*site)) : NULL;
    int n = site ? sess_xpti_kernel_sites(t, kernel, site, 1) : 0;
    if (n > 0) {
        rsp_buf_printf(out, " [%s:%u", base_name(site->file), (unsigned)site->line);
        if (n > 1)
            rsp_buf_printf(out, " +%d more", n - 1);
        rsp_buf_putc(out, ']');
    }
    free(site);
}

static void put_kernels(struct rsp_buf *out, struct sess_manager *m, struct sess_xpti *t,
                        unsigned k, const struct sess_module_info *mi, bool all)
{
    struct sess_where w;
    const struct sym_module *sym;
    size_t nk;

    if (!mi->has_symbols) {
        rsp_buf_puts(out, "; no symbols");
        return;
    }
    /* sessions/ finds a module's symbols by PC only; a module's lowest
     * kernel starts at its load address. */
    if (sess_where_pc(m, k, mi->load, &w) != 0 || w.module_begin != mi->begin ||
        w.module_end != mi->end)
        return;
    sym = w.sym;
    nk = sym_kernel_count(sym);
    rsp_buf_printf(out, "; %zu kernel%s", nk, nk == 1 ? "" : "s");
    for (size_t i = 0; i < nk; i++) {
        if (!all && i == MAX_KERNELS) {
            rsp_buf_printf(out, " (+%zu more)", nk - i);
            break;
        }
        rsp_buf_printf(out, "%s%s", i ? ", " : ": ", sym_kernel_at(sym, i)->name);
        put_kernel_sites(out, t, sym_kernel_at(sym, i)->name);
    }
}

static int cmd_modules(struct sess_manager *m, struct tgt_xpti *xp, bool all, struct rsp_buf *out)
{
    /* Kernels carry their submitting lines when the table exists; without
     * one the listing is as before (`monitor xpti` says why). */
    struct sess_xpti *t = tgt_xpti_table(xp, true);
    unsigned listed = 0;
    for (unsigned k = 0; k < sess_count(m); k++) {
        size_t n = sess_alive(m, k) ? sess_module_count(m, k) : 0;
        if (detached(m, k))
            continue;
        listed++;
        put_device(out, m, k);
        if (!sess_alive(m, k)) {
            rsp_buf_puts(out, ": the application has exited\n");
            continue;
        }
        rsp_buf_printf(out, ": %zu module%s\n", n, n == 1 ? "" : "s");
        for (size_t i = 0; i < n; i++) {
            struct sess_module_info mi;
            if (sess_module_at(m, k, i, &mi) != 0)
                break; /* one unloaded meanwhile */
            rsp_buf_printf(out, "  ELF 0x%llx-0x%llx, code at 0x%llx, %s",
                           (unsigned long long)mi.begin, (unsigned long long)mi.end,
                           (unsigned long long)mi.load,
                           !mi.need_ack ? "no acknowledgement needed"
                           : mi.acked   ? "acknowledged"
                                        : "waiting for its acknowledgement");
            put_kernels(out, m, t, k, &mi, all);
            rsp_buf_putc(out, '\n');
        }
    }
    return none_attached(listed, out);
}

/* ---- devices ------------------------------------------------------------ */

static int cmd_devices(struct sess_manager *m, struct rsp_buf *out)
{
    unsigned listed = 0;
    for (unsigned k = 0; k < sess_count(m); k++) {
        const struct zd_device *d = sess_device(m, k);
        uint32_t n = sess_thread_count(m, k), per_state[3] = {0};
        if (detached(m, k))
            continue;
        listed++;
        put_device(out, m, k);
        rsp_buf_printf(out, "\n  id %04x:%04x", (unsigned)d->vendor_id, (unsigned)d->device_id);
        if (d->parent >= 0)
            rsp_buf_printf(out, ", sub-device %u of device %d", (unsigned)d->subdevice_id,
                           d->parent);
        rsp_buf_printf(
            out, "\n  topology: %u slices x %u subslices x %u EUs x %u threads = %u threads\n",
            (unsigned)d->slices, (unsigned)d->subslices, (unsigned)d->eus, (unsigned)d->threads,
            (unsigned)d->nthreads);
        if (!sess_alive(m, k)) {
            rsp_buf_puts(out, "  the application has exited\n");
            continue;
        }
        for (uint32_t th = 0; th < n; th++)
            per_state[mstate_of(m, k, th)]++;
        /* Decimal as GDB numbers threads, beside the decimal count; the
         * protocol's hex ids after them. */
        rsp_buf_printf(out, "  threads %u.1..%u.%u (p%x.1..p%x.%x in the protocol): ", k + 1, k + 1,
                       (unsigned)n, k + 1, k + 1, (unsigned)n);
        put_state_counts(out, per_state);
    }
    return none_attached(listed, out);
}

/* ---- the commands, as the table calls them ------------------------------- */

/* threads: "by-site" (or "--by-site") and "all", in any order. */
static int threads_args(const char *rest, bool *by_site, bool *all, struct rsp_buf *out)
{
    *by_site = *all = false;
    while (*rest) {
        const char *w = rest;
        size_t n = strcspn(rest, " ");
        if (n == 3 && !strncmp(w, "all", 3))
            *all = true;
        else if ((n == 7 && !strncmp(w, "by-site", 7)) || (n == 9 && !strncmp(w, "--by-site", 9)))
            *by_site = true;
        else {
            rsp_buf_puts(out, "usage: monitor threads [all] [by-site]\n");
            return -EINVAL;
        }
        for (rest += n; *rest == ' '; rest++)
            ;
    }
    return 0;
}

/* "", or "all" to lift the caps; anything else is a usage error. */
static int all_arg(const char *rest, const char *name, bool *all, struct rsp_buf *out)
{
    *all = strcmp(rest, "all") == 0;
    if (*all || !*rest)
        return 0;
    rsp_buf_printf(out, "usage: monitor %s [all]\n", name);
    return -EINVAL;
}

int tgt_monitor_threads(struct sess_manager *m, struct tgt_xpti *xp, const char *args,
                        struct rsp_buf *out)
{
    bool all, by_site;
    int rc;

    if ((rc = threads_args(args, &by_site, &all, out)) != 0)
        return rc;
    if (!m) {
        rsp_buf_puts(out, "no device is attached\n");
        return 0;
    }
    /* Without a table: the one note, then the usual grouping. */
    if (by_site && !tgt_xpti_table(xp, true)) {
        rsp_buf_printf(out, "note: %s\n", tgt_xpti_note(xp));
        by_site = false;
    }
    return cmd_threads(m, by_site ? xp : NULL, all, out);
}

int tgt_monitor_modules(struct sess_manager *m, struct tgt_xpti *xp, const char *args,
                        struct rsp_buf *out)
{
    bool all;
    int rc;
    if ((rc = all_arg(args, "modules", &all, out)) != 0)
        return rc;
    if (!m) {
        rsp_buf_puts(out, "no device is attached\n");
        return 0;
    }
    return cmd_modules(m, xp, all, out);
}

int tgt_monitor_devices(struct sess_manager *m, const char *args, struct rsp_buf *out)
{
    if (*args) {
        rsp_buf_puts(out, "usage: monitor devices\n");
        return -EINVAL;
    }
    if (!m) {
        rsp_buf_puts(out, "no device is attached\n");
        return 0;
    }
    return cmd_devices(m, out);
}
