/* SPDX-License-Identifier: MIT */
/* The target's launcher (serve_launcher.h): each call forwarded to the
 * runner, the exit status in the protocol's terms. */
#include "cli/serve_launcher.h"

#include <signal.h>
#include <sys/wait.h>

#include "launch/launch_run.h"
#include "target/intelgt.h"

static int start(void *arg, const struct rsp_run_request *req, uint32_t *host_pid, char *err,
                 size_t errlen)
{
    return launch_runner_start(arg, req->argv, req->env, req->nenv, req->cwd, host_pid, err,
                               errlen);
}

static void release(void *arg, uint32_t host_pid, bool attached)
{
    launch_runner_release(arg, host_pid, attached);
}

static int kill_program(void *arg, uint32_t host_pid, char *err, size_t errlen)
{
    return launch_runner_kill(arg, host_pid, err, errlen);
}

/* GDB's number for a Linux signal that ends a process by default (the
 * protocol's X packet uses GDB's numbering; 1-6, 8, 9, 11, 13-15 agree). */
static int gdb_signal(int sig)
{
    static const int map[][2] = {{SIGBUS, 10},  {SIGUSR1, 30},   {SIGUSR2, 31},
                                 {SIGSYS, 12},  {SIGXCPU, 24},   {SIGXFSZ, 25},
                                 {SIGPROF, 27}, {SIGVTALRM, 26}, {SIGIO, 23}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (map[i][0] == sig)
            return map[i][1];
    return sig;
}

static int status(void *arg, uint32_t host_pid, int *code, int *signal)
{
    int wstatus, rc = launch_runner_status(arg, host_pid, &wstatus);
    if (rc != 0)
        return rc;
    *signal = WIFSIGNALED(wstatus) ? gdb_signal(WTERMSIG(wstatus)) : 0;
    *code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 0;
    return 0;
}

struct launch_runner *cli_serve_launcher(struct rsp_target *tgt, bool stdio_away)
{
    struct launch_runner *r = launch_runner_new(stdio_away);
    struct tgt_launcher l = {start, release, kill_program, status, r};
    if (!r)
        return NULL;
    tgt_target_set_launcher(tgt, &l);
    return r;
}
