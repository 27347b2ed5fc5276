/* SPDX-License-Identifier: MIT */
/* "monitor xpti [tasks [all] | uid 0xHEX | allocations [ADDRESS|all]]": the
 * application's XPTI table (what its SYCL runtime published) as the user
 * asks about it from GDB. Every command looks for a missing table again,
 * since an application may create it after the debugger attached; without
 * one, each prints the one note that says why and the status command still
 * succeeds. Lists are bounded for a terminal, like `monitor threads`. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gdbstub/packet.h"
#include "target/tgt_monitor.h"
#include "target/tgt_xpti.h"
#include "sessions/sess.h"
#include "sessions/sess_xpti.h"

/* Lines per list before "... N more". */
#define MAX_LIST 16
/* Page faults per device in the status. */
#define MAX_FAULTS 8

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* "FILE:LINE in FUNCTION", as the table recorded them. */
static void put_site(struct rsp_buf *out, const struct xtab_site *s)
{
    rsp_buf_printf(out, "%s:%u", s->file[0] ? s->file : "(unknown file)", (unsigned)s->line);
    if (s->column)
        rsp_buf_printf(out, ":%u", (unsigned)s->column);
    if (s->function[0])
        rsp_buf_printf(out, " in %s", s->function);
}

static void put_seconds(struct rsp_buf *out, uint64_t ns)
{
    rsp_buf_printf(out, "%" PRIu64 ".%03" PRIu64 " s", ns / 1000000000u, ns / 1000000u % 1000u);
}

/* ---- status ------------------------------------------------------------- */

static void put_alloc(struct rsp_buf *out, const struct sess_xpti_alloc *al, uint64_t addr,
                      const char *indent)
{
    const struct xtab_alloc *a = &al->a;
    rsp_buf_printf(out,
                   "in %s allocation 0x%" PRIx64 " (%" PRIu64 " bytes) at offset %" PRIu64 "%s\n",
                   a->live ? "live" : "freed", a->base, a->size, addr - a->base,
                   a->in_guard ? " (guard zone)" : "");
    if (al->has_alloc_site) {
        rsp_buf_printf(out, "%sallocated at ", indent);
        put_site(out, &al->alloc_site);
        rsp_buf_printf(out, " (uid 0x%" PRIx64 ")\n", a->alloc_uid);
    }
    if (!a->live && al->has_free_site) {
        rsp_buf_printf(out, "%sfreed at ", indent);
        put_site(out, &al->free_site);
        rsp_buf_printf(out, " (uid 0x%" PRIx64 ")\n", a->free_uid);
    }
}

/* Each page fault the devices reported, with the allocation it hit: what
 * a user stopped on a fault wants to know first. */
static void put_faults(struct rsp_buf *out, struct sess_manager *m, struct sess_xpti *x)
{
    for (unsigned k = 0; m && k < sess_count(m); k++) {
        size_t n = sess_fault_count(m, k);
        for (size_t i = 0; i < n; i++) {
            uint64_t addr;
            enum zd_fault_reason why;
            struct sess_xpti_alloc al;
            if (i == MAX_FAULTS) {
                rsp_buf_printf(out, "  ... %zu more page faults on device %u\n", n - i,
                               (unsigned)sess_device(m, k)->index);
                break;
            }
            if (sess_fault_at(m, k, i, &addr, &why) != 0)
                continue;
            /* The device as zestub dump names it (its index). */
            rsp_buf_printf(out, "page fault at 0x%" PRIx64 " on device %u: ", addr,
                           (unsigned)sess_device(m, k)->index);
            if (sess_xpti_allocation(x, addr, &al) == 0)
                put_alloc(out, &al, addr, "  ");
            else
                rsp_buf_puts(out, "in no allocation the XPTI table knows\n");
        }
    }
}

