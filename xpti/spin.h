/* SPDX-License-Identifier: MIT */
/* A one-word spin lock for the registry's shards (tracepoints.h).
 *
 * Why not a pthread mutex: a shard is held for a few dozen ns, and its
 * lock, free list, run of fresh slots and id-index header fit one cache
 * line with a 4-byte lock (a mutex is 40 bytes), so a new instance moves
 * one line between cores instead of two; and the release is a plain store,
 * where a mutex's unlock is a second locked instruction. A waiter that has
 * spun a while yields, so a holder that lost its core (the machine has
 * more threads than cores) gets it back. */
#ifndef ZESTUB_XPTI_SPIN_H
#define ZESTUB_XPTI_SPIN_H

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#define SPIN_BEFORE_YIELD 128

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static inline void spin_lock(_Atomic uint32_t *l)
{
    for (unsigned n = 0;; n++) {
        /* Read before the exchange, so waiters share the line instead of
         * taking it from each other. */
        if (!atomic_load_explicit(l, memory_order_relaxed) &&
            !atomic_exchange_explicit(l, 1, memory_order_acquire))
            return;
        if (n < SPIN_BEFORE_YIELD)
            spin_pause();
        else
            sched_yield();
    }
}

static inline void spin_unlock(_Atomic uint32_t *l)
{
    atomic_store_explicit(l, 0, memory_order_release);
}

#endif
