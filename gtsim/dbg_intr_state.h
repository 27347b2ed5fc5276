/* SPDX-License-Identifier: MIT */
/* What a debugger process's gtsim knows of a session's threads to answer
 * zetDebugInterrupt at once, as Intel's runtime does (DebugSessionImp::
 * interrupt): ERROR_NOT_AVAILABLE when every requested thread has been
 * reported stopped, NOT_READY when the same request is still pending, else
 * the request is queued and SUCCESS returned; its answer comes later as an
 * event. Everything here is lock-free (C11 atomics), because a debugger may
 * call zetDebugInterrupt from a signal handler that interrupted another
 * zetDebug* call of the same process (Intel's gdbserver does, on ^C): no
 * lock that call may hold can be taken here. */
#ifndef GTSIM_DBG_INTR_STATE_H
#define GTSIM_DBG_INTR_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <zet_api.h>

/* Interrupt requests a session may have pending at once. Intel's runtime
 * has no limit; 64 distinct requests (each a different thread id) is far
 * more than a debugger makes before their answers come. */
#define GTSIM_INTR_SLOTS 64

struct gtsim_intr_state {
    uint32_t slices, subslices, eus, threads; /* the session's device, as the API numbers it */
    /* One byte per thread (slice outermost): reported stopped by an event
     * (its own THREAD_STOPPED, or an interrupt's answer), until the
     * debuggee says it resumed. Written by the event reader and read by
     * zetDebugInterrupt. */
    _Atomic uint8_t *reported;
    /* Pending requests: 0 free, 1 being filled, 2 pending (answer due). */
    _Atomic uint32_t slot_state[GTSIM_INTR_SLOTS];
    ze_device_thread_t slot_thread[GTSIM_INTR_SLOTS];
};

/* 0, or -ENOMEM. */
int gtsim_intr_init(struct gtsim_intr_state *st, uint32_t slices, uint32_t subslices, uint32_t eus,
                    uint32_t threads);
void gtsim_intr_fini(struct gtsim_intr_state *st);
uint32_t gtsim_intr_nthreads(const struct gtsim_intr_state *st);
/* Does t name threads of this device (each field in range or "all")? */
bool gtsim_intr_in_range(const struct gtsim_intr_state *st, const ze_device_thread_t *t);

/* zetDebugInterrupt's answer before anything is sent: NOT_AVAILABLE,
 * NOT_READY (the same request pending, or no free slot), or SUCCESS with
 * *slot claimed for it. Async-signal-safe. */
ze_result_t gtsim_intr_claim(struct gtsim_intr_state *st, const ze_device_thread_t *t,
                             uint32_t *slot);
/* The request in slot was answered (or never sent): the same request may
 * be made again. */
void gtsim_intr_release(struct gtsim_intr_state *st, uint32_t slot);

/* Event reader: a single thread was reported stopped; threads whose bit
 * is set in bits (gtsim_intr_nthreads bits, thread index order) were
 * stopped by an interrupt; the threads t selects were resumed. */
void gtsim_intr_mark_stopped(struct gtsim_intr_state *st, const ze_device_thread_t *t);
void gtsim_intr_mark_bits(struct gtsim_intr_state *st, const uint8_t *bits, uint32_t nbits);
void gtsim_intr_mark_resumed(struct gtsim_intr_state *st, const ze_device_thread_t *t);

#endif
