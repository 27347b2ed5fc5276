/* SPDX-License-Identifier: MIT */
/* sessions: the debug model. One session per attached device or
 * sub-device; a thread table per session; the event pump that turns zet
 * events into state changes and notes for the layers above; the
 * acknowledge policy; stop-all / resume-all; the per-stop register cache;
 * the modules (with their symbols) each device has loaded.
 *
 * Threading: each session's event pump runs on zetdebug's reader thread.
 * Everything in struct sess_manager is guarded by its lock; the public
 * functions take it themselves. */
#ifndef ZESTUB_SESS_H
#define ZESTUB_SESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "isa/isa.h"
#include "regsets/regs.h"
#include "zetdebug/zd.h"

enum sess_thread_state {
    SESS_T_RUNNING = 0, /* resumed (or never seen stopped) */
    SESS_T_STOPPED,     /* stopped, state readable */
    SESS_T_HELD,        /* stopped, its stop kept for a later report (sess_thread_hold) */
    SESS_T_UNAVAILABLE, /* idle or unreachable: no registers */
};

/* Stopped, reported or held: its registers and memory can be read. */
static inline bool sess_state_stopped(enum sess_thread_state st)
{
    return st == SESS_T_STOPPED || st == SESS_T_HELD;
}

enum sess_note_type {
    SESS_NOTE_STOPPED = 1, /* a thread stopped (first report of this stop) */
    SESS_NOTE_UNAVAILABLE, /* a requested thread could not be stopped */
    SESS_NOTE_MODULE_LOAD, /* held until sess_module_release if need_ack */
    SESS_NOTE_MODULE_UNLOAD,
    SESS_NOTE_PAGE_FAULT,
    SESS_NOTE_PROCESS_ENTRY,
    SESS_NOTE_PROCESS_EXIT,
    SESS_NOTE_DETACHED, /* the debuggee is gone from this device */
};

struct sess_note {
    enum sess_note_type type;
    unsigned session;
    uint32_t thread; /* linear thread index in the session, for thread notes */
    uint64_t module_begin, module_end, module_load;
    bool need_ack;
    uint64_t fault_address;
    enum zd_fault_reason fault_reason;
    /* STOPPED/UNAVAILABLE naming no thread (a device's answer to an
     * interrupt of all): the answer's number in its session, 1 first. */
    uint64_t answer;
    /* CLOCK_MONOTONIC when it was queued (set by the queue): a note read
     * late still says when the stream brought it. */
    uint64_t queued_ns;
};

/* Which devices to attach; by default sub-devices in preference to their
 * root (as Intel's server does). Environment overrides, read by
 * sess_options_from_env: ZESTUB_NO_SUBDEVICE_ATTACH=1 (use root devices)
 * and ZESTUB_NO_DEVICE_ATTACH=1 (never attach a root device). */
struct sess_options {
    bool attach_subdevices;
    bool attach_roots;
};
void sess_options_from_env(struct sess_options *o);

struct sess_manager;
struct sym_module;

/* Attaches to every supported device of pid. Devices that fail are listed
 * in the error (one line each, "Device N [name] : reason"); the call fails
 * only when nothing attached. err->code is that of the first failure, so a
 * caller can tell "too early" (retry) from the rest. */
int sess_attach(struct zd *zd, uint32_t pid, const struct sess_options *opt,
                struct sess_manager **out, struct zd_error *err);
/* Detaches one session (the driver resumes its threads); its index stays
 * valid but the session is no longer alive, whatever the driver said. 0,
 * or the driver's refusal of zetDebugDetach in err (NULL: not wanted): the
 * threads may then still be stopped, which the caller must tell the user.
 * A debuggee already gone is not a failure. Does not wait out the event
 * reader's read: when it is inside one, the detach is handed to it (0, and
 * err->code is ZD_E_PENDING) and the driver's answer comes later, through
 * the zd handle given to sess_attach (zd_on_detach_failure,
 * zd_wait_detached; zd_close waits for it). */
int sess_detach(struct sess_manager *m, unsigned session, struct zd_error *err);
/* Detaches every session as sess_detach does (handed-off detaches are
 * the zd handle's to wait for) and frees. */
void sess_detach_all(struct sess_manager *m);

unsigned sess_count(struct sess_manager *m);
const struct zd_device *sess_device(struct sess_manager *m, unsigned session);
uint32_t sess_thread_count(struct sess_manager *m, unsigned session);
struct zd_thread sess_thread_id(struct sess_manager *m, unsigned session, uint32_t thread);
/* The thread's state. After a stop-all, a thread the interrupt may have
 * stopped is not known to be stopped or idle until its registers are read
 * (the driver's answer does not say, README.md "Stop-all"): this call reads
 * its cr0 then (one register read, kept in the cache). */