static int cmd_status(struct tgt_xpti *xp, struct sess_manager *m, struct rsp_buf *out)
{
    struct sess_xpti *x = tgt_xpti_table(xp, true);
    struct sess_xpti *t;
    struct xtab_stats st;
    size_t running = 0, live = 0, n;

    if (!x) {
        rsp_buf_printf(out, "note: %s\n", tgt_xpti_note(xp));
        return 0;
    }
    t = x;
    sess_xpti_stats(x, &st);
    n = sess_xpti_count(t, XTAB_TASKS);
    for (size_t i = 0; i < n; i++) {
        struct xtab_task task;
        running += sess_xpti_task_at(t, i, &task) == 0 && sess_xpti_task_running(&task, 0);
    }
    n = sess_xpti_count(t, XTAB_ALLOCS);
    for (size_t i = 0; i < n; i++) {
        struct xtab_alloc a;
        live += sess_xpti_alloc_at(t, i, &a) == 0 && a.live;
    }
    rsp_buf_printf(out,
                   "XPTI table of pid %u: %" PRIu64 " sites, %" PRIu64 " tasks (%zu running), "
                   "%" PRIu64 " allocations (%zu live)\n",
                   (unsigned)tgt_xpti_pid(xp), st.sites, st.tasks, running, st.allocs, live);
    /* What the table lost: answers may be missing, and the user should
     * know why rather than trust an absence. */
    if (st.sites_dropped || st.allocs_dropped || st.strings_dropped || st.running_tasks_recycled ||
        st.bad_records)
        rsp_buf_printf(out,
                       "  lost: %" PRIu64 " sites, %" PRIu64 " allocations, %" PRIu64
                       " strings (table full), %" PRIu64 " running tasks recycled, %" PRIu64
                       " bad records\n",
                       st.sites_dropped, st.allocs_dropped, st.strings_dropped,
                       st.running_tasks_recycled, st.bad_records);
    put_faults(out, m, x);
    return 0;
}

/* ---- tasks -------------------------------------------------------------- */

/* Running first, then the latest. */
static int task_cmp(const void *pa, const void *pb)
{
    const struct xtab_task *a = pa, *b = pb;
    if (sess_xpti_task_running(a, 0) != sess_xpti_task_running(b, 0))
        return sess_xpti_task_running(a, 0) ? -1 : 1;
    return a->ticket > b->ticket ? -1 : a->ticket < b->ticket;
}

static void put_task(struct rsp_buf *out, struct sess_xpti *t, const struct xtab_task *task,
                     uint64_t now)
{
    struct xtab_site *site = malloc(sizeof(*site));
    bool has_site = site && task->site != UINT32_MAX && sess_xpti_site_at(t, task->site, site) == 0;

    rsp_buf_printf(out, "  %s %s instance %" PRIu64 " on queue 0x%" PRIx64,
                   task->end_ns ? "ended  " : "running",
                   has_site && site->kernel[0] ? site->kernel : "(unknown kernel)", task->instance,
                   task->queue);
    if (has_site) {
        rsp_buf_puts(out, ", submitted at ");
        put_site(out, site);
    }
    rsp_buf_printf(out, ", host thread %u, uid 0x%" PRIx64 ", ", (unsigned)task->tid, task->uid);
    if (task->end_ns) {
        rsp_buf_puts(out, "ran ");
        put_seconds(out, task->end_ns > task->begin_ns ? task->end_ns - task->begin_ns : 0);
    } else {
        rsp_buf_puts(out, "running for ");
        put_seconds(out, now > task->begin_ns ? now - task->begin_ns : 0);
    }
    rsp_buf_putc(out, '\n');
    free(site);
}

static int cmd_tasks(struct sess_xpti *x, bool all, struct rsp_buf *out)
{
    struct sess_xpti *t = x;
    size_t slots = sess_xpti_count(t, XTAB_TASKS), n = 0, running = 0;
    struct xtab_task *tasks = malloc((slots ? slots : 1) * sizeof(*tasks));
    uint64_t now = now_ns();

    if (!tasks) {
        rsp_buf_puts(out, "out of memory\n");
        return -ENOMEM;
    }
    for (size_t i = 0; i < slots; i++)
        if (sess_xpti_task_at(t, i, &tasks[n]) == 0)
            running += sess_xpti_task_running(&tasks[n++], 0);
    qsort(tasks, n, sizeof(*tasks), task_cmp);
    /* The table keeps the latest tasks only (a ring): ended ones are
     * "recent", never "all". */
    rsp_buf_printf(out, "XPTI tasks: %zu running, %zu recent ended\n", running, n - running);
    for (size_t i = 0; i < n; i++) {
        if (!all && i == MAX_LIST) {
            rsp_buf_printf(out, "  ... %zu more ('monitor xpti tasks all')\n", n - i);
            break;
        }
        put_task(out, t, &tasks[i], now);
    }
    free(tasks);
    return 0;
}

/* ---- uid ---------------------------------------------------------------- */

