/* SPDX-License-Identifier: MIT */
/* Inside the server: the state the packet handlers share, and the helpers
 * they use. Only the gdbstub sources include it. The server is single-threaded:
 * handlers run on the event-loop thread, one packet at a time. */
#ifndef ZESTUB_GDBSTUB_SERVER_INT_H
#define ZESTUB_GDBSTUB_SERVER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdbstub/packet.h"
#include "gdbstub/server.h"
#include "gdbstub/target.h"
#include "gdbstub/transport.h"

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
    bool ours; /* we set the bit (it was clear): z0 and the end clear it */
};

/* The register layout of a client without the intelgt architecture. */
enum rsp_host_arch { RSP_HOST_UNKNOWN, RSP_HOST_X86_64 };

struct rsp_server {
    struct rsp_target target;
    struct rsp_server_config cfg;
    struct rsp_conn *conn;
    struct rsp_rx rx;
    struct rsp_buf reply; /* the payload a handler builds */
    struct rsp_buf last;  /* the last frame sent, for '-' */
    struct rsp_buf scratch;

    /* negotiated per connection */
    bool noack;
    bool client_swbreak;
    /* The client announced Intel's extensions (multi-address-space+ or
     * unavailable+): it knows the intelgt architecture. Stock GDB does not,
     * cannot parse Intel GT registers in a stop reply, and gets none. */
    bool client_intelgt;
    /* For the others: the register layout they expect (hostview.c). */
    enum rsp_host_arch host_arch;
    /* Stock GDB's "attach PID" insists that the device process it gets
     * back has the host pid it attached to (it asserts otherwise), so for
     * such a client that one device process is shown under the host pid:
     * alias_dev on our side is alias_host on the wire (0: no alias). */
    uint32_t alias_dev, alias_host;
    bool delta_threads; /* the client asked qDeltaThreadList: lists are deltas */
    /* qXfer:libraries:read:in-memory-library+ and vAck:in-memory-library+
     * from the client (h_library.c). */
    bool client_libraries, client_vack;
    struct rsp_pending_ack *acks;
    size_t nacks, cap_acks;
    struct rsp_breakpoint *bps;
    size_t nbps, cap_bps;
    /* non-stop (h_nonstop.c): stops not yet drained by vStopped; notified
     * while a %Stop for nsq[0] is out */
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

    struct rsp_sent_proc *sent;
    size_t nsent;

    bool end_requested; /* leave the loop once the output is flushed */
    enum rsp_end end;

    char err[RSP_ERR_LEN];
};

/* ---- hostview.c: registers for clients without the intelgt arch --------- */
enum rsp_host_arch rsp_host_arch_from_qsupported(const char *arg, size_t len);
/* Append the 'g' reply / one 'p' reply of the Hg thread to s->reply. */
void rsp_hostview_read_regs(struct rsp_server *s);
void rsp_hostview_read_reg(struct rsp_server *s, uint64_t regnum);
/* target.xml for such a client (-1 for any other annex or host). */
int rsp_hostview_tdesc(struct rsp_server *s, const char *annex, struct rsp_buf *out);

/* ---- h_library.c: in-memory libraries ------------------------------------ */
bool rsp_libraries_supported(const struct rsp_server *s);
/* A LIBRARY event of pid: acknowledges at once what the client cannot, or
 * starts the timeout clock. True when the client is to be told. */
bool rsp_library_event(struct rsp_server *s, uint32_t pid);
/* Milliseconds until the next acknowledgement timeout (-1: none). */
int rsp_library_timeout_ms(struct rsp_server *s);
void rsp_library_expire(struct rsp_server *s);
void rsp_library_reset(struct rsp_server *s);
int rsp_libraries_xml(struct rsp_server *s, uint32_t pid, struct rsp_buf *out);

/* ---- h_break.c: Z0/z0 for clients without the Intel GT architecture ----- */
bool rsp_server_breakpoints(const struct rsp_server *s);
/* Plants pid's breakpoints again where the code lost the bit (a reload). */
void rsp_breakpoints_replant(struct rsp_server *s, uint32_t pid);
/* Clears the bits the server set, of pid (0: every device), and forgets. */
void rsp_breakpoints_remove(struct rsp_server *s, uint32_t pid);

/* ---- h_nonstop.c --------------------------------------------------------- */
/* Queues a stop; sends %Stop when no notification is out. */
int rsp_nonstop_queue(struct rsp_server *s, const struct rsp_event *ev);
int rsp_nonstop_append(struct rsp_server *s, const struct rsp_event *ev);
enum rsp_hresult rsp_nonstop_status(struct rsp_server *s);
void rsp_nonstop_reset(struct rsp_server *s);