enum sess_thread_state sess_thread_state(struct sess_manager *m, unsigned session, uint32_t thread);
/* What is known without asking the device: such a thread counts as
 * stopped, and *unread (may be NULL) says it is one. For loops over every
 * thread that must not cost a read each (thread lists, resumes). */
enum sess_thread_state sess_thread_state_known(struct sess_manager *m, unsigned session,
                                               uint32_t thread, bool *unread);
/* Loops over the threads in some known states under one lock, not one
 * lock per thread (issue 36: the resumes of the breakpoint cycle at 8,192
 * threads spent a third of zestub's time locking): the first thread >=
 * from whose known state (an unread thread counts as SESS_T_STOPPED) is
 * in states, a mask of SESS_STATE_BIT(...) bits, or sess_thread_count when
 * none. SESS_NEXT_READ leaves out unread threads, SESS_NEXT_UNREPORTED
 * threads whose stop was reported. The state may change once the lock is
 * dropped: the caller checks again what it acts on. */
#define SESS_STATE_BIT(st) (1u << (st))
enum { SESS_NEXT_READ = 1, SESS_NEXT_UNREPORTED = 2 };
uint32_t sess_thread_next(struct sess_manager *m, unsigned session, uint32_t from, unsigned states,
                          unsigned flags);
bool sess_alive(struct sess_manager *m, unsigned session);
/* The application ended on the session's device (the driver's DETACHED
 * event, or DEVICE_LOST when its threads were probed): the session is not
 * alive, and a SESS_NOTE_DETACHED was queued once. The driver gives no
 * exit status. Stays true after sess_detach. */
bool sess_exited(struct sess_manager *m, unsigned session);
/* The session counts as exited because its events could not be read, not
 * because the application ended (it may be alive, its threads held until
 * sess_detach): true, and the driver's words in why. */
bool sess_stream_failed(struct sess_manager *m, unsigned session, char *why, size_t len);

/* Thread marks: what the run control above knows of each thread across
 * resumes, kept here beside its state so that one table answers every
 * question about a thread. In all-stop only the threads that were part of
 * a resume are reported (intelgt protocol 7); a thread that stopped for a
 * reason of its own outside the resume is held (SESS_T_HELD) and reported
 * at the next resume that includes it. Sessions itself never sets a mark;
 * a held thread stays held until its stop is reported or it is resumed.
 *   resumed   part of the current resume: its stops are reported
 *   stepping  resumed with a step: the breakpoint bit of its stop is the
 *             step's, not a breakpoint
 *   reported  its stop was reported and it has not run since */
enum sess_resume_part {
    SESS_RESUME_NONE,     /* no action of the resume covers the thread */
    SESS_RESUME_COVERED,  /* covered, but not stopped: it runs on (or stays idle) */
    SESS_RESUME_CONTINUE, /* stopped and resumed */
    SESS_RESUME_STEP,     /* stopped and resumed with a step or range step */
};
/* A new resume: the thread's part in it sets its resumed and stepping
 * marks; a thread that runs again loses its reported mark. */
void sess_thread_join_resume(struct sess_manager *m, unsigned session, uint32_t thread,
                             enum sess_resume_part part);
/* The step was not armed (an end-of-thread instruction runs instead). */
void sess_thread_end_step(struct sess_manager *m, unsigned session, uint32_t thread);
/* A stopped thread becomes SESS_T_HELD. True when it is held (now or
 * already); false when it is not stopped. */
bool sess_thread_hold(struct sess_manager *m, unsigned session, uint32_t thread);
/* Its stop is being reported: held no more (SESS_T_STOPPED), reported, not
 * stepping. */
void sess_thread_mark_reported(struct sess_manager *m, unsigned session, uint32_t thread);
bool sess_thread_is_resumed(struct sess_manager *m, unsigned session, uint32_t thread);
bool sess_thread_is_stepping(struct sess_manager *m, unsigned session, uint32_t thread);
bool sess_thread_is_reported(struct sess_manager *m, unsigned session, uint32_t thread);

/* Waits up to timeout_ms for the next note. 0 or ZD_E_TIMEOUT. */
int sess_wait(struct sess_manager *m, uint64_t timeout_ms, struct sess_note *note);

