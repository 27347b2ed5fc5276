/* SPDX-License-Identifier: MIT */
/* zestub as a GDB server, with gdbserver's spellings so Intel's GDB can
 * start it (INTELGT_AUTO_ATTACH_GDBSERVER_PATH):
 *   zestub [OPTIONS] COMM --attach PID     zestub [OPTIONS] --attach COMM PID
 *   zestub [OPTIONS] --multi COMM          (target extended-remote)
 * COMM: [HOST]:PORT (127.0.0.1 unless HOST is given), unix:PATH, or "-"
 * (stdin/stdout). Options: cli_serve_usage(). COMM is opened before the
 * attach, so a busy port never leaves the debuggee attached for nothing. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/duration.h"
#include "cli/forward_signals.h"
#include "cli/serve_launcher.h"
#include "launch/launch.h"
#include "launch/launch_run.h"
#include "gdbstub/server.h"
#include "target/intelgt.h"
#include "gdbstub/transport.h"

/* The self-pipe SIGINT/SIGTERM write to, so the server loop ends cleanly
 * (resuming and detaching) instead of dying with threads stopped. */
static int wake_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    char c = (char)sig;
    if (write(wake_pipe[1], &c, 1) < 0) {
        /* nothing more can be done in a signal handler */
    }
}

void cli_serve_usage(FILE *f)
{
    fprintf(f, "usage: zestub [OPTIONS] COMM --attach PID\n"
               "       zestub [OPTIONS] COMM -- PROGRAM [ARGS...]\n"
               "       zestub [OPTIONS] --multi COMM\n"
               "COMM is [HOST]:PORT (host 127.0.0.1 unless given), unix:PATH, or - for\n"
               "stdin/stdout. Then, in GDB: target remote :PORT (or extended-remote and\n"
               "attach PID). With PROGRAM, zestub starts it with program debugging on,\n"
               "attaches before its first module is created (that load is reported like\n"
               "any other) and exits with the program's exit status.\n"
               "Options:\n"
               "  --attach PID         attach to every GPU device of PID before serving\n"
               "  --multi              serve target extended-remote: GDB attaches itself\n"
               "                       (attach PID) or starts a program (run, after set\n"
               "                       remote exec-file PATH)\n"
               "  --once               serve one client, then exit (needs --attach,\n"
               "                       --multi or a PROGRAM; implied by a PROGRAM\n"
               "                       without --multi)\n"
               "  --log-level LEVEL    error, warning (default), info (connections, attach,\n"
               "                       interrupts, module loads, progress of an attach or\n"
               "                       thread list that takes over a second) or debug\n"
               "                       (every resume and device event), on stderr\n"
               "  --library-ack-timeout DURATION\n"
               "                       a module load GDB was told about and did not\n"
               "                       acknowledge (vAck) in time is let go (default 60 s,\n"
               "                       0: wait forever; 500ms, 10s, 2m, 1h or seconds)\n"
               "  --allow-any-user     let any local user connect (default: only processes\n"
               "                       of your own user, or root, may). Another user's\n"
               "                       client reads and changes the GPU process (its\n"
               "                       device memory and registers, shared host memory\n"
               "                       too), stops, resumes and detaches it, and with\n"
               "                       --multi attaches to any process you may debug; it\n"
               "                       may not start programs (run) nor write monitor\n"
               "                       core files outside this directory. unix:PATH:\n"
               "                       the socket is made 0666 (its directories must be\n"
               "                       searchable by others)\n"
               "  --allow-any-user-unconfined\n"
               "                       --allow-any-user, and other users' clients may\n"
               "                       also start programs and write files anywhere, as\n"
               "                       you: a shell as your user for every local user\n"
               "  --allow-remote       needed to listen on an address other machines can\n"
               "                       reach (decided on every address HOST resolves to);\n"
               "                       the remote protocol has no authentication: anyone\n"
               "                       who reaches the port can start programs as you\n"
               "  --debug-rsp          every packet in and out, on stderr\n"
               "  --debug[=all,threads,event-loop,remote], --remote-debug, --debug-format=X\n"
               "                       gdbserver's spellings, for Intel's GDB auto-attach:\n"
               "                       --log-level debug, and remote: --debug-rsp\n"
               "  --help               this help\n");
}

/* A usage error: one sentence and where to look, not the whole help. */
static int usage_error(const char *what, const char *arg)
{
    if (arg)
        fprintf(stderr, "zestub: %s '%s'\n", what, arg);
    else
        fprintf(stderr, "zestub: %s\n", what);
    fprintf(stderr, "try 'zestub --help'\n");
    return 2;
}

/* What the command line asked for. */
struct serve_args {
    struct rsp_server_config cfg;
    const char *comm, *pidarg;
    bool attach, allow_any_user, allow_remote, unconfined;
    char **program; /* launch mode: what follows "--" (or COMM) */
};

