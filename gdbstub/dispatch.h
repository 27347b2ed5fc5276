/* SPDX-License-Identifier: MIT */
/* Packet dispatch: which handler serves a packet. The table is keyed by
 * prefix, the longest matching entry wins ("qXfer:features:read:" before
 * "q..."; "vCont?" before "vCont;"), and entries marked exact match only
 * the whole packet (so "qC" does not swallow "qCRC:"). Anything without an
 * entry gets the empty reply: "not supported". */
#ifndef ZESTUB_GDBSTUB_DISPATCH_H
#define ZESTUB_GDBSTUB_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>

struct rsp_dispatch_entry {
    const char *prefix;
    bool exact;
    const char *handler_name; /* for traces and tests */
};

/* The entry a packet selects, or NULL (for tests and --debug-rsp). */
const struct rsp_dispatch_entry *rsp_dispatch_lookup(const char *pkt, size_t len);

#endif
