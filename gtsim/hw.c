/* SPDX-License-Identifier: MIT */
#include "gtsim/hw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "gtsim/decode_cache.h"
#include "gtsim/iga.h"
#include "gtsim/hw_int.h"
#include "gtsim/isa.h"

static uint32_t cr0(struct gtsim_hw *hw, uint32_t idx, uint32_t dword)
{
    return gtsim_regfile_get32(hw->layout, slot(hw, idx), GTSIM_REGSET_CR, 0, dword);
}

static void set_cr0(struct gtsim_hw *hw, uint32_t idx, uint32_t dword, uint32_t v)
{
    gtsim_regfile_set32(hw->layout, slot(hw, idx), GTSIM_REGSET_CR, 0, dword, v);
}

static void enqueue(struct gtsim_hw *hw, uint32_t idx)
{
    struct hw_thread *t = &hw->threads[idx];
    struct hw_worker *w = &hw->workers[idx % hw->nworkers];
    t->last_ns = now_ns();
    if (!t->queued) {
        t->queued = 1;
        w->active[w->nactive++] = idx;
    }
    hw->nrunning++;
    pthread_cond_broadcast(&hw->work_cv);
}

/* Called with the lock held when a thread leaves RUNNING. */
static void leave_running(struct gtsim_hw *hw, struct hw_thread *t, uint8_t state)
{
    t->state = state;
    hw->nrunning--;
}

static void finish(struct gtsim_hw *hw, uint32_t idx)
{
    struct hw_thread *t = &hw->threads[idx];
    struct gtsim_hw_launch *l = t->launch;
    struct hw_group *g = t->group;
    uint32_t s, ss, eu, th;

    leave_running(hw, t, GTSIM_T_IDLE);
    gtsim_hw_thread_coords(hw, idx, &s, &ss, &eu, &th);
    hw->free_in_subslice[s * hw->cfg.subslices + ss]++;
    t->launch = NULL;
    t->group = NULL;
    t->indirect = NULL;
    free(t->simt);
    t->simt = NULL;
    if (g && --g->live == 0) {
        free(g->slm);
        free(g->members);
        free(g);
        l->groups_done++;
    }
    l->live_threads--;
    pthread_cond_broadcast(&hw->free_cv);
}

static void stop(struct gtsim_hw *hw, uint32_t idx, enum gtsim_stop_reason why, uint64_t addr)
{
    struct gtsim_hw_stop ev = {idx, why, addr};
    leave_running(hw, &hw->threads[idx], GTSIM_T_STOPPED);
    /* A debugger may read it from now on, except after an interrupt: the
     * debug server publishes those once it knows when each counts as
     * halted (interrupt_spread_ms; gtsim_hw_publish_locked). */
    if (why != GTSIM_STOP_INTERRUPT)
        gtsim_ssa_publish(&hw->ssa, idx, true, 0);
    if (hw->stop_fn)
        hw->stop_fn(hw->stop_ctx, &ev);
}

/* Every thread of the group has signalled: a new generation, and the
 * threads waiting for it go back on their workers' lists. */
static void barrier_release(struct gtsim_hw *hw, struct hw_group *g)
{
    g->arrived = 0;
    g->generation++;
    for (uint32_t i = 0; i < g->size; i++) {
        struct hw_thread *m = &hw->threads[g->members[i]];
        if (!m->parked)
            continue;
        m->parked = 0;
        if (m->state == GTSIM_T_RUNNING) {
            hw->nrunning--; /* enqueue counts it again */
            enqueue(hw, g->members[i]);
        }
    }
}

/* The barrier signal (a gateway send that does not end the thread). With
 * barrier_skip the group's last thread takes the path that skips it. */
static void barrier_signal(struct gtsim_hw *hw, struct hw_thread *t)
{
    struct hw_group *g = t->group;
    if (!g || (hw->cfg.barrier_skip && g->size > 1 && t->local == g->size - 1))
        return;
    t->signalled = 1;
    t->bar_gen = g->generation;
    if (++g->arrived >= g->size)
        barrier_release(hw, g);
}

