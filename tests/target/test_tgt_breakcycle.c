/* SPDX-License-Identifier: MIT */
/* The breakpoint cycle costs a bounded number of driver calls per hit
 * (issue 36): every thread of a kernel hits a breakpoint on its first
 * instruction, and each stop is answered with a continue, as a debugger
 * with a condition that is never true does. All-stop holds the threads
 * that the stop-all of a report finds at the breakpoint, and a resume
 * must not read the instruction of every held thread again (that made
 * the cycle quadratic: n x (n + 1) / 2 memory reads for n hits). The same
 * cycle runs with few and with four times as many threads; the memory
 * reads per hit must not grow. Then the breakpoint is removed halfway:
 * the threads still held at it are dropped at the next resume, and no
 * stop comes at the breakpoint that is gone.
 *
 * The driver calls are counted here, in the debugger's own process: this
 * program defines zetDebugReadMemory and zetDebugReadRegisters, which
 * zetdebug/ calls, and passes each call on to the loader's. */
#include <dlfcn.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <zet_api.h>

#include "target/intelgt.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

static unsigned long memory_reads, register_reads;

ze_result_t ZE_APICALL zetDebugReadMemory(zet_debug_session_handle_t h, ze_device_thread_t th,
                                          const zet_debug_memory_space_desc_t *desc, size_t size,
                                          void *buf)
{
    ze_result_t(ZE_APICALL * next)(zet_debug_session_handle_t, ze_device_thread_t,
                                   const zet_debug_memory_space_desc_t *, size_t, void *);
    *(void **)&next = dlsym(RTLD_NEXT, "zetDebugReadMemory");
    memory_reads++;
    return next ? next(h, th, desc, size, buf) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zetDebugReadRegisters(zet_debug_session_handle_t h, ze_device_thread_t th,
                                             uint32_t type, uint32_t start, uint32_t count,
                                             void *buf)
{
    ze_result_t(ZE_APICALL * next)(zet_debug_session_handle_t, ze_device_thread_t, uint32_t,
                                   uint32_t, uint32_t, void *);
    *(void **)&next = dlsym(RTLD_NEXT, "zetDebugReadRegisters");
    register_reads++;
    return next ? next(h, th, type, start, count, buf) : ZE_RESULT_ERROR_UNINITIALIZED;
}

struct cycle {
    unsigned hits;               /* breakpoint stops reported */
    unsigned long reads, regs;   /* driver calls from the first continue to the last hit */
    unsigned after_removal;      /* breakpoint stops after the removal */
    unsigned long removal_reads; /* memory reads of the resume after the removal (a diag) */
    bool ended;                  /* the application's end was reported */
};

static const struct rsp_resume continue_all = {RSP_RESUME_CONTINUE, -1, -1, 0, 0};

/* The next event within timeout_ms: 1, or 0 when none came. */
static int next_event(struct rsp_target *t, struct rsp_event *ev, int timeout_ms)
{
    uint64_t end = conf_now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        struct pollfd p = {t->ops->event_fd(t->ctx), POLLIN, 0};
        if (t->ops->next_event(t->ctx, ev) > 0)
            return 1;
        if (conf_now_ms() >= end)
            return 0;
        if (p.fd < 0 || poll(&p, 1, 100) < 0)
            usleep(10000);
    }
}

/* The module's load waits: a breakpoint on the kernel's first instruction,
 * a continue, the acknowledgement. 0 on success. */
static int plant_and_go(struct rsp_target *t, struct conf_app *app, struct rsp_library *lib)
{
    char err[256] = "";
    bool was_set = false;
    uint64_t end = conf_now_ms() + 20000;

    conf_app_send(app, "go");
    while (t->ops->libraries->library_count(t->ctx, 1) == 0 && conf_now_ms() < end)
        usleep(10000);
    if (t->ops->libraries->library_at(t->ctx, 1, 0, lib) != 0 ||
        t->ops->sw_breakpoints->insert(t->ctx, 1, lib->load, &was_set, err, sizeof(err)) != 0) {
        tap_diag("no module, or no breakpoint: %s", err);
        return -1;
    }
    memory_reads = register_reads = 0;
    if (t->ops->resume(t->ctx, &continue_all, 1, err, sizeof(err)) != 0 ||
        t->ops->libraries->ack_library(t->ctx, 1, lib->begin, lib->end, err, sizeof(err)) != 0) {
        tap_diag("continue or acknowledgement failed: %s", err);
        return -1;
    }
    return 0;
}

/* Answers every stop with a continue until `threads` breakpoint hits were
 * reported (or, with remove_at, the breakpoint is removed after that many
 * and the cycle goes on to the application's end). */
