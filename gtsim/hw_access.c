/* SPDX-License-Identifier: MIT */
/* What the rest of gtsim asks the hardware (hw.h): its shape and thread
 * numbering, the instruction heap and its per-tile copies, the debugger's
 * hooks, a thread's state, registers and shared local memory. The threads
 * themselves run in hw.c. */
#include <errno.h>
#include <string.h>

#include "gtsim/hw_int.h"

const struct gtsim_hw_config *gtsim_hw_config(const struct gtsim_hw *hw)
{
    return &hw->cfg;
}

bool gtsim_hw_executes(const struct gtsim_hw *hw)
{
    return hw->exec;
}

const struct gtsim_regfile_layout *gtsim_hw_layout(const struct gtsim_hw *hw)
{
    return hw->layout;
}

uint32_t gtsim_hw_thread_count(const struct gtsim_hw *hw)
{
    return hw->nthreads;
}

uint32_t gtsim_hw_thread_index(const struct gtsim_hw *hw, uint32_t slice, uint32_t subslice,
                               uint32_t eu, uint32_t thread)
{
    const struct gtsim_hw_config *c = &hw->cfg;
    return ((slice * c->subslices + subslice) * c->eus + eu) * c->threads + thread;
}

void gtsim_hw_thread_coords(const struct gtsim_hw *hw, uint32_t index, uint32_t *slice,
                            uint32_t *subslice, uint32_t *eu, uint32_t *thread)
{
    const struct gtsim_hw_config *c = &hw->cfg;
    *thread = index % c->threads;
    index /= c->threads;
    *eu = index % c->eus;
    index /= c->eus;
    *subslice = index % c->subslices;
    *slice = index / c->subslices;
}

uint64_t gtsim_hw_isa_base(const struct gtsim_hw *hw)
{
    return (uint64_t)(uintptr_t)hw->isa;
}

uint64_t gtsim_hw_general_state_base(const struct gtsim_hw *hw)
{
    return (uint64_t)(uintptr_t)hw->gsh;
}

int gtsim_hw_isa_alloc(struct gtsim_hw *hw, size_t size, uint64_t *addr)
{
    int rc = 0;
    pthread_mutex_lock(&hw->lock);
    /* Bump allocation: module code is never moved or reused, so a stale
     * breakpoint address can never land in another module's code. */
    size_t off = (hw->isa_used + 63) & ~(size_t)63;
    if (size > ISA_HEAP_SIZE || off > ISA_HEAP_SIZE - size) {
        rc = -ENOMEM;
    } else {
        hw->isa_used = off + size;
        *addr = (uint64_t)(uintptr_t)hw->isa + off;
    }
    pthread_mutex_unlock(&hw->lock);
    return rc;
}

uint8_t *gtsim_hw_isa_copy(struct gtsim_hw *hw, uint32_t tile, uint64_t addr)
{
    return hw->isa_tile[tile] + (addr - (uint64_t)(uintptr_t)hw->isa);
}

void gtsim_hw_isa_write(struct gtsim_hw *hw, uint64_t addr, const void *data, size_t len)
{
    for (uint32_t t = 0; t < hw->cfg.tiles; t++)
        memcpy(gtsim_hw_isa_copy(hw, t, addr), data, len);
}

bool gtsim_hw_isa_contains(const struct gtsim_hw *hw, uint64_t addr, size_t len)
{
    uint64_t base = (uint64_t)(uintptr_t)hw->isa;
    return addr >= base && len <= ISA_HEAP_SIZE && addr - base <= ISA_HEAP_SIZE - len;
}

void gtsim_hw_set_debugger(struct gtsim_hw *hw, gtsim_hw_stop_fn fn, void *ctx)
{
    uint32_t n = hw->cfg.tiles * hw->cfg.slices_per_tile;
    pthread_mutex_lock(&hw->lock);
    hw->stop_fn = fn;
    hw->stop_ctx = ctx;
    /* Without a slice range, the hook covers the whole device. */
    memset(hw->slice_debug, fn ? 1 : 0, n);
    pthread_mutex_unlock(&hw->lock);
}

void gtsim_hw_set_slice_debug_locked(struct gtsim_hw *hw, uint32_t first, uint32_t count, bool on)
{
    uint32_t n = hw->cfg.tiles * hw->cfg.slices_per_tile;
    for (uint32_t s = first; s < first + count && s < n; s++)
        hw->slice_debug[s] = on;
}

void gtsim_hw_set_stop_hook_locked(struct gtsim_hw *hw, gtsim_hw_stop_fn fn, void *ctx)
{
    hw->stop_fn = fn;
    hw->stop_ctx = ctx;
}

void gtsim_hw_lock(struct gtsim_hw *hw)
{
    if (pthread_mutex_trylock(&hw->lock) == 0)
        return;
    atomic_fetch_add(&hw->lock_waiters, 1); /* the workers step aside (hw_int.h) */
    pthread_mutex_lock(&hw->lock);
    atomic_fetch_sub(&hw->lock_waiters, 1);
}

void gtsim_hw_unlock(struct gtsim_hw *hw)
{
    pthread_mutex_unlock(&hw->lock);
}

enum gtsim_thread_state gtsim_hw_thread_state(struct gtsim_hw *hw, uint32_t index)
{
    return index < hw->nthreads ? hw->threads[index].state : GTSIM_T_IDLE;
}

uint8_t *gtsim_hw_thread_regs(struct gtsim_hw *hw, uint32_t index)
{
    return index < hw->nthreads ? slot(hw, index) : NULL;
}

void gtsim_hw_publish_locked(struct gtsim_hw *hw, uint32_t index, uint64_t ready_ns)
{
    if (index < hw->nthreads)
        gtsim_ssa_publish(&hw->ssa, index, hw->threads[index].state == GTSIM_T_STOPPED, ready_ns);
}

int gtsim_hw_ssa_fd(const struct gtsim_hw *hw, size_t *bytes)
{
    *bytes = hw->ssa.bytes;
    return hw->ssa.fd;
}

uint8_t *gtsim_hw_thread_slm(struct gtsim_hw *hw, uint32_t index, uint32_t *size)
{
    struct hw_group *g = index < hw->nthreads ? hw->threads[index].group : NULL;
    *size = g ? g->slm_size : 0;
    return g ? g->slm : NULL;
}