/* A sync after a barrier signal: true when the thread must wait there
 * (parked, IP unchanged); false when the barrier is complete. */
static bool barrier_wait(struct hw_thread *t)
{
    if (t->group->generation != t->bar_gen) {
        t->signalled = 0;
        t->at_wait = 0;
        return false;
    }
    t->parked = 1;
    t->at_wait = 1;
    return true;
}

/* An instruction the thread cannot run: the illegal-opcode exception. */
static void raise_illegal(struct gtsim_hw *hw, uint32_t idx, bool debugger, uint32_t ip)
{
    struct gtsim_hw_launch *l = hw->threads[idx].launch;
    if (debugger) {
        set_cr0(hw, idx, 1, cr0(hw, idx, 1) | GTSIM_CR0_1_ILLEGAL_OPCODE);
        stop(hw, idx, GTSIM_STOP_ILLEGAL, 0);
    } else {
        if (!l->faulted) {
            l->faulted = true;
            l->fault_illegal = true;
            l->fault_address = (uint64_t)(uintptr_t)hw->isa + ip;
            l->fault_thread = idx;
        }
        finish(hw, idx);
    }
}

/* Whether a send the walking model reaches may be the kernel's access
 * through a pointer argument: not a barrier signal or an SLM access, and
 * not one of the loads of the thread's payload that the compiler puts
 * first, whose address is in the thread's last GRF register (r127, r255 in
 * large-GRF mode; true of every such load and of no other send in
 * tests/kernels' fixtures on all three platforms). A walking thread that
 * faulted at a payload load stopped on line 8 of oob.cl, the kernel's
 * closing brace, rather than at the store on line 7. */
static bool memory_access(struct gtsim_hw *hw, uint32_t idx, const struct gtsim_insn *in)
{
    unsigned last = cr0(hw, idx, 0) & GTSIM_CR0_0_LARGE_GRF ? 255 : 127;
    return in->is_send && !in->is_gateway && !in->is_slm && in->src0 != last;
}

/* A load or store outside every allocation, at the send that made it. */
static void raise_page_fault(struct gtsim_hw *hw, uint32_t idx, bool debugger, uint64_t addr)
{
    struct gtsim_hw_launch *l = hw->threads[idx].launch;
    if (debugger) {
        set_cr0(hw, idx, 1, cr0(hw, idx, 1) | GTSIM_CR0_1_PAGE_FAULT);
        stop(hw, idx, GTSIM_STOP_PAGE_FAULT, addr);
        return;
    }
    if (!l->faulted) {
        l->faulted = true;
        l->fault_address = addr;
        l->fault_thread = idx;
    }
    finish(hw, idx);
}

/* Runs the instruction at ip for the executing model. Returns false when
 * the thread stopped (fault, illegal instruction); the IP is left on the
 * instruction then, as the hardware reports it. Otherwise *next is where
 * the thread goes on (the next instruction, or a branch's target). */
static bool execute(struct gtsim_hw *hw, uint32_t idx, uint32_t tile, uint32_t ip, uint32_t end,
                    bool debugger, uint32_t *next)
{
    struct hw_thread *t = &hw->threads[idx];
    const struct gtsim_xinsn *x =
        gtsim_decode_cache_get(hw->decoded, tile, ip, hw->isa_tile[tile] + ip, end - ip);
    if (!x) {
        raise_illegal(hw, idx, debugger, ip);
        return false;
    }
    struct gtsim_exec_env env = {
        .layout = hw->layout,
        .slot = slot(hw, idx),
        .slm = t->group ? t->group->slm : NULL,
        .slm_size = t->group ? t->group->slm_size : 0,
        .indirect = t->indirect ? t->indirect->data : NULL,
        .indirect_size = t->indirect ? t->indirect->size : 0,
        .mem_ok = t->launch->mem_ok,
        .mem_ctx = t->launch->mem_ctx,
        .ip = ip,
        .simt = &t->simt,
    };
    switch (gtsim_exec_one(x, &env)) {
    case GTSIM_EXEC_NEXT:
        *next = ip + x->length;
        return true;
    case GTSIM_EXEC_JUMP:
        /* A target outside the kernel is refused by the next step. */
        *next = ip + (uint32_t)env.jump;
        return true;
    case GTSIM_EXEC_FAULT:
        /* One fault per thread, as the walking model: a thread resumed at
         * the send that faulted goes on without the access (nothing was
         * read or written), rather than fault again for ever. */
        if (t->faulted) {
            *next = ip + x->length;
            return true;
        }
        t->faulted = 1;
        raise_page_fault(hw, idx, debugger, env.fault_address);
        return false;
    default:
        raise_illegal(hw, idx, debugger, ip);
        return false;
    }
}

