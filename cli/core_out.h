/* SPDX-License-Identifier: MIT */
/* zestub dump --core FILE: a GPU core file per device that Intel's GDB
 * opens with `target core FILE` (format: doc/core-format.md). */
#ifndef ZESTUB_CLI_CORE_OUT_H
#define ZESTUB_CLI_CORE_OUT_H

#include "sessions/sess.h"

/* Writes one core per device with stopped threads, while they are still
 * stopped: PATH for a single device, PATH.N (N the device's position in
 * the dump) when there are several. Each is written to NAME.partial and
 * renamed once whole. 0, or -1 with the reason on stderr. */
int core_write_all(struct sess_manager *m, const char *path);

#endif
