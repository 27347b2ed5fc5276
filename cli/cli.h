/* SPDX-License-Identifier: MIT */
/* The zestub sub-commands. Each takes the arguments after its name and
 * returns the process exit status. */
#ifndef ZESTUB_CLI_H
#define ZESTUB_CLI_H

int cli_devices(int argc, char **argv);
int cli_dump(int argc, char **argv);
/* The GDB server; argv is the whole command line. */
int cli_serve(int argc, char **argv);

#endif
