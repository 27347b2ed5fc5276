/* SPDX-License-Identifier: MIT */
/* sessions/ internals shared by its files; not for other layers. */
#ifndef ZESTUB_SESS_IMPL_H
#define ZESTUB_SESS_IMPL_H

#include <pthread.h>
#include <time.h>

#include "regsets/regs.h"
#include "sessions/sess.h"
#include "symbols/symbols.h"

#define MAX_REGSETS 32
/* Register layouts a device's threads may have, the device's included
 * (in practice two: 128 and 256 GRF registers). */
#define SESS_MAX_LAYOUTS 8
#define LAYOUT_CHECKED 0x80u

/* A state byte of the thread table that never leaves sessions/: the
 * thread was stopped by an interrupt of the whole device, or is idle; the
 * driver's answer to the interrupt does not say which (README.md,
 * "Stop-all"). The first read of its registers tells: readable means
 * SESS_T_STOPPED, NOT_AVAILABLE means SESS_T_UNAVAILABLE. Until then the
 * public sess_thread_state reads it, and sess_thread_state_known counts it
 * as stopped. */
#define SESS_T_UNREAD 4

struct module_rec {
    struct zd_event ev; /* the load event, kept for its acknowledgement */
    bool acked;
    struct sym_module *sym;
};

struct fault_rec {
    uint64_t address;
    enum zd_fault_reason reason;
};

/* Thread marks (the byte per thread in session.marks). The first three
 * are the run control's (sess.h, "Thread marks"). MARK_STEP_ARMED is the
 * hardware's: sessions wrote cr0.1's breakpoint status bit to step the
 * thread, and no resume has cleared it since. Such a thread, stopped by an
 * interrupt before its step ended and never read, would step once more on
 * a device-wide resume (the bit is what makes the hardware trap after
 * one instruction, protocol 5), and stop again with a step's end nobody
 * asked for. */
enum {
    MARK_RESUMED = 1,
    MARK_STEPPING = 2,
    MARK_REPORTED = 4,
    MARK_STEP_ARMED = 8,
};

struct session {
    struct sess_manager *m;
    unsigned index;
    size_t device;
    const struct zd_device *dev;
    struct zd_session *zs;
    bool alive;
    bool detached; /* zd session closed (sess_detach); zs is NULL */
    /* The application ended on this device (DETACHED from the driver, or
     * DEVICE_LOST from a probe): not alive, and never again. */
    bool exited;
    /* ... not because it ended: its events could not be read (the reader
     * gave up on failing reads). The driver's words, "" otherwise. */
    char stream_error[256];
    uint32_t nthreads;
    /* One byte per hardware thread: a 64K-thread device costs 64 KiB. */
    uint8_t *state;
    /* Per thread: stops found by probing whose THREAD_STOPPED event is
     * still on its way. When it arrives it belongs to a stop already
     * counted, even if the thread has been resumed since, and is absorbed;
     * otherwise a stale event would report a stop that is over. */
    uint8_t *owed;
    /* Per thread: the run control's marks (sess.h, "Thread marks"), and
     * MARK_STEP_ARMED below. */
    uint8_t *marks;
    /* THREAD_STOPPED/UNAVAILABLE events the pump has taken, and their count
     * when sess_stop_all last interrupted the device (UINT64_MAX: it did
     * not). Events arrive in order, so once one answering that interrupt
     * is in, everything the driver queued before it (modules replayed at
     * attach) has been recorded: see sess_settle. */
    uint64_t stop_events, interrupt_mark;
    /* Answers to interrupts of the whole device (an event naming no single
     * thread) the pump has taken: sess_stop_all waits for the one of its
     * interrupt. */
    uint64_t answers;
    /* answers when the client last interrupted the device
     * (sess_interrupt_device): an answer note numbered at or below it
     * answered an earlier interrupt (ours, at attach...) and is dropped,
     * so it is never taken for the client's (sess_notes.c). */
    uint64_t client_mark;
    /* Device resumes and thread resumes asked of the driver, and their
     * count when it last accepted an interrupt of all: a NOT_READY answer
     * (that interrupt still pending) whose request predates a resume will
     * not stop what the resume let run. */
    uint64_t resumes, intr_resumes;
    /* Register writes made (sess_write_registers): with resumes, what a
     * reader that dropped the lock compares (sess_fill_regsets). */
    uint64_t reg_writes;
    /* The SBA registers from the first read of a thread's: the context's
     * state base addresses (isabase...), one copy per device. */
    uint8_t *sba;
    struct zd_regset regsets[MAX_REGSETS];
    size_t nregsets;
    /* Per-stop register cache: nthreads x nregsets buffers, NULL = not read
     * since the thread last stopped. A buffer holds the count of its set in
     * the thread's layout (below), which may differ from regsets[]'s. */
    uint8_t **cache;
    /* Per-thread register layouts (API 1.5, sess_layout.c): layouts[0] is
     * the device's (regsets above), the others what the driver said for
     * some stopped thread, each kept once. Per thread one byte: the index
     * of its layout (low bits) and LAYOUT_CHECKED once asked during its
     * current stop (cleared with its cache). no_thread_query: the driver
     * answered with the device's sets, so nothing more is asked. */
    struct sess_layout {
        struct zd_regset sets[MAX_REGSETS];
        size_t n;
    } * layouts;
    unsigned nlayouts;
    uint8_t *layout;
    bool no_thread_query;
    struct module_rec *modules;
    size_t nmodules, cap_modules;
    struct fault_rec *faults;
    size_t nfaults, cap_faults;
};

