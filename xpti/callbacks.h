/* SPDX-License-Identifier: MIT */
/* Callback registrations per (stream, trace type).
 *
 * Registrations are kept forever and only flagged inactive, as upstream does.
 * Notification reads an immutable snapshot of the active callbacks, published
 * with one atomic store whenever registrations change; snapshots replaced
 * since are kept until cbs_clear, so a notifier never holds a lock and never
 * reads freed memory. Writers serialise on `lock`. */
#ifndef ZESTUB_XPTI_CALLBACKS_H
#define ZESTUB_XPTI_CALLBACKS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "xpti/xpti.h"

struct cb_list {
    struct cb_list *retired_next;
    size_t n;
    /* The notifier may call fn[0] and be done: one callback, and a type after
     * whose callbacks the framework has nothing to do (not task_end, which
     * recycles ended instances). Precomputed so the hot path tests one word. */
    bool direct;
    xpti_callback_fn fn[];
};

struct cb_reg {
    xpti_callback_fn fn;
    bool active;
};

struct cb_slot {
    _Atomic(const struct cb_list *) active; /* NULL: none */
    struct cb_reg *regs;                    /* writer only */
    /* 32-bit counts keep the slot at 32 bytes, a shift on the hot path. */
    uint32_t nregs, cap;
    bool never_direct; /* writer only: the type needs the framework after its callbacks */
};
_Static_assert(sizeof(struct cb_slot) == 32, "a slot is found with a shift");

/* Trace types are 16-bit: the high byte picks a page, the low byte a slot. */
struct cb_page {
    struct cb_slot slot[256];
};

struct cb_stream {
    /* Types below 256 (all the standard ones) live here, one dependent load
     * less on the notification path than a page reached through page[0]. */
    struct cb_page page0;
    _Atomic(struct cb_page *) page[256]; /* page[0] unused */
    _Atomic size_t active_count;
    bool ever_registered; /* writer only */
};

struct callbacks {
    pthread_mutex_t lock;
    _Atomic(struct cb_stream *) stream[256];
    struct cb_list *retired;
    bool hot; /* under lock: cbs_hot mirrors these callbacks (tracing is on) */
};

/* The notification fast path's table, process-wide because the framework
 * is: for stream s and type t < 256, the one callback to call and nothing
 * else to do (a direct list: one callback, not task_end), while tracing is
 * on; NULL otherwise (then the full path decides). A notification reads
 * one word at a fixed address instead of the framework pointer, its
 * trace-enabled flag, the stream and its entry: four dependent loads.
 * Written under the owning struct callbacks' lock; rows of streams that
 * were never registered are never touched (512 KiB of bss stays unmapped). */
extern __attribute__((visibility("hidden"))) _Atomic(xpti_callback_fn) cbs_hot[256][256];

static inline xpti_callback_fn cbs_hot_fn(uint8_t stream, uint16_t type)
{
    return atomic_load_explicit(&cbs_hot[stream][type & 0xff], memory_order_acquire);
}

/* Tracing switched on or off: fill cbs_hot from the current registrations,
 * or empty it. */
void cbs_set_hot(struct callbacks *c, bool on);

void cbs_init(struct callbacks *c);
void cbs_destroy(struct callbacks *c);
void cbs_clear(struct callbacks *c);
/* SUCCESS, DUPLICATE (already active), UNDELETE (re-enabled), FAIL (memory). */
xpti_result_t cbs_register(struct callbacks *c, uint8_t stream, uint16_t type, xpti_callback_fn fn);
/* SUCCESS, DUPLICATE (already inactive), NOTFOUND. */
xpti_result_t cbs_unregister(struct callbacks *c, uint8_t stream, uint16_t type,
                             xpti_callback_fn fn);
/* Deactivate everything on a stream; false if nothing was ever registered. */
bool cbs_disable_stream(struct callbacks *c, uint8_t stream);
bool cbs_stream_active(const struct callbacks *c, uint8_t stream);

/* The active callbacks of (stream, type), or NULL. */
static inline const struct cb_list *cbs_active(const struct callbacks *c, uint8_t stream,
                                               uint16_t type)
{
    const struct cb_stream *s = atomic_load_explicit(&c->stream[stream], memory_order_acquire);
    if (!s)
        return NULL;
    const struct cb_page *p = &s->page0;
    if (type >> 8) {
        p = atomic_load_explicit(&s->page[type >> 8], memory_order_acquire);
        if (!p)
            return NULL;
    }
    return atomic_load_explicit(&p->slot[type & 0xff].active, memory_order_acquire);
}

#endif
