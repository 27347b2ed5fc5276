/* SPDX-License-Identifier: MIT */
/* What the server offers: the one place that decides, from the target's
 * capability tables (gdbstub/target.h), the server's configuration and what
 * the client announced, which packets are answered and what qSupported
 * says. The dispatch table names an offer per packet (dispatch.c); the
 * handlers and features ask rsp_offered and never look at the tables to
 * decide it themselves. */
#ifndef ZESTUB_GDBSTUB_OFFERS_H
#define ZESTUB_GDBSTUB_OFFERS_H

#include <stdbool.h>

struct rsp_buf;
struct rsp_server;

enum rsp_offer {
    RSP_OFFER_ALWAYS = 0, /* nothing to decide */
    /* vRun and the Q packets before it: --multi and a programs table */
    RSP_OFFER_RUN,
    /* QNonStop: a non_stop table */
    RSP_OFFER_NON_STOP,
    /* qXfer:features:read+: a client with a description to read (intelgt,
     * or the host-shaped one of hostview.c) */
    RSP_OFFER_TDESC,
    /* qXfer:siginfo:read: a siginfo table */
    RSP_OFFER_SIGINFO,
    /* qXfer:libraries:read and vAck answered, library events: a libraries
     * table */
    RSP_OFFER_LIBRARIES,
    /* ... and announced: a client that reads in-memory libraries */
    RSP_OFFER_LIBRARY_LIST,
    /* vAck announced (and awaited): the list offered and a client that
     * acknowledges */
    RSP_OFFER_VACK,
    /* Z0/z0 in the server: a sw_breakpoints table and a client without the
     * intelgt architecture (Intel's GDB writes the bit itself) */
    RSP_OFFER_Z0,
    /* Intel's GDB's vRun answered at a kernel's first instruction: a
     * sw_breakpoints table (the entries, the bits) and a libraries table
     * (the loads it acknowledges meanwhile) */
    RSP_OFFER_RUN_TO_ENTRY,
};

/* Whether the server offers it to this client with this target now. */
bool rsp_offered(const struct rsp_server *s, enum rsp_offer what);
/* qSupported's reply after the client's features were taken:
 * PacketSize, then each table entry's token when offered, else its
 * refusal (Z0-, R-, ...). */
void rsp_offers_announce(const struct rsp_server *s, struct rsp_buf *out);

#endif
