/* SPDX-License-Identifier: MIT */
/* The memory of a GPU core (report/core_mem.h). Candidates are taken in the
 * order a user at a fault needs them (the fault's neighbourhood, the
 * allocation it hit, then the rest) until the budget is spent, and only
 * then sorted and merged into load segments. */
#include <stdlib.h>
#include <string.h>

#include "report/core_mem.h"

struct plan_state {
    struct core_mem *mem;
    size_t cap;
    uint64_t left; /* budget */
};

static int add_range(struct plan_state *s, uint64_t addr, uint64_t size)
{
    struct core_mem *mem = s->mem;
    if (mem->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        struct core_mem_range *r = realloc(mem->r, cap * sizeof(*r));
        if (!r)
            return -1;
        mem->r = r;
        s->cap = cap;
    }
    mem->r[mem->n++] = (struct core_mem_range){addr, size};
    return 0;
}

/* One page near a fault: whole when the debug API reads it, else its
 * readable granules. Probed now: a fault address is often just past the
 * end of a mapping, and a segment the core cannot fill would be a lie. */
static int plan_page(struct plan_state *s, struct sess_manager *m, unsigned k, uint64_t a)
{
    static uint8_t page[CORE_MEM_PAGE];
    struct zd_error err;
    if (sess_read_memory(m, k, UINT32_MAX, ZD_SPACE_DEFAULT, a, sizeof(page), page, &err) == 0) {
        if (add_range(s, a, CORE_MEM_PAGE) != 0)
            return -1;
        s->left -= CORE_MEM_PAGE;
        s->mem->fault_pages++;
        return 0;
    }
    for (uint64_t g = a; g < a + CORE_MEM_PAGE && s->left >= CORE_MEM_GRANULE;
         g += CORE_MEM_GRANULE) {
        if (sess_read_memory(m, k, UINT32_MAX, ZD_SPACE_DEFAULT, g, CORE_MEM_GRANULE, page, &err) !=
            0)
            continue;
        if (add_range(s, g, CORE_MEM_GRANULE) != 0)
            return -1;
        s->left -= CORE_MEM_GRANULE;
    }
    return 0;
}

/* The pages around each fault the device reported, latest fault first. */
static int plan_fault_pages(struct plan_state *s, struct sess_manager *m, unsigned k)
{
    size_t nf = sess_fault_count(m, k);
    for (size_t i = nf; i-- > 0 && nf - i <= CORE_MEM_MAX_FAULTS;) {
        uint64_t addr, first;
        enum zd_fault_reason why;
        if (sess_fault_at(m, k, i, &addr, &why) != 0)
            continue;
        first = addr / CORE_MEM_PAGE * CORE_MEM_PAGE;
        first = first >= CORE_MEM_FAULT_PAGES * CORE_MEM_PAGE
                    ? first - CORE_MEM_FAULT_PAGES * CORE_MEM_PAGE
                    : 0;
        for (unsigned p = 0; p <= 2 * CORE_MEM_FAULT_PAGES; p++) {
            if (s->left < CORE_MEM_PAGE)
                return 0;
            if (plan_page(s, m, k, first + (uint64_t)p * CORE_MEM_PAGE) != 0)
                return -1;
        }
    }
    return 0;
}

static bool slm_readable(struct sess_manager *m, unsigned k, uint32_t thread, uint64_t off)
{
    uint8_t g[CORE_MEM_GRANULE];
    struct zd_error err;
    return sess_read_memory(m, k, thread, ZD_SPACE_SLM, CORE_SLM_BASE + off, sizeof(g), g, &err) ==
           0;
}

/* The thread's work-group SLM: the debug API says nothing of its size, but
 * reads past its end fail, so the readable length is found by halving
 * (about a dozen reads). Within the budget, whole granules. */
static void plan_slm(struct plan_state *s, struct sess_manager *m, unsigned k, uint32_t thread)
{
    uint64_t lo = 1, hi = CORE_SLM_MAX / CORE_MEM_GRANULE + 1, size;
    if (thread == UINT32_MAX || s->left < CORE_MEM_GRANULE || !slm_readable(m, k, thread, 0))
        return;
    /* lo granules are readable, hi are not. */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (slm_readable(m, k, thread, (mid - 1) * CORE_MEM_GRANULE))
            lo = mid;
        else
            hi = mid;
    }
    size = lo * CORE_MEM_GRANULE;
    if (size > s->left)
        size = s->left / CORE_MEM_GRANULE * CORE_MEM_GRANULE;
    s->mem->slm = (struct core_mem_range){CORE_SLM_BASE, size};
    s->mem->slm_thread = thread;
    s->left -= size;
}

static bool holds_a_fault(struct sess_manager *m, unsigned k, const struct xtab_alloc *a)
{
    for (size_t i = 0; i < sess_fault_count(m, k); i++) {
        uint64_t addr;
        enum zd_fault_reason why;
        if (sess_fault_at(m, k, i, &addr, &why) == 0 && addr >= a->base && addr - a->base < a->size)
            return true;
    }
    return false;
}

