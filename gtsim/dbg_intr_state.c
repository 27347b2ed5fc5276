/* SPDX-License-Identifier: MIT */
/* The debugger side's lock-free record of reported stops and pending
 * interrupt requests (dbg_intr_state.h). */
#include <errno.h>
#include <stdlib.h>

#include "gtsim/dbg_intr_state.h"

#define ALL UINT32_MAX

int gtsim_intr_init(struct gtsim_intr_state *st, uint32_t slices, uint32_t subslices, uint32_t eus,
                    uint32_t threads)
{
    st->slices = slices;
    st->subslices = subslices;
    st->eus = eus;
    st->threads = threads;
    st->reported = calloc((size_t)slices * subslices * eus * threads, 1);
    for (uint32_t i = 0; i < GTSIM_INTR_SLOTS; i++)
        atomic_init(&st->slot_state[i], 0);
    return st->reported ? 0 : -ENOMEM;
}

void gtsim_intr_fini(struct gtsim_intr_state *st)
{
    free((void *)st->reported);
    st->reported = NULL;
}

uint32_t gtsim_intr_nthreads(const struct gtsim_intr_state *st)
{
    return st->slices * st->subslices * st->eus * st->threads;
}

bool gtsim_intr_in_range(const struct gtsim_intr_state *st, const ze_device_thread_t *t)
{
    return (t->slice == ALL || t->slice < st->slices) &&
           (t->subslice == ALL || t->subslice < st->subslices) &&
           (t->eu == ALL || t->eu < st->eus) && (t->thread == ALL || t->thread < st->threads);
}

/* Calls fn on the byte of every thread t selects; stops early when fn
 * returns false, and returns false then. */
static bool each(struct gtsim_intr_state *st, const ze_device_thread_t *t,
                 bool (*fn)(_Atomic uint8_t *))
{
    for (uint32_t sl = 0; sl < st->slices; sl++) {
        if (t->slice != ALL && t->slice != sl)
            continue;
        for (uint32_t ss = 0; ss < st->subslices; ss++) {
            if (t->subslice != ALL && t->subslice != ss)
                continue;
            for (uint32_t eu = 0; eu < st->eus; eu++) {
                if (t->eu != ALL && t->eu != eu)
                    continue;
                for (uint32_t th = 0; th < st->threads; th++) {
                    if (t->thread != ALL && t->thread != th)
                        continue;
                    uint32_t i = ((sl * st->subslices + ss) * st->eus + eu) * st->threads + th;
                    if (!fn(&st->reported[i]))
                        return false;
                }
            }
        }
    }
    return true;
}

static bool is_stopped(_Atomic uint8_t *b)
{
    return atomic_load_explicit(b, memory_order_acquire) != 0;
}

static bool set_stopped(_Atomic uint8_t *b)
{
    atomic_store_explicit(b, 1, memory_order_release);
    return true;
}

static bool set_running(_Atomic uint8_t *b)
{
    atomic_store_explicit(b, 0, memory_order_release);
    return true;
}

static bool same(const ze_device_thread_t *a, const ze_device_thread_t *b)
{
    return a->slice == b->slice && a->subslice == b->subslice && a->eu == b->eu &&
           a->thread == b->thread;
}

ze_result_t gtsim_intr_claim(struct gtsim_intr_state *st, const ze_device_thread_t *t,
                             uint32_t *slot)
{
    /* The runtime's order: stopped threads first, then the pending list. */
    if (each(st, t, is_stopped))
        return ZE_RESULT_ERROR_NOT_AVAILABLE;
    for (uint32_t i = 0; i < GTSIM_INTR_SLOTS; i++)
        if (atomic_load_explicit(&st->slot_state[i], memory_order_acquire) == 2 &&
            same(&st->slot_thread[i], t))
            return ZE_RESULT_NOT_READY;
    for (uint32_t i = 0; i < GTSIM_INTR_SLOTS; i++) {
        uint32_t free_slot = 0;
        if (atomic_compare_exchange_strong(&st->slot_state[i], &free_slot, 1)) {
            st->slot_thread[i] = *t;
            atomic_store_explicit(&st->slot_state[i], 2, memory_order_release);
            *slot = i;
            return ZE_RESULT_SUCCESS;
        }
    }
    return ZE_RESULT_NOT_READY; /* every slot pending: ask again after an answer */
}

void gtsim_intr_release(struct gtsim_intr_state *st, uint32_t slot)
{
    if (slot < GTSIM_INTR_SLOTS)
        atomic_store_explicit(&st->slot_state[slot], 0, memory_order_release);
}

void gtsim_intr_mark_stopped(struct gtsim_intr_state *st, const ze_device_thread_t *t)
{
    if (gtsim_intr_in_range(st, t))
        (void)each(st, t, set_stopped);
}

void gtsim_intr_mark_bits(struct gtsim_intr_state *st, const uint8_t *bits, uint32_t nbits)
{
    uint32_t n = gtsim_intr_nthreads(st);
    for (uint32_t i = 0; i < n && i < nbits; i++)
        if (bits[i / 8] & (1u << (i % 8)))
            atomic_store_explicit(&st->reported[i], 1, memory_order_release);
}

void gtsim_intr_mark_resumed(struct gtsim_intr_state *st, const ze_device_thread_t *t)
{
    if (gtsim_intr_in_range(st, t))
        (void)each(st, t, set_running);
}
