/* SPDX-License-Identifier: MIT */
/* sessions/ where things go wrong, against the conformance debuggee on
 * gtsim: calls naming a device, thread or register set that does not
 * exist; a detached session; and driver calls that fail on purpose
 * (gtsim's GTSIM_FAULTS, read once per process at zeInit: each case runs
 * in a child process of its own, which sends its results up a pipe as
 * "1 text" / "0 text" lines; the parent turns them into TAP, so a child
 * that dies leaves its planned checks unrun, reported as failures). */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "regsets/regs.h"
#include "sessions/sess.h"
#include "sessions/sess_where.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

#define DEADLINE_MS 20000

static FILE *results; /* the child's end of the pipe */

static int check(int cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(results, "%d ", cond ? 1 : 0);
    va_start(ap, fmt);
    vfprintf(results, fmt, ap);
    va_end(ap);
    fputc('\n', results);
    fflush(results);
    return cond;
}

/* The next note of a type within the deadline. */
static int next_note(struct sess_manager *m, enum sess_note_type type, struct sess_note *out)
{
    uint64_t end = conf_now_ms() + DEADLINE_MS;
    while (conf_now_ms() < end)
        if (sess_wait(m, 200, out) == 0 && out->type == type)
            return 1;
    return 0;
}

/* One case's world: a vadd debuggee, attached, its module load held. */
struct world {
    struct conf_app app;
    struct zd *zd;
    struct sess_manager *m;
    struct sess_note load;
};

static int world_open(struct world *w)
{
    struct sess_options opt = {true, true};
    struct zd_error err;
    memset(w, 0, sizeof(*w));
    w->app.pid = -1;
    if (zd_open(&w->zd, &err) != 0)
        return -1;
    /* The rules were read at zeInit; the debuggee gets none. */
    unsetenv("GTSIM_FAULTS");
    if (conf_app_start_ready(&w->app, 1, (const char *const[]){"vadd", NULL}) != 0)
        return -1;
    if (sess_attach(w->zd, (uint32_t)w->app.pid, &opt, &w->m, &err) != 0)
        return -1;
    conf_app_send(&w->app, "go");
    return next_note(w->m, SESS_NOTE_MODULE_LOAD, &w->load) ? 0 : -1;
}

static void world_close(struct world *w)
{
    if (w->m)
        sess_detach_all(w->m);
    if (w->app.pid > 0) {
        conf_app_finish(&w->app, 5000);
        conf_app_kill(&w->app);
    }
    if (w->zd)
        zd_close(w->zd);
}

/* Plants a breakpoint on the third instruction of the held module and
 * releases it; returns the first thread that stops there. */
static int to_breakpoint(struct world *w, struct sess_note *stop)
{
    struct zd_error err;
    uint8_t insn[16];
    uint64_t bp = w->load.module_load;
    unsigned s = w->load.session;
    for (int i = 0; i < 2; i++) {
        if (sess_read_memory(w->m, s, UINT32_MAX, ZD_SPACE_DEFAULT, bp, 16, insn, &err) != 0)
            return 0;
        bp += isa_insn_length(insn);
    }
    if (sess_read_memory(w->m, s, UINT32_MAX, ZD_SPACE_DEFAULT, bp, 16, insn, &err) != 0)
        return 0;
    isa_insn_set_breakpoint(insn, true);
    if (sess_write_memory(w->m, s, UINT32_MAX, ZD_SPACE_DEFAULT, bp, 16, insn, &err) != 0 ||
        sess_module_release(w->m, s, w->load.module_begin, w->load.module_end, &err) != 0)
        return 0;
    return next_note(w->m, SESS_NOTE_STOPPED, stop);
}

/* 18 results: arguments that name nothing, the module list, a detached
 * session. No fault. */