/* The value of `--NAME VALUE` or `--NAME=VALUE` (name_len counts the dashes),
 * "" when it is missing. */
static const char *option_value(int argc, char **argv, int *i, size_t name_len)
{
    const char *a = argv[*i];
    return a[name_len] == '=' ? a + name_len + 1 : (*i + 1 < argc ? argv[++*i] : "");
}

static bool parse_ack_timeout(const char *v, uint64_t *ms)
{
    double sec = 0;
    if (cli_parse_duration(v, 86400 * 365, true, &sec) != 0) {
        fprintf(stderr,
                "zestub: --library-ack-timeout takes a duration, " CLI_DURATION_SYNTAX
                " (0: wait forever), not '%s'\n",
                v);
        return false;
    }
    *ms = (uint64_t)(sec * 1000);
    return true;
}

/* gdbserver's debug options, which Intel's GDB passes on from
 * INTELGT_AUTO_ATTACH_GDBSERVER_ARGS: --debug[=all,threads,event-loop,
 * remote] (threads and event-loop are our --log-level debug, remote is
 * --debug-rsp; a leading '-' turns one off, as in gdbserver),
 * --remote-debug and --event-loop-debug (older gdbservers),
 * --debug-format=... (accepted: our lines have no timestamps to add).
 * 1 when a was one of them, 0 when not, 2 for a component we do not know. */
static int gdbserver_debug_option(const char *a, struct rsp_server_config *cfg)
{
    char list[128], *save = NULL;
    if (!strcmp(a, "--debug") || !strcmp(a, "--event-loop-debug")) {
        cfg->log.level = RSP_LOG_DEBUG;
        return 1;
    }
    if (!strcmp(a, "--remote-debug")) {
        cfg->trace = stderr;
        return 1;
    }
    if (!strncmp(a, "--debug-format=", 15))
        return 1;
    if (strncmp(a, "--debug=", 8) != 0)
        return 0;
    snprintf(list, sizeof(list), "%s", a + 8);
    for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        bool off = c[0] == '-';
        const char *name = c + off;
        bool all = !strcmp(name, "all");
        if (!all && strcmp(name, "threads") && strcmp(name, "event-loop") &&
            strcmp(name, "remote")) {
            fprintf(stderr,
                    "zestub: --debug: unknown component '%s' (all, threads, event-loop, "
                    "remote)\n",
                    name);
            return 2;
        }
        if (all || strcmp(name, "remote"))
            cfg->log.level = off ? RSP_LOG_WARNING : RSP_LOG_DEBUG;
        if (all || !strcmp(name, "remote"))
            cfg->trace = off ? NULL : stderr;
    }
    return 1;
}

/* -1: go on serving; otherwise the exit status (usage error or --help). */
static int parse_serve_args(int argc, char **argv, struct serve_args *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int dbg = gdbserver_debug_option(a, &o->cfg);
        if (dbg == 2)
            return 2;
        if (dbg == 1)
            continue;
        if (!strcmp(a, "--once"))
            o->cfg.once = true;
        else if (!strcmp(a, "--multi"))
            o->cfg.multi = true;
        else if (!strcmp(a, "--attach"))
            o->attach = true;
        else if (!strcmp(a, "--allow-any-user"))
            o->allow_any_user = true;
        else if (!strcmp(a, "--allow-any-user-unconfined"))
            o->allow_any_user = o->unconfined = true;
        else if (!strcmp(a, "--allow-remote"))
            o->allow_remote = true;
        else if (!strcmp(a, "--debug-rsp"))
            o->cfg.trace = stderr;
        else if (!strcmp(a, "--log-level") || !strncmp(a, "--log-level=", 12)) {
            const char *v = option_value(argc, argv, &i, 11);
            if (!rsp_log_parse_level(v, &o->cfg.log.level)) {
                fprintf(stderr,
                        "zestub: --log-level takes error, warning, info or debug, not '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--library-ack-timeout") ||
                   !strncmp(a, "--library-ack-timeout=", 22)) {
            if (!parse_ack_timeout(option_value(argc, argv, &i, 21),
                                   &o->cfg.library_ack_timeout_ms))
                return 2;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            cli_serve_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--")) {
            /* COMM -- PROGRAM: the rest is the program's own command line. */
            o->program = argv + i + 1;
            if (!o->program[0])
                return usage_error("-- needs a PROGRAM after it", NULL);
            break;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option", a);
        } else if (!o->comm)
            o->comm = a;
        else if (!o->pidarg)
            o->pidarg = a;
        else
            return usage_error("unexpected argument", a);
    }
    if (o->program && o->attach)
        return usage_error("--attach PID or a PROGRAM to start, not both", NULL);
    /* As gdbserver with a program: one client; when it leaves, the program
     * runs on detached and zestub waits for it (--multi keeps serving). */
    if (o->program && !o->cfg.multi)
        o->cfg.once = true;
    if (!o->comm || (o->attach && !o->pidarg) || (!o->attach && o->pidarg)) {
        cli_serve_usage(stderr);
        return 2;
    }
    /* gdbserver's usage also wants something to serve: without --attach,
     * a PROGRAM or --multi no client could ever attach (plain "target
     * remote" has no attach), so the server would listen for nothing. */
    if (o->cfg.once && !o->attach && !o->cfg.multi && !o->program)
        return usage_error("--once needs --attach PID or --multi: a --once server "
                           "that cannot attach would never serve anything",
                           NULL);
    /* Plain target remote serves what it attached, then ends (gdbserver). */
    o->cfg.end_when_nothing_left = !o->cfg.multi;
    if (!o->attach && !o->cfg.multi && !o->program)
        return usage_error("nothing to serve: give --attach PID, -- PROGRAM, or --multi "
                           "(then attach PID or run from GDB's target extended-remote)",
                           NULL);
    return -1;
}

