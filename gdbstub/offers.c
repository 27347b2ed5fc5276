/* SPDX-License-Identifier: MIT */
#include "gdbstub/offers.h"

#include "gdbstub/handlers.h"
#include "gdbstub/packet.h"
#include "gdbstub/server_state.h"

bool rsp_offered(const struct rsp_server *s, enum rsp_offer what)
{
    const struct rsp_target_ops *o = s->target.ops;

    switch (what) {
    case RSP_OFFER_ALWAYS:
        return true;
    case RSP_OFFER_RUN:
        return s->cfg.multi && o->programs != NULL;
    case RSP_OFFER_NON_STOP:
        return o->non_stop != NULL;
    case RSP_OFFER_TDESC:
        return s->client_intelgt || s->host_arch != RSP_HOST_UNKNOWN;
    case RSP_OFFER_SIGINFO:
        return o->siginfo != NULL;
    case RSP_OFFER_LIBRARIES:
        return o->libraries != NULL;
    case RSP_OFFER_LIBRARY_LIST:
        return o->libraries != NULL && s->client_libraries;
    case RSP_OFFER_VACK:
        return o->libraries != NULL && s->client_libraries && s->client_vack;
    case RSP_OFFER_Z0:
        return o->sw_breakpoints != NULL && !s->client_intelgt;
    case RSP_OFFER_RUN_TO_ENTRY:
        return o->sw_breakpoints != NULL && o->libraries != NULL;
    }
    return false;
}

/* The reply says only what is implemented: a client without Intel's
 * extensions gets no intelgt description but the host-shaped one of
 * hostview.c; Z0 in the server only for clients that cannot write the
 * breakpoint bit; libraries and vAck only for clients that read them;
 * QNonStop only for a target with non-stop; and the packets that are
 * refused outright (Z1-..Z4- tell GDB not to probe them). */
void rsp_offers_announce(const struct rsp_server *s, struct rsp_buf *out)
{
    rsp_buf_printf(out, "PacketSize=%x", (unsigned)RSP_PACKET_SIZE);
    for (size_t i = 0; i < s->npackets; i++) {
        const struct rsp_packet *p = &s->packets[i];
        const char *say = p->fn && rsp_offered(s, p->announce) ? p->feature : p->refused;
        if (!say)
            continue;
        rsp_buf_putc(out, ';');
        rsp_buf_puts(out, say);
    }
}