static int cmd_uid(struct sess_xpti *x, uint64_t uid, struct rsp_buf *out)
{
    struct sess_xpti *t = x;
    struct xtab_site *s = malloc(sizeof(*s));
    size_t n, ntasks = 0, running = 0, listed = 0, made = 0, made_live = 0, freed = 0;
    uint64_t now = now_ns();

    if (!s) {
        rsp_buf_puts(out, "out of memory\n");
        return -ENOMEM;
    }
    if (sess_xpti_site_of_uid(t, uid, s) != 0) {
        rsp_buf_printf(
            out, "uid 0x%" PRIx64 ": no site, task or allocation has it in the XPTI table\n", uid);
        free(s);
        /* Not -ENOENT: that would add "Unknown monitor command". */
        return -ESRCH;
    }
    rsp_buf_printf(out, "uid 0x%" PRIx64 ": ", uid);
    if (s->kernel[0])
        rsp_buf_printf(out, "kernel %s submitted at ", s->kernel);
    else
        rsp_buf_puts(out, "site ");
    put_site(out, s);
    rsp_buf_printf(out, "\n  site uid 0x%" PRIx64 "%s%s\n", s->uid, s->device[0] ? ", device " : "",
                   s->device);
    /* Everything that happened at this site: its task instances (running
     * first) and the allocations made or freed there. */
    n = sess_xpti_count(t, XTAB_TASKS);
    struct xtab_task *tasks = malloc((n ? n : 1) * sizeof(*tasks));
    for (size_t i = 0; tasks && i < n; i++)
        if (sess_xpti_task_at(t, i, &tasks[ntasks]) == 0 && tasks[ntasks].site == s->index)
            running += sess_xpti_task_running(&tasks[ntasks++], 0);
    if (tasks && ntasks) {
        qsort(tasks, ntasks, sizeof(*tasks), task_cmp);
        rsp_buf_printf(out, "  tasks: %zu running, %zu recent ended\n", running, ntasks - running);
        for (; listed < ntasks && listed < MAX_LIST; listed++)
            put_task(out, t, &tasks[listed], now);
        if (listed < ntasks)
            rsp_buf_printf(out, "  ... %zu more\n", ntasks - listed);
    }
    free(tasks);
    n = sess_xpti_count(t, XTAB_ALLOCS);
    for (size_t i = 0; i < n; i++) {
        struct xtab_alloc a;
        if (sess_xpti_alloc_at(t, i, &a) != 0)
            continue;
        if (a.alloc_site == s->index) {
            made++;
            made_live += a.live == 1;
        }
        freed += !a.live && a.free_site == s->index;
    }
    if (made || freed)
        rsp_buf_printf(out, "  allocations: %zu made here (%zu live), %zu freed here\n", made,
                       made_live, freed);
    free(s);
    return 0;
}

/* ---- allocations -------------------------------------------------------- */

static int alloc_cmp(const void *pa, const void *pb)
{
    const struct xtab_alloc *a = pa, *b = pb;
    return a->base < b->base ? -1 : a->base > b->base;
}

static int cmd_alloc_at(struct sess_xpti *x, uint64_t addr, struct rsp_buf *out)
{
    struct sess_xpti_alloc al;
    rsp_buf_printf(out, "0x%" PRIx64 ": ", addr);
    if (sess_xpti_allocation(x, addr, &al) != 0) {
        rsp_buf_puts(out, "in no allocation the XPTI table knows\n");
        return 0;
    }
    put_alloc(out, &al, addr, "  ");
    return 0;
}

static int cmd_alloc_list(struct sess_xpti *x, bool all, struct rsp_buf *out)
{
    struct sess_xpti *t = x;
    size_t slots = sess_xpti_count(t, XTAB_ALLOCS), n = 0, freed = 0;
    struct xtab_alloc *as = malloc((slots ? slots : 1) * sizeof(*as));
    struct xtab_site *site = malloc(sizeof(*site));

    if (!as || !site) {
        free(as);
        free(site);
        rsp_buf_puts(out, "out of memory\n");
        return -ENOMEM;
    }
    for (size_t i = 0; i < slots; i++) {
        if (sess_xpti_alloc_at(t, i, &as[n]) != 0)
            continue;
        if (as[n].live)
            n++;
        else
            freed++;
    }
    qsort(as, n, sizeof(*as), alloc_cmp);
    rsp_buf_printf(out, "XPTI allocations: %zu live, %zu freed (recent); live:\n", n, freed);
    for (size_t i = 0; i < n; i++) {
        if (!all && i == MAX_LIST) {
            rsp_buf_printf(out, "  ... %zu more ('monitor xpti allocations all')\n", n - i);
            break;
        }
        rsp_buf_printf(out, "  0x%" PRIx64 " %" PRIu64 " bytes", as[i].base, as[i].size);
        if (as[i].alloc_site != UINT32_MAX && sess_xpti_site_at(t, as[i].alloc_site, site) == 0) {
            rsp_buf_puts(out, " allocated at ");
            put_site(out, site);
        }
        rsp_buf_printf(out, " (uid 0x%" PRIx64 ")\n", as[i].alloc_uid);
    }
    free(site);
    free(as);
    return 0;
}