/* Who can reach the port beyond the user who started us, said out loud
 * (the listener has refused an exposed address without --allow-remote). */
static void warn_exposure(const struct serve_args *o, const struct rsp_listener *l)
{
    char cwd[1024];
    if (l->nonlocal)
        fprintf(stderr,
                "zestub: warning: listening on %s (%s), not only on this machine: the remote "
                "protocol has no authentication, and whoever connects controls the GPU "
                "process and can start programs as you\n",
                o->comm, l->exposed);
    if (!o->allow_any_user)
        return;
    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), "the working directory");
    fprintf(stderr,
            "zestub: warning: --allow-any-user: every local user may connect, read and change "
            "the GPU process's device memory and registers (host memory it shares with the "
            "device too), stop, resume and detach it, and with --multi attach to any process "
            "you may debug\n");
    if (o->unconfined)
        fprintf(stderr, "zestub: warning: --allow-any-user-unconfined: every local user may "
                        "also start any program (run) and write files anywhere, as your user: "
                        "a shell as you for each of them\n");
    else
        fprintf(stderr,
                "zestub: another user's client may not start programs (run) nor write monitor "
                "core files outside %s (--allow-any-user-unconfined would let it)\n",
                cwd);
    if (l->kind == RSP_TRANSPORT_UNIX && l->closed_dir[0])
        fprintf(stderr,
                "zestub: warning: --allow-any-user: %s is 0666, but other users cannot search "
                "%s, so they cannot reach it\n",
                l->path, l->closed_dir);
}

/* SIGINT/SIGTERM wake the server loop through the self-pipe; without a pipe
 * they keep their default action. */
static void install_signal_wakeup(struct rsp_server_config *cfg)
{
    if (pipe2(wake_pipe, O_CLOEXEC) == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        cfg->wake_fd = wake_pipe[0];
    }
}

/* The exit status on failure, 0 once attached. */
static int attach_to_pid(struct rsp_server *srv, const char *pidarg, char *err, size_t errlen)
{
    char *end;
    unsigned long pid = strtoul(pidarg, &end, 10);
    if (*end || pid == 0 || pid > 0x7fffffffUL) {
        fprintf(stderr, "zestub: --attach needs a process id, not '%s'\n", pidarg);
        return 2;
    }
    if (rsp_server_attach(srv, (uint32_t)pid, err, errlen) != 0) {
        fprintf(stderr, "zestub: cannot attach to process %lu:\n%s\n", pid, err);
        cli_doctor_explain(stderr, (unsigned)pid);
        return 1;
    }
    fprintf(stderr, "Attached; pid = %lu\n", pid);
    return 0;
}

/* Listens on COMM before anything touches the debuggee, so a busy port or
 * a bad COMM fails fast. The exit status on failure, 0 when listening. */
static int open_listener(struct rsp_listener *l, const struct serve_args *o, char *err,
                         size_t errlen)
{
    const struct rsp_listen_opts lo = {.allow_remote = o->allow_remote,
                                       .allow_any_user = o->allow_any_user,
                                       .unconfined = o->unconfined};
    int rc = rsp_listen_ex(l, o->comm, &lo, err, errlen);
    if (rc == 0) {
        warn_exposure(o, l);
        return 0;
    }
    fprintf(stderr, "zestub: %s\n", err);
    /* A COMM that does not parse, or an exposed one without
     * --allow-remote, is a usage error; a busy port is not. */
    if (rc == -EINVAL || rc == -ENAMETOOLONG || (rc == -EACCES && l->nonlocal)) {
        fprintf(stderr, "try 'zestub --help'\n");
        return 2;
    }
    return 1;
}

