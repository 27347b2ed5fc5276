/* SPDX-License-Identifier: MIT */
/* One debugger session on gtsim's debug wire, served by the endpoint's own
 * connection loop (gtsim/dbg_server.c) in the calling thread, its bytes kept
 * in memory: no socket, no accept, no thread. fuzz_gtsim_wire uses it for
 * most inputs (a real connection costs two threads and a dozen system
 * calls, and it was 30x slower). The descriptors the debugger passes for
 * its event stream are stand-ins too: numbers the harness owns, whose
 * sends it keeps and whose closes it counts. Programs using it link with
 * -Wl,--wrap=recvmsg,--wrap=sendmsg,--wrap=close. */
#ifndef ZESTUB_TESTS_FUZZ_GTSIM_WIRE_DIRECT_H
#define ZESTUB_TESTS_FUZZ_GTSIM_WIRE_DIRECT_H

#include <stddef.h>
#include <stdint.h>

/* A message of the debugger's bytes that comes with descriptors (the
 * debugger's end of an event stream, SCM_RIGHTS): bytes [at, end). */
struct gtsim_wire_pass {
    size_t at, end;
    unsigned count; /* 1, or 2 as a hostile debugger may send */
};

/* What the debuggee did with one session. The buffers stay valid until
 * the next call. */
struct gtsim_wire_result {
    const uint8_t *out; /* the connection: what the debuggee sent */
    size_t out_len;
    const uint8_t *events; /* everything sent on the passed descriptors */
    size_t events_len;
    unsigned passed;    /* descriptors delivered to the debuggee */
    unsigned left_open; /* of them, not closed when the session ended */
    unsigned misused;   /* sends or closes on one it had closed already */
};

/* Serves a debugger whose bytes are data (their end is the debugger
 * closing its side) against the endpoint gtsim started in this process;
 * passes (in order of at, each a whole message) say which bytes bring
 * descriptors. 0 when the debuggee ended the connection, -1 when it did
 * not or sent more than any sane exchange (64 MiB). */
int gtsim_wire_direct_session(const uint8_t *data, size_t size,
                              const struct gtsim_wire_pass *passes, size_t npasses,
                              struct gtsim_wire_result *res);

#endif
