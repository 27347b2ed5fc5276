/* SPDX-License-Identifier: MIT */
/* The hardware threads' state save area, shared with a debugger process
 * (README.md, "Program debug"): on a real GPU the debugger reads a stopped
 * thread's registers itself, through the VM's debug descriptor, and the
 * debuggee process takes no part; gtsim's equivalent is a memfd that holds
 * every thread's register slot and a table that says which slots may be
 * read, passed to the debugger with its attach.
 *
 * The memfd: a header page, then the table (one 64-bit word per hardware
 * thread, page aligned), then nthreads slots of slot_size bytes. The
 * debuggee maps it all (its registers live there); a debugger maps the
 * header and table read-only and preads slots.
 *
 * A table word is a generation in the top GTSIM_SSA_GEN_BITS bits and a
 * readiness in the rest: 0, readable; GTSIM_SSA_NEVER, not readable (not
 * stopped, or stopped and not yet published); anything else, readable
 * from base_ns + that many microseconds (CLOCK_MONOTONIC, which both
 * processes share), for a thread an interrupt halted late
 * (interrupt_spread_ms). The debuggee rewrites a word, with a new
 * generation, under the hw lock whenever the thread's readability
 * changes, and marks it unreadable before a resumed thread's registers
 * can change: a reader that sees the same word before and after its
 * copy read a stable slot (a seqlock whose sequence is the word). */
#ifndef GTSIM_SSA_H
#define GTSIM_SSA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GTSIM_SSA_MAGIC 0x47545353u /* "GTSS" */
#define GTSIM_SSA_GEN_BITS 24
#define GTSIM_SSA_READY_BITS (64 - GTSIM_SSA_GEN_BITS)
#define GTSIM_SSA_READY_MASK ((UINT64_C(1) << GTSIM_SSA_READY_BITS) - 1)
#define GTSIM_SSA_NEVER GTSIM_SSA_READY_MASK
#define GTSIM_SSA_PAGE 4096u

/* The first bytes of the memfd; the same build on both sides. */
struct gtsim_ssa_header {
    uint32_t magic;
    uint32_t nthreads;
    uint64_t slot_size;
    uint64_t table_off; /* nthreads words */
    uint64_t regs_off;  /* nthreads slots */
    uint64_t base_ns;   /* CLOCK_MONOTONIC origin of the readiness field */
};

/* What attach's reply says of the memfd it passes (valid 0: none passed,
 * the debugger reads registers through requests). */
struct gtsim_dbg_ssa_info {
    uint32_t valid;
    uint32_t nthreads;
    uint64_t slot_size;
    uint64_t bytes; /* the whole memfd */
    /* The session's device as the debuggee sees it: its threads are the
     * hardware's slices [slice_first, slice_first + slice_count), so the
     * debugger maps a thread id to a slot as gtsim_srv_thread_index does
     * even if its own view of the device differed (an affinity mask). */
    uint32_t slice_first, slice_count;
};

static inline uint64_t gtsim_ssa_gen(uint64_t w)
{
    return w >> GTSIM_SSA_READY_BITS;
}

static inline uint64_t gtsim_ssa_ready(uint64_t w)
{
    return w & GTSIM_SSA_READY_MASK;
}

/* ---- debuggee side (ssa_map.c) ---- */

struct gtsim_ssa {
    int fd; /* -1: no memfd (the fallback: slots in private memory) */
    uint8_t *map;
    size_t bytes;
    struct gtsim_ssa_header *hdr;
    _Atomic uint64_t *table;
    uint8_t *regs;
};

/* Creates the memfd for nthreads slots and maps it; -1 when it cannot be
 * (no memfd_create, GTSIM_SSA_MEMFD=0 in the environment, no memory): the
 * caller then keeps slots in memory of its own. */
int gtsim_ssa_create(struct gtsim_ssa *ssa, uint32_t nthreads, size_t slot_size);
void gtsim_ssa_destroy(struct gtsim_ssa *ssa);
/* Publishes thread idx: stopped and readable from ready_ns (0: now), or
 * not readable (stopped false). Caller holds the hw lock. */
void gtsim_ssa_publish(struct gtsim_ssa *ssa, uint32_t idx, bool stopped, uint64_t ready_ns);

/* ---- debugger side (ssa_read.c) ---- */

struct gtsim_ssa_view {
    int fd;             /* -1: none; reads go through requests */
    const uint8_t *map; /* header and table, read-only */
    size_t map_bytes;
    const struct gtsim_ssa_header *hdr;
    _Atomic uint64_t *table; /* mapped read-only */
};

/* Takes over fd (closed on failure) if its header matches what this
 * process computes (nthreads, slot_size); 0, or -1 with view->fd == -1. */
int gtsim_ssa_view_open(struct gtsim_ssa_view *v, int fd, const struct gtsim_dbg_ssa_info *info,
                        uint32_t nthreads, size_t slot_size);
void gtsim_ssa_view_close(struct gtsim_ssa_view *v);
/* Copies len bytes at offset off of thread idx's slot if the thread is
 * readable before and after the copy and did not change in between:
 * 0, -EAGAIN (not readable: running, idle, late, or resumed meanwhile),
 * or another -errno (the copy failed). */
int gtsim_ssa_read(const struct gtsim_ssa_view *v, uint32_t idx, size_t off, void *buf, size_t len);

#endif