/* Launch mode: starts the program held, attaches, lets it go on. The exit
 * status on failure, 0 once attached; *gone when the program ended before
 * there was anything to attach to. */
static int launch_and_attach(struct rsp_server *srv, const struct serve_args *o, struct launch *l,
                             bool *gone, char *err, size_t errlen)
{
    char how[128];
    /* Over stdio the program must not read or write the RSP stream. */
    if (launch_start(l, o->program, !strcmp(o->comm, "-"), err, errlen) != 0) {
        fprintf(stderr, "zestub: %s\n", err);
        return 1;
    }
    cli_forward_signals(l->child, wake_pipe[1]);
    fprintf(stderr, "Process %s created; pid = %ld\n", o->program[0], (long)l->child);
    if (launch_wait_held(l) == 0) {
        launch_describe_exit(l, how, sizeof(how));
        fprintf(stderr, "zestub: %s %s before it created a Level Zero module: nothing to debug\n",
                o->program[0], how);
        *gone = true;
        return launch_exit_code(l);
    }
    if (rsp_server_attach(srv, (uint32_t)l->target, err, errlen) != 0) {
        fprintf(stderr, "zestub: cannot attach to process %ld:\n%s\n", (long)l->target, err);
        launch_release(l);
        return 1;
    }
    /* Released only now: its first module load reaches the client as any
     * other does, and the program waits in zeModuleCreate for its vAck. */
    launch_release(l);
    fprintf(stderr, "Attached; pid = %ld\n", (long)l->target);
    return 0;
}

/* Launch mode, after serving: the program runs on detached; zestub ends
 * with its status (or with the server's failure). */
static int program_status(struct launch *l, int rc)
{
    char how[128];
    if (l->child <= 0)
        return rc;
    launch_wait_exit(l);
    launch_describe_exit(l, how, sizeof(how));
    fprintf(stderr, "zestub: the program %s\n", how);
    return rc ? rc : launch_exit_code(l);
}

static int serve(struct rsp_server *srv, struct rsp_listener *l, char *err, size_t errlen)
{
    enum rsp_end why = RSP_END_DISCONNECT;
    if (l->kind == RSP_TRANSPORT_TCP)
        fprintf(stderr, "Listening on port %u\n", l->port);
    else if (l->kind == RSP_TRANSPORT_UNIX)
        fprintf(stderr, "Listening on %s\n", l->path);
    int rc = rsp_server_serve(srv, l, &why, err, errlen) == 0 ? 0 : 1;
    if (rc)
        fprintf(stderr, "zestub: %s\n", err);
    else if (why == RSP_END_NOTHING_LEFT)
        fprintf(stderr, "zestub: no device left to debug (the client detached or left, or the "
                        "program ended): exiting; --multi keeps serving\n");
    return rc;
}

int cli_serve(int argc, char **argv)
{
    struct serve_args o = {.cfg = {.wake_fd = -1, .log = {.f = stderr, .level = RSP_LOG_WARNING}}};
    struct rsp_target tgt = {NULL, NULL};
    struct rsp_server *srv = NULL;
    struct rsp_listener l;
    struct launch prog = {.child = -1, .fd = -1};
    struct launch_runner *runner = NULL;
    bool gone = false;
    char err[RSP_ERR_LEN * 4];
    int rc = parse_serve_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    rc = open_listener(&l, &o, err, sizeof(err));
    if (rc != 0)
        return rc;
    if (tgt_target_new(&tgt, err, sizeof(err)) != 0) {
        fprintf(stderr, "zestub: %s\n", err);
        rsp_listener_close(&l);
        return 1;
    }
    tgt_target_set_log(&tgt, &o.cfg.log);
    install_signal_wakeup(&o.cfg);
    if (o.cfg.multi) /* vRun: GDB's run starts programs as launch mode does */
        runner = cli_serve_launcher(&tgt, !strcmp(o.comm, "-"));
    if (rsp_server_new(&tgt, &o.cfg, &srv, err, sizeof(err)) != 0) {
        fprintf(stderr, "zestub: %s\n", err);
        rc = 1;
    } else if (o.program) {
        if ((rc = launch_and_attach(srv, &o, &prog, &gone, err, sizeof(err))) == 0)
            rc = serve(srv, &l, err, sizeof(err));
    } else if (!o.attach || (rc = attach_to_pid(srv, o.pidarg, err, sizeof(err))) == 0) {
        rc = serve(srv, &l, err, sizeof(err));
    }
    rsp_listener_close(&l);
    rsp_server_free(srv);
    tgt_target_free(&tgt);
    launch_runner_free(runner);
    return gone ? rc : program_status(&prog, rc);
}
