/* SPDX-License-Identifier: MIT */
/* The real target: rsp_target_ops on top of sessions/ (and, through it,
 * zetdebug and Level Zero). This is gdbstub's one view of the debug model. */
#ifndef ZESTUB_TARGET_INTELGT_H
#define ZESTUB_TARGET_INTELGT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdbstub/log.h"
#include "gdbstub/target.h"

/* Opens Level Zero (zeInit and device discovery); attaching happens on the
 * client's vAttach, or at once with tgt_target_attach. */
int tgt_target_new(struct rsp_target *out, char *err, size_t errlen);
void tgt_target_free(struct rsp_target *t);
/* Where module loads, device exits and failed cleanups are logged (the
 * log is copied; default: nothing). */
void tgt_target_set_log(struct rsp_target *t, const struct rsp_log *log);

/* vRun: starting a program belongs to the caller (cli/'s launch mode);
 * the target's programs table (gdbstub/target.h says what each function
 * does) forwards to these. The table is offered only once a launcher with
 * a start function is set: without one, the server does not offer vRun. */
struct tgt_launcher {
    int (*start)(void *arg, const struct rsp_run_request *req, uint32_t *host_pid, char *err,
                 size_t errlen);
    void (*release)(void *arg, uint32_t host_pid, bool attached);
    int (*kill)(void *arg, uint32_t host_pid, char *err, size_t errlen);
    int (*status)(void *arg, uint32_t host_pid, int *code, int *signal);
    void *arg;
};
void tgt_target_set_launcher(struct rsp_target *t, const struct tgt_launcher *launcher);

#endif
