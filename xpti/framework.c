/* SPDX-License-Identifier: MIT */
#include "xpti/framework.h"

#include <pthread.h>
#include <stdlib.h>

#include "xpti/cxx_interfaces.h"

/* The one instance (global because the XPTI ABI is). Readers take it with a
 * single acquire load; creation and destruction serialise on the mutex. */
_Atomic(struct xpti_fw *) xpti_fw_instance;
static pthread_mutex_t fw_lifecycle = PTHREAD_MUTEX_INITIALIZER;
static int fw_refs; /* guarded by fw_lifecycle */

static void reset_defaults(struct xpti_fw *fw)
{
    atomic_store(&fw->last_unique_id, 0);
    atomic_store(&fw->default_stream, nametab_find(&fw->streams, XPTI_DEFAULT_STREAM));
    atomic_store(&fw->default_event_type, XPTI_EV_ALGORITHM);
    atomic_store(&fw->default_trace_type, XPTI_TP_FUNCTION_BEGIN);
    for (size_t i = 0; i < 256; i++)
        atomic_store(&fw->detail_level[i], XPTI_DETAIL_NORMAL);
}

static struct xpti_fw *fw_new(void)
{
    struct xpti_fw *fw = calloc(1, sizeof(*fw));
    if (!fw)
        return NULL;
    const char *strict = getenv("XPTI_USE_STRICT_HASH");
    fw->strict_hash = strict && *strict;
    /* The registry is handed the C++ interfaces' dresser here, so it needs
     * no link up to cxx_interfaces.c, which itself calls into the registry. */
    if (strtab_init(&fw->strings) != 0 ||
        tpreg_init(&fw->tracepoints, &fw->strings, fw->strict_hash, cxx_attach_interfaces) != 0) {
        free(fw);
        return NULL;
    }
    objtab_init(&fw->objects);
    nametab_init(&fw->streams);
    nametab_init(&fw->vendors);
    cbs_init(&fw->callbacks);
    atomic_flag_clear(&fw->default_stream_initialized);
    atomic_flag_clear(&fw->default_stream_finalized);
    nametab_register(&fw->streams, XPTI_DEFAULT_STREAM); /* gets id 1 */
    reset_defaults(fw);
    return fw;
}

static void fw_free(struct xpti_fw *fw)
{
    subs_unload(&fw->subscribers);
    cbs_destroy(&fw->callbacks);
    tpreg_destroy(&fw->tracepoints);
    nametab_destroy(&fw->vendors);
    nametab_destroy(&fw->streams);
    objtab_destroy(&fw->objects);
    strtab_destroy(&fw->strings);
    free(fw);
}

struct xpti_fw *xpti_fw_create(void)
{
    pthread_mutex_lock(&fw_lifecycle);
    struct xpti_fw *fw = atomic_load_explicit(&xpti_fw_instance, memory_order_acquire);
    bool created = false;
    if (!fw && (fw = fw_new()) != NULL) {
        atomic_store_explicit(&xpti_fw_instance, fw, memory_order_release);
        created = true;
    }
    pthread_mutex_unlock(&fw_lifecycle);
    /* Subscribers are loaded after publication and outside the lock: their
     * constructors and xptiTraceInit may call back into the framework. */
    if (created && subs_env_allows_tracing(getenv("XPTI_TRACE_ENABLE"))) {
        subs_load(&fw->subscribers, getenv("XPTI_SUBSCRIBERS"));
        xpti_fw_set_trace_enabled(fw, fw->subscribers.n > 0);
    }
    return fw;
}

void xpti_fw_ref(void)
{
    xpti_fw_get();
    pthread_mutex_lock(&fw_lifecycle);
    fw_refs++;
    pthread_mutex_unlock(&fw_lifecycle);
}

void xpti_fw_unref(void)
{
    struct xpti_fw *dead = NULL;
    pthread_mutex_lock(&fw_lifecycle);
    if (fw_refs > 0 && --fw_refs == 0) {
        dead = atomic_exchange(&xpti_fw_instance, NULL);
    }
    pthread_mutex_unlock(&fw_lifecycle);
    if (dead)
        fw_free(dead);
}

void xpti_fw_set_trace_enabled(struct xpti_fw *fw, bool enabled)
{
    /* On: the flag first, then the fast path's table. Off: the table
     * first. In between a notification takes the full path, which reads
     * the flag. Concurrent switches race as the flag alone did. */
    if (enabled)
        atomic_store(&fw->trace_enabled, true);
    cbs_set_hot(&fw->callbacks, enabled);
    if (!enabled)
        atomic_store(&fw->trace_enabled, false);
}

void xpti_fw_reset(struct xpti_fw *fw)
{
    cbs_clear(&fw->callbacks);
    tpreg_clear(&fw->tracepoints);
    strtab_clear(&fw->strings);
    objtab_clear(&fw->objects);
    reset_defaults(fw);
}
