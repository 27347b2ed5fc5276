/* SPDX-License-Identifier: MIT */
/* target/ called directly through its rsp_target_ops table (no server in
 * front to filter the arguments), against the conformance debuggee on
 * gtsim: before any attach, with arguments naming no process, thread,
 * register, memory or module, a second attach, the monitor commands with
 * good and bad arguments, detach. Every call that names nothing fails
 * with a sentence, none crashes; the expected texts are those target/
 * README.md and the monitor rows' usage lines document. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gdbstub/monitor.h"
#include "gdbstub/packet.h"
#include "target/intelgt.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

static struct rsp_target t;

/* Runs `monitor NAME ARGS` through the target's row; the text in out. */
static int monitor(const char *name, const char *args, struct rsp_buf *out)
{
    size_t n = 0;
    const struct rsp_monitor_cmd *rows = t.ops->monitor->commands(t.ctx, &n);
    rsp_buf_clear(out);
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0) {
            int rc = rows[i].fn(t.ctx, args, out);
            rsp_buf_putc(out, 0);
            return rc;
        }
    rsp_buf_puts(out, "no such row");
    rsp_buf_putc(out, 0);
    return -ENOENT;
}

/* The monitor command answers (0) and its text contains want. */
static void says(const char *name, const char *args, const char *want)
{
    struct rsp_buf out;
    int rc;
    rsp_buf_init(&out);
    rc = monitor(name, args, &out);
    if (!tap_ok(rc == 0 && strstr(out.data, want), "monitor %s %s: says '%s'", name, args, want))
        tap_diag("rc %d, text: %s", rc, out.data);
    rsp_buf_free(&out);
}

/* The monitor command refuses its arguments (nonzero) saying want. */
static void refuses(const char *name, const char *args, const char *want)
{
    struct rsp_buf out;
    int rc;
    rsp_buf_init(&out);
    rc = monitor(name, args, &out);
    if (!tap_ok(rc != 0 && rc != -ENOENT && strstr(out.data, want),
                "monitor %s %s: refused, saying '%s'", name, args, want))
        tap_diag("rc %d, text: %s", rc, out.data);
    rsp_buf_free(&out);
}

static void before_attach(void)
{
    char err[256] = "";
    struct rsp_process_info pi;
    tap_ok(t.ops->process_count(t.ctx) == 0 && t.ops->process_at(t.ctx, 0, &pi) < 0,
           "nothing attached: no process");
    tap_ok(t.ops->detach(t.ctx, 1, err, sizeof(err)) < 0 && strstr(err, "no such process"),
           "detach before attach: %s", err);
    says("threads", "", "no device is attached");
    says("modules", "", "no device is attached");
    says("devices", "", "no device is attached");
    refuses("thread", "p1.1", "1.1");
}

/* An attach of a process that does not exist fails with a sentence. */
static void attach_missing(void)
{
    char err[256] = "";
    struct rsp_event ev;
    uint32_t missing = 0x7ffffff0;
    char path[64];
    for (;; missing--) {
        snprintf(path, sizeof(path), "/proc/%u", (unsigned)missing);
        if (access(path, F_OK) != 0)
            break;
    }
    memset(&ev, 0, sizeof(ev));
    tap_ok(t.ops->attach(t.ctx, missing, &ev, err, sizeof(err)) < 0 && err[0] &&
               t.ops->process_count(t.ctx) == 0,
           "attaching process %u, which does not exist, fails: %s", (unsigned)missing, err);
}