/* Executes at most one instruction; returns false when the thread stopped
 * running (finished, stopped or faulted). */
static bool step_one(struct gtsim_hw *hw, uint32_t idx)
{
    struct hw_thread *t = &hw->threads[idx];
    struct gtsim_hw_launch *l = t->launch;
    uint64_t isabase = (uint64_t)(uintptr_t)hw->isa;
    uint64_t start = l->kernel.entry - isabase, end = start + l->kernel.size;
    uint32_t ip = cr0(hw, idx, 2);
    struct gtsim_insn in;
    uint32_t slice = idx / (hw->cfg.threads * hw->cfg.eus * hw->cfg.subslices);
    bool debugger = hw->stop_fn != NULL && hw->slice_debug[slice];

    if (ip == end) { /* ran off the end of the kernel's code */
        finish(hw, idx);
        return false;
    }
    if (ip < start || ip > end ||
        gtsim_isa_decode(hw->cfg.platform, hw->isa_tile[slice / hw->cfg.slices_per_tile] + ip,
                         end - ip, &in) != 0 ||
        in.is_illegal) {
        raise_illegal(hw, idx, debugger, ip);
        return false;
    }
    /* Back at the sync it waited at: its breakpoint was taken already. */
    bool resumed_wait = t->at_wait && in.opcode == GTSIM_OP_SYNC;
    if (resumed_wait && barrier_wait(t))
        return false;
    if (in.breakpoint && debugger && !resumed_wait) {
        uint32_t c0 = cr0(hw, idx, 0);
        if (c0 & GTSIM_CR0_0_BP_SUPPRESS) {
            set_cr0(hw, idx, 0, c0 & ~GTSIM_CR0_0_BP_SUPPRESS);
        } else {
            set_cr0(hw, idx, 1, cr0(hw, idx, 1) | GTSIM_CR0_1_BREAKPOINT);
            stop(hw, idx, GTSIM_STOP_BREAKPOINT, 0);
            return false;
        }
    }
    if (in.is_send && in.is_eot) {
        finish(hw, idx);
        return false;
    }
    if (t->signalled && in.opcode == GTSIM_OP_SYNC && barrier_wait(t))
        return false;
    if (in.is_gateway)
        barrier_signal(hw, t);
    uint32_t next = ip + in.length;
    if (hw->exec) {
        if (!execute(hw, idx, slice / hw->cfg.slices_per_tile, ip, end, debugger, &next))
            return false;
    } else if (l->has_bad_pointer && !t->faulted && memory_access(hw, idx, &in)) {
        /* Walking, gtsim does not compute addresses: a launch with a
         * pointer argument outside every allocation faults at each
         * thread's first access of global memory. */
        t->faulted = 1;
        raise_page_fault(hw, idx, debugger, l->bad_pointer);
        return false;
    }
    set_cr0(hw, idx, 2, next);
    if (t->step && debugger) {
        t->step = 0;
        set_cr0(hw, idx, 1, cr0(hw, idx, 1) | GTSIM_CR0_1_BREAKPOINT);
        stop(hw, idx, GTSIM_STOP_STEP, 0);
        return false;
    }
    return true;
}

/* Between two rounds: while a gtsim_hw_lock caller waits, do not take
 * the lock back (for 2 ms at most, so execution never stops for long
 * behind a stream of requests). */
