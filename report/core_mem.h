/* SPDX-License-Identifier: MIT */
/* Which device memory a GPU core holds besides the kernel code
 * (doc/core-format.md, "Memory"): the pages around each fault address,
 * then, when the application's XPTI table is there, its live allocations
 * (those holding a fault address first), within a byte budget. */
#ifndef ZESTUB_REPORT_CORE_MEM_H
#define ZESTUB_REPORT_CORE_MEM_H

#include <stdint.h>
#include <stdio.h>

#include "report/core_io.h"
#include "sessions/sess.h"
#include "sessions/sess_xpti.h"

/* The page granularity of the fault windows. */
#define CORE_MEM_PAGE 4096u
/* Pages on each side of a fault's page that are written when readable. */
#define CORE_MEM_FAULT_PAGES 1u
/* A page the debug API will not read whole is probed in pieces of this
 * size: memory next to a fault is often a page shared with the freed or
 * unmapped range the fault hit. */
#define CORE_MEM_GRANULE 64u
/* Only the latest faults get their neighbourhood (a device can report many). */
#define CORE_MEM_MAX_FAULTS 8u
/* SLM addresses carry bit 28 (IGC tags them so; the debug API wants the
 * tag and Intel's GDB sends it): SLM offset 0 is read at this address. */
#define CORE_SLM_BASE (1ull << 28)
/* No part has more SLM per work-group than this. */
#define CORE_SLM_MAX (512u << 10)

struct core_mem_range {
    uint64_t addr, size;
};

struct core_mem {
    struct core_mem_range *r; /* sorted by address, disjoint */
    size_t n;
    uint64_t bytes;          /* sum of the ranges (the SLM not included) */
    size_t fault_pages;      /* readable pages around fault addresses */
    size_t allocs;           /* live allocations written (whole or cut) */
    size_t allocs_cut;       /* of which only a prefix fit the budget */
    size_t allocs_left_out;  /* live allocations that did not fit at all */
    uint64_t bytes_left_out; /* their bytes, and the cut ones' rest */
    /* The SLM of one thread's work-group (size 0: none): a segment of its
     * own at CORE_SLM_BASE, read in that thread's context. */
    struct core_mem_range slm;
    uint32_t slm_thread;
};

/* Plans session k's memory within `limit` bytes (0: none): the fault
 * pages, the live allocations of x (NULL: no XPTI table) that hold a fault
 * address, the SLM of slm_thread's work-group (UINT32_MAX: none), then the
 * other live allocations. 0, or -1 when out of memory. */
int core_mem_plan(struct sess_manager *m, unsigned k, struct sess_xpti *x, uint32_t slm_thread,
                  uint64_t limit, struct core_mem *out);
void core_mem_free(struct core_mem *mem);

/* Writes one range as the debug API reads it now; chunks it cannot read
 * are left as holes (zeros to a reader) and their bytes added to
 * *unreadable. */
void core_mem_write(struct core_io *o, struct sess_manager *m, unsigned k,
                    const struct core_mem_range *r, uint64_t *unreadable);

/* The SLM segment, read in its thread's context; unreadable pieces as
 * for core_mem_write. */
void core_mem_write_slm(struct core_io *o, struct sess_manager *m, unsigned k,
                        const struct core_mem *mem, uint64_t *unreadable);

/* One line on log about what the budget left out, when it left something;
 * option names the option that set the budget. */
void core_mem_report(const struct core_mem *mem, uint64_t limit, const char *option, FILE *log);

#endif
