/* SPDX-License-Identifier: MIT */
/* Per-thread register sets: zetDebugGetThreadRegisterSetProperties (API
 * 1.5), which zd_open looked up in the loader at run time, with the
 * device's sets as the answer when the loader or the driver has no
 * per-thread query. */
#include "zetdebug/zd_impl.h"

#define MAX_THREAD_REGSETS 64

/* Results that mean "no per-thread query here", not "this thread failed":
 * the loader answers UNINITIALIZED when the driver's Debug table has no
 * such slot (a driver built for API < 1.5). */
static bool no_per_thread_query(ze_result_t r)
{
    return r == ZE_RESULT_ERROR_UNINITIALIZED || r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE ||
           r == ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
}

/* Both calls of the count idiom; 1 when the driver has no such query. */
static int query(struct zd_session *s, ze_device_thread_t zt, zet_debug_regset_properties_t *props,
                 uint32_t *count, struct zd_error *err)
{
    ze_result_t r;

    ZD_COUNT(s->zd, regset_props);
    r = s->zd->thread_regsets(s->h, zt, count, NULL);
    if (no_per_thread_query(r))
        return 1;
    if (r != ZE_RESULT_SUCCESS)
        return zd_from_result(err, r, "querying the thread's register sets");
    if (*count > MAX_THREAD_REGSETS)
        *count = MAX_THREAD_REGSETS;
    for (uint32_t i = 0; i < *count; i++)
        props[i] =
            (zet_debug_regset_properties_t){.stype = ZET_STRUCTURE_TYPE_DEBUG_REGSET_PROPERTIES};
    ZD_COUNT(s->zd, regset_props);
    r = s->zd->thread_regsets(s->h, zt, count, props);
    if (r != ZE_RESULT_SUCCESS)
        return zd_from_result(err, r, "querying the thread's register sets");
    return 0;
}

int zd_thread_regsets(struct zd_session *s, struct zd_thread t, struct zd_regset *out, size_t max,
                      size_t *n, bool *per_thread, struct zd_error *err)
{
    zet_debug_regset_properties_t props[MAX_THREAD_REGSETS];
    ze_device_thread_t zt = {
        .slice = t.slice, .subslice = t.subslice, .eu = t.eu, .thread = t.thread};
    uint32_t count = 0;
    int rc;

    *n = 0;
    *per_thread = false;
    if (!s)
        return zd_fail(err, ZD_E_INVALID, 0, "no session");
    if (s->zd->thread_regsets) {
        rc = query(s, zt, props, &count, err);
        if (rc <= 0) {
            if (rc == 0) {
                zd_regsets_convert(props, count, out, max, n);
                *per_thread = true;
                return zd_from_result(err, ZE_RESULT_SUCCESS, "");
            }
            return rc;
        }
    }
    return zd_regsets(s->zd, s->device, out, max, n, err);
}