static void bad_arguments(uint32_t nthreads)
{
    char err[256] = "";
    struct rsp_thread_info ti;
    struct rsp_tdesc td;
    struct rsp_device_info di;
    struct rsp_library lib;
    struct rsp_mem_ref ref = {.pid = 99, .tid = 1, .space = 0, .addr = 0};
    uint8_t buf[64] = {0};
    size_t done = 0;
    uint64_t pc;
    bool was_set;

    tap_ok(t.ops->thread_info(t.ctx, 99, 1, &ti) < 0 &&
               t.ops->thread_info(t.ctx, 1, nthreads + 1, &ti) < 0,
           "thread_info of no process, of no thread: fails");
    tap_ok(t.ops->tdesc(t.ctx, 99, &td) < 0, "tdesc 99: fails");
    tap_ok(t.ops->device_info(t.ctx, 99, &di) < 0, "device_info of process 99: fails");
    err[0] = 0;
    tap_ok(t.ops->read_register(t.ctx, 1, 1, 100000, buf, sizeof(buf), err, sizeof(err)) < 0 &&
               strstr(err, "no such register or thread"),
           "reading register 100000: %s", err);
    err[0] = 0;
    tap_ok(t.ops->read_register(t.ctx, 1, 0, 0, buf, sizeof(buf), err, sizeof(err)) < 0,
           "reading a register of thread 0: fails: %s", err);
    err[0] = 0;
    tap_ok(t.ops->write_register(t.ctx, 1, 1, 0, buf, 1, err, sizeof(err)) < 0 &&
               strstr(err, "no such register or thread"),
           "writing a register with the wrong size: %s", err);
    err[0] = 0;
    tap_ok(t.ops->read_memory(t.ctx, &ref, buf, 4, &done, err, sizeof(err)) < 0 &&
               strstr(err, "no such process or thread"),
           "reading memory of process 99: %s", err);
    err[0] = 0;
    ref.pid = 1;
    ref.tid = nthreads + 1;
    tap_ok(t.ops->write_memory(t.ctx, &ref, buf, 4, err, sizeof(err)) < 0 &&
               strstr(err, "no such process or thread"),
           "writing memory through a thread that does not exist: %s", err);
    tap_ok(t.ops->libraries->library_count(t.ctx, 99) == 0 &&
               t.ops->libraries->library_at(t.ctx, 1, 99, &lib) < 0,
           "no library 99, no libraries of process 99");
    err[0] = 0;
    tap_ok(t.ops->libraries->ack_library(t.ctx, 1, 1, 2, err, sizeof(err)) == -ENOENT &&
               strstr(err, "no module load waits"),
           "acknowledging a load nobody waits for: -ENOENT, %s", err);
    err[0] = 0;
    tap_ok(t.ops->sw_breakpoints->insert(t.ctx, 1, 8, &was_set, err, sizeof(err)) < 0,
           "a breakpoint where there is no code: fails: %s", err);
    err[0] = 0;
    tap_ok(t.ops->sw_breakpoints->thread_pc(t.ctx, 99, 1, &pc, err, sizeof(err)) < 0,
           "the PC of a thread of process 99: fails: %s", err);
    err[0] = 0;
    tap_ok(t.ops->detach(t.ctx, 99, err, sizeof(err)) < 0 && strstr(err, "no such process"),
           "detach of process 99: %s", err);
}

/* Every op once more with pid 0 and tid 0 (ids start at 1), the
 * optional ops this server has no launcher for, and a thread that is not
 * stopped. */