static void let_waiters_in(struct gtsim_hw *hw)
{
    uint64_t until = 0;
    while (atomic_load(&hw->lock_waiters)) {
        uint64_t now = now_ns();
        if (!until)
            until = now + 2000000u;
        else if (now > until)
            break;
        sched_yield();
    }
}

static void *worker_main(void *arg)
{
    struct hw_worker *w = arg;
    struct gtsim_hw *hw = w->hw;

    pthread_mutex_lock(&hw->lock);
    while (!hw->shutdown) {
        if (w->nactive == 0) {
            pthread_cond_wait(&hw->work_cv, &hw->lock);
            continue;
        }
        uint64_t now = now_ns();
        for (uint32_t i = 0; i < w->nactive;) {
            uint32_t idx = w->active[i];
            struct hw_thread *t = &hw->threads[idx];
            uint64_t budget = UNPACED_BURST;
            if (t->state == GTSIM_T_RUNNING && hw->cfg.pace) {
                budget = (now - t->last_ns) * hw->cfg.pace / 1000000000u;
                if (budget)
                    t->last_ns += budget * 1000000000u / hw->cfg.pace;
            }
            while (t->state == GTSIM_T_RUNNING && budget--)
                if (!step_one(hw, idx))
                    break;
            if (t->state != GTSIM_T_RUNNING || t->parked) {
                t->queued = 0;
                w->active[i] = w->active[--w->nactive];
            } else {
                i++;
            }
        }
        pthread_mutex_unlock(&hw->lock);
        let_waiters_in(hw);
        if (hw->cfg.pace) {
            uint64_t tick = 1000000000u / hw->cfg.pace;
            struct timespec ts = {0, (long)(tick < 1000000 ? tick : 1000000)};
            nanosleep(&ts, NULL);
        } else {
            sched_yield();
        }
        pthread_mutex_lock(&hw->lock);
    }
    pthread_mutex_unlock(&hw->lock);
    return NULL;
}

static void *reserve(size_t bytes)
{
    return mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                -1, 0);
}

/* Allocates the thread table, register files, heaps and worker slots; false
 * if any is missing (failed mappings are left as NULL for gtsim_hw_destroy). */
static bool reserve_memory(struct gtsim_hw *hw)
{
    const struct gtsim_hw_config *cfg = &hw->cfg;
    hw->threads = calloc(hw->nthreads, sizeof(*hw->threads));
    hw->free_in_subslice = calloc(hw->nsubslices, sizeof(uint32_t));
    hw->slice_debug = calloc(cfg->tiles * cfg->slices_per_tile, 1);
    /* Register files are reserved, not committed: a 16K-thread device only
     * pays for the threads that ever ran. */
    hw->regs_bytes = (size_t)hw->nthreads * hw->layout->slot_size;
    if (gtsim_ssa_create(&hw->ssa, hw->nthreads, hw->layout->slot_size) == 0)
        hw->regs = hw->ssa.regs;
    else
        hw->regs = reserve(hw->regs_bytes);
    hw->isa = reserve(ISA_HEAP_SIZE);
    hw->isa_tile = calloc(cfg->tiles, sizeof(*hw->isa_tile));
    /* Like the real driver's per-tile kernel ISA allocations: one device
     * address, one copy per tile, so a breakpoint written through one
     * tile's debug session does not reach the other tile. */
    for (uint32_t t = 0; hw->isa_tile && hw->isa != MAP_FAILED && t < cfg->tiles; t++) {
        hw->isa_tile[t] = t == 0 ? hw->isa : reserve(ISA_HEAP_SIZE);
        if (hw->isa_tile[t] == MAP_FAILED)
            hw->isa_tile[t] = NULL;
    }
    hw->gsh = reserve(GSH_SIZE);
    hw->workers = calloc(hw->nworkers, sizeof(*hw->workers));
    bool tiles_ok = hw->isa_tile != NULL;
    for (uint32_t t = 0; tiles_ok && t < cfg->tiles; t++)
        tiles_ok = hw->isa_tile[t] != NULL;
    bool ok = hw->threads && hw->free_in_subslice && hw->slice_debug && tiles_ok &&
              hw->regs != MAP_FAILED && hw->isa != MAP_FAILED && hw->gsh != MAP_FAILED &&
              hw->workers;
    if (hw->regs == MAP_FAILED)
        hw->regs = NULL;
    if (hw->isa == MAP_FAILED)
        hw->isa = NULL;
    if (hw->gsh == MAP_FAILED)
        hw->gsh = NULL;
    return ok;
}