/* The module is known to the layer above: acknowledge its load event. */
int sess_module_release(struct sess_manager *m, unsigned session, uint64_t begin, uint64_t end,
                        struct zd_error *err);
/* The modules a session knows (loaded before or after attach, not yet
 * unloaded), by position 0..count-1; positions change when one unloads. */
struct sess_module_info {
    uint64_t begin, end; /* the in-memory ELF in the debuggee */
    uint64_t load;       /* its load address on the device */
    bool need_ack;       /* the load event asked for an acknowledgement */
    bool acked;          /* ... and got it (or never needed one) */
    bool has_symbols;    /* its ELF was read and parsed */
};
size_t sess_module_count(struct sess_manager *m, unsigned session);
int sess_module_at(struct sess_manager *m, unsigned session, size_t i,
                   struct sess_module_info *out);
/* Symbols of module i (as sess_module_at), NULL when it has none. */
const struct sym_module *sess_module_symbols(struct sess_manager *m, unsigned session, size_t i);

/* Stops every thread of every session: one interrupt per device (or the
 * answer of the same interrupt already pending, then one more when that
 * was asked before a resume), then threads that did not report are probed
 * once (cr0, kept in the register cache). Returns the number of stopped threads; err holds the
 * first device's interrupt failure (code 0 when every interrupt went out). */
int sess_stop_all(struct sess_manager *m, struct zd_error *err);
/* After sess_stop_all: waits (at most timeout_ms) until every device it
 * interrupted has had one stop event of that interrupt recorded by the
 * event pump. Events arrive in order, so what the driver queued earlier,
 * such as the modules it replays at attach, is then known (their names for
 * threads, qXfer:libraries). 0, or -ETIMEDOUT. */
int sess_settle(struct sess_manager *m, uint64_t timeout_ms);
/* Resumes every stopped thread: exception bits cleared where set, then one
 * resume per device. */
int sess_resume_all(struct sess_manager *m, struct zd_error *err);
/* The same for device process k alone (0 when it has ended); `prepared`:
 * threads were readied by sess_prepare_step, so the device is resumed even
 * when no other thread is stopped. */
int sess_resume_device(struct sess_manager *m, unsigned k, bool prepared, struct zd_error *err);
/* Readies a stopped thread for a single step that sess_resume_device then
 * starts (its cr0 written; the thread counts as running). */
int sess_prepare_step(struct sess_manager *m, unsigned session, uint32_t thread,
                      struct zd_error *err);

/* A file descriptor that is readable while notes are queued, for an event
 * loop (poll); sess_poll takes a note without blocking. 0 or ZD_E_TIMEOUT. */
int sess_notify_fd(struct sess_manager *m);
int sess_poll(struct sess_manager *m, struct sess_note *note);

/* Resumes one stopped thread (step: one instruction, then it stops again);
 * exception bits are cleared and a breakpoint under the PC suppressed. */
int sess_resume_thread(struct sess_manager *m, unsigned session, uint32_t thread, bool step,
                       struct zd_error *err);
/* Asks one thread, or every thread of a device, to stop; the stops come as
 * notes (or UNAVAILABLE notes). An interrupt of the device the driver
 * says is already pending (NOT_READY) counts as made: that one's answer
 * is the note. */
int sess_interrupt_thread(struct sess_manager *m, unsigned session, uint32_t thread,
                          struct zd_error *err);
int sess_interrupt_device(struct sess_manager *m, unsigned session, struct zd_error *err);
/* After a device's interrupt was answered without saying which threads it
 * stopped: reads every thread that may be one, and queues a STOPPED note
 * for each that is (non-stop reports every stop). One read per thread. */
void sess_report_unread(struct sess_manager *m, unsigned session);

/* Memory in the context of a thread: the thread itself when stopped, else
 * the device's "all" thread (default space only; SLM needs a stopped
 * thread). thread may be UINT32_MAX for "all". */
int sess_read_memory(struct sess_manager *m, unsigned session, uint32_t thread, enum zd_space sp,
                     uint64_t addr, size_t size, void *buf, struct zd_error *err);
int sess_write_memory(struct sess_manager *m, unsigned session, uint32_t thread, enum zd_space sp,
                      uint64_t addr, size_t size, const void *buf, struct zd_error *err);
/* Writes registers of a stopped thread; the register cache stays coherent. */
int sess_write_registers(struct sess_manager *m, unsigned session, uint32_t thread, uint32_t type,
                         uint32_t start, uint32_t count, const void *data, struct zd_error *err);

