/* SPDX-License-Identifier: MIT */
/* Launch mode's signals: the program zestub started gets the ones meant
 * for it. Process-wide (signal handlers), so it lives in cli/, not in
 * launch/. */
#ifndef ZESTUB_CLI_FORWARD_SIGNALS_H
#define ZESTUB_CLI_FORWARD_SIGNALS_H

#include <sys/types.h>

/* SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to zestub are
 * passed to child (a terminal's ^C already reaches both: it is not sent
 * twice); zestub itself goes on and detaches cleanly. For SIGINT and
 * SIGTERM a byte is also written to wake_fd (>= 0) so that a server loop
 * ends. */
void cli_forward_signals(pid_t child, int wake_fd);

#endif