/* On failure hw->nworkers is the number of workers running, for
 * gtsim_hw_destroy to join. */
static int start_workers(struct gtsim_hw *hw)
{
    for (uint32_t i = 0; i < hw->nworkers; i++) {
        struct hw_worker *w = &hw->workers[i];
        w->hw = hw;
        w->id = i;
        w->capacity = hw->nthreads / hw->nworkers + 1;
        w->active = calloc(w->capacity, sizeof(uint32_t));
        if (!w->active || pthread_create(&w->tid, NULL, worker_main, w) != 0) {
            free(w->active);
            w->active = NULL;
            hw->nworkers = i;
            return -1;
        }
    }
    return 0;
}

struct gtsim_hw *gtsim_hw_create(const struct gtsim_hw_config *cfg, char *err, size_t errlen)
{
    struct gtsim_hw *hw = calloc(1, sizeof(*hw));
    uint64_t n;

    if (!hw) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    hw->cfg = *cfg;
    hw->ssa.fd = -1; /* none yet: gtsim_hw_destroy must not close 0 */
    hw->layout = gtsim_regfile_layout(cfg->platform);
    n = (uint64_t)cfg->tiles * cfg->slices_per_tile * cfg->subslices * cfg->eus * cfg->threads;
    if (!hw->layout || n == 0 || n > (1u << 20)) {
        snprintf(err, errlen, "unsupported topology (%llu hardware threads)",
                 (unsigned long long)n);
        free(hw);
        return NULL;
    }
    hw->nthreads = (uint32_t)n;
    hw->per_subslice = cfg->eus * cfg->threads;
    hw->nsubslices = cfg->tiles * cfg->slices_per_tile * cfg->subslices;
    hw->nworkers = cfg->workers ? cfg->workers : 2;
    pthread_mutex_init(&hw->lock, NULL);
    atomic_init(&hw->lock_waiters, 0);
    pthread_cond_init(&hw->work_cv, NULL);
    pthread_cond_init(&hw->free_cv, NULL);

    if (!reserve_memory(hw)) {
        snprintf(err, errlen, "cannot reserve memory for %u hardware threads", hw->nthreads);
        hw->nworkers = 0;
        gtsim_hw_destroy(hw);
        return NULL;
    }
    for (uint32_t i = 0; i < hw->nsubslices; i++)
        hw->free_in_subslice[i] = hw->per_subslice;
    if (cfg->exec) {
        const char *why = NULL;
        if (cfg->platform != GTSIM_XEHPC)
            why = "only xehpc is executed so far";
        else if (!gtsim_iga_available(&why))
            ;
        else if (!(hw->decoded = gtsim_decode_cache_create(cfg->platform)))
            why = "out of memory";
        hw->exec = why == NULL;
        if (why)
            fprintf(stderr, "gtsim: exec=1 ignored, threads walk instructions: %s\n", why);
    }
    /* Offset 0 of the heap stays unused so no kernel starts at IP 0. */
    hw->isa_used = 256;
    if (start_workers(hw) != 0) {
        snprintf(err, errlen, "cannot start simulator worker threads");
        gtsim_hw_destroy(hw);
        return NULL;
    }
    return hw;
}

