/* SPDX-License-Identifier: MIT */
/* Private to target/: tgt_ops.c (the rsp_target_ops: attach, threads,
 * registers, memory, libraries), tgt_run.c (all-stop and non-stop run
 * control: resumes, range steps, held stops, the event stream), tgt_exit.c
 * (the application's end) and tgt_monitor_table.c (the monitor commands).
 * Nothing else includes this.
 * Per-thread state is not kept here: sessions/ owns it (sess.h, "Thread
 * marks"). */
#ifndef ZESTUB_TARGET_TGT_INT_H
#define ZESTUB_TARGET_TGT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gdbstub/log.h"
#include "gdbstub/target.h"
#include "target/intelgt.h"

struct tgt_prefetch;
struct tgt_xpti;
struct zd_error;

/* tgt_regkeep.c: how many big register sets the client's reads keep in
 * the cache, and from which size a set counts as big. */
#define TGT_KEPT_SETS 1024
#define TGT_KEPT_MIN_BYTES 1024

struct tgt {
    struct zd *zd;
    struct sess_manager *m;
    struct regs_catalog **cats; /* one target description per device: id k+1 */
    unsigned n;
    /* Target descriptions of threads whose register sets differ from
     * their device's (tgt_tdesc.c): id n+1+i, made when first seen. */
    struct tgt_xdesc {
        unsigned k;      /* device */
        unsigned layout; /* sessions' index of the sets within the device */
        struct regs_catalog *cat;
    } * xdescs;
    size_t nxdescs, cap_xdescs;
    struct rsp_log log;
    /* The event fd the server polls: an epoll set of the sessions' note fd
     * and held_fd, an eventfd that says `report` is to be sent without a
     * device event: a held thread instead of a resume, or the end of a
     * thread that was asked to step its end-of-thread instruction. */
    int ep_fd, held_fd;
    bool non_stop; /* QNonStop:1: no stop-all anywhere */
    /* The client served now (rsp_target_ops.client): another user's,
     * confined to writing inside the working directory (gdbstub/confine.h). */
    bool client_confined;
    uint32_t client_uid;
    uint32_t host_pid; /* of the attached application */
    /* Devices a client's interrupt (^C) went to that have not answered
     * with a stop: when all answer "nothing to stop", the interrupt must
     * still end the resume, or GDB would wait forever. */
    unsigned interrupts_pending;
    struct tgt_xpti *xpti; /* the application's XPTI table, from attach to detach */
    /* The last event stream failure, for the client (rsp_event.error);
     * untold: it came while the client was stopped, the next resume is
     * answered with it. resume_waits: an all-stop resume is outstanding. */
    char stream_error[512];
    bool stream_untold, resume_waits;
    bool held_report, report_stop_all;
    struct rsp_event report;
    /* Per device: its application's end was reported to the client (an
     * EXITED event), or the client detached it. A device whose application
     * ended stays listed until then (tgt_listed). */
    bool *exit_told;
    /* Threads range stepping in the current resume (few at a time). */
    struct range_step *ranges;
    size_t nranges, cap_ranges;
    /* Threads whose last resume that named them (not a wildcard) was a step
     * (s, or r: range) not yet reported: GDB still waits for that step's
     * end (tgt_run.c, avoid_unfinished_step). GDB steps a few threads at a
     * time; when full, the oldest is forgotten. */
    struct unfinished_step {
        unsigned k;
        uint32_t th;
        bool range;
    } unfinished[16];
    unsigned nunfinished;
    /* Code the client wrote since attach where a breakpoint bit may be gone
     * (tgt_code_writes.c): sorted by (device, start), disjoint. A held
     * breakpoint stop is checked against its instruction only when its PC
     * is in one; code_unknown: a range could not be kept, check them all. */
    struct code_write {
        unsigned k;
        uint64_t start, end;
    } * code;
    size_t ncode, cap_code;
    bool code_unknown;
    /* Big register sets (a GRF: 8 KiB a thread) the client's reads filled
     * in the sessions' per-stop cache, oldest first (tgt_regkeep.c): at
     * most TGT_KEPT_SETS stay, so a client that walks 65,536 threads holds
     * 8 MiB, not half a GiB, until the resume. */
    struct kept_set {
        unsigned k;
        uint32_t th, type;
    } kept[TGT_KEPT_SETS];
    unsigned nkept, kept_next;
    struct tgt_launcher launcher; /* vRun (tgt_launch.c); start NULL: none */
    /* Reading ahead of a client that walks the threads (tgt_prefetch.c);
     * NULL until the first register read. */
    struct tgt_prefetch *prefetch;
    /* What the server sees (tgt_ops.c's table): this target's own copy, so
     * that the programs table is there only once a launcher is set. */
    struct rsp_target_ops ops;
};

struct range_step {
    unsigned k;
    uint32_t th;
    uint64_t start, end;
};

static inline void tgt_say(char *err, size_t errlen, const char *msg)
{
    if (errlen)
        snprintf(err, errlen, "%s", msg);
}

/* tgt_regkeep.c: the client's read filled set TYPE of thread TH of device
 * K in the cache; the oldest such set beyond TGT_KEPT_SETS leaves it. */
void tgt_keep_regset(struct tgt *t, unsigned k, uint32_t th, uint32_t type);
/* Forgets the list (the sessions it names are gone). */
void tgt_kept_clear(struct tgt *t);

/* tgt_prefetch.c: before the client's read of thread TH of device K (0-
 * based): waits for a read ahead of that thread in flight, and when the
 * client has gone on to the next thread, moves the window read ahead. */
void tgt_prefetch_before_read(struct tgt *t, unsigned k, uint32_t th);
/* After a read that found set TYPE cached: true when the reader ahead had
 * put it there (the client's read then counts it, tgt_keep_regset). */