/* Register access through the per-stop cache: each register set of a
 * stopped thread is read from the device at most once per stop; SBA (the
 * context's base addresses) once per device. */
const struct zd_regset *sess_regsets(struct sess_manager *m, unsigned session, size_t *n);
/* The register sets of one thread (sess_layout.c). With ask, a stopped
 * thread's sets are asked of the driver (API 1.5, zd_thread_regsets) once
 * per stop; a thread the interrupt may have stopped is read first (its
 * cr0) to know. Otherwise, or when the query fails (Intel's gdbserver
 * keeps the old description too), the thread's last answer. The device's
 * sets when the driver has no per-thread query: then it is never asked
 * again, and nothing is read to know. *layout names the answer within the
 * device: 0 the device's sets, else a small number that stays the same for
 * the same sets until detach. Register reads of the thread follow its
 * layout (a GRF of 256 registers is read whole). */
const struct zd_regset *sess_thread_regsets(struct sess_manager *m, unsigned session,
                                            uint32_t thread, bool ask, size_t *n, unsigned *layout);
int sess_read_regset(struct sess_manager *m, unsigned session, uint32_t thread, uint32_t type,
                     const uint8_t **data, size_t *size, struct zd_error *err);
/* Reads into the per-stop cache each of the thread's sets of types[]
 * (n <= 32; SBA is skipped) that is not there yet, for a stopped thread
 * or one the interrupt may have stopped: one look at the thread before the
 * reads and one after, the reads in types[] order; when the first read
 * fails (an idle thread), no other is tried. Returns the bits (of indices
 * into types) of the sets this call put in the cache. For readers ahead of
 * a pass over every thread (report/pass_ahead.c); errors are left to the
 * later sess_read_regset, which says why. Safe beside resumes and
 * register writes from another host thread: what was read across one of
 * the session's is dropped, never kept for a later stop or over a newer
 * value. A detached or ended session reads nothing. */
uint32_t sess_fill_regsets(struct sess_manager *m, unsigned session, uint32_t thread,
                           const uint32_t *types, size_t n);
/* True when reading the thread's register set of type costs no device
 * access: it is in the per-stop cache (or, for SBA, the device's copy). */
bool sess_regset_cached(struct sess_manager *m, unsigned session, uint32_t thread, uint32_t type);
/* Drops a thread's cached register set: the next read goes to the device
 * again. A reader of every thread's registers (the core writer) drops what
 * it filled, so its memory does not grow with the number of threads. */
void sess_forget_regset(struct sess_manager *m, unsigned session, uint32_t thread, uint32_t type);
/* sess_read_regset for each set types[i] whose bit is in want (n <= 32),
 * under one hold of the sessions' lock (dropped only around device
 * reads): a pass over tens of thousands of threads would take it twice per
 * set otherwise. data[i] and size[i] as sess_read_regset's; returns the
 * bits of the sets read; *filled the bits of those that were not in the
 * cache before (the caller's to forget, sess_forget_regsets, if it keeps
 * no more than the thread at hand); err the last failure's. */
uint32_t sess_read_regsets(struct sess_manager *m, unsigned session, uint32_t thread,
                           const uint32_t *types, size_t n, uint32_t want, const uint8_t **data,
                           size_t *size, uint32_t *filled, struct zd_error *err);
/* sess_forget_regset for each types[i] whose bit is in which. */
void sess_forget_regsets(struct sess_manager *m, unsigned session, uint32_t thread,
                         const uint32_t *types, size_t n, uint32_t which);
/* cr0-derived facts of a stopped thread (reads CR and SBA through the cache). */
int sess_thread_pc(struct sess_manager *m, unsigned session, uint32_t thread, uint64_t *pc,
                   struct zd_error *err);
/* Why a stopped thread stopped (cr0.1, read through the cache);
 * ISA_STOP_UNKNOWN when its registers cannot be read. */
enum isa_stop_reason sess_thread_reason(struct sess_manager *m, unsigned session, uint32_t thread);

/* Register reads that succeeded (each is the first of its set for that
 * stop) and threads probed after stop-all and found unavailable. */
struct sess_stats {
    uint64_t register_reads, probes_failed;
};
void sess_get_stats(struct sess_manager *m, struct sess_stats *out);

/* Page faults seen so far on a session. */
size_t sess_fault_count(struct sess_manager *m, unsigned session);
int sess_fault_at(struct sess_manager *m, unsigned session, size_t i, uint64_t *address,
                  enum zd_fault_reason *reason);

#endif
