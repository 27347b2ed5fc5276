/* SPDX-License-Identifier: MIT */
/* What a client of another user may do. With --allow-any-user, a local
 * user other than the server's (and not root) may connect; debugging the
 * attached process is what the flag is for, but two requests would do
 * more than that, as the server's user (root, often): vRun starts any
 * program, and `monitor core FILE` writes a file wherever the server may.
 * Such a client is "confined": vRun is refused and files are written only
 * inside the server's working directory, unless the user opted in
 * (--allow-any-user-unconfined). The transport decides it per connection
 * (rsp_conn.confined); the server tells the target which client it serves
 * (rsp_target_ops.client), so the target's monitor commands, which get no
 * connection, know it without any state here. */
#ifndef ZESTUB_GDBSTUB_CONFINE_H
#define ZESTUB_GDBSTUB_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* 0 when a file at path (relative to the current directory or absolute)
 * would be inside dir: its directory, resolved (symbolic links and ".."
 * followed), is dir or below it, and its last component is a name, not
 * "." or "..". Otherwise -EACCES (or the errno that stopped the
 * resolution) with a sentence in why. dir NULL: the current directory. */
int rsp_path_inside(const char *dir, const char *path, char *why, size_t whylen);

/* For a command about to write path for a client (confined, and its
 * peer's uid): 0 when it is not confined or path is inside the working
 * directory; else negative with why ("CMD: ..."). */
int rsp_confine_check_write(bool confined, uid_t uid, const char *cmd, const char *path, char *why,
                            size_t whylen);

#endif
