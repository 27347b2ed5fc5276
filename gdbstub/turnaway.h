/* SPDX-License-Identifier: MIT */
/* Telling a client it cannot be served, in words its debugger shows: a
 * second client while one is served, a user the listener refuses. GDB
 * prints an error reply to its first packet ("Remote failure reply:
 * E.<why>") and then "Remote connection closed"; closing without a word
 * left it waiting silently, or saying only that the connection closed. */
#ifndef ZESTUB_GDBSTUB_TURNAWAY_H
#define ZESTUB_GDBSTUB_TURNAWAY_H

/* Sends the acknowledgement and an E.<why> reply on fd (a connected
 * socket), ends our side of the stream, reads what the client sends for
 * at most RSP_TURN_AWAY_MS (a close with unread input would reset the
 * connection, and the client could lose the reply), then closes fd. */
void rsp_turn_away(int fd, const char *why);

#define RSP_TURN_AWAY_MS 100

#endif
