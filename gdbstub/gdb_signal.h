/* SPDX-License-Identifier: MIT */
/* GDB's own numbering of signals, which the protocol's replies use (T, X):
 * it is not Linux's. Whoever reports how a program ended (target/ for a
 * device's application, cli/ for a program the launcher started) converts
 * here, so the table exists once. */
#ifndef ZESTUB_GDBSTUB_GDB_SIGNAL_H
#define ZESTUB_GDBSTUB_GDB_SIGNAL_H

/* GDB's number for a Linux signal; a signal GDB numbers the same way
 * (1-6, 8, 9, 11, 13-15 among those that end a process) is returned as
 * is, and so is one the table does not know. */
int rsp_gdb_signal(int linux_signal);

#endif