void gtsim_hw_destroy(struct gtsim_hw *hw)
{
    if (!hw)
        return;
    pthread_mutex_lock(&hw->lock);
    hw->shutdown = true;
    pthread_cond_broadcast(&hw->work_cv);
    pthread_cond_broadcast(&hw->free_cv); /* a launch that hangs at a barrier */
    pthread_mutex_unlock(&hw->lock);
    for (uint32_t i = 0; i < hw->nworkers; i++) {
        pthread_join(hw->workers[i].tid, NULL);
        free(hw->workers[i].active);
    }
    free(hw->workers);
    if (hw->ssa.fd >= 0)
        gtsim_ssa_destroy(&hw->ssa);
    else if (hw->regs)
        munmap(hw->regs, hw->regs_bytes);
    for (uint32_t t = 1; hw->isa_tile && t < hw->cfg.tiles; t++)
        if (hw->isa_tile[t])
            munmap(hw->isa_tile[t], ISA_HEAP_SIZE);
    free(hw->isa_tile);
    if (hw->isa)
        munmap(hw->isa, ISA_HEAP_SIZE);
    if (hw->gsh)
        munmap(hw->gsh, GSH_SIZE);
    gtsim_decode_cache_destroy(hw->decoded);
    for (uint32_t i = 0; hw->threads && i < hw->nthreads; i++)
        free(hw->threads[i].simt); /* threads stopped or running at teardown */
    free(hw->threads);
    free(hw->free_in_subslice);
    free(hw->slice_debug);
    pthread_mutex_destroy(&hw->lock);
    pthread_cond_destroy(&hw->work_cv);
    pthread_cond_destroy(&hw->free_cv);
    free(hw);
}

int gtsim_hw_interrupt_locked(struct gtsim_hw *hw, uint32_t index)
{
    if (index >= hw->nthreads || hw->threads[index].state != GTSIM_T_RUNNING)
        return -EAGAIN;
    set_cr0(hw, index, 1, cr0(hw, index, 1) | GTSIM_CR0_1_EXTERNAL_HALT);
    stop(hw, index, GTSIM_STOP_INTERRUPT, 0);
    return 0;
}

int gtsim_hw_resume_locked(struct gtsim_hw *hw, uint32_t index)
{
    struct hw_thread *t;
    if (index >= hw->nthreads || hw->threads[index].state != GTSIM_T_STOPPED)
        return -EAGAIN;
    t = &hw->threads[index];
    /* Unreadable before anything of the slot changes (ssa.h). */
    gtsim_ssa_publish(&hw->ssa, index, false, 0);
    /* gtsim's model: the halt of an interrupt ends with the resume, so a
     * debugger need not write cr0 of every thread it interrupted
     * (README.md, "Interrupts", says what is and is not known of hardware). */
    set_cr0(hw, index, 1,
            cr0(hw, index, 1) & ~(GTSIM_CR0_1_EXTERNAL_HALT | GTSIM_CR0_1_FORCE_EXCEPTION));
    t->step = (cr0(hw, index, 1) & GTSIM_CR0_1_BREAKPOINT) ? 1 : 0;
    t->state = GTSIM_T_RUNNING;
    t->parked = 0; /* back on a worker's list: it waits again if it must */
    enqueue(hw, index);
    return 0;
}

