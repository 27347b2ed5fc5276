/* SPDX-License-Identifier: MIT */
/* vRun for the server: launch/'s programs (launch_run.h) handed to the
 * target as its launcher (target/intelgt.h), so gdbstub and target never
 * call up into cli/ and launch/ knows nothing of GDB. */
#ifndef ZESTUB_CLI_SERVE_LAUNCHER_H
#define ZESTUB_CLI_SERVE_LAUNCHER_H

#include <stdbool.h>

struct rsp_target;
struct launch_runner;

/* A runner (launch_runner_new(stdio_away)) set as tgt's launcher; NULL
 * when out of memory. Freed with launch_runner_free after the target. */
struct launch_runner *cli_serve_launcher(struct rsp_target *tgt, bool stdio_away);

#endif