/* What a handler asks of the loop. */
enum rsp_hresult {
    RSP_H_REPLY = 0, /* send s->reply */
    RSP_H_NOREPLY,   /* nothing now (resume: the stop reply comes later) */
};

typedef enum rsp_hresult (*rsp_handler_fn)(struct rsp_server *s, const char *arg, size_t len);

/* ---- server.c helpers ---------------------------------------------------- */
/* Parses "pP.T", "pP", "T", "-1", "0" (hex), advancing *p. */
bool rsp_parse_ptid(const struct rsp_server *s, const char **p, const char *end,
                    struct rsp_ptid *out);
void rsp_put_ptid(const struct rsp_server *s, struct rsp_buf *b, int64_t pid, int64_t tid);
/* A process id between our numbering and the wire's (see alias_dev). */
int64_t rsp_pid_to_wire(const struct rsp_server *s, int64_t pid);
int64_t rsp_pid_from_wire(const struct rsp_server *s, int64_t pid);
bool rsp_find_process(struct rsp_server *s, uint32_t pid, struct rsp_process_info *out);
/* A concrete, existing thread for want (any/all resolved to a thread of
 * the named or current process, preferring the last stop). */
bool rsp_resolve_thread(struct rsp_server *s, struct rsp_ptid want, uint32_t *pid, uint32_t *tid);
/* Validates a ptid for H/T/vCont: the process exists, the tid is -1, 0 or
 * in range. */
bool rsp_ptid_valid(struct rsp_server *s, struct rsp_ptid p);
/* Builds the stop reply for ev into b (T/U/W/X). */
void rsp_stop_reply(struct rsp_server *s, const struct rsp_event *ev, struct rsp_buf *b);
void rsp_stop_reply_append(struct rsp_server *s, const struct rsp_event *ev, struct rsp_buf *b);
/* Takes note of a stop that is being reported (current thread, '?'). */
void rsp_note_stop(struct rsp_server *s, const struct rsp_event *ev);
/* Sends a packet now (O console output before the final reply). */
int rsp_send_packet(struct rsp_server *s, const char *payload, size_t len);
/* Console output as O packets (hex text, split to fit). */
void rsp_console(struct rsp_server *s, const char *text);
/* Forgets per-client state of processes no longer attached. */
void rsp_forget_stale(struct rsp_server *s);
struct rsp_sent_proc *rsp_sent_for(struct rsp_server *s, uint32_t pid, uint32_t n);

/* ---- tdesc.c ------------------------------------------------------------- */
/* The target-description XML of tdesc id. */
int rsp_tdesc_xml(struct rsp_server *s, uint32_t id, struct rsp_buf *out, char *err, size_t errlen);
void rsp_xml_escape(struct rsp_buf *b, const char *s);

/* ---- dispatch.c ---------------------------------------------------------- */
enum rsp_hresult rsp_dispatch(struct rsp_server *s, const char *pkt, size_t len);

/* ---- the handlers, by file --------------------------------------------- */
/* h_query.c */
enum rsp_hresult rsp_h_qsupported(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_qc(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_qattached(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_noack(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_thread_events(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_delta(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_extended(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_rcmd(struct rsp_server *s, const char *arg, size_t len);
/* h_threads.c */
enum rsp_hresult rsp_h_set_thread(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_thread_alive(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_first_thread(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_next_thread(struct rsp_server *s, const char *arg, size_t len);
/* h_regs.c */
enum rsp_hresult rsp_h_read_regs(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_write_regs(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_read_reg(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_write_reg(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_expedited(struct rsp_server *s, const char *arg, size_t len);
/* h_memory.c */
enum rsp_hresult rsp_h_read_mem_hex(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_write_mem_hex(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_read_mem_bin(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_write_mem_bin(struct rsp_server *s, const char *arg, size_t len);
/* h_run.c */
enum rsp_hresult rsp_h_status(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_vcont_query(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_vcont(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_continue(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_continue_sig(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_step(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_step_sig(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_ctrlc(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_attach(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_detach(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_kill(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_vkill(struct rsp_server *s, const char *arg, size_t len);
/* h_xfer.c */
enum rsp_hresult rsp_h_xfer_features(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_xfer_threads(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_xfer_exec_file(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_xfer_libraries(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_vack(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_qnonstop(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_vstopped(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_vctrlc(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_insert_bp(struct rsp_server *s, const char *arg, size_t len);
enum rsp_hresult rsp_h_remove_bp(struct rsp_server *s, const char *arg, size_t len);

/* Interrupt (^C or vCtrlC) while running. */
void rsp_interrupt(struct rsp_server *s);
/* Shared by vAttach and --attach. 0, or negative with s->reply holding E02. */
int rsp_do_attach(struct rsp_server *s, uint32_t host_pid, struct rsp_buf *reply);

#endif
