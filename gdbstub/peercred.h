/* SPDX-License-Identifier: MIT */
/* Who is on the other end of a client socket. Whoever connects to the debug
 * port reads and writes the GPU process's memory and registers, and
 * 127.0.0.1 is reachable by every local user of a shared login or compute
 * node; so the server accepts only a peer of its own uid (or root).
 *
 * Unix sockets say it directly (SO_PEERCRED). For TCP over loopback, the
 * kernel's socket tables (/proc/net/tcp, /proc/net/tcp6) list the client's
 * own socket, whose local address is our peer's address and whose remote
 * address is ours, with the uid that owns it. A peer on another machine is
 * in no local table: its uid cannot be known. */
#ifndef ZESTUB_GDBSTUB_PEERCRED_H
#define ZESTUB_GDBSTUB_PEERCRED_H

#include <stddef.h>
#include <sys/types.h>

/* 0 with *uid set; -ENOENT when the peer is not a process of this machine
 * (or has already gone); another negative errno when the lookup failed.
 * `proc_net` is the folder holding tcp/tcp6 ("/proc/net" except in tests). */
int rsp_peer_uid(int fd, const char *proc_net, uid_t *uid);

/* 0 when a peer of that uid may connect to a server run by `self`; else
 * -EACCES with a sentence for the log in err. */
int rsp_peer_allowed(uid_t peer, uid_t self, char *err, size_t errlen);

#endif
