/* SPDX-License-Identifier: MIT */
/* Exported ABI: framework and stream life cycle, tracing state. */
#include "xpti/framework.h"

void xptiFrameworkInitialize(void)
{
    xpti_fw_ref();
}

void xptiFrameworkFinalize(void)
{
    xpti_fw_unref();
}

static void initialize_stream(struct xpti_fw *fw, const char *stream, uint32_t maj, uint32_t min,
                              const char *version)
{
    subs_init_stream(&fw->subscribers, maj, min, version, stream);
    uint8_t id = nametab_register(&fw->streams, stream);
    if (id != NAMETAB_INVALID)
        atomic_store(&fw->detail_level[id], subs_detail_level(&fw->subscribers, stream));
}

xpti_result_t xptiInitialize(const char *stream, uint32_t maj, uint32_t min, const char *version)
{
    if (!stream || !version)
        return XPTI_RESULT_INVALIDARG;
    struct xpti_fw *fw = xpti_fw_get();
    if (!atomic_flag_test_and_set(&fw->default_stream_initialized))
        initialize_stream(fw, XPTI_DEFAULT_STREAM, 1, 0, "1.0.0");
    /* Upstream does not de-duplicate: every call reaches every subscriber. */
    initialize_stream(fw, stream, maj, min, version);
    return XPTI_RESULT_SUCCESS;
}

static void finalize_stream(struct xpti_fw *fw, const char *stream)
{
    subs_finish_stream(&fw->subscribers, stream);
    uint8_t id = nametab_find(&fw->streams, stream);
    if (id != NAMETAB_INVALID)
        cbs_disable_stream(&fw->callbacks, id);
}

void xptiFinalize(const char *stream)
{
    if (!stream)
        return;
    struct xpti_fw *fw = xpti_fw_get();
    if (!atomic_flag_test_and_set(&fw->default_stream_finalized))
        finalize_stream(fw, XPTI_DEFAULT_STREAM);
    finalize_stream(fw, stream);
}

xpti_stream_id_t xptiRegisterStream(const char *stream)
{
    return nametab_register(&xpti_fw_get()->streams, stream);
}

xpti_result_t xptiUnregisterStream(const char *stream)
{
    if (!stream)
        return XPTI_RESULT_INVALIDARG;
    struct xpti_fw *fw = xpti_fw_get();
    subs_finish_stream(&fw->subscribers, stream);
    uint8_t id = nametab_find(&fw->streams, stream);
    if (id == NAMETAB_INVALID || !cbs_disable_stream(&fw->callbacks, id))
        return XPTI_RESULT_NOTFOUND;
    return XPTI_RESULT_SUCCESS;
}

bool xptiTraceEnabled(void)
{
    return atomic_load_explicit(&xpti_fw_get()->trace_enabled, memory_order_relaxed);
}

void xptiForceSetTraceEnabled(bool enabled)
{
    xpti_fw_set_trace_enabled(xpti_fw_get(), enabled);
}

void xptiReset(void)
{
    xpti_fw_reset(xpti_fw_get());
}

uint8_t xptiGetEffectiveStreamDetailLevel(xpti_stream_id_t stream)
{
    return atomic_load(&xpti_fw_get()->detail_level[stream]);
}
