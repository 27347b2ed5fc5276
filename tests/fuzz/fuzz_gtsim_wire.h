/* SPDX-License-Identifier: MIT */
/* One hostile debugger's session against the debuggee of
 * gtsim_wire_world.h, and the promises it must keep (fuzz_gtsim_wire.c):
 * what the libFuzzer target runs, and the plain program
 * (fuzz_gtsim_wire_main.c) with it. */
#ifndef ZESTUB_TESTS_FUZZ_FUZZ_GTSIM_WIRE_H
#define ZESTUB_TESTS_FUZZ_FUZZ_GTSIM_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An input's first byte: message k of the rest (counted in the walk of its
 * headers, until one is oversized or cut) brings descriptors when bit k % 7
 * is set, two of them when bit 7 is. A sound debugger's is CTL_SOUND: its
 * first message, ATTACH, brings its event stream. */
#define CTL_SOUND 0x01u
#define CTL_TWO 0x80u

enum promise {
    P_FRAMES,  /* replies on the connection, events on a stream, bounded, whole */
    P_REPLIES, /* one reply per whole request up to DETACH or an oversized header */
    P_ENDS,    /* the connection ends when the input ends */
    P_FDS,     /* every passed descriptor closed by then, none used after */
    P_CLEAN,   /* no session is left in the endpoint afterwards */
    P_COUNT
};

extern const char *const gtsim_wire_promise_name[P_COUNT];

/* What the last session did, for the plain program's checks. */
struct gtsim_wire_last {
    uint32_t first_result; /* of the first reply; UINT32_MAX without one */
    unsigned successes;    /* replies that say SUCCESS */
    long replies, events;  /* -1 if one was malformed */
    size_t out_len;        /* bytes the debuggee sent on the connection */
    bool bare_refused;     /* its first message, an ATTACH without descriptor, was refused */
};
extern struct gtsim_wire_last gtsim_wire_last;

/* Every session of the plain program takes both paths: the real
 * connection as before, and the direct one libFuzzer mostly takes.
 * Returns the promises broken on either (bit p for promise p);
 * gtsim_wire_last tells of the real connection, which runs second. */
unsigned gtsim_wire_check_session(const uint8_t *input, size_t size);

/* Frees what the sessions over a real connection kept of the debuggee's
 * output; for the end of the program. */
void gtsim_wire_check_free(void);

#endif
