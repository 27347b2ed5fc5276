/* SPDX-License-Identifier: MIT */
/* The zestub sub-commands. Each takes the arguments after its name and
 * returns the process exit status. */
#ifndef ZESTUB_CLI_H
#define ZESTUB_CLI_H

#include <stdint.h>
#include <stdio.h>

int cli_devices(int argc, char **argv);
int cli_dump(int argc, char **argv);
/* zestub merge FILES...: one report from a job's per-rank dumps. */
int cli_merge(int argc, char **argv);
/* zestub doctor [--json] [PID]: the setup checked, what to fix. */
int cli_doctor(int argc, char **argv);
/* After a failed attach: what zestub doctor finds wrong with process pid
 * beyond what the attach sentence says (its user, its GTSIM_CONFIG), one
 * "zestub doctor: ..." line and its fix per failed check on f; how many. */
int cli_doctor_explain(FILE *f, unsigned pid);
/* The GDB server; argv is the whole command line. */
int cli_serve(int argc, char **argv);
/* The server's options, for its --help and zestub --help. */
void cli_serve_usage(FILE *f);

#endif
