/* SPDX-License-Identifier: MIT */
/* The simulated hardware of one root device: every hardware thread of every
 * tile, their register files, the instruction heap, the work-group
 * dispatcher and the worker pool that advances running threads.
 *
 * Locking: one mutex per hw (hw->lock) guards thread states, dispatch
 * bookkeeping and register files of stopped threads. Workers hold it while
 * stepping, so a debugger that takes it sees every thread either running
 * between instructions or stopped. A debugger process reads stopped
 * threads' registers without it, from the memfd they live in (ssa.h):
 * a table word per thread, written under the lock, says when it may. */
#ifndef GTSIM_HW_H
#define GTSIM_HW_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gtsim/exec.h"
#include "gtsim/platform.h"
#include "gtsim/regfile.h"

struct gtsim_hw_config {
    enum gtsim_platform platform;
    uint32_t tiles, slices_per_tile, subslices, eus, threads;
    uint64_t pace;    /* instructions per second per thread; 0 = unlimited */
    uint32_t workers; /* simulator worker threads */
    /* The last thread of every work-group skips barriers: the others wait
     * at the barrier for ever (README.md, "Hangs"). */
    bool barrier_skip;
    /* Execute instructions (README.md, "Executing instructions"); only
     * effective on xehpc with libiga64, otherwise threads only walk. */
    bool exec;
};

enum gtsim_thread_state {
    GTSIM_T_IDLE = 0, /* no work dispatched: registers are not available */
    GTSIM_T_RUNNING,
    GTSIM_T_STOPPED,
};

enum gtsim_stop_reason {
    GTSIM_STOP_BREAKPOINT = 1,
    GTSIM_STOP_STEP,
    GTSIM_STOP_INTERRUPT,
    GTSIM_STOP_PAGE_FAULT,
    GTSIM_STOP_ILLEGAL,
};

/* What a launch runs: a snapshot taken when the launch was appended. */
struct gtsim_hw_kernel {
    char name[128];
    uint64_t entry; /* device address of the first instruction */
    uint32_t size;  /* bytes of code from entry */
    uint32_t simd;
    uint32_t slm_size;  /* per work-group shared local memory */
    uint32_t grf_count; /* .ze_info grf_count; 0: not said (128) */
};

/* Largest cross-thread payload a launch may have when it is executed. */
#define GTSIM_HW_CROSS_THREAD_MAX 1024u

struct gtsim_hw_launch {
    struct gtsim_hw_kernel kernel;
    uint32_t group_count[3];
    uint32_t group_size[3];
    uint32_t slice_first, slice_count; /* which slices may run it (a tile) */
    bool has_bad_pointer;              /* a pointer argument outside every allocation */
    uint64_t bad_pointer;
    /* For the executor: the cross-thread payload as the runtime fills it
     * (arguments and implicit arguments at their .ze_info offsets), the
     * per-thread local ids' size per thread, and the allocation check. */
    uint8_t cross_thread[GTSIM_HW_CROSS_THREAD_MAX];
    uint32_t cross_thread_size; /* 0: the kernel takes no payload */
    uint32_t local_id_size;
    gtsim_mem_check_fn mem_ok;
    void *mem_ctx;
    /* The kernel's printf buffer (NULL without one): the queue looks at it
     * when the launch has run (printf_buffer.c). */
    uint8_t *printf_buffer;
    /* Progress, guarded by hw->lock. */
    uint32_t threads_per_group;
    uint64_t groups_total, groups_dispatched, groups_done;
    uint32_t live_threads;
    bool faulted;       /* a fault happened with no debugger to report it to */
    bool fault_illegal; /* it was an illegal instruction, at fault_address */
    uint64_t fault_address;
    uint32_t fault_thread;
};

/* Reported to the debug side with hw->lock held; the callee must only record. */
struct gtsim_hw_stop {
    uint32_t thread;
    enum gtsim_stop_reason reason;
    uint64_t fault_address;
};
typedef void (*gtsim_hw_stop_fn)(void *ctx, const struct gtsim_hw_stop *stop);

struct gtsim_hw;

struct gtsim_hw *gtsim_hw_create(const struct gtsim_hw_config *cfg, char *err, size_t errlen);
void gtsim_hw_destroy(struct gtsim_hw *hw);