static void more_bad_arguments(void)
{
    char err[256] = "";
    struct rsp_thread_info ti;
    struct rsp_tdesc td;
    struct rsp_device_info di;
    struct rsp_library lib;
    struct rsp_mem_ref ref = {.pid = 0, .tid = 1, .space = 0, .addr = 0};
    uint8_t buf[256] = {0};
    size_t done = 0;
    uint64_t pc;

    tap_ok(t.ops->thread_info(t.ctx, 1, 0, &ti) < 0 && t.ops->thread_info(t.ctx, 0, 1, &ti) < 0 &&
               t.ops->tdesc(t.ctx, 0, &td) < 0 && t.ops->device_info(t.ctx, 0, &di) < 0,
           "thread 0, process 0, tdesc 0: fail");
    tap_ok(t.ops->read_register(t.ctx, 0, 1, 0, buf, sizeof(buf), err, sizeof(err)) < 0 &&
               t.ops->write_register(t.ctx, 99, 1, 0, buf, 64, err, sizeof(err)) < 0 &&
               t.ops->write_register(t.ctx, 1, 1, 100000, buf, 64, err, sizeof(err)) < 0 &&
               t.ops->read_memory(t.ctx, &ref, buf, 4, &done, err, sizeof(err)) < 0,
           "registers and memory of process 0 and 99, register 100000: fail");
    tap_ok(t.ops->libraries->library_count(t.ctx, 0) == 0 &&
               t.ops->libraries->library_at(t.ctx, 0, 0, &lib) < 0 &&
               t.ops->libraries->library_at(t.ctx, 99, 0, &lib) < 0 &&
               t.ops->libraries->ack_library(t.ctx, 0, 1, 2, err, sizeof(err)) == -ENOENT &&
               t.ops->libraries->ack_library(t.ctx, 99, 1, 2, err, sizeof(err)) == -ENOENT,
           "libraries of process 0 and 99: none");
    tap_ok(!t.ops->exits->process_exited(t.ctx, 0) && !t.ops->exits->process_exited(t.ctx, 99) &&
               !t.ops->exits->process_exited(t.ctx, 1),
           "no process has exited");
    err[0] = 0;
    tap_ok(t.ops->detach(t.ctx, 0, err, sizeof(err)) < 0 && strstr(err, "no such process"),
           "detach of process 0: %s", err);
    tap_ok(t.ops->sw_breakpoints->thread_pc(t.ctx, 1, 0, &pc, err, sizeof(err)) < 0 &&
               strstr(err, "no such thread"),
           "the PC of thread 0: %s", err);
    tap_ok(t.ops->siginfo->thread_siginfo(t.ctx, 99, 1, buf, sizeof(buf), err, sizeof(err)) ==
                   -ENOENT &&
               t.ops->siginfo->thread_siginfo(t.ctx, 1, 0, buf, sizeof(buf), err, sizeof(err)) ==
                   -ENOENT,
           "siginfo of no thread: -ENOENT (%s)", err);
    tap_ok(t.ops->siginfo->thread_siginfo(t.ctx, 1, 1, buf, sizeof(buf), err, sizeof(err)) ==
               -EAGAIN,
           "siginfo of a thread that is not stopped: -EAGAIN (%s)", err);
    err[0] = 0;
    tap_ok(t.ops->sw_breakpoints->insert(t.ctx, 99, 0, (bool[]){false}, err, sizeof(err)) ==
                   -ENOENT &&
               t.ops->sw_breakpoints->remove(t.ctx, 99, 0, err, sizeof(err)) < 0,
           "breakpoints in process 99: no such process (%s)", err);
    err[0] = 0;
    tap_ok(t.ops->sw_breakpoints->insert(t.ctx, 1, 0xdead00000000ull, (bool[]){false}, err,
                                         sizeof(err)) < 0 &&
               t.ops->sw_breakpoints->remove(t.ctx, 1, 0xdead00000000ull, err, sizeof(err)) < 0,
           "breakpoints where nothing is mapped: fail (%s)", err);
    /* Without a launcher the target offers no programs table, so the
     * server refuses vRun and vKill and asks for no exit status. */
    tap_ok(t.ops->programs == NULL, "without a launcher, vRun is refused (no programs table)");
    tap_ok(t.ops->programs == NULL, "nor vKill, nor an exit status");
}

static int fake_start(void *arg, const struct rsp_run_request *req, uint32_t *host_pid, char *err,
                      size_t errlen)
{
    (void)req, (void)err, (void)errlen;
    ++*(int *)arg;
    *host_pid = 4242;
    return 0;
}

/* The programs table comes with a launcher that starts programs, goes
 * with it, and forwards to it (the launcher's other functions may be
 * missing: kill then says so, the status is unknown). */
static void launcher_offers_programs(void)
{
    struct rsp_run_request req = {.argv = (char *const[]){"true", NULL}};
    int started = 0, code = 0, sig = 0;
    uint32_t host = 0;
    char err[256] = "";

    tgt_target_set_launcher(&t, &(struct tgt_launcher){.start = fake_start, .arg = &started});
    tap_ok(t.ops->programs && t.ops->programs->create(t.ctx, &req, &host, err, sizeof(err)) == 0 &&
               started == 1 && host == 4242,
           "a launcher set: the programs table is offered and forwards vRun to it");
    tap_ok(t.ops->programs && t.ops->programs->kill(t.ctx, host, err, sizeof(err)) == -ENOSYS &&
               t.ops->programs->program_status(t.ctx, host, &code, &sig) < 0,
           "a launcher without kill and status: vKill fails saying so (%s), no status", err);
    tgt_target_set_launcher(&t, &(struct tgt_launcher){0});
    tap_ok(t.ops->programs == NULL, "a launcher that starts nothing: no programs table again");
}

