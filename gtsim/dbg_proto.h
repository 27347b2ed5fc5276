/* SPDX-License-Identifier: MIT */
/* The wire between a debugger process's gtsim and the debuggee's gtsim: a
 * Unix stream socket per debuggee (the stand-in for a real GPU's debug
 * device file). Messages are a fixed header plus a payload; the debugger
 * sends requests and gets one reply each on that connection. Events (and
 * LOST) travel on a second stream, one end of a socketpair the debugger
 * passes with ATTACH, as the real driver's events come from its own queue
 * and not with an ioctl's answer: so the thread that made a request reads
 * its reply itself, and no other thread has to be woken to hand it over.
 * Interrupt requests go the other way on the event stream (debugger ->
 * debuggee), one message per send, with no reply: zetDebugInterrupt must
 * not wait for, or lock, the request connection another call of the same
 * process may be using (it can be called from a signal handler); its
 * answer comes back on the event stream as ANSWER.
 * Both ends are gtsim of the same build, so structs travel as raw bytes. */
#ifndef GTSIM_DBG_PROTO_H
#define GTSIM_DBG_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <zet_api.h>

enum gtsim_dbg_msg {
    GTSIM_DBG_ATTACH = 1, /* carries the debuggee's end of the event stream (or INVALID_ARGUMENT) */
    GTSIM_DBG_DETACH,
    GTSIM_DBG_ACK,
    GTSIM_DBG_INTERRUPT, /* on the event stream, debugger -> debuggee; no reply */
    GTSIM_DBG_RESUME,
    GTSIM_DBG_READ_MEM,
    GTSIM_DBG_WRITE_MEM,
    GTSIM_DBG_READ_REGS,
    GTSIM_DBG_WRITE_REGS,
    GTSIM_DBG_STREAM, /* carries the debuggee's end of one more request stream of the session */
    GTSIM_DBG_REPLY = 100, /* debuggee -> debugger */
    GTSIM_DBG_EVENT,       /* debuggee -> debugger, unsolicited, on the event stream */
    GTSIM_DBG_LOST,        /* the same: the device is lost, the end follows */
    GTSIM_DBG_ANSWER,      /* the same: an interrupt's answer (gtsim_dbg_answer) */
    GTSIM_DBG_RESUMED,     /* the same: the threads a resume selected run (gtsim_dbg_resumed) */
};

/* Largest payload either side accepts; bigger memory requests are split. */
#define GTSIM_DBG_MAX_PAYLOAD (1u << 20)
#define GTSIM_DBG_MAX_XFER (GTSIM_DBG_MAX_PAYLOAD - 64)

/* Request streams a session may have, the first included: a debugger
 * calling from several host threads gets up to this many requests
 * answered at once ("Cost model" in README.md). */
#define GTSIM_DBG_MAX_STREAMS 8

struct gtsim_dbg_hdr {
    uint32_t type;
    uint32_t len; /* payload bytes that follow */
};

struct gtsim_dbg_attach {
    uint32_t ordinal;   /* root device index */
    int32_t tile;       /* -1 for the root device */
    uint64_t config_id; /* both ends must simulate the same hardware */
};

struct gtsim_dbg_reply {
    int32_t result; /* ze_result_t; data may follow */
    uint32_t pad;
};

struct gtsim_dbg_thread_req {
    ze_device_thread_t thread;
};

struct gtsim_dbg_interrupt_req {
    ze_device_thread_t thread;
    uint32_t slot; /* the debugger's pending-request slot, echoed in the answer */
    uint32_t pad;
};

/* The event that answers an interrupt, then a bitmap of the session's
 * threads (slice outermost, as the API numbers them) the interrupt
 * stopped: they count as reported stopped from then on. */
struct gtsim_dbg_answer {
    zet_debug_event_t ev;
    uint32_t slot;
    uint32_t nbits;
};

/* The threads a resume selected run again (no longer reported stopped).
 * seq numbers the session's resumes; the reply to RESUME carries it too,
 * so the resuming thread knows whether the event reader has seen this
 * note yet. */
struct gtsim_dbg_resumed {
    ze_device_thread_t thread;
    uint32_t seq;
    uint32_t pad;
};

struct gtsim_dbg_mem_req {
    ze_device_thread_t thread;
    uint32_t space;
    uint32_t pad;
    uint64_t address;
    uint64_t size; /* WRITE_MEM: data follows */
};

struct gtsim_dbg_reg_req {
    ze_device_thread_t thread;
    uint32_t type, start, count, pad; /* WRITE_REGS: data follows */
};

/* Where the debuggee with this pid and uid listens. */
int gtsim_dbg_socket_path(pid_t pid, uid_t uid, char *buf, size_t len);
int gtsim_dbg_runtime_dir(uid_t uid, char *buf, size_t len);

/* A stream's receiving end. One recv takes whatever has arrived, up to
 * the buffer, so a message's header and body, or a burst of events, cost
 * one system call instead of two per message; what is left over waits here
 * for the next call. */
struct gtsim_dbg_rx {
    int fd;
    int passed;        /* a descriptor the stream passed (SCM_RIGHTS), not taken, or -1 */
    uint32_t off, len; /* unread bytes in buf */
    uint32_t poll_us;  /* poll this long before sleeping in recvmsg (0: sleep at once) */
    uint8_t buf[4096];
};
void gtsim_dbg_rx_init(struct gtsim_dbg_rx *rx, int fd);
/* Closes a passed descriptor nobody took (rx->fd stays open). */
void gtsim_dbg_rx_fini(struct gtsim_dbg_rx *rx);
/* The descriptor the stream passed last, or -1; the caller owns it. */
int gtsim_dbg_rx_take_fd(struct gtsim_dbg_rx *rx);

/* Whole-message I/O; 0 or -errno (-EPIPE on end of stream). */
int gtsim_dbg_send(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen);
/* The same, passing a descriptor with the message (SCM_RIGHTS). */
int gtsim_dbg_send_fd(int fd, uint32_t type, const void *a, size_t alen, int pass_fd);
int gtsim_dbg_recv(struct gtsim_dbg_rx *rx, struct gtsim_dbg_hdr *hdr, void **payload);

/* A fingerprint of the simulated hardware's shape. */
struct gtsim_config;
uint64_t gtsim_dbg_config_id(const struct gtsim_config *cfg);

#endif
