/* SPDX-License-Identifier: MIT */
/* vRun (GDB's `run` over target extended-remote, `zestub --multi`): the
 * programs the server starts. Programs start as in launch mode (held in
 * their first zeModuleCreate, program debugging on) and are reaped as they
 * end; those still running when the server ends are killed, as gdbserver
 * kills the programs it started. cli/serve_launcher.c hands these to the
 * target as its launcher (target/intelgt.h); nothing here knows GDB. */
#ifndef ZESTUB_LAUNCH_LAUNCH_RUN_H
#define ZESTUB_LAUNCH_LAUNCH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct launch_runner;

/* How long a started program may take to create its first module. */
#define LAUNCH_RUN_HOLD_TIMEOUT_MS 60000

/* stdio_away: the server speaks RSP on zestub's stdin/stdout (COMM "-"):
 * the programs' stdin is /dev/null, their stdout zestub's stderr. NULL
 * when out of memory. */
struct launch_runner *launch_runner_new(bool stdio_away);
/* After the target is freed (its devices detached): kills and reaps what
 * still runs. */
void launch_runner_free(struct launch_runner *r);

/* Starts argv (argv[0] the program, NULL-terminated) with the client's
 * environment changes env[0..nenv) ("NAME=VALUE" sets, "NAME" unsets) in
 * directory cwd (NULL: zestub's own), and waits until it is held:
 * *host_pid is the process that announced itself. 0, or a negative errno
 * and err says why (the program ended before its first module, or created
 * none within LAUNCH_RUN_HOLD_TIMEOUT_MS and was killed). */
int launch_runner_start(struct launch_runner *r, char *const *argv, char *const *env, size_t nenv,
                        const char *cwd, uint32_t *host_pid, char *err, size_t errlen);
/* Lets a held program go on once attached; one nothing attached to is
 * killed. */
void launch_runner_release(struct launch_runner *r, uint32_t host_pid, bool attached);
/* Kills and reaps a program it started: 0, or -ESRCH and err says so. */
int launch_runner_kill(struct launch_runner *r, uint32_t host_pid, char *err, size_t errlen);
/* How a released program ended: its wait status in *wstatus (waitpid's),
 * 0; -ENOENT when it is not one it started and released, or it was a
 * process the program started that announced itself; -EAGAIN when it has
 * not ended within a second (the driver's exit may be a moment ahead of
 * the reaper). */
int launch_runner_status(struct launch_runner *r, uint32_t host_pid, int *wstatus);

#endif
