/* SPDX-License-Identifier: MIT */
/* What the files of the debuggee's debug endpoint share: the server and
 * session records, and the primitives every part uses. Not a public header:
 * only gtsim/dbg_*.c include it.
 *
 * The parts: dbg_server.c (the endpoint, connections, attach and detach),
 * dbg_srv_requests.c (run control, memory, registers, acknowledgements),
 * dbg_srv_threads.c (thread selection), dbg_srv_stops.c (hardware stops ->
 * events), dbg_srv_modules.c (the host API hooks: module and queue events),
 * dbg_srv_base.c (sending, coverage, module event records),
 * dbg_srv_spread.c (interrupted threads that stop late),
 * dbg_srv_interrupts.c (interrupt requests, which come on the event stream).
 *
 * Lock order: srv->lock, then a device's hw lock, then srv->mail_lock; a
 * session's write_lock is a leaf. The hardware's stop hook runs under the
 * hw lock, so it only appends to the mailbox. */
#ifndef GTSIM_DBG_SRV_INT_H
#define GTSIM_DBG_SRV_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "gtsim/dbg_proto.h"
#include "gtsim/gtsim.h"

#define ALL UINT32_MAX

struct pending_ack {
    struct pending_ack *next;
    struct gtsim_module *module;
    zet_debug_event_t ev;
};

struct srv_session {
    struct srv_session *next;
    struct gtsim_dbg_server *srv;
    int fd;                      /* requests in, their replies out */
    struct gtsim_dbg_rx rx;      /* fd's receiving end */
    int event_fd;                /* events and LOST out (the debugger's stream); -1 before ATTACH */
    pthread_mutex_t write_lock;  /* either descriptor */
    struct gtsim_device *device; /* root or tile */
    struct gtsim_device *root;
    uint32_t slice_first, slice_count;
    bool attached;
    uint64_t last_fault; /* PAGE_FAULT is reported once per address */
    struct pending_ack *acks;
    uint64_t spread_t0_ns;   /* interrupt_spread_ms: the last interrupt (hw lock) */
    uint32_t spread_epoch;   /* ... and its number, which places each thread */
    uint32_t resume_seq;     /* resumes answered (hw lock), for GTSIM_DBG_RESUMED */
    struct gtsim_dbg_rx erx; /* event_fd's receiving end: interrupt requests */
    pthread_t intr_thread;   /* reads them (dbg_srv_interrupts.c) ... */
    bool intr_running;       /* ... when started (set and read by session_main only) */
    /* More request streams (GTSIM_DBG_STREAM), each answered by its own
     * thread: their descriptors, so the end of the session can shut them
     * (srv->lock), and how many threads still serve them. */
    int streams[GTSIM_DBG_MAX_STREAMS - 1];
    unsigned nstreams;
};

/* One item of the mailbox: a hardware stop, the answer to an interrupt
 * (posted under the hw lock right after the stops it caused, so it is sent
 * after their events), or a resume's note (posted under the hw lock after
 * the resume, so it comes before the events of any later stop). */
struct mail {
    struct gtsim_device *root;
    struct gtsim_hw_stop stop;
    bool answer;              /* an interrupt's answer, not a stop */
    bool resumed;             /* a resume's note, not a stop */
    uint32_t slice;           /* answer, resumed: a slice of the session that asked */
    ze_device_thread_t asked; /* answer, resumed: the thread id of the request */
    unsigned stopped;         /* answer: threads the interrupt stopped */
    uint64_t not_before_ns;   /* answer: not sent before (interrupt_spread_ms) */
    uint32_t slot;            /* answer: the debugger's slot for the request */
    uint8_t *bits;            /* answer: which threads it stopped (owned; freed when sent) */
    uint32_t nbits;           /* answer: bits in it; resumed: the resume's seq */
};

struct gtsim_dbg_server {
    struct gtsim_driver *drv;
    int listen_fd;
    char path[108];
    pthread_mutex_t lock; /* sessions, modules, queue counts, acks */
    pthread_cond_t cv;    /* an ack arrived or a session went away */
    struct srv_session *sessions;
    struct gtsim_module **modules;
    size_t nmodules, cap_modules;
    uint32_t *queues; /* live command queues per root device */

    pthread_mutex_t mail_lock;
    pthread_cond_t mail_cv;
    struct mail *mail;
    size_t nmail, cap_mail;
};

/* Set once by gtsim_dbg_server_start under the driver's init lock. */
extern struct gtsim_dbg_server *gtsim_srv_the_server;

/* dbg_srv_base.c */
struct gtsim_device *gtsim_srv_root_of(struct gtsim_device *d);
void gtsim_srv_send_event(struct srv_session *s, const zet_debug_event_t *ev);
/* Another message of the event stream (ANSWER, RESUMED): a then b. */
void gtsim_srv_send_note(struct srv_session *s, uint32_t type, const void *a, size_t alen,
                         const void *b, size_t blen);