static void case_arguments(void)
{
    struct world w;
    struct zd_error err;
    struct sess_module_info mi;
    const uint8_t *data;
    size_t n = 1, size;
    uint8_t buf[16] = {0};
    unsigned s;

    if (!check(world_open(&w) == 0, "arguments: debuggee attached, module load held"))
        goto out;
    s = w.load.session;
    check(sess_regsets(w.m, 99, &n) == NULL && n == 0, "no register sets for session 99");
    check(sess_read_regset(w.m, s, 0, 0xbad, &data, &size, &err) == ZD_E_INVALID,
          "reading a register set the device lacks: invalid");
    check(sess_write_registers(w.m, 99, 0, REGS_CR, 0, 1, buf, &err) == ZD_E_INVALID &&
              sess_write_registers(w.m, s, 0, 0xbad, 0, 1, buf, &err) == ZD_E_INVALID &&
              sess_write_registers(w.m, s, 0, REGS_CR, 0, 0, buf, &err) == ZD_E_INVALID &&
              sess_write_registers(w.m, s, 0, REGS_CR, 1000, 1, buf, &err) == ZD_E_INVALID,
          "register writes to no session, no set, no registers: invalid");
    check(sess_read_memory(w.m, 99, 0, ZD_SPACE_DEFAULT, 0, 4, buf, &err) == ZD_E_INVALID,
          "memory of session 99: invalid");
    check(sess_module_count(w.m, 99) == 0 && sess_module_at(w.m, 99, 0, &mi) != 0,
          "session 99 has no modules");
    check(sess_module_count(w.m, s) == 1, "the held module is listed");
    check(sess_module_at(w.m, s, 0, &mi) == 0 && mi.begin == w.load.module_begin &&
              mi.end == w.load.module_end && mi.load == w.load.module_load && mi.need_ack &&
              !mi.acked,
          "as its load note says, not yet acknowledged");
    check(sess_module_at(w.m, s, 1, &mi) != 0, "no second module");
    check(sess_module_symbols(w.m, 99, 0) == NULL && sess_module_symbols(w.m, s, 1) == NULL,
          "no symbols for session 99 or a second module");
    check(sess_module_symbols(w.m, s, 0) != NULL,
          "the held module's symbols were read at its load, before any acknowledgement");
    check(!sess_regset_cached(w.m, 99, 0, REGS_CR) &&
              !sess_regset_cached(w.m, s, UINT32_MAX, REGS_CR) &&
              !sess_regset_cached(w.m, s, 0, 0xbad) && !sess_regset_cached(w.m, s, 0, REGS_CR),
          "nothing is cached for no session, no thread, no set, or a thread nobody read");
    check(sess_module_release(w.m, s, w.load.module_begin + 1, w.load.module_end, &err) == 0 &&
              sess_module_at(w.m, s, 0, &mi) == 0 && !mi.acked,
          "releasing a range no module has changes nothing");
    check(sess_module_release(w.m, s, w.load.module_begin, w.load.module_end, &err) == 0 &&
              sess_module_at(w.m, s, 0, &mi) == 0 && mi.acked,
          "releasing the module acknowledges it");
    check(sess_detach(w.m, s, NULL) == 0 && !sess_alive(w.m, s),
          "detach: the session is not alive");
    check(sess_read_memory(w.m, s, UINT32_MAX, ZD_SPACE_DEFAULT, w.load.module_load, 4, buf,
                           &err) == ZD_E_LOST,
          "memory of a detached session: lost (%s)", err.msg);
    check(sess_write_registers(w.m, s, 0, REGS_CR, 0, 1, buf, &err) == ZD_E_LOST,
          "registers of a detached session: lost");
    check(sess_interrupt_device(w.m, s, &err) == ZD_E_INVALID &&
              sess_interrupt_thread(w.m, s, 0, &err) == ZD_E_INVALID,
          "interrupting a detached session: invalid");
out:
    world_close(&w);
}

/* 3 results, GTSIM_FAULTS=ack: every acknowledgement fails. */
static void case_ack_fails(void)
{
    struct world w;
    struct zd_error err;
    struct sess_module_info mi;
    if (!check(world_open(&w) == 0, "ack fails: debuggee attached, module load held"))
        goto out;
    check(sess_module_release(w.m, w.load.session, w.load.module_begin, w.load.module_end, &err) !=
              0,
          "releasing the module fails with the driver's error (%s)", err.msg);
    check(sess_module_at(w.m, w.load.session, 0, &mi) == 0 && !mi.acked,
          "the module stays unacknowledged, for the detach to acknowledge");
out:
    world_close(&w);
}

/* 4 results, GTSIM_FAULTS=interrupt: every interrupt fails. */
static void case_interrupt_fails(void)
{
    struct world w;
    struct zd_error err;
    struct zd_stats a, b;
    if (!check(world_open(&w) == 0, "interrupt fails: debuggee attached"))
        goto out;
    zd_get_stats(w.zd, &a);
    sess_stop_all(w.m, &err);
    zd_get_stats(w.zd, &b);
    check(err.code != 0, "stop-all returns the interrupt's failure (%s)", err.msg);
    check(b.interrupt - a.interrupt == 2, "the failed interrupt is tried once more (%llu calls)",
          (unsigned long long)(b.interrupt - a.interrupt));
    check(sess_alive(w.m, w.load.session), "the session stays alive");
out:
    world_close(&w);
}

