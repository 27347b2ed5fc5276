/* SPDX-License-Identifier: MIT */
/* The target's launcher (serve_launcher.h): each call forwarded to the
 * runner, the exit status in the protocol's terms. */
#include "cli/serve_launcher.h"

#include <sys/wait.h>

#include "gdbstub/gdb_signal.h"
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

static int status(void *arg, uint32_t host_pid, int *code, int *signal)
{
    int wstatus, rc = launch_runner_status(arg, host_pid, &wstatus);
    if (rc != 0)
        return rc;
    *signal = WIFSIGNALED(wstatus) ? rsp_gdb_signal(WTERMSIG(wstatus)) : 0;
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
