/* SPDX-License-Identifier: MIT */
/* The server's state, shared by the loop (server.c), the helpers and the
 * packet handlers. Only gdbstub sources include it; it includes no header
 * of a gdbstub .c file (server_config.h, packet.h, target.h and
 * transport.h have no state of their own here), so every file can include
 * it without closing a circle. The server is single-threaded: handlers
 * run on the event-loop thread, one packet at a time. */
#ifndef ZESTUB_GDBSTUB_SERVER_STATE_H
#define ZESTUB_GDBSTUB_SERVER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdbstub/packet.h"
#include "gdbstub/server_config.h"
#include "gdbstub/target.h"
#include "gdbstub/transport.h"

struct rsp_packet;      /* handlers.h: one entry of the dispatch table */
struct rsp_run_state;   /* h_vrun.c */
struct rsp_run_entry;   /* h_run_entry.c */
struct rsp_tdesc_cache; /* tdesc_cache.c */

/* A thread id as the client writes it: pid/tid -1 = all, 0 = any. */
struct rsp_ptid {
    int64_t pid, tid;
};

/* What the last thread list told the client, per device, for
 * qXfer:threads:read deltas: per thread the tdesc id it had, or for a
 * thread sent with a name a hash of tdesc and name with the top bit set
 * (h_xfer.c entry_digest); 0 = never sent. */
struct rsp_sent_proc {
    uint32_t pid, n;
    uint32_t *tdesc; /* [n], index tid - 1 */
};

/* A module load announced to the client and not acknowledged yet. */
struct rsp_pending_ack {
    uint32_t pid;
    uint64_t begin, end;
    uint64_t since_ms; /* CLOCK_MONOTONIC when it was announced */
};

/* A breakpoint the server planted for Z0 (h_break.c). */
struct rsp_breakpoint {
    uint32_t pid;
    uint64_t addr;
    bool ours; /* we set it (it was not there): z0 and the end remove it */
};

/* The register layout of a client without the intelgt architecture. */
enum rsp_host_arch { RSP_HOST_UNKNOWN, RSP_HOST_X86_64 };

struct rsp_server {
    struct rsp_target target;
    struct rsp_server_config cfg;
    struct rsp_conn *conn;
    /* While rsp_server_serve serves a client: its listener, so a second
     * client is told it must wait (NULL otherwise). */
    struct rsp_listener *listener;
    struct rsp_rx rx;
    struct rsp_buf reply; /* the payload a handler builds */
    struct rsp_buf last;  /* the last frame sent, for '-' */
    struct rsp_buf scratch;
    /* The dispatch table, for qSupported (dispatch.c owns it). */
    const struct rsp_packet *packets;
    size_t npackets;

    /* negotiated per connection */
    bool noack;
    bool client_swbreak;
    /* The client announced Intel's extensions (multi-address-space+ or
     * unavailable+): it knows the intelgt architecture. Stock GDB does not,
     * cannot parse Intel GT registers in a stop reply, and gets none. */
    bool client_intelgt;
    /* error-message+: the client reads "E.text" error replies (GDB 14 and
     * later); the others get E01 (output.c rsp_reply_error). */
    bool client_error_message;
    /* For the others: the register layout they expect (hostview.c). */
    enum rsp_host_arch host_arch;
    /* Stock GDB's "attach PID" insists that the device process it gets
     * back has the host pid it attached to (it asserts otherwise), so for
     * such a client that one device process is shown under the host pid:
     * alias_dev on our side is alias_host on the wire (0: no alias). */
    uint32_t alias_dev, alias_host;
    /* The host process the devices attached belong to (0: none yet), so
     * that a second vAttach can say what is in the way. */
    uint32_t attached_host;
    /* vRun (h_vrun.c): what the client set for the programs it runs
     * (environment, directory, the last program), and the host process of
     * the program it started (0: none; GDB kills it rather than detach). */
    struct rsp_run_state *run;
    uint32_t run_host;
    /* vRun for Intel's GDB waiting for a thread at a kernel's entry
     * (h_run_entry.c); NULL otherwise. */
    struct rsp_run_entry *run_entry;
    bool delta_threads; /* the client asked qDeltaThreadList: lists are deltas */
    /* qXfer:libraries:read:in-memory-library+ and vAck:in-memory-library+
     * from the client (h_library.c). */
    bool client_libraries, client_vack;
    struct rsp_pending_ack *acks;
    size_t nacks, cap_acks;
    struct rsp_breakpoint *bps;
    size_t nbps, cap_bps;
    /* non-stop (nsqueue.c, h_nonstop.c): stops not yet drained by
     * vStopped; notified while a %Stop for nsq[0] is out */
    bool non_stop, notified;
    struct rsp_event *nsq;
    size_t nnsq, cap_nsq;

    /* all-stop state */
    bool running;   /* resumed: the next event is the pending stop reply */
    bool have_stop; /* last_stop answers '?' */
    struct rsp_event last_stop;
    struct rsp_ptid g, c; /* Hg (registers, memory) and Hc threads */

    /* qfThreadInfo / qsThreadInfo cursor */
    size_t list_proc;
    uint32_t list_tid;

    /* qXfer documents are built at offset 0 and served in pieces */
    struct rsp_buf xfer_doc;
    char xfer_key[96];
    bool xfer_valid;

    /* target descriptions already built (tdesc_cache.c) */
    struct rsp_tdesc_cache *tdesc_cache;

    struct rsp_sent_proc *sent;
    size_t nsent;

    bool end_requested; /* leave the loop once the output is flushed */
    enum rsp_end end;
};

#endif