static int take_alloc(struct plan_state *s, const struct xtab_alloc *a)
{
    uint64_t size = a->size < s->left ? a->size : s->left;
    if (size == 0) {
        s->mem->allocs_left_out++;
        s->mem->bytes_left_out += a->size;
        return 0;
    }
    if (add_range(s, a->base, size) != 0)
        return -1;
    s->left -= size;
    s->mem->allocs++;
    if (size < a->size) {
        s->mem->allocs_cut++;
        s->mem->bytes_left_out += a->size - size;
    }
    return 0;
}

/* Live allocations in the table's order: those holding a fault address
 * (faulted true) or the others. */
static int plan_allocs(struct plan_state *s, struct sess_manager *m, unsigned k,
                       struct sess_xpti *x, bool faulted)
{
    size_t n = x ? sess_xpti_count(x, XTAB_ALLOCS) : 0;
    for (size_t i = 0; i < n; i++) {
        struct xtab_alloc a;
        if (sess_xpti_alloc_at(x, i, &a) != 0 || !sess_xpti_alloc_live(&a) ||
            holds_a_fault(m, k, &a) != faulted)
            continue;
        if (take_alloc(s, &a) != 0)
            return -1;
    }
    return 0;
}

static int by_addr(const void *a, const void *b)
{
    const struct core_mem_range *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Sorted, with overlapping or touching ranges made one. */
static void merge_ranges(struct core_mem *mem)
{
    size_t w = 0;
    if (mem->n == 0)
        return; /* qsort must not be given a NULL array, even empty */
    qsort(mem->r, mem->n, sizeof(*mem->r), by_addr);
    for (size_t i = 0; i < mem->n; i++) {
        struct core_mem_range *last = w ? &mem->r[w - 1] : NULL;
        if (last && mem->r[i].addr <= last->addr + last->size) {
            uint64_t end = mem->r[i].addr + mem->r[i].size;
            if (end > last->addr + last->size)
                last->size = end - last->addr;
            continue;
        }
        mem->r[w++] = mem->r[i];
    }
    mem->n = w;
    mem->bytes = 0;
    for (size_t i = 0; i < w; i++)
        mem->bytes += mem->r[i].size;
}

int core_mem_plan(struct sess_manager *m, unsigned k, struct sess_xpti *x, uint32_t slm_thread,
                  uint64_t limit, struct core_mem *out)
{
    struct plan_state s = {.mem = out, .left = limit};
    memset(out, 0, sizeof(*out));
    if (limit == 0)
        return 0;
    /* What a user at a fault needs first: the fault's neighbourhood and
     * the allocation it hit, then the work-group's SLM, then the rest. */
    if (plan_fault_pages(&s, m, k) != 0 || plan_allocs(&s, m, k, x, true) != 0)
        goto failed;
    plan_slm(&s, m, k, slm_thread);
    if (plan_allocs(&s, m, k, x, false) != 0)
        goto failed;
    merge_ranges(out);
    return 0;
failed:
    core_mem_free(out);
    return -1;
}

void core_mem_free(struct core_mem *mem)
{
    free(mem->r);
    memset(mem, 0, sizeof(*mem));
}

static void write_range(struct core_io *o, struct sess_manager *m, unsigned k, uint32_t thread,
                        enum zd_space sp, const struct core_mem_range *r, uint64_t *unreadable)
{
    static uint8_t buf[1 << 16];
    for (uint64_t done = 0; done < r->size;) {
        size_t n = r->size - done < sizeof(buf) ? (size_t)(r->size - done) : sizeof(buf);
        struct zd_error err;
        if (sess_read_memory(m, k, thread, sp, r->addr + done, n, buf, &err) == 0) {
            core_io_put(o, buf, n);
        } else {
            core_io_skip(o, n);
            *unreadable += n;
        }
        done += n;
    }
}

void core_mem_write(struct core_io *o, struct sess_manager *m, unsigned k,
                    const struct core_mem_range *r, uint64_t *unreadable)
{
    write_range(o, m, k, UINT32_MAX, ZD_SPACE_DEFAULT, r, unreadable);
}

void core_mem_write_slm(struct core_io *o, struct sess_manager *m, unsigned k,
                        const struct core_mem *mem, uint64_t *unreadable)
{
    write_range(o, m, k, mem->slm_thread, ZD_SPACE_SLM, &mem->slm, unreadable);
}

void core_mem_report(const struct core_mem *mem, uint64_t limit, const char *option, FILE *log)
{
    if (!mem->allocs_left_out && !mem->allocs_cut)
        return;
    fprintf(log,
            "zestub dump: core: memory limit of %llu bytes reached: %zu allocation%s left out, "
            "%zu cut short (%llu bytes not written; raise %s)\n",
            (unsigned long long)limit, mem->allocs_left_out, mem->allocs_left_out == 1 ? "" : "s",
            mem->allocs_cut, (unsigned long long)mem->bytes_left_out, option);
}
