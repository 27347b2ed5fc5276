/* SPDX-License-Identifier: MIT */
/* What the caller sets for a server, and how a connection ended: apart from
 * server.h so that the server's own state (server_state.h) can hold them
 * without depending on the loop's header. */
#ifndef ZESTUB_GDBSTUB_SERVER_CONFIG_H
#define ZESTUB_GDBSTUB_SERVER_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gdbstub/log.h"

struct rsp_server_config {
    /* Extended-remote (--multi): stay connected when no device is left. */
    bool multi;
    /* --once: rsp_server_serve returns after the first client. */
    bool once;
    /* rsp_server_serve returns (RSP_END_NOTHING_LEFT) once a client's end
     * leaves no device attached, as gdbserver ends when its program is
     * gone; zestub sets it for plain target remote (not multi). */
    bool end_when_nothing_left;
    /* --debug-rsp: every packet in and out, one line each; NULL for none. */
    FILE *trace;
    /* When readable, the loop returns RSP_END_WAKE (a self-pipe the caller
     * writes from a signal handler); -1 for none. */
    int wake_fd;
    /* --log-level: connections, attach, interrupts, resumes, events. */
    struct rsp_log log;
    /* --library-ack-timeout: a module load the client was told about and
     * did not vAck within this many ms is acknowledged anyway (0: never). */
    uint64_t library_ack_timeout_ms;
};

enum rsp_end {
    RSP_END_DISCONNECT = 1, /* the client went away (or asked to go: D/k) */
    RSP_END_EXIT,           /* monitor exit */
    RSP_END_WAKE,           /* wake_fd became readable */
    RSP_END_ERROR,          /* see the error buffer */
    /* With end_when_nothing_left: the client left and no device is
     * attached any more (a client's end detaches them all), so nothing is
     * left to serve: the server ends, as gdbserver does when its program
     * is gone, instead of listening for clients it could only tell "the
     * target is not running". */
    RSP_END_NOTHING_LEFT,
};

#endif
