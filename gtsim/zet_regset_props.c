/* SPDX-License-Identifier: MIT */
/* The register-set properties gtsim reports: the device's (no session
 * needed) and, for one thread, the same with its own GRF count (the
 * session's query in dbg_client.c). */
#include "gtsim/device_build.h"
#include "gtsim/gtsim.h"
#include "gtsim/regfile.h"
#include "gtsim/zet_regset_props.h"

/* The device-level answer: GRF as 128 registers, as Intel's driver says
 * whatever mode a thread runs in. grf_count replaces that for one thread. */
ze_result_t gtsim_regset_props(const struct gtsim_regfile_layout *lay, uint32_t grf_count,
                               uint32_t *pCount, zet_debug_regset_properties_t *props)
{
    if (*pCount == 0 || !props) {
        *pCount = lay->nsets;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > lay->nsets)
        *pCount = lay->nsets;
    for (uint32_t i = 0; i < *pCount; i++) {
        const struct gtsim_regset_desc *r = &lay->sets[i];
        props[i].type = r->type;
        props[i].version = 0;
        props[i].generalFlags =
            ZET_DEBUG_REGSET_FLAG_READABLE | (r->writable ? ZET_DEBUG_REGSET_FLAG_WRITEABLE : 0);
        props[i].deviceFlags = 0;
        props[i].count = r->reported_count;
        if (r->type == GTSIM_REGSET_GRF && grf_count)
            props[i].count = grf_count;
        props[i].bitSize = r->bits;
        props[i].byteSize = r->bits / 8;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL gtsim_zetDebugGetRegisterSetProperties(zet_device_handle_t hDevice,
                                                              uint32_t *pCount,
                                                              zet_debug_regset_properties_t *props)
{
    struct gtsim_device *d = gtsim_as_device(hDevice);
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return gtsim_regset_props(gtsim_hw_layout(d->hw), 0, pCount, props);
}
