/* SPDX-License-Identifier: MIT */
/* One debugger session on gtsim's debug wire, served by the endpoint's own
 * connection loop (gtsim/dbg_server.c) in the calling thread, its bytes kept
 * in memory: no socket, no accept, no thread. fuzz_gtsim_wire uses it for
 * most inputs (a real connection costs two threads and a dozen system
 * calls, and it was 30x slower). Programs using it link with
 * -Wl,--wrap=read,--wrap=send,--wrap=close. */
#ifndef ZESTUB_TESTS_FUZZ_GTSIM_WIRE_DIRECT_H
#define ZESTUB_TESTS_FUZZ_GTSIM_WIRE_DIRECT_H

#include <stddef.h>
#include <stdint.h>

/* Serves a debugger whose bytes are data (their end is the debugger
 * closing its side) against the endpoint gtsim started in this process.
 * *out and *out_len: what the debuggee sent (valid until the next call).
 * 0 when the debuggee ended the connection, -1 when it did not or sent
 * more than any sane exchange (64 MiB). */
int gtsim_wire_direct_session(const uint8_t *data, size_t size, const uint8_t **out,
                              size_t *out_len);

#endif
