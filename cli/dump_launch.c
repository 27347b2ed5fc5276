/* SPDX-License-Identifier: MIT */
/* zestub dump [OPTIONS] -- PROGRAM [ARGS...]: start the program held
 * (launch.c), attach before its first module, wait for the trigger, dump,
 * detach so the program runs on alone, and end with a status that says
 * what happened (doc/dump-format.md, "Launch mode"). Under a job launcher
 * every rank runs one of these; --json takes %r %p %h patterns. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/dump.h"
#include "cli/dump_hang.h"
#include "cli/forward_signals.h"
#include "cli/outpattern.h"
#include "launch/launch.h"
#include "report/dump_out.h"
#include "sessions/sess.h"

/* How long the dump itself may take once the trigger came (the watchdog
 * closes the document 2 s later if a device stops answering). */
#define DUMP_PHASE_S 30.0

struct run {
    const struct dump_opts *o;
    struct launch l;
    struct zd *zd;
    struct sess_manager *m;
    struct dump_out *out;
    double deadline;
    bool dumped;
    bool core_failed;       /* --core was given and a core could not be written */
    struct dump_hang *hang; /* --on hang: the watch, NULL otherwise */
};

/* Human text goes to stderr: the program's stdout stays the program's.
 * 0; DUMP_EXIT_CORE when the file cannot be created (said on stderr); -1
 * otherwise. */
static int open_output(struct run *r)
{
    char path[4096], err[256];
    if (!r->o->json) {
        r->out = dump_out_open_stream(stderr, dump_format(r->o), (uint32_t)r->l.child,
                                      dump_trigger_name(r->o->on), r->zd);
        return r->out ? 0 : -1;
    }
    if (strcmp(r->o->json, "-") == 0) {
        r->out = dump_out_open(r->o->json, REPORT_JSON, (uint32_t)r->l.child,
                               dump_trigger_name(r->o->on), r->zd, err, sizeof(err));
        return r->out ? 0 : -1;
    }
    if (out_rank_name("--json", r->o->json, (long)r->l.child, path, sizeof(path), err,
                      sizeof(err)) != 0) {
        fprintf(stderr, "zestub dump: --json %s\n", err);
        return -1;
    }
    r->out = dump_out_open(path, REPORT_JSON, (uint32_t)r->l.child, dump_trigger_name(r->o->on),
                           r->zd, err, sizeof(err));
    if (!r->out) {
        fprintf(stderr, "zestub dump: cannot write %s: %s; the program is not run\n", path, err);
        return DUMP_EXIT_CORE;
    }
    return 0;
}

/* A descriptor that becomes readable when PID ends (a pidfd: Linux 5.3),
 * or -1 where there is none. */
static int open_exit_fd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

/* Waits for the trigger while watching the program: 0 triggered, 3
 * timeout (only with --timeout), 4 the program ended first. The end is
 * seen at once through a pidfd: under a job launcher the other ranks'
 * exits can bring SIGTERM and SIGKILL within milliseconds, and this
 * rank's record must be written before that. Without a pidfd, every
 * quarter second. */
static int wait_for_trigger(struct run *r)
{
    int exit_fd = open_exit_fd(r->l.child), rc;
    for (;;) {
        double now = dump_now_s(), slice = exit_fd >= 0 ? r->deadline : now + 0.25;
        double until = slice < r->deadline ? slice : r->deadline;
        rc = r->hang ? dump_wait_hang(r->hang, r->m, until, exit_fd)
                     : dump_wait_trigger_or(r->m, r->o->on, until, exit_fd);
        if (rc != 3 && rc != 5)
            break;
        if (rc == 3 && dump_now_s() >= r->deadline)
            break;
        /* The process we attached to may be one the program started. */
        if (launch_poll_exit(&r->l)) {
            rc = 4;
            break;
        }
        if (rc == 5) { /* readable, yet not reaped: back to the slices */
            close(exit_fd);
            exit_fd = -1;
        }
    }
    if (exit_fd >= 0)
        close(exit_fd);
    return rc;
}

/* Attached and released: wait, dump if it comes, let the program go on. */
static int observe(struct run *r)
{
    int rc;
    dump_out_devices(r->out, r->m);
    rc = wait_for_trigger(r);
    if (r->hang) {
        rc = dump_hang_take(r->hang, rc, r->out, r->m, r->o, (uint32_t)r->l.target);
        r->core_failed = rc == DUMP_EXIT_CORE; /* dumped, without its core */
        r->dumped = rc == DUMP_EXIT_HANG || r->core_failed;
        dump_detach(r->zd, r->m);
        /* After the detach: the driver has resumed everything by then. */
        if (r->dumped && r->o->after_hang == AFTER_HANG_KILL) {
            kill(r->l.target, SIGKILL);
            kill(r->l.child, SIGKILL);
        }
        return r->dumped ? 0 : rc;
    }
    if (rc == 0 || rc == 3) {
        double end = dump_now_s() + DUMP_PHASE_S;
        if (rc == 3)
            fprintf(stderr, "zestub dump: no %s within %.0f s; dumping the current state\n",
                    dump_trigger_name(r->o->on), r->o->timeout);
        dump_watchdog_start(end, r->out);
        r->core_failed =
            dump_take(r->out, r->m, r->o, (uint32_t)r->l.target, end) == DUMP_EXIT_CORE;
        r->dumped = true;
    }
    /* Detached, the program runs on at full speed; the manager stays for
     * the statistics of the document. */
    dump_detach(r->zd, r->m);
    return rc;
}