/* Deterministic register contents for a freshly dispatched thread. */
static void init_thread(struct gtsim_hw *hw, uint32_t idx, const struct gtsim_hw_launch *l,
                        const uint32_t gid[3], uint32_t local_index, uint32_t lanes)
{
    const struct gtsim_regfile_layout *lay = hw->layout;
    uint8_t *s = slot(hw, idx);
    const struct gtsim_regset_desc *grf = gtsim_regfile_find(lay, GTSIM_REGSET_GRF);
    uint32_t sl, ss, eu, th;
    uint32_t mask = lanes >= 32 ? 0xffffffffu : ((1u << lanes) - 1);
    uint32_t ip = (uint32_t)(l->kernel.entry - gtsim_hw_isa_base(hw));
    uint64_t gsb = gtsim_hw_general_state_base(hw);
    uint64_t sba[GTSIM_SBA_COUNT] = {gsb,           gsb + 0x10000,         gsb + 0x20000,
                                     gsb + 0x30000, gtsim_hw_isa_base(hw), gsb + 0x40000,
                                     gsb + 0x50000, gsb + 0x11000,         gsb + 0x80000};

    memset(s, 0, lay->slot_size);
    gtsim_hw_thread_coords(hw, idx, &sl, &ss, &eu, &th);
    /* GRF: a recognisable per-thread pattern; r0 carries the thread payload
     * (work-group ids, the thread's index in its group). */
    for (uint32_t r = 1; r + 1 < grf->count; r++)
        for (uint32_t d = 0; d < grf->bits / 32; d++)
            gtsim_regfile_set32(lay, s, GTSIM_REGSET_GRF, r, d,
                                (idx + 1) * 0x9e3779b1u ^ (r << 8 | d));
    gtsim_regfile_set32(lay, s, GTSIM_REGSET_GRF, 0, 1, gid[0]);
    gtsim_regfile_set32(lay, s, GTSIM_REGSET_GRF, 0, 2, local_index);
    gtsim_regfile_set32(lay, s, GTSIM_REGSET_GRF, 0, 6, gid[1]);
    gtsim_regfile_set32(lay, s, GTSIM_REGSET_GRF, 0, 7, gid[2]);
    gtsim_regfile_set32(lay, s, GTSIM_REGSET_CE, 0, 0, mask);
    gtsim_regfile_set32(lay, s, GTSIM_REGSET_SR, 0, 0, th | eu << 4 | ss << 8 | sl << 12);
    gtsim_regfile_set32(lay, s, GTSIM_REGSET_SR, 0, 2, mask);
    gtsim_regfile_set32(lay, s, GTSIM_REGSET_CR, 0, 2, ip);
    /* A kernel built for large GRF runs in 256-GRF mode where the
     * hardware has that many (what a thread's register sets report). */
    if (l->kernel.grf_count > 128 && grf->count >= 256)
        gtsim_regfile_set32(lay, s, GTSIM_REGSET_CR, 0, 0, GTSIM_CR0_0_LARGE_GRF);
    gtsim_regfile_set32(lay, s, GTSIM_REGSET_DBG, 0, 1, ip);
    for (uint32_t i = 0; i < GTSIM_SBA_COUNT; i++) {
        uint8_t *r = gtsim_regfile_reg(lay, s, GTSIM_REGSET_SBA, i);
        if (r)
            memcpy(r, &sba[i], 8);
    }
}

/* Places one work-group if some subslice of the launch's slices has room.
 * Called with the lock held. */
static bool dispatch_group(struct gtsim_hw *hw, struct gtsim_hw_launch *l,
                           struct hw_indirect *indirect)
{
    const struct gtsim_hw_config *c = &hw->cfg;
    uint32_t first = l->slice_first * c->subslices, count = l->slice_count * c->subslices;
    uint64_t g = l->groups_dispatched;
    uint32_t gid[3] = {(uint32_t)(g % l->group_count[0]),
                       (uint32_t)(g / l->group_count[0] % l->group_count[1]),
                       (uint32_t)(g / ((uint64_t)l->group_count[0] * l->group_count[1]))};
    uint32_t items = l->group_size[0] * l->group_size[1] * l->group_size[2];

    for (uint32_t k = 0; k < count; k++) {
        uint32_t sub = first + (hw->next_subslice + k) % count;
        if (hw->free_in_subslice[sub] < l->threads_per_group)
            continue;
        struct hw_group *grp = calloc(1, sizeof(*grp));
        if (!grp)
            return false;
        grp->slm_size = l->kernel.slm_size;
        grp->slm = grp->slm_size ? calloc(1, grp->slm_size) : NULL;
        grp->live = l->threads_per_group;
        grp->members = calloc(l->threads_per_group, sizeof(uint32_t));
        if (!grp->members) {
            free(grp->slm);
            free(grp);
            return false;
        }
        /* Spread a group over the EUs first, as the hardware's dispatcher does. */
        uint32_t placed = 0;
        for (uint32_t th = 0; th < c->threads && placed < l->threads_per_group; th++) {
            for (uint32_t eu = 0; eu < c->eus && placed < l->threads_per_group; eu++) {
                uint32_t idx = (sub * c->eus + eu) * c->threads + th;
                struct hw_thread *t = &hw->threads[idx];
                if (t->state != GTSIM_T_IDLE)
                    continue;
                uint32_t lanes = items - placed * l->kernel.simd;
                if (lanes > l->kernel.simd)
                    lanes = l->kernel.simd;
                init_thread(hw, idx, l, gid, placed, lanes);
                t->launch = l;
                t->group = grp;
                t->indirect = indirect;
                t->step = 0;
                t->faulted = 0;
                t->signalled = t->parked = t->at_wait = 0;
                t->local = placed;
                grp->members[grp->size++] = idx;
                t->state = GTSIM_T_RUNNING;
                enqueue(hw, idx);
                placed++;
            }
        }
        hw->free_in_subslice[sub] -= placed;
        l->live_threads += placed;
        l->groups_dispatched++;
        hw->next_subslice = (hw->next_subslice + k + 1) % count;
        return true;
    }
    return false;
}

