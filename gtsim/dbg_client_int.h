/* SPDX-License-Identifier: MIT */
/* The debugger side's session (dbg_client.c), shared with the file that
 * serves its register calls (dbg_client_regs.c). Internal to gtsim's
 * debugger side. */
#ifndef GTSIM_DBG_CLIENT_INT_H
#define GTSIM_DBG_CLIENT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <zet_api.h>

#include "gtsim/dbg_intr_state.h"
#include "gtsim/dbg_proto.h"
#include "gtsim/dbg_req.h"
#include "gtsim/faults.h"
#include "gtsim/ssa.h"

struct gtsim_device;

#define GTSIM_MAGIC_SESSION 0x47545364

struct client_session {
    uint32_t magic;
    struct client_session *next;
    struct gtsim_device *device;
    uint32_t pid;
    struct gtsim_req req; /* requests and replies (dbg_req.h) */
    /* The debuggee's register slots, read here without a request (ssa.h);
     * ssa.fd -1: register reads go as requests (the fallback). */
    struct gtsim_ssa_view ssa;
    uint32_t ssa_slice_first, ssa_slice_count; /* the debuggee's view of the device */
    int event_fd;                              /* events; read only by the reader thread */
    struct gtsim_dbg_rx erx;                   /* what event_fd brought and is not read yet */
    pthread_t reader;

    pthread_mutex_t lock; /* everything below */
    pthread_cond_t cv;
    zet_debug_event_t *events;
    size_t nevents, cap_events, head;
    bool dead;
    atomic_bool gone;        /* dead, for zetDebugInterrupt, which takes no lock */
    uint32_t resumes_seen;   /* the last RESUMED note the reader took */
    bool lost;               /* GTSIM_FAULTS lost the device */
    struct timespec lose_at; /* GTSIM_FAULTS time:ms=N, or tv_sec 0 */

    /* Reported stops and pending interrupts: lock-free, written by the
     * reader (and a resume) under lock, read by zetDebugInterrupt. */
    struct gtsim_intr_state intr;
};

/* The session behind a handle, or NULL when it is not one. */
struct client_session *gtsim_client_session(zet_debug_session_handle_t h);
/* A thread id that names one thread (no wildcard field). */
bool gtsim_client_single_thread(const ze_device_thread_t *t);
/* The modelled cost of a register or memory access of this type
 * (README.md, "Cost model"), paid in the caller's thread. */
void gtsim_client_access_cost(uint32_t type);
/* Counts a call for GTSIM_FAULTS; true when it must return *r. */
bool gtsim_client_fault(struct client_session *s, enum gtsim_fault_call call, ze_result_t *r);
/* The request stream ended: waits until the events are queued, then
 * DEVICE_LOST. */
ze_result_t gtsim_client_stream_ended(struct client_session *s);
/* A request and its reply (out: reply data). */
ze_result_t gtsim_client_request(struct client_session *s, uint32_t type, const void *a,
                                 size_t alen, const void *b, size_t blen, void *out, size_t outlen);

#endif