/* A reply on the session's first stream. */
void gtsim_srv_reply(struct srv_session *s, ze_result_t r, const void *data, size_t len);
/* The same, passing descriptor pass_fd with it (SCM_RIGHTS). */
void gtsim_srv_reply_fd(struct srv_session *s, ze_result_t r, const void *data, size_t len,
                        int pass_fd);
/* A reply on request stream fd of s (its first or a further one). */
void gtsim_srv_reply_to(struct srv_session *s, int fd, ze_result_t r, const void *data, size_t len);
/* Does session s see device d's work (d on the same root, and d is s's
 * device, or one of them is the root)? */
bool gtsim_srv_covers(const struct srv_session *s, const struct gtsim_device *d);
void gtsim_srv_module_event(struct gtsim_module *m, zet_debug_event_type_t type,
                            zet_debug_event_flags_t flags, zet_debug_event_t *ev);

/* dbg_srv_stops.c: the hardware's stop hook (ctx: the root device) and the
 * thread that turns what it posted into events. */
void gtsim_srv_on_hw_stop(void *ctx, const struct gtsim_hw_stop *stop);
/* Posts the answer to interrupt request `slot` of session s that stopped
 * `stopped` threads, those set in bits (nbits, session thread order; the
 * mailbox takes it over, NULL when none); hw lock held, so it follows the
 * stops it caused. */
void gtsim_srv_post_interrupt_answer(struct srv_session *s, const ze_device_thread_t *asked,
                                     uint32_t slot, unsigned stopped, uint8_t *bits, uint32_t nbits,
                                     uint64_t not_before_ns);
/* Posts the note that resume number seq of s let the threads `asked`
 * selects run; hw lock held. */
void gtsim_srv_post_resumed(struct srv_session *s, const ze_device_thread_t *asked, uint32_t seq);
void *gtsim_srv_dispatcher_main(void *arg);

/* dbg_srv_streams.c: GTSIM_DBG_STREAM opens one more request stream of
 * s (fd: its debuggee end, owned here); at the session's end, every
 * stream is shut and waited for. */
void gtsim_srv_open_stream(struct srv_session *s, int fd);
void gtsim_srv_end_streams(struct srv_session *s);

/* dbg_srv_threads.c */
bool gtsim_srv_is_all(const ze_device_thread_t *t);
bool gtsim_srv_is_single(const ze_device_thread_t *t);
bool gtsim_srv_thread_in_range(const struct srv_session *s, const ze_device_thread_t *t);
/* Calls fn for every hardware thread t selects, with its hardware index
 * and its index among the session's threads; returns how many fn took.
 * hw lock held by caller. */
unsigned gtsim_srv_for_each_thread(struct srv_session *s, const ze_device_thread_t *t,
                                   bool (*fn)(struct gtsim_hw *, uint32_t idx, uint32_t sidx,
                                              void *ctx),
                                   void *ctx);
/* How many threads the session's device has. */
uint32_t gtsim_srv_session_threads(const struct srv_session *s);
/* Detach: let go of a stopped thread as if the debugger continued it. */
bool gtsim_srv_release_one(struct gtsim_hw *hw, uint32_t idx, uint32_t sidx, void *ctx);
int gtsim_srv_thread_index(struct srv_session *s, const ze_device_thread_t *t, uint32_t *idx);

/* dbg_srv_spread.c (CLOCK_MONOTONIC nanoseconds). An interrupt of s
 * begins; returns when its answer may go (0: at once). hw lock held. */
uint64_t gtsim_srv_spread_begin(struct srv_session *s);
/* Has stopped thread idx not reached its halt yet? hw lock held. */
bool gtsim_srv_stop_is_late(struct srv_session *s, uint32_t idx);
uint64_t gtsim_srv_now_ns(void);
/* Tells the debugger's side (ssa.h) when stopped thread idx may be read,
 * from the same test as the requests' (stopped, and not late): after an
 * interrupt, whose stops the hardware leaves unpublished; after a write
 * of its registers (cr0's halt bit decides lateness); at attach. The
 * _one form is a gtsim_srv_for_each_thread callback, ctx the session.
 * hw lock held. */
void gtsim_srv_publish(struct srv_session *s, uint32_t idx);
bool gtsim_srv_publish_one(struct gtsim_hw *hw, uint32_t idx, uint32_t sidx, void *ctx);
void gtsim_srv_sleep_until(uint64_t t_ns);

/* dbg_srv_interrupts.c: the thread of attached session s (arg) that reads
 * its interrupt requests from the event stream until it ends. */
void *gtsim_srv_interrupts_main(void *arg);

/* dbg_srv_requests.c: answers one request of an attached-session kind
 * (acknowledge, interrupt, resume, memory, registers; anything else is
 * UNSUPPORTED_FEATURE). p is the request's body of h->len bytes. */
void gtsim_srv_request(struct srv_session *s, int fd, const struct gtsim_dbg_hdr *h, void *p);

#endif