/* The payload the runtime writes for an executed launch: the cross-thread
 * data, padded to 32 bytes as the runtime does, then per thread of a group
 * its lanes' local ids (x, y, z as 16-bit words, each a third of the
 * kernel's per-thread local_id size). r0.0 of every thread points at
 * offset 0 of it (gtsim's A32 stateless space, README.md). */
static int build_indirect(const struct gtsim_hw_launch *l, struct hw_indirect *out)
{
    uint32_t cross = (l->cross_thread_size + 31) & ~31u;
    uint32_t per = l->local_id_size, simd = l->kernel.simd;
    uint32_t gx = l->group_size[0], gy = l->group_size[1];
    uint64_t size = cross + (uint64_t)per * l->threads_per_group;

    out->data = calloc(1, size ? size : 1);
    if (!out->data)
        return -ENOMEM;
    out->size = (uint32_t)size;
    memcpy(out->data, l->cross_thread, l->cross_thread_size);
    uint32_t stride = per / 3;
    if (stride < simd * 2)
        return 0; /* no local ids the executor knows how to lay out */
    for (uint32_t t = 0; t < l->threads_per_group; t++) {
        uint8_t *p = out->data + cross + (size_t)t * per;
        for (uint32_t lane = 0; lane < simd; lane++) {
            uint32_t item = t * simd + lane;
            uint16_t id[3] = {(uint16_t)(item % gx), (uint16_t)(item / gx % gy),
                              (uint16_t)(item / (gx * gy))};
            for (int d = 0; d < 3; d++)
                memcpy(p + (size_t)d * stride + lane * 2u, &id[d], 2);
        }
    }
    return 0;
}

int gtsim_hw_run(struct gtsim_hw *hw, struct gtsim_hw_launch *l)
{
    const struct gtsim_hw_config *c = &hw->cfg;
    uint32_t items = l->group_size[0] * l->group_size[1] * l->group_size[2];

    if (!l->kernel.simd || !items || l->slice_count == 0 ||
        l->slice_first + l->slice_count > c->tiles * c->slices_per_tile)
        return -EINVAL;
    l->threads_per_group = (items + l->kernel.simd - 1) / l->kernel.simd;
    if (l->threads_per_group > hw->per_subslice)
        return -E2BIG;
    l->groups_total = (uint64_t)l->group_count[0] * l->group_count[1] * l->group_count[2];
    l->groups_dispatched = l->groups_done = 0;
    l->live_threads = 0;
    l->faulted = false;
    l->fault_illegal = false;

    struct hw_indirect indirect = {NULL, 0};
    if (hw->exec && build_indirect(l, &indirect) != 0)
        return -ENOMEM;

    pthread_mutex_lock(&hw->lock);
    while (l->groups_dispatched < l->groups_total && !hw->shutdown) {
        /* Like the hardware, stop dispatching once the launch has faulted. */
        if (l->faulted)
            break;
        if (!dispatch_group(hw, l, indirect.data ? &indirect : NULL))
            pthread_cond_wait(&hw->free_cv, &hw->lock);
    }
    while (l->live_threads > 0 && !hw->shutdown)
        pthread_cond_wait(&hw->free_cv, &hw->lock);
    pthread_mutex_unlock(&hw->lock);
    free(indirect.data);
    return l->faulted ? -EFAULT : 0;
}