/* 3 results, GTSIM_FAULTS=interrupt:device_lost. */
static void case_interrupt_lost(void)
{
    struct world w;
    struct zd_error err;
    if (!check(world_open(&w) == 0, "device lost at the interrupt: debuggee attached"))
        goto out;
    sess_stop_all(w.m, &err);
    check(err.code == ZD_E_LOST, "stop-all says the device was lost (%s)", err.msg);
    check(sess_exited(w.m, w.load.session) && !sess_alive(w.m, w.load.session),
          "the session has ended");
out:
    world_close(&w);
}

/* 6 results, GTSIM_FAULTS=resume: every resume fails (the cr0 writes do
 * not), so no thread moves. */
static void case_resume_fails(void)
{
    struct world w;
    struct zd_error err;
    struct sess_note stop;
    unsigned s;
    if (!check(world_open(&w) == 0, "resume fails: debuggee attached"))
        goto out;
    s = w.load.session;
    if (!check(to_breakpoint(&w, &stop), "a thread stops at the breakpoint"))
        goto out;
    check(sess_resume_thread(w.m, s, stop.thread, false, &err) != 0,
          "resuming the thread fails (%s)", err.msg);
    check(sess_thread_state_known(w.m, s, stop.thread, NULL) == SESS_T_STOPPED,
          "the thread is still stopped, to be resumed again");
    check(sess_resume_all(w.m, &err) != 0 && err.code != 0, "resume-all fails (%s)", err.msg);
    check(sess_thread_state_known(w.m, s, stop.thread, NULL) == SESS_T_STOPPED,
          "after the failed resume-all too");
out:
    world_close(&w);
}

/* 4 results, GTSIM_FAULTS=read_registers: a stopped thread's registers
 * cannot be read. */
static void case_registers_fail(void)
{
    struct world w;
    struct zd_error err;
    struct sess_note stop;
    const uint8_t *data;
    size_t size;
    uint64_t pc;
    unsigned s;
    if (!check(world_open(&w) == 0, "register reads fail: debuggee attached"))
        goto out;
    s = w.load.session;
    if (!check(to_breakpoint(&w, &stop), "a thread stops at the breakpoint"))
        goto out;
    check(sess_thread_pc(w.m, s, stop.thread, &pc, &err) != 0 && err.code != 0,
          "its PC cannot be read (%s)", err.msg);
    check(sess_read_regset(w.m, s, stop.thread, REGS_GRF, &data, &size, &err) != 0,
          "nor its GRF (%s)", err.msg);
out:
    world_close(&w);
}

/* 4 results, GTSIM_FAULTS=read_registers:device_lost: the device is lost
 * at a stopped thread's register read. The session ends with that answer,
 * not when the driver's DETACHED reaches the event reader later: a dump
 * closing its document right after the read must see the loss
 * (report/dump_out.c asks sess_exited). fill: through sess_fill_regsets
 * (the dump's readers) instead of sess_read_regset. */
static void registers_lost(bool fill)
{
    struct world w;
    struct zd_error err = {0};
    struct sess_note stop;
    const uint8_t *data;
    size_t size;
    unsigned s;
    uint32_t types[] = {REGS_CR, REGS_GRF};
    if (!check(world_open(&w) == 0, "device lost at a register read: debuggee attached"))
        goto out;
    s = w.load.session;
    if (!check(to_breakpoint(&w, &stop) && sess_alive(w.m, s),
               "a thread stops at the breakpoint; the session is alive"))
        goto out;
    if (fill)
        check(sess_fill_regsets(w.m, s, stop.thread, types, 2) == 0,
              "sess_fill_regsets keeps nothing");
    else
        check(sess_read_regset(w.m, s, stop.thread, REGS_GRF, &data, &size, &err) == ZD_E_LOST,
              "the read says the device was lost (%s)", err.msg);
    check(sess_exited(w.m, s) && !sess_alive(w.m, s),
          "the session has ended at once, before any DETACHED event");
out:
    world_close(&w);
}

static void case_registers_lost(void)
{
    registers_lost(false);
}

static void case_fill_lost(void)
{
    registers_lost(true);
}

/* 3 results: the environment's attach options (sess.h): set means any
 * value but empty or "0". No device needed. */
static void case_options(void)
{
    struct sess_options o;
    unsetenv("ZESTUB_NO_SUBDEVICE_ATTACH");
    unsetenv("ZESTUB_NO_DEVICE_ATTACH");
    sess_options_from_env(&o);
    check(o.attach_subdevices && o.attach_roots, "unset: sub-devices and root devices");
    setenv("ZESTUB_NO_SUBDEVICE_ATTACH", "1", 1);
    setenv("ZESTUB_NO_DEVICE_ATTACH", "yes", 1);
    sess_options_from_env(&o);
    check(!o.attach_subdevices && !o.attach_roots, "set to 1 and yes: neither");
    setenv("ZESTUB_NO_SUBDEVICE_ATTACH", "0", 1);
    setenv("ZESTUB_NO_DEVICE_ATTACH", "", 1);
    sess_options_from_env(&o);
    check(o.attach_subdevices && o.attach_roots, "set to 0 and empty: both, as unset");
}