const struct gtsim_hw_config *gtsim_hw_config(const struct gtsim_hw *hw);
/* Whether threads execute instructions (cfg.exec, on a platform and with a
 * decoder that allow it) or only walk them. */
bool gtsim_hw_executes(const struct gtsim_hw *hw);
const struct gtsim_regfile_layout *gtsim_hw_layout(const struct gtsim_hw *hw);
uint32_t gtsim_hw_thread_count(const struct gtsim_hw *hw);
uint32_t gtsim_hw_thread_index(const struct gtsim_hw *hw, uint32_t slice, uint32_t subslice,
                               uint32_t eu, uint32_t thread);
void gtsim_hw_thread_coords(const struct gtsim_hw *hw, uint32_t index, uint32_t *slice,
                            uint32_t *subslice, uint32_t *eu, uint32_t *thread);

/* Instruction heap: code lives at device addresses [isa_base, isa_base+size). */
uint64_t gtsim_hw_isa_base(const struct gtsim_hw *hw);
uint64_t gtsim_hw_general_state_base(const struct gtsim_hw *hw);
int gtsim_hw_isa_alloc(struct gtsim_hw *hw, size_t size, uint64_t *addr);
bool gtsim_hw_isa_contains(const struct gtsim_hw *hw, uint64_t addr, size_t len);
/* Each tile fetches from its own copy of the heap; addr must be inside it.
 * The copy of tile 0 is the memory at the device address itself. */
uint8_t *gtsim_hw_isa_copy(struct gtsim_hw *hw, uint32_t tile, uint64_t addr);
/* Writes code to every tile's copy (module loads, root-device debuggers). */
void gtsim_hw_isa_write(struct gtsim_hw *hw, uint64_t addr, const void *data, size_t len);

/* Runs a launch to completion (blocking). Returns 0, or -EFAULT when a thread
 * faulted with no debugger attached (launch->fault_* say where). */
int gtsim_hw_run(struct gtsim_hw *hw, struct gtsim_hw_launch *launch);

/* Debug hooks. With a debugger attached, breakpoint bits and faults stop
 * threads and are reported through fn; without one, breakpoint bits are
 * ignored and a fault aborts the launch. */
void gtsim_hw_set_debugger(struct gtsim_hw *hw, gtsim_hw_stop_fn fn, void *ctx);

/* Finer control for the debug side: the hook, and which slices (tiles) are
 * covered by a session. Both require hw->lock. */
void gtsim_hw_set_stop_hook_locked(struct gtsim_hw *hw, gtsim_hw_stop_fn fn, void *ctx);
void gtsim_hw_set_slice_debug_locked(struct gtsim_hw *hw, uint32_t first, uint32_t count, bool on);

/* The memfd of the register slots and their readable table (ssa.h), and
 * its size, or -1 when the slots are private memory. */
int gtsim_hw_ssa_fd(const struct gtsim_hw *hw, size_t *bytes);

void gtsim_hw_lock(struct gtsim_hw *hw);
void gtsim_hw_unlock(struct gtsim_hw *hw);
/* The following require hw->lock. */
enum gtsim_thread_state gtsim_hw_thread_state(struct gtsim_hw *hw, uint32_t index);
uint8_t *gtsim_hw_thread_regs(struct gtsim_hw *hw, uint32_t index);
/* Stop a running thread as an external halt would; -EAGAIN if not running. */
int gtsim_hw_interrupt_locked(struct gtsim_hw *hw, uint32_t index);
/* Resume a stopped thread; its interrupt bits (cr0.1 bits 30 and 26) are
 * cleared, and cr0.1 bit 31 set by the debugger arms a single
 * step. -EAGAIN if not stopped. */
int gtsim_hw_resume_locked(struct gtsim_hw *hw, uint32_t index);
/* Who may read a stopped thread's registers without the hw lock (ssa.h):
 * a stopped thread becomes readable from ready_ns (CLOCK_MONOTONIC; 0:
 * now), a thread in any other state unreadable. Stops other than an
 * interrupt's publish themselves; the debug server publishes interrupted
 * threads, which may halt late. */
void gtsim_hw_publish_locked(struct gtsim_hw *hw, uint32_t index, uint64_t ready_ns);
/* Shared local memory of the work-group a thread runs (NULL when idle). */
uint8_t *gtsim_hw_thread_slm(struct gtsim_hw *hw, uint32_t index, uint32_t *size);

#endif
