/* SPDX-License-Identifier: MIT */
/* The handshake between zestub's launch mode (launch.c) and the library it
 * preloads into the program (launch_hold.c). zestub passes one end of a
 * socket pair in the program's environment; the first zeModuleCreate of
 * the program writes "ready PID\n" on it and blocks until zestub, attached
 * by then, writes "go\n" (or closes its end). */
#ifndef ZESTUB_LAUNCH_LAUNCH_PROTO_H
#define ZESTUB_LAUNCH_LAUNCH_PROTO_H

/* The descriptor number of the program's end of the socket pair. */
#define LAUNCH_ENV_FD "ZESTUB_LAUNCH_FD"
/* Its inode: a descriptor of that number that is not this socket (a child
 * that closed it and opened something else) is never written to. */
#define LAUNCH_ENV_INO "ZESTUB_LAUNCH_INO"
/* Where zestub finds the library (overrides the build and install paths). */
#define LAUNCH_ENV_LIB "ZESTUB_LAUNCH_LIB"

#define LAUNCH_MSG_READY "ready"
#define LAUNCH_MSG_GO "go\n"

#endif