/* 9 results: every query and mark naming a session or thread that does
 * not exist answers "none" without touching anything. No fault. */
static void case_no_such(void)
{
    struct world w;
    struct zd_error err;
    const uint8_t *data;
    size_t size;
    uint64_t pc;
    struct sess_where where;
    enum zd_fault_reason why;
    bool unread = true;
    unsigned s;
    uint32_t n;

    if (!check(world_open(&w) == 0, "no such: debuggee attached"))
        goto out;
    s = w.load.session;
    n = sess_thread_count(w.m, s);
    check(sess_device(w.m, 99) == NULL && sess_thread_count(w.m, 99) == 0 && !sess_alive(w.m, 99) &&
              !sess_exited(w.m, 99),
          "session 99: no device, no threads, not alive, not exited");
    check(sess_thread_state_known(w.m, 99, 0, &unread) == SESS_T_UNAVAILABLE && !unread &&
              sess_thread_state_known(w.m, s, n, NULL) == SESS_T_UNAVAILABLE,
          "the state of no thread: unavailable");
    check(sess_thread_reason(w.m, s, n) == ISA_STOP_UNKNOWN &&
              sess_thread_pc(w.m, s, n, &pc, &err) != 0 &&
              sess_read_regset(w.m, s, n, REGS_CR, &data, &size, &err) != 0,
          "no reason, PC or registers for thread %u of %u", n, n);
    sess_thread_join_resume(w.m, 99, 0, SESS_RESUME_STEP);
    sess_thread_join_resume(w.m, s, n, SESS_RESUME_STEP);
    sess_thread_end_step(w.m, s, n);
    sess_thread_mark_reported(w.m, s, n);
    check(!sess_thread_hold(w.m, s, n) && !sess_thread_is_resumed(w.m, s, n) &&
              !sess_thread_is_stepping(w.m, 99, 0) && !sess_thread_is_reported(w.m, s, n),
          "marks of no thread: none set, none kept");
    check(!sess_thread_hold(w.m, s, 0), "a thread that is not stopped cannot be held");
    check(sess_module_release(w.m, 99, 1, 2, &err) == ZD_E_INVALID &&
              sess_where_pc(w.m, 99, 0, &where) == -ENOENT &&
              sess_where_pc(w.m, s, 8, &where) == -ENOENT,
          "no module of session 99, none at address 8");
    check(sess_fault_count(w.m, 99) == 0 && sess_fault_at(w.m, 99, 0, &pc, &why) != 0 &&
              sess_fault_at(w.m, s, 0, &pc, &why) != 0,
          "no page faults recorded");
    check(sess_detach(w.m, 99, NULL) == ZD_E_INVALID, "detach of session 99: invalid");
out:
    world_close(&w);
}

/* sess_thread_next told by asking every thread alone, as loops did before it. */
static uint32_t next_slow(struct sess_manager *m, unsigned s, uint32_t from, unsigned states,
                          unsigned flags)
{
    uint32_t n = sess_thread_count(m, s);
    for (uint32_t th = from; th < n; th++) {
        bool unread;
        enum sess_thread_state st = sess_thread_state_known(m, s, th, &unread);
        if ((unread && (flags & SESS_NEXT_READ)) || !(states & SESS_STATE_BIT(st)) ||
            ((flags & SESS_NEXT_UNREPORTED) && sess_thread_is_reported(m, s, th)))
            continue;
        return th;
    }
    return n;
}

/* Every mask and flag combination, from every thread the scan stops at:
 * the scanner agrees with the thread-by-thread answer. */
static int next_agrees(struct sess_manager *m, unsigned s)
{
    static const unsigned masks[] = {SESS_STATE_BIT(SESS_T_STOPPED), SESS_STATE_BIT(SESS_T_HELD),
                                     SESS_STATE_BIT(SESS_T_STOPPED) | SESS_STATE_BIT(SESS_T_HELD),
                                     SESS_STATE_BIT(SESS_T_RUNNING) |
                                         SESS_STATE_BIT(SESS_T_UNAVAILABLE)};
    uint32_t n = sess_thread_count(m, s);
    for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++)
        for (unsigned flags = 0; flags < 4; flags++)
            for (uint32_t th = 0;; th++) {
                uint32_t fast = sess_thread_next(m, s, th, masks[i], flags);
                if (fast != next_slow(m, s, th, masks[i], flags))
                    return 0;
                if (fast >= n)
                    break;
                th = fast;
            }
    return 1;
}

