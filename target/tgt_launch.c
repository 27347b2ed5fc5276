/* SPDX-License-Identifier: MIT */
/* vRun's seam: starting, releasing and killing a program is the caller's
 * (cli/ owns launch mode, above this layer), so the target only forwards
 * to the launcher it was given. */
#include <errno.h>

#include "target/tgt_int.h"

void tgt_target_set_launcher(struct rsp_target *tgt, const struct tgt_launcher *launcher)
{
    struct tgt *t = tgt->ctx;
    if (t && launcher)
        t->launcher = *launcher;
}

int tgt_create_program(void *ctx, const struct rsp_run_request *req, uint32_t *host_pid, char *err,
                       size_t errlen)
{
    struct tgt *t = ctx;
    if (!t->launcher.start) {
        tgt_say(err, errlen, "this server does not start programs (zestub --multi does)");
        return -ENOSYS;
    }
    return t->launcher.start(t->launcher.arg, req, host_pid, err, errlen);
}

void tgt_release_program(void *ctx, uint32_t host_pid, bool attached)
{
    struct tgt *t = ctx;
    if (t->launcher.release)
        t->launcher.release(t->launcher.arg, host_pid, attached);
}

int tgt_kill_program(void *ctx, uint32_t host_pid, char *err, size_t errlen)
{
    struct tgt *t = ctx;
    if (!t->launcher.kill) {
        tgt_say(err, errlen, "this server does not start programs");
        return -ENOSYS;
    }
    return t->launcher.kill(t->launcher.arg, host_pid, err, errlen);
}

int tgt_program_status(void *ctx, uint32_t host_pid, int *code, int *signal)
{
    struct tgt *t = ctx;
    return t->launcher.status ? t->launcher.status(t->launcher.arg, host_pid, code, signal)
                              : -ENOSYS;
}
