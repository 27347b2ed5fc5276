/* SPDX-License-Identifier: MIT */
/* Packet dispatch: which handler serves a packet. The table is keyed by
 * prefix, the longest matching entry wins ("qXfer:features:read:" before
 * "q..."; "vCont?" before "vCont;"), and entries marked exact match only
 * the whole packet (so "qC" does not swallow "qCRC:"). Anything without an
 * entry, or with a refused one, gets the empty reply: "not supported". */
#ifndef ZESTUB_GDBSTUB_DISPATCH_H
#define ZESTUB_GDBSTUB_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "gdbstub/handlers.h"

/* The entry a packet selects, or NULL (for tests and --debug-rsp). */
const struct rsp_dispatch_entry *rsp_dispatch_lookup(const char *pkt, size_t len);
/* Runs the handler of a packet; s->reply is cleared first. */
enum rsp_hresult rsp_dispatch(struct rsp_server *s, const char *pkt, size_t len);
/* The whole table (the server keeps it for qSupported). */
const struct rsp_packet *rsp_dispatch_table(size_t *n);

#endif