/* 6 results: sess_thread_next, the one-lock scan the run control's loops
 * use, finds what asking each thread finds, at a breakpoint, after a
 * stop-all (unread threads), held and reported. No fault. */
static void case_thread_next(void)
{
    struct world w;
    struct sess_note stop;
    struct zd_error err;
    unsigned s;
    uint32_t n, th;

    if (!check(world_open(&w) == 0 && to_breakpoint(&w, &stop),
               "scan: debuggee attached, a thread at the breakpoint"))
        goto out;
    s = stop.session;
    th = stop.thread;
    n = sess_thread_count(w.m, s);
    check(next_agrees(w.m, s) &&
              sess_thread_next(w.m, s, 0, SESS_STATE_BIT(SESS_T_STOPPED), SESS_NEXT_READ) <= th,
          "at the breakpoint: the scan agrees, thread %u found", th);
    sess_stop_all(w.m, &err);
    check(next_agrees(w.m, s), "after a stop-all (unread threads): the scan agrees");
    check(sess_thread_hold(w.m, s, th) &&
              sess_thread_next(w.m, s, 0, SESS_STATE_BIT(SESS_T_HELD), 0) == th &&
              sess_thread_next(w.m, s, th + 1, SESS_STATE_BIT(SESS_T_HELD), 0) == n &&
              next_agrees(w.m, s),
          "held: the one held thread is found, none after it");
    sess_thread_mark_reported(w.m, s, th);
    check(sess_thread_next(w.m, s, th, SESS_STATE_BIT(SESS_T_STOPPED), SESS_NEXT_UNREPORTED) !=
                  th &&
              sess_thread_next(w.m, s, th, SESS_STATE_BIT(SESS_T_STOPPED), 0) == th &&
              next_agrees(w.m, s),
          "reported: left out only when unreported threads are asked for");
    check(sess_thread_next(w.m, 99, 0, ~0u, 0) == 0 && sess_thread_next(w.m, s, n, ~0u, 0) == n,
          "no session: none; from the end: the count");
out:
    world_close(&w);
}

struct fault_case {
    const char *faults; /* GTSIM_FAULTS, or NULL */
    void (*run)(void);
    int checks; /* the case's results + 1: that it ran to its end */
};

static const struct fault_case cases[] = {
    {NULL, case_arguments, 19},
    {NULL, case_options, 4},
    {NULL, case_no_such, 10},
    {NULL, case_thread_next, 7},
    {"ack", case_ack_fails, 4},
    {"interrupt", case_interrupt_fails, 5},
    {"interrupt:device_lost", case_interrupt_lost, 4},
    {"resume", case_resume_fails, 7},
    {"read_registers", case_registers_fail, 5},
    {"read_registers:device_lost", case_registers_lost, 5},
    {"read_registers:device_lost", case_fill_lost, 5},
};

/* Runs one case in a child; relays its results. */
static void run_case(const struct fault_case *c)
{
    int fds[2];
    pid_t pid;
    char line[512];
    int got = 0, status = 0;
    FILE *in;

    if (pipe(fds) != 0)
        return;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        results = fdopen(fds[1], "w");
        if (c->faults)
            setenv("GTSIM_FAULTS", c->faults, 1);
        else
            unsetenv("GTSIM_FAULTS");
        c->run();
        fclose(results);
        /* exit, not _exit: a coverage build writes its counters at exit
         * (stdout was flushed before the fork, nothing is printed twice). */
        exit(0);
    }
    close(fds[1]);
    in = fdopen(fds[0], "r");
    while (in && fgets(line, sizeof(line), in)) {
        line[strcspn(line, "\n")] = 0;
        if (got++ < c->checks)
            tap_ok(line[0] == '1', "%s: %s", c->faults ? c->faults : "no fault", line + 2);
    }
    if (in)
        fclose(in);
    if (pid > 0)
        waitpid(pid, &status, 0);
    tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && got == c->checks - 1,
           "%s: the case ran to its end (%d of %d results, status 0x%x)",
           c->faults ? c->faults : "no fault", got, c->checks - 1, status);
}

int main(int argc, char **argv)
{
    int plan = 0;
    conf_init(argc, argv, 300);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        plan += cases[i].checks;
    tap_plan(plan);
    conf_set_pace(200);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_case(&cases[i]);
    return tap_done();
}
