/* SPDX-License-Identifier: MIT */
/* The debuggee's side of the shared state save area (ssa.h): the memfd
 * that holds the hardware threads' register slots and the table of which
 * may be read, and its upkeep under the hw lock. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "gtsim/ssa.h"

static size_t round_page(size_t n)
{
    return (n + GTSIM_SSA_PAGE - 1) & ~(size_t)(GTSIM_SSA_PAGE - 1);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int gtsim_ssa_create(struct gtsim_ssa *ssa, uint32_t nthreads, size_t slot_size)
{
    const char *env = getenv("GTSIM_SSA_MEMFD");
    size_t table_off = GTSIM_SSA_PAGE;
    size_t regs_off = table_off + round_page((size_t)nthreads * sizeof(uint64_t));
    size_t bytes = regs_off + round_page((size_t)nthreads * slot_size);
    void *map;
    int fd;

    memset(ssa, 0, sizeof(*ssa));
    ssa->fd = -1;
    /* A test hook: the fallback, where a debugger reads through requests. */
    if (env && strcmp(env, "0") == 0)
        return -1;
    fd = memfd_create("gtsim-ssa", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    /* Pages are committed when touched (zero until then), as calloc's
     * would be: a device pays only for the threads that ever ran. */
    if (ftruncate(fd, (off_t)bytes) != 0) {
        close(fd);
        return -1;
    }
    map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (map == MAP_FAILED) {
        close(fd);
        return -1;
    }
    ssa->fd = fd;
    ssa->map = map;
    ssa->bytes = bytes;
    ssa->hdr = map;
    ssa->table = (_Atomic uint64_t *)(ssa->map + table_off);
    ssa->regs = ssa->map + regs_off;
    for (uint32_t i = 0; i < nthreads; i++)
        atomic_init(&ssa->table[i], GTSIM_SSA_NEVER);
    ssa->hdr->nthreads = nthreads;
    ssa->hdr->slot_size = slot_size;
    ssa->hdr->table_off = table_off;
    ssa->hdr->regs_off = regs_off;
    ssa->hdr->base_ns = mono_ns();
    atomic_thread_fence(memory_order_release);
    ssa->hdr->magic = GTSIM_SSA_MAGIC;
    return 0;
}

void gtsim_ssa_destroy(struct gtsim_ssa *ssa)
{
    if (ssa->map)
        munmap(ssa->map, ssa->bytes);
    if (ssa->fd >= 0)
        close(ssa->fd);
    memset(ssa, 0, sizeof(*ssa));
    ssa->fd = -1;
}

void gtsim_ssa_publish(struct gtsim_ssa *ssa, uint32_t idx, bool stopped, uint64_t ready_ns)
{
    uint64_t old, ready;
    if (!ssa->table)
        return;
    ready = GTSIM_SSA_NEVER;
    if (stopped && ready_ns <= mono_ns()) {
        ready = 0;
    } else if (stopped) {
        /* Rounded up to the microsecond: never readable before the
         * debuggee's own check would say so. */
        uint64_t us = (ready_ns - ssa->hdr->base_ns + 999) / 1000;
        ready = us == 0 ? 1 : us < GTSIM_SSA_NEVER ? us : GTSIM_SSA_NEVER - 1;
    }
    old = atomic_load_explicit(&ssa->table[idx], memory_order_relaxed);
    /* The same readiness keeps its generation: a reader copying meanwhile
     * read a thread that stayed stopped (every resume goes through NEVER). */
    if (gtsim_ssa_ready(old) == ready)
        return;
    atomic_store_explicit(&ssa->table[idx],
                          ((gtsim_ssa_gen(old) + 1) << GTSIM_SSA_READY_BITS) | ready,
                          memory_order_relaxed);
    /* The new word is visible before the caller goes on to change the slot
     * (a resumed thread runs): a reader that copied a changed slot sees a
     * changed word after its copy. */
    atomic_thread_fence(memory_order_seq_cst);
}
