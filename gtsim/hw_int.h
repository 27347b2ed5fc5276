/* SPDX-License-Identifier: MIT */
/* The hardware's private state (hw.c runs threads, dispatches launches;
 * hw_access.c answers questions about it): one definition for both. */
#ifndef GTSIM_HW_INT_H
#define GTSIM_HW_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "gtsim/hw.h"
#include "gtsim/ssa.h"

struct gtsim_decode_cache;
struct gtsim_exec_simt;

/* The instruction heap is reserved once and never moves, so isabase stays
 * valid for every thread; pages are only committed when code is copied in. */
#define ISA_HEAP_SIZE (64u << 20)
#define GSH_SIZE (1u << 20)
/* With an unlimited pace a worker still yields after this many instructions
 * per thread, so one long thread cannot starve the others. */
#define UNPACED_BURST 64

/* Barrier: a thread's gateway send signals it (arrived++), its next sync
 * waits until every thread of the group has signalled, which starts a new
 * generation. A waiting thread stays RUNNING (it is not stopped: an
 * interrupt halts it) but leaves its worker's list, so nothing spins. */
struct hw_group {
    uint8_t *slm;
    uint32_t slm_size;
    uint32_t live;
    uint32_t size; /* threads dispatched in the group */
    uint32_t arrived, generation;
    uint32_t *members; /* thread indices, size of them */
};

struct hw_thread {
    uint8_t state;  /* enum gtsim_thread_state */
    uint8_t step;   /* stop after the next instruction */
    uint8_t queued; /* on its worker's active list */
    uint8_t faulted;
    uint8_t signalled; /* sent a barrier signal, not yet past its wait */
    uint8_t parked;    /* waits at the barrier's sync, off the worker lists */
    uint8_t at_wait;   /* its IP is the sync it waited at (breakpoint seen) */
    uint32_t local;    /* index in its work-group */
    uint32_t bar_gen;  /* the group's generation when it signalled */
    struct gtsim_hw_launch *launch;
    struct hw_group *group;
    struct hw_indirect *indirect; /* the launch's payload when executing */
    struct gtsim_exec_simt *simt; /* lanes a goto parked (exec.h); NULL: none */
    uint64_t last_ns;
};

struct hw_worker {
    struct gtsim_hw *hw;
    pthread_t tid;
    uint32_t id;
    uint32_t *active;
    uint32_t nactive, capacity;
};

struct gtsim_hw {
    struct gtsim_hw_config cfg;
    const struct gtsim_regfile_layout *layout;
    uint32_t nthreads, per_subslice, nsubslices;

    pthread_mutex_t lock;
    /* Callers of gtsim_hw_lock blocked on it (a debugger's interrupt or
     * read, the host API): the workers, which hold the lock for a whole
     * round of execution and take it again at once, let them in first.
     * Without this an interrupt of an executing kernel waited seconds
     * (mutexes are not fair), where hardware halts at once. */
    atomic_uint lock_waiters;
    pthread_cond_t work_cv; /* workers: something became runnable */
    pthread_cond_t free_cv; /* dispatcher and launch waiters: threads finished */
    bool shutdown;
    uint32_t nrunning;

    struct hw_thread *threads;
    uint8_t *regs; /* nthreads slots of layout->slot_size bytes */
    size_t regs_bytes;
    /* regs live in ssa's memfd, which a debugger reads without asking us
     * (ssa.h); ssa.fd is -1 when they are private (the fallback). */
    struct gtsim_ssa ssa;
    uint32_t *free_in_subslice;
    uint32_t next_subslice; /* round-robin start for dispatch */

    uint8_t *isa;       /* tile 0's copy; its address is the device address */
    uint8_t **isa_tile; /* per tile: the copy that tile's threads fetch from */
    size_t isa_used;
    uint8_t *gsh;

    gtsim_hw_stop_fn stop_fn;
    void *stop_ctx;
    uint8_t *slice_debug; /* per slice: a debug session covers it */

    uint32_t nworkers;
    struct hw_worker *workers;

    bool exec;                          /* threads execute (gtsim_hw_executes) */
    struct gtsim_decode_cache *decoded; /* when exec */
};

/* What a launch's threads read as their payload when they execute: the
 * cross-thread data, then each thread's local ids (README.md, "Executing
 * instructions"). One copy per launch, shared by every work-group, since
 * local ids do not depend on the group. */
struct hw_indirect {
    uint8_t *data;
    uint32_t size;
};

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint8_t *slot(struct gtsim_hw *hw, uint32_t idx)
{
    return hw->regs + (size_t)idx * hw->layout->slot_size;
}

#endif