struct pump_ctx {
    struct sess_manager *m;
    unsigned index;
};

struct sess_manager {
    struct zd *zd;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    struct session *sessions;
    unsigned nsessions;
    struct sess_note *notes; /* ring */
    size_t nnotes, cap_notes, head;
    struct pump_ctx *pumps; /* one per session, alive as long as the manager */
    struct sess_stats stats;
    int notify_fd; /* eventfd: readable while notes are queued */
};

/* Helpers (lock held unless said otherwise). */
/* now + timeout_ms on CLOCK_MONOTONIC, the clock of m->cv (no lock). */
void sess_deadline(struct timespec *dl, uint64_t timeout_ms);
void sess_push_note(struct sess_manager *m, const struct sess_note *n);
/* The application is gone from the session's device: not alive, exited,
 * and one SESS_NOTE_DETACHED queued (the first time only). */
void sess_mark_exited(struct sess_manager *m, struct session *s);
void sess_set_state(struct session *s, uint32_t thread, enum sess_thread_state st);
void sess_drop_cache(struct session *s, uint32_t thread);
int sess_regset_slot(const struct session *s, uint32_t type);
/* The count of the set at slot in the thread's layout (sess_threads.c). */
uint32_t sess_layout_count(const struct session *s, uint32_t thread, int slot);
/* Fills the cache for (thread, regset) if needed; drops the lock around the
 * device access. */
int sess_fill_cache(struct session *s, uint32_t thread, int slot, struct zd_error *err);
/* The device's isabase (SBA read once per device, through thread). Lock
 * held; dropped around the device access. */
int sess_isabase(struct session *s, uint32_t thread, uint64_t *isabase, struct zd_error *err);
/* Resolves a SESS_T_UNREAD thread by reading its cr0: STOPPED or
 * UNAVAILABLE afterwards (or still UNREAD when the read failed otherwise).
 * Lock held; dropped around the device access. */
void sess_resolve(struct session *s, uint32_t thread);
/* Makes a stopped thread ready to run: exception bits cleared, the step
 * bit set for a step, suppress set when the instruction at its PC carries
 * the breakpoint bit. Writes cr0 when it changed and marks the thread
 * running (its cache dropped). Lock held; dropped around device access. */
int sess_prepare_resume(struct session *s, uint32_t thread, bool step, struct zd_error *err);
bool sess_thread_valid(const struct session *s, struct zd_thread t);
/* The event pump (sess_pump.c): zetdebug's reader callback, ctx a
 * struct pump_ctx. Takes the lock itself. */
void sess_on_event(void *ctx, const struct zd_event *ev);
uint32_t sess_thread_index(const struct session *s, struct zd_thread t);

#endif
