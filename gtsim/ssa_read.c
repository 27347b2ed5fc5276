/* SPDX-License-Identifier: MIT */
/* The debugger's side of the shared state save area (ssa.h): a register
 * read of a stopped thread is served in the debugger's own process, as a
 * real driver preads the state save area through the VM's descriptor,
 * without waking the debuggee (which may even be stopped by a signal). */
#include <errno.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "gtsim/ssa.h"

int gtsim_ssa_view_open(struct gtsim_ssa_view *v, int fd, const struct gtsim_dbg_ssa_info *info,
                        uint32_t nthreads, size_t slot_size)
{
    const struct gtsim_ssa_header *h;
    void *map;
    size_t map_bytes;

    v->fd = -1;
    v->map = NULL;
    /* Both sides compute the same layout from the same GTSIM_CONFIG; a
     * memfd that says otherwise is not used. */
    if (fd < 0 || !info->valid || info->nthreads != nthreads || info->slot_size != slot_size)
        goto refuse;
    map_bytes = GTSIM_SSA_PAGE + (((size_t)nthreads * sizeof(uint64_t) + GTSIM_SSA_PAGE - 1) &
                                  ~(size_t)(GTSIM_SSA_PAGE - 1));
    if (map_bytes > info->bytes)
        goto refuse;
    map = mmap(NULL, map_bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        goto refuse;
    h = map;
    if (h->magic != GTSIM_SSA_MAGIC || h->nthreads != nthreads || h->slot_size != slot_size ||
        h->table_off != GTSIM_SSA_PAGE || h->regs_off != map_bytes) {
        munmap(map, map_bytes);
        goto refuse;
    }
    v->fd = fd;
    v->map = map;
    v->map_bytes = map_bytes;
    v->hdr = h;
    v->table = (_Atomic uint64_t *)((uint8_t *)map + h->table_off);
    return 0;
refuse:
    if (fd >= 0)
        close(fd);
    return -1;
}

void gtsim_ssa_view_close(struct gtsim_ssa_view *v)
{
    if (v->map)
        munmap((void *)v->map, v->map_bytes);
    if (v->fd >= 0)
        close(v->fd);
    v->fd = -1;
    v->map = NULL;
}

static bool readable(const struct gtsim_ssa_view *v, uint64_t w)
{
    uint64_t ready = gtsim_ssa_ready(w);
    struct timespec ts;
    if (ready == 0)
        return true;
    if (ready == GTSIM_SSA_NEVER)
        return false;
    /* A thread an interrupt halts late (interrupt_spread_ms). */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec >=
           v->hdr->base_ns + ready * 1000u;
}

int gtsim_ssa_read(const struct gtsim_ssa_view *v, uint32_t idx, size_t off, void *buf, size_t len)
{
    uint64_t w1, w2;
    ssize_t n;
    if (idx >= v->hdr->nthreads || off > v->hdr->slot_size || len > v->hdr->slot_size - off)
        return -EINVAL;
    w1 = atomic_load_explicit(&v->table[idx], memory_order_acquire);
    if (!readable(v, w1))
        return -EAGAIN;
    /* One system call, as a real driver's read of the state save area is
     * a pread on the VM's descriptor (plus its open, flushes and close). */
    do
        n = pread(v->fd, buf, len,
                  (off_t)(v->hdr->regs_off + (size_t)idx * v->hdr->slot_size + off));
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    if ((size_t)n != len)
        return -EIO;
    atomic_thread_fence(memory_order_acquire);
    w2 = atomic_load_explicit(&v->table[idx], memory_order_relaxed);
    /* Resumed (and maybe stopped again) while we copied: the copy may mix
     * two states; the thread was not stopped for the whole read. */
    return w2 == w1 ? 0 : -EAGAIN;
}