static void run_stops(struct rsp_target *t, const struct rsp_library *lib, unsigned threads,
                      unsigned remove_at, struct cycle *c)
{
    char err[256] = "";
    struct rsp_event ev;
    bool removed = false;

    while (next_event(t, &ev, 30000)) {
        if (ev.kind == RSP_EVENT_EXITED) {
            c->ended = true;
            return;
        }
        if (ev.kind == RSP_EVENT_STOP && ev.swbreak && !removed)
            c->hits++;
        else if (ev.kind == RSP_EVENT_STOP && ev.swbreak)
            c->after_removal++;
        if (!remove_at && c->hits == threads) {
            c->reads = memory_reads;
            c->regs = register_reads;
            return;
        }
        if (remove_at && c->hits == remove_at && !removed) {
            if (t->ops->sw_breakpoints->remove(t->ctx, 1, lib->load, err, sizeof(err)) != 0)
                tap_diag("removing the breakpoint failed: %s", err);
            removed = true;
            memory_reads = 0;
            (void)t->ops->resume(t->ctx, &continue_all, 1, err, sizeof(err));
            c->removal_reads = memory_reads;
            continue;
        }
        (void)t->ops->resume(t->ctx, &continue_all, 1, err, sizeof(err));
    }
}

/* One application with `threads` work-groups (one hardware thread each)
 * under a fresh target. */
static bool cycle(unsigned threads, unsigned remove_at, struct cycle *c)
{
    struct rsp_target t;
    struct conf_app app;
    struct rsp_event ev;
    struct rsp_library lib = {0, 0, 0, false};
    char err[256] = "", groups[16];
    bool ok = false;

    memset(c, 0, sizeof(*c));
    snprintf(groups, sizeof(groups), "%u", threads);
    if (tgt_target_new(&t, err, sizeof(err)) != 0) {
        tap_diag("tgt_target_new: %s", err);
        return false;
    }
    if (conf_app_start_ready(&app, 1, (const char *const[]){"vadd", "--groups", groups, NULL})) {
        tap_diag("the debuggee did not start");
        goto out;
    }
    memset(&ev, 0, sizeof(ev));
    if (t.ops->attach(t.ctx, (uint32_t)app.pid, &ev, err, sizeof(err)) != 0) {
        tap_diag("attach: %s", err);
        goto out_app;
    }
    if (plant_and_go(&t, &app, &lib) == 0) {
        run_stops(&t, &lib, threads, remove_at, c);
        ok = true;
    }
    if (!c->ended) {
        /* Let the kernel end: the breakpoint goes, everything continues. */
        (void)t.ops->sw_breakpoints->remove(t.ctx, 1, lib.load, err, sizeof(err));
        while (t.ops->resume(t.ctx, &continue_all, 1, err, sizeof(err)) == 0 &&
               next_event(&t, &ev, 5000) && ev.kind != RSP_EVENT_EXITED) {
        }
    }
    (void)t.ops->detach(t.ctx, 1, err, sizeof(err));
out_app:
    ok &= conf_app_expect(&app, "done ZE_RESULT_SUCCESS", 30000, NULL, 0) == 1;
    conf_app_finish(&app, 5000);
    conf_app_kill(&app);
out:
    tgt_target_free(&t);
    return ok;
}

int main(int argc, char **argv)
{
    const unsigned few = 16, many = 64;
    struct cycle a = {0}, b = {0}, r = {0};
    double per_a, per_b;

    bool ok_a, ok_b, ok_r;

    conf_init(argc, argv, 300);
    tap_plan(4);
    ok_a = cycle(few, 0, &a) && a.hits == few;
    tap_ok(ok_a, "%u threads: %u hits, %lu memory reads, %lu register reads", few, a.hits, a.reads,
           a.regs);
    ok_b = cycle(many, 0, &b) && b.hits == many;
    tap_ok(ok_b, "%u threads: %u hits, %lu memory reads, %lu register reads", many, b.hits, b.reads,
           b.regs);
    per_a = a.hits ? (double)a.reads / a.hits : 0;
    per_b = b.hits ? (double)b.reads / b.hits : 1e9;
    /* Before the fix: 8.5 and 32.5 a hit. */
    if (!tap_ok(ok_a && ok_b && per_b <= per_a * 1.25 + 1,
                "memory reads per hit do not grow with the held threads: %.2f at %u threads, "
                "%.2f at %u",
                per_a, few, per_b, many))
        tap_diag("the resume reads every held thread's instruction again");
    ok_r = cycle(many, many / 2, &r) && r.hits == many / 2 && r.after_removal == 0 && r.ended;
    tap_ok(ok_r, "the breakpoint removed after %u of %u hits: no stop at it afterwards (%u)",
           r.hits, many, r.after_removal);
    tap_diag("the resume after the removal: %lu memory reads (the dropped stops' shared "
             "instruction, then the resumed threads' suppress bits)",
             r.removal_reads);
    return tap_done();
}