bool tgt_prefetch_claim(struct tgt *t, unsigned k, uint32_t th, uint32_t type);
/* No read ahead in flight or to come until the client walks again; what
 * was read ahead and not asked for is dropped. Before anything that may
 * end a session. */
void tgt_prefetch_pause(struct tgt *t);
/* Stops the reader (before the sessions are released). */
void tgt_prefetch_free(struct tgt *t);

/* tgt_monitor_table.c: rsp_target_ops.monitor_commands. */
const struct rsp_monitor_cmd *tgt_monitor_commands(void *ctx, size_t *n);

/* tgt_exit.c */

/* Device k as the client knows it: alive, or its application ended and
 * the client has not been told yet. */
bool tgt_listed(struct tgt *t, unsigned k);
/* Its application ended and the client has not been told. */
bool tgt_exit_untold(struct tgt *t, unsigned k);
/* Some device's end is owed to the client (logged). */
bool tgt_exit_pending(struct tgt *t);
/* The first owed end: true with ev filled (the device is then told). */
bool tgt_report_exit(struct tgt *t, struct rsp_event *ev);

/* tgt_run.c */

/* The thread's stop is the client's interrupt (its stop event says
 * `interrupted`: the client is told SIGINT, gdbstub/stopreply.c), not
 * the attach's or a stop-all's of the server. */
bool tgt_stopped_by_client(struct tgt *t, unsigned k, uint32_t th);
/* Fills a stop event for a stopped thread (reason from cr0) and marks the
 * thread reported. */
void tgt_stop_event(struct tgt *t, unsigned k, uint32_t thread, struct rsp_event *ev);
/* All-stop: stops every device; threads found stopped for a reason of
 * their own are held for a later report. */
void tgt_stop_all_and_hold(struct tgt *t);
/* The same; err holds the first device's interrupt failure (code 0 when
 * every interrupt went out). */
void tgt_stop_all_and_hold_err(struct tgt *t, struct zd_error *err);
/* rsp_target_ops.resume, and .interrupt (tgt_drvfail.c). */
int tgt_resume(void *ctx, const struct rsp_resume *actions, size_t n, char *err, size_t errlen);
int tgt_interrupt(void *ctx, char *err, size_t errlen);
/* The next event to report: 1 (ev filled), or 0 when none is pending
 * (tgt_ops.c asks tgt_stream_failure first: negative, with ev->error). */
int tgt_next_event(struct tgt *t, struct rsp_event *ev);
/* tgt_drvfail.c: a device whose event stream failed is detached (its
 * threads go on) and no longer listed; true, with ev->error saying so,
 * once per device. */
bool tgt_stream_failure(struct tgt *t, struct rsp_event *ev);
int tgt_resume_checked(void *ctx, const struct rsp_resume *actions, size_t n, char *err,
                       size_t errlen);

/* tgt_code_writes.c: the client wrote len bytes of device k's memory at
 * addr (any write: breakpoints are bits of instructions). */
void tgt_code_written(struct tgt *t, unsigned k, uint64_t addr, size_t len);
/* Anything written since attach that is not known intact. */
bool tgt_code_any_written(const struct tgt *t);
/* A write since attach touched the breakpoint bit of the instruction at pc
 * (its dword 0), and no read has found that instruction's bit since. */
bool tgt_code_written_at(const struct tgt *t, unsigned k, uint64_t pc);
/* The instruction at pc (len bytes) was read and has its breakpoint bit:
 * no write needs checking there any more. */
void tgt_code_intact_at(struct tgt *t, unsigned k, uint64_t pc, size_t len);
/* Attach, or the end of every session: nothing written. */
void tgt_code_forget(struct tgt *t);

/* tgt_isa.c: the sw_breakpoints table (gdbstub/target.h). */
/* A client's memory write that would plant a breakpoint bit in the middle
 * of an instruction (Intel's GDB plants breakpoints with M/X writes of
 * the instruction's bytes, so `break *ADDR` at a wrong address arrives
 * this way): refused with the reason, logged as a warning, as Z0 is
 * (tgt_isa.c). 0 for every other write, which goes ahead. */
int tgt_check_code_write(struct tgt *t, uint32_t pid, uint64_t addr, const uint8_t *buf, size_t len,
                         char *err, size_t errlen);
int tgt_insert_sw_breakpoint(void *ctx, uint32_t pid, uint64_t addr, bool *was_set, char *err,
                             size_t errlen);
int tgt_remove_sw_breakpoint(void *ctx, uint32_t pid, uint64_t addr, char *err, size_t errlen);
int tgt_thread_pc(void *ctx, uint32_t pid, uint32_t tid, uint64_t *pc, char *err, size_t errlen);
size_t tgt_kernel_entries(void *ctx, uint32_t pid, uint64_t *addrs, size_t max);
/* tgt_siginfo.c: the thread's siginfo (the siginfo table, gdbstub/target.h). */
int tgt_thread_siginfo(void *ctx, uint32_t pid, uint32_t tid, uint8_t *buf, size_t len, char *err,
                       size_t errlen);

/* tgt_tdesc.c: a thread's target description id (its device's, or one of
 * its own when its register sets differ: API 1.5), the catalogue of an
 * id, and forgetting them at detach. */
/* ask: a stopped thread's sets are asked of the driver once per stop (the
 * thread's description as the client is told it); without, the last
 * answer (register access between two tellings keeps the same layout). */
uint32_t tgt_thread_tdesc(struct tgt *t, unsigned k, uint32_t th, bool ask);
const struct regs_catalog *tgt_tdesc_catalog(const struct tgt *t, uint32_t id, uint32_t *pid);
void tgt_tdesc_clear(struct tgt *t);

#endif
