/* SPDX-License-Identifier: MIT */
/* The framework instance behind the exported ABI. The ABI is process-global
 * by specification, so exactly one instance exists at a time (xpti_fw); the
 * modules it owns take it, or their part of it, as an argument. */
#ifndef ZESTUB_XPTI_FRAMEWORK_H
#define ZESTUB_XPTI_FRAMEWORK_H

#include <stdatomic.h>
#include <stdbool.h>

#include "xpti/callbacks.h"
#include "xpti/nametab.h"
#include "xpti/objtab.h"
#include "xpti/strtab.h"
#include "xpti/subscribers.h"
#include "xpti/tracepoints.h"

#define XPTI_DEFAULT_STREAM "xpti.framework"

struct xpti_fw {
    struct strtab strings;
    struct objtab objects;
    struct nametab streams;
    struct nametab vendors;
    struct tpreg tracepoints;
    struct callbacks callbacks;
    struct subscribers subscribers; /* read-only once loaded */

    atomic_bool trace_enabled;
    atomic_bool scope_notification;
    atomic_flag default_stream_initialized;
    atomic_flag default_stream_finalized;
    _Atomic uint64_t last_unique_id;
    _Atomic uint8_t default_stream;
    _Atomic uint16_t default_event_type;
    _Atomic uint16_t default_trace_type;
    _Atomic uint8_t detail_level[256];
    bool strict_hash;
};

/* The published instance; read it with xpti_fw_get. Hidden at the
 * declaration too, so other files of the library load it directly rather
 * than through the GOT. */
extern __attribute__((visibility("hidden"))) _Atomic(struct xpti_fw *) xpti_fw_instance;
/* Slow path of xpti_fw_get: create the instance (loading subscribers). */
struct xpti_fw *xpti_fw_create(void);

/* The instance, or NULL before the first call that creates it. */
static inline struct xpti_fw *xpti_fw_peek(void)
{
    return atomic_load_explicit(&xpti_fw_instance, memory_order_acquire);
}

/* The instance, created on first use. Inline because every entry point,
 * notification included, starts here: the common case is one load. */
static inline struct xpti_fw *xpti_fw_get(void)
{
    struct xpti_fw *fw = xpti_fw_peek();
    return fw ? fw : xpti_fw_create();
}
/* xptiFrameworkInitialize/Finalize reference counting; the last finalize
 * destroys the instance and the next call creates a fresh one. */
void xpti_fw_ref(void);
void xpti_fw_unref(void);
/* Tracing on or off: the flag and the notification fast path's table. */
void xpti_fw_set_trace_enabled(struct xpti_fw *fw, bool enabled);
/* xptiReset: clear strings, objects, tracepoints, callbacks, counters and
 * per-stream levels; keep streams, vendors and subscribers. */
void xpti_fw_reset(struct xpti_fw *fw);

#endif
