/* SPDX-License-Identifier: MIT */
/* vRun's seam: starting, releasing and killing a program is the caller's
 * (cli/ owns launch mode, above this layer), so the target's programs
 * table only forwards to the launcher it was given, and is offered only
 * once there is one. */
#include <errno.h>

#include "target/tgt_int.h"

static int create_program(void *ctx, const struct rsp_run_request *req, uint32_t *host_pid,
                          char *err, size_t errlen)
{
    struct tgt *t = ctx;
    return t->launcher.start(t->launcher.arg, req, host_pid, err, errlen);
}

static void release_program(void *ctx, uint32_t host_pid, bool attached)
{
    struct tgt *t = ctx;
    if (t->launcher.release)
        t->launcher.release(t->launcher.arg, host_pid, attached);
}

static int kill_program(void *ctx, uint32_t host_pid, char *err, size_t errlen)
{
    struct tgt *t = ctx;
    if (!t->launcher.kill) {
        tgt_say(err, errlen, "this server cannot kill the programs it starts");
        return -ENOSYS;
    }
    return t->launcher.kill(t->launcher.arg, host_pid, err, errlen);
}

static int program_status(void *ctx, uint32_t host_pid, int *code, int *signal)
{
    struct tgt *t = ctx;
    return t->launcher.status ? t->launcher.status(t->launcher.arg, host_pid, code, signal)
                              : -ENOSYS;
}

static const struct rsp_programs_ops programs = {
    .create = create_program,
    .release = release_program,
    .kill = kill_program,
    .program_status = program_status,
};

void tgt_target_set_launcher(struct rsp_target *tgt, const struct tgt_launcher *launcher)
{
    struct tgt *t = tgt->ctx;
    if (!t || !launcher)
        return;
    t->launcher = *launcher;
    t->ops.programs = launcher->start ? &programs : NULL;
}