static int finish(struct run *r, int rc)
{
    int code, sig = 0, status;
    bool lost;
    char how[128];
    launch_wait_exit(&r->l);
    code = launch_exit_code(&r->l);
    if (r->l.exited && WIFSIGNALED(r->l.status))
        sig = WTERMSIG(r->l.status);
    launch_describe_exit(&r->l, how, sizeof(how));
    if (rc == 1)
        status = DUMP_EXIT_START;
    else if (rc == 3)
        status = DUMP_EXIT_TIMEOUT;
    else if (rc == DUMP_EXIT_NO_INTERRUPT) /* the hang could not be judged: said, not hidden */
        status = rc;
    else if (r->dumped)
        status = r->core_failed ? DUMP_EXIT_CORE : r->hang ? DUMP_EXIT_HANG : DUMP_EXIT_DUMPED;
    else
        status = code;
    dump_out_program(r->out, r->o->program[0], code, sig, r->dumped);
    /* Said after the record is closed: a record that could not be written
     * (its reason is on stderr by then) must not be called written. */
    lost = dump_out_close(r->out, r->m, status, rc != 3) != 0;
    if (lost)
        status = DUMP_EXIT_CORE;
    fprintf(stderr, "zestub dump: %s %s%s%s\n", r->o->program[0], how,
            r->dumped ? (r->hang ? "; it hung" : "; it faulted") : "",
            lost        ? ", the record could not be written"
            : r->dumped ? ", the dump was written"
            : rc == 1   ? ""
            : rc == DUMP_EXIT_NO_INTERRUPT
                ? "; whether it hung could not be told (the driver refused the interrupt)"
            : r->hang ? " without a hang: nothing dumped"
                      : " without a fault: nothing dumped");
    if (r->m)
        sess_detach_all(r->m);
    zd_close(r->zd);
    return status;
}

int cli_dump_launch(const struct dump_opts *o)
{
    struct run r = {.o = o};
    struct dump_hang hang;
    char err[1024], host[256], check[4096];
    struct zd_error zerr;
    int rc;
    /* A bad pattern is a usage error, found before anything starts. */
    if (o->json && strcmp(o->json, "-") &&
        out_expand(o->json, 0, 0, check, sizeof(check), err, sizeof(err)) != 0) {
        fprintf(stderr, "zestub dump: --json %s\n", err);
        return DUMP_EXIT_USAGE;
    }
    r.deadline = dump_now_s() + (o->timeout_given ? o->timeout : 1e9);
    if (zd_open(&r.zd, &zerr) != 0) {
        fprintf(stderr, "zestub dump: %s\n", zerr.msg);
        return DUMP_EXIT_START;
    }
    if (launch_start(&r.l, o->program, false, err, sizeof(err)) != 0) {
        fprintf(stderr, "zestub dump: %s\n", err);
        zd_close(r.zd);
        return DUMP_EXIT_START;
    }
    cli_forward_signals(r.l.child, -1);
    if ((rc = open_output(&r)) != 0) {
        /* Nowhere to write: the program must not run unobserved. */
        kill(r.l.child, SIGKILL);
        launch_wait_exit(&r.l);
        zd_close(r.zd);
        return rc == DUMP_EXIT_CORE ? rc : DUMP_EXIT_START;
    }
    out_host(host, sizeof(host));
    dump_out_launch(r.out, out_rank(NULL), host);
    if (launch_wait_held(&r.l) == 0)
        return finish(&r, 4); /* exited before its first module */
    dump_remove_old_cores(o, (uint32_t)r.l.target);
    rc = dump_attach(r.zd, (uint32_t)r.l.target, r.deadline, &r.m, r.out);
    if (rc == 0 && o->on == ON_HANG) {
        dump_hang_init(&hang, (uint32_t)r.l.target, o->hang_s);
        hang.after = o->after_hang;
        r.hang = &hang;
    }
    launch_release(&r.l);
    if (rc != 0) {
        fprintf(stderr, "zestub dump: %s runs on without zestub\n", o->program[0]);
        return finish(&r, DUMP_EXIT_START);
    }
    rc = finish(&r, observe(&r));
    if (r.hang)
        dump_hang_fini(r.hang);
    return rc;
}