/* The kernel's first thread stops at the breakpoint: its siginfo is a
 * breakpoint trap (SIGTRAP, TRAP_BRKPT = 1 in Linux's siginfo.h), its PC is
 * the breakpoint's address, the monitor describes it. */
static void at_breakpoint(void)
{
    char err[256] = "", what[32];
    struct rsp_event ev = {0};
    uint8_t si[128];
    uint64_t pc = 0, end = conf_now_ms() + 20000;
    int n = 0;

    while (ev.kind != RSP_EVENT_STOP && conf_now_ms() < end)
        if (t.ops->next_event(t.ctx, &ev) <= 0)
            usleep(10000);
    if (!tap_ok(ev.kind == RSP_EVENT_STOP && ev.pid == 1 && ev.tid >= 1,
                "a thread stops at the breakpoint (p%u.%u)", ev.pid, ev.tid))
        return;
    n = t.ops->siginfo->thread_siginfo(t.ctx, ev.pid, ev.tid, si, sizeof(si), err, sizeof(err));
    tap_ok(n >= 12 && si[0] == 5 && si[8] == 1, "its siginfo: SIGTRAP, TRAP_BRKPT (%d bytes): %s",
           n, err);
    tap_ok(t.ops->sw_breakpoints->thread_pc(t.ctx, ev.pid, ev.tid, &pc, err, sizeof(err)) == 0 &&
               pc != 0,
           "its PC: 0x%llx", (unsigned long long)pc);
    snprintf(what, sizeof(what), "%u.%u", ev.pid, ev.tid);
    says("thread", what, "breakpoint");
}

/* The application creates its module: the load waits for us. A
 * breakpoint on its first instruction, set twice (the second finds the bit
 * set), removed twice (the second finds none); the monitor lists the
 * module; the acknowledgement releases it, once. */
static void with_module(struct conf_app *app)
{
    char err[256] = "";
    struct rsp_library lib = {0, 0, 0, false};
    bool was_set = true;
    uint64_t end = conf_now_ms() + 20000;

    conf_app_send(app, "go");
    while (t.ops->libraries->library_count(t.ctx, 1) == 0 && conf_now_ms() < end)
        usleep(10000);
    if (!tap_ok(t.ops->libraries->library_at(t.ctx, 1, 0, &lib) == 0 && lib.needs_ack &&
                    lib.end > lib.begin,
                "the module load is listed, waiting for its acknowledgement"))
        return;
    err[0] = 0;
    tap_ok(t.ops->sw_breakpoints->insert(t.ctx, 1, lib.load, &was_set, err, sizeof(err)) == 0 &&
               !was_set,
           "a breakpoint on the kernel's first instruction: %s", err);
    tap_ok(t.ops->sw_breakpoints->insert(t.ctx, 1, lib.load, &was_set, err, sizeof(err)) == 0 &&
               was_set,
           "again: the bit is already set");
    err[0] = 0;
    tap_ok(t.ops->sw_breakpoints->remove(t.ctx, 1, lib.load, err, sizeof(err)) == 0 &&
               t.ops->sw_breakpoints->remove(t.ctx, 1, lib.load, err, sizeof(err)) == 0,
           "removed, and removing it again finds nothing to clear: %s", err);
    says("modules", "", "waiting for its acknowledgement");
    says("thread", "1.1", "1.1");
    says("thread", "p1.2", "p1.2");
    says("threads", "", "process 1");
    says("modules", "all", "kernel");
    err[0] = 0;
    tap_ok(t.ops->sw_breakpoints->insert(t.ctx, 1, lib.load, &was_set, err, sizeof(err)) == 0,
           "the breakpoint planted again, for the kernel to hit: %s", err);
    err[0] = 0;
    tap_ok(t.ops->resume(t.ctx, &(struct rsp_resume){RSP_RESUME_CONTINUE, -1, -1, 0, 0}, 1, err,
                         sizeof(err)) == 0,
           "continue everything: %s", err);
    err[0] = 0;
    tap_ok(t.ops->libraries->ack_library(t.ctx, 1, lib.begin, lib.end, err, sizeof(err)) == 0,
           "the acknowledgement releases the load: %s", err);
    tap_ok(t.ops->libraries->ack_library(t.ctx, 0, lib.begin, lib.end, err, sizeof(err)) == -ENOENT,
           "a second acknowledgement finds no load waiting");
    at_breakpoint();
}

