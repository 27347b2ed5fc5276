/* SPDX-License-Identifier: MIT */
/* vRun (GDB's `run` over target extended-remote, `zestub --multi`): the
 * launcher the target forwards to. Programs start as in launch mode (held
 * in their first zeModuleCreate, program debugging on) and are reaped as
 * they end; those still running when the server ends are killed, as
 * gdbserver kills the programs it started. */
#ifndef ZESTUB_CLI_LAUNCH_RUN_H
#define ZESTUB_CLI_LAUNCH_RUN_H

#include <stdbool.h>

struct rsp_target;
struct launch_runner;

/* How long a started program may take to create its first module. */
#define LAUNCH_RUN_HOLD_TIMEOUT_MS 60000

/* Sets the launcher of tgt (target/intelgt.h). stdio_away: the server
 * speaks RSP on zestub's stdin/stdout (COMM "-"): the programs' stdin is
 * /dev/null, their stdout zestub's stderr. NULL when out of memory. */
struct launch_runner *launch_runner_new(struct rsp_target *tgt, bool stdio_away);
/* After the target is freed (its devices detached): kills and reaps what
 * still runs. */
void launch_runner_free(struct launch_runner *r);

#endif
