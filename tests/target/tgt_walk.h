/* SPDX-License-Identifier: MIT */
/* What the tests of a client walking many stopped threads share
 * (test_tgt_regkeep, test_tgt_prefetch): a debuggee of 2,048 running
 * hardware threads attached through the target, a client's read of one
 * thread's r0, and the GRF reads the driver was asked for, counted by the
 * host thread that asked. */
#ifndef ZESTUB_TESTS_TARGET_TGT_WALK_H
#define ZESTUB_TESTS_TARGET_TGT_WALK_H

#include <stdatomic.h>
#include <stdint.h>

#include "gdbstub/target.h"
#include "tests/conformance/conf_util.h"

/* Room for any one register (a GRF register is 64 bytes on xehpc). */
#define WALK_REG_BYTES 256
/* Threads of the debuggee: one work-group each. */
#define WALK_GROUPS 2048

/* zetDebugReadRegisters calls for the GRF: by the thread that called
 * walk_start (the client's), and by any other (a reader ahead). */
extern atomic_ulong walk_grf_main, walk_grf_other;

/* The target, a vadd of WALK_GROUPS running groups on a device of that
 * many threads (slow enough to be running when the attach stops them
 * all), attached; pi its device process. Bails out (TAP) on failure. */
void walk_start(struct rsp_target *t, struct conf_app *app, struct rsp_process_info *pi);
/* Detaches, ends the debuggee, frees the target; the detach's result. */
int walk_finish(struct rsp_target *t, struct conf_app *app, char *err, size_t errlen);
/* r0 (register 0 of the catalog, the GRF's first) of thread tid, as a
 * client reads it: 0 or the target's error. */
int walk_read_r0(struct rsp_target *t, uint32_t tid, uint8_t r0[WALK_REG_BYTES]);

#endif
