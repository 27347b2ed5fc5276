/* SPDX-License-Identifier: MIT */
/* The zet calls on a device or a module that need no debug session: the
 * debug properties (can it be attached) and a module's debug info. */
#include <string.h>

#include "gtsim/device_build.h"
#include "gtsim/gtsim.h"
#include "gtsim/zet_fill.h"

static ze_result_t ZE_APICALL gtsim_zetDeviceGetDebugProperties(zet_device_handle_t hDevice,
                                                                zet_device_debug_properties_t *p)
{
    struct gtsim_device *d = gtsim_as_device(hDevice);
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = (!d->root || d->driver->cfg.tile_attach) ? ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH : 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zetModuleGetDebugInfo(zet_module_handle_t hModule,
                                                          zet_module_debug_info_format_t format,
                                                          size_t *pSize, uint8_t *pDebugInfo)
{
    struct gtsim_module *m = (struct gtsim_module *)hModule;
    if (!m || m->magic != GTSIM_MAGIC_MODULE)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pSize)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (format != ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (pDebugInfo) {
        if (*pSize < m->image_size)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        memcpy(pDebugInfo, m->image, m->image_size);
    }
    *pSize = m->image_size;
    return ZE_RESULT_SUCCESS;
}

void gtsim_fill_zet_device(zet_device_dditable_t *t)
{
    t->pfnGetDebugProperties = gtsim_zetDeviceGetDebugProperties;
}

void gtsim_fill_zet_module(zet_module_dditable_t *t)
{
    t->pfnGetDebugInfo = gtsim_zetModuleGetDebugInfo;
}