/* ---- dispatch ----------------------------------------------------------- */

/* A number as GDB users write addresses: 0x hex, else decimal. */
static bool parse_u64(const char *s, int base, uint64_t *v)
{
    char *end;
    /* A digit first: strtoull alone would also take signs and spaces. */
    if (!isxdigit((unsigned char)s[0]) || (base != 16 && !isdigit((unsigned char)s[0])))
        return false;
    errno = 0;
    *v = strtoull(s, &end, base);
    return errno == 0 && *end == 0;
}

static const char usage[] =
    "usage: monitor xpti [tasks [all] | uid 0xHEX | allocations [ADDRESS|all]]\n";

/* The table, or NULL and why not in out (with the command's failure). */
static struct sess_xpti *table_or_why(struct tgt_xpti *xp, struct sess_manager *m, int *rc,
                                      struct rsp_buf *out)
{
    struct sess_xpti *x;
    if (!m) {
        rsp_buf_puts(out, "no device is attached: no XPTI table\n");
        *rc = -EIO;
        return NULL;
    }
    x = tgt_xpti_table(xp, true);
    if (!x) {
        /* Nothing to answer from: the note, and a failure for scripts. */
        rsp_buf_printf(out, "note: %s\n", tgt_xpti_note(xp));
        *rc = -EIO;
    }
    return x;
}

int tgt_monitor_xpti_status(struct tgt_xpti *xp, struct sess_manager *m, const char *args,
                            struct rsp_buf *out)
{
    if (!m) {
        rsp_buf_puts(out, "no device is attached: no XPTI table\n");
        return *args ? -EIO : 0;
    }
    if (*args) {
        rsp_buf_puts(out, usage);
        return -EINVAL;
    }
    return cmd_status(xp, m, out);
}

int tgt_monitor_xpti_tasks(struct tgt_xpti *xp, struct sess_manager *m, const char *args,
                           struct rsp_buf *out)
{
    bool all = strcmp(args, "all") == 0;
    struct sess_xpti *x;
    int rc = 0;
    if (m && *args && !all) {
        rsp_buf_puts(out, usage);
        return -EINVAL;
    }
    x = table_or_why(xp, m, &rc, out);
    return x ? cmd_tasks(x, all, out) : rc;
}

int tgt_monitor_xpti_uid(struct tgt_xpti *xp, struct sess_manager *m, const char *args,
                         struct rsp_buf *out)
{
    struct sess_xpti *x;
    uint64_t v = 0;
    int rc = 0;
    /* 0xHEX, or bare hex as ids are printed. */
    if (m &&
        !parse_u64(args + (args[0] == '0' && (args[1] == 'x' || args[1] == 'X')) * 2, 16, &v)) {
        rsp_buf_puts(out, usage);
        return -EINVAL;
    }
    x = table_or_why(xp, m, &rc, out);
    return x ? cmd_uid(x, v, out) : rc;
}

int tgt_monitor_xpti_allocations(struct tgt_xpti *xp, struct sess_manager *m, const char *args,
                                 struct rsp_buf *out)
{
    bool all = strcmp(args, "all") == 0;
    struct sess_xpti *x;
    uint64_t v = 0;
    int rc = 0;
    /* An address is 0xHEX or decimal, as GDB prints and reads them. */
    if (m && *args && !all && !parse_u64(args, 0, &v)) {
        rsp_buf_puts(out, usage);
        return -EINVAL;
    }
    x = table_or_why(xp, m, &rc, out);
    if (!x)
        return rc;
    return *args && !all ? cmd_alloc_at(x, v, out) : cmd_alloc_list(x, all, out);
}