static void monitor_commands(void)
{
    refuses("thread", "", "usage: monitor thread");
    refuses("thread", "x", "usage: monitor thread");
    refuses("thread", "1.", "usage: monitor thread");
    refuses("thread", "9.1", "the processes are 1..");
    refuses("thread", "p9.1", "the processes are p1..p");
    refuses("thread", "1.100000", "1.100000");
    refuses("thread", "0.1", "the processes are 1..");
    refuses("thread", "1.0", "1.0");
    refuses("thread", "p1.0", "p1.0");
    says("threads", "--by-site", "process 1");
    says("threads", "all", "process 1");
    says("threads", "by-site", "process 1");
    says("threads", "--by-site all", "process 1");
    refuses("threads", "all junk", "usage: monitor threads");
    refuses("threads", "by-site junk", "usage: monitor threads");
    says("modules", "all", "process 1");
    refuses("modules", "junk", "usage: monitor modules [all]");
    refuses("devices", "junk", "usage");
    /* vadd is not instrumented: each xpti command gives the one note. */
    says("xpti", "", "no XPTI table");
    refuses("xpti tasks", "", "no XPTI table");
    refuses("xpti uid", "0x1", "no XPTI table");
    refuses("xpti allocations", "all", "no XPTI table");
}

int main(int argc, char **argv)
{
    struct conf_app app;
    char err[256] = "";
    struct rsp_event ev;
    struct rsp_process_info pi = {0, 0};

    /* The target says "Detached from device [...]" on stderr. Written
     * straight into the log beside the TAP driver's own lines, it once cut
     * a result line in two (.ci/run then counts one result fewer in the log
     * than in the .trs); through stdout, whole lines reach the driver in
     * order (tap.h flushes each of its lines). */
    setvbuf(stdout, NULL, _IOLBF, 0);
    dup2(STDOUT_FILENO, STDERR_FILENO);
    conf_init(argc, argv, 120);
    tap_plan(85);
    conf_set_pace(200);
    if (!tap_ok(tgt_target_new(&t, err, sizeof(err)) == 0, "tgt_target_new: %s", err))
        return tap_done();
    before_attach();
    attach_missing();
    if (!tap_ok(conf_app_start_ready(&app, 1, (const char *const[]){"vadd", NULL}) == 0,
                "debuggee ready"))
        goto out;
    memset(&ev, 0, sizeof(ev));
    if (!tap_ok(t.ops->attach(t.ctx, (uint32_t)app.pid, &ev, err, sizeof(err)) == 0 &&
                    t.ops->process_at(t.ctx, 0, &pi) == 0 && pi.nthreads > 0,
                "attach: %u threads: %s", pi.nthreads, err))
        goto out_app;
    err[0] = 0;
    tap_ok(t.ops->attach(t.ctx, (uint32_t)app.pid, &ev, err, sizeof(err)) < 0 &&
               strstr(err, "Already attached"),
           "a second attach: %s", err);
    bad_arguments(pi.nthreads);
    more_bad_arguments();
    launcher_offers_programs();
    monitor_commands();
    with_module(&app);
    err[0] = 0;
    tap_ok(t.ops->detach(t.ctx, 1, err, sizeof(err)) == 0, "detach: %s", err);
    tap_ok(t.ops->process_count(t.ctx) == 0, "nothing is attached afterwards");
    says("threads", "", "no device is attached");
    says("modules", "all", "no device is attached");
    says("devices", "", "no device is attached");
    refuses("thread", "1.1", "1.1");
out_app:
    conf_app_send(&app, "go");
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", 20000, NULL, 0),
           "the application finishes");
    conf_app_finish(&app, 5000);
    conf_app_kill(&app);
out:
    tgt_target_free(&t);
    return tap_done();
}
