/* SPDX-License-Identifier: MIT */
/* Stale debug endpoints: the socket a process leaves behind when it is
 * killed (SIGKILL runs no atexit handler). */
#ifndef GTSIM_DBG_STALE_H
#define GTSIM_DBG_STALE_H

/* Removes the PID.sock sockets in dir (the runtime directory,
 * gtsim_dbg_runtime_dir) that belong to this user and whose pid no longer
 * exists. Best effort: errors leave a file where it is. */
void gtsim_dbg_remove_stale(const char *dir);

#endif
