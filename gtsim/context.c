/* SPDX-License-Identifier: MIT */
/* Contexts carry no state of their own in gtsim: memory and objects belong
 * to the driver, which is all a single-process simulator needs. */
#include <stdlib.h>

#include "gtsim/gtsim.h"

static ze_result_t ZE_APICALL gtsim_zeContextCreate(ze_driver_handle_t hDriver,
                                                    const ze_context_desc_t *desc,
                                                    ze_context_handle_t *phContext)
{
    struct gtsim_driver *drv = (struct gtsim_driver *)hDriver;
    struct gtsim_context *c;
    if (!drv || drv->magic != GTSIM_MAGIC_DRIVER)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phContext)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    c = calloc(1, sizeof(*c));
    if (!c)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c->magic = GTSIM_MAGIC_CONTEXT;
    c->driver = drv;
    *phContext = (ze_context_handle_t)c;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeContextCreateEx(ze_driver_handle_t hDriver,
                                                      const ze_context_desc_t *desc,
                                                      uint32_t numDevices,
                                                      ze_device_handle_t *phDevices,
                                                      ze_context_handle_t *phContext)
{
    (void)numDevices;
    (void)phDevices;
    return gtsim_zeContextCreate(hDriver, desc, phContext);
}

static ze_result_t ZE_APICALL gtsim_zeContextDestroy(ze_context_handle_t hContext)
{
    struct gtsim_context *c = (struct gtsim_context *)hContext;
    if (!c || c->magic != GTSIM_MAGIC_CONTEXT)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    c->magic = 0;
    free(c);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeContextGetStatus(ze_context_handle_t hContext)
{
    struct gtsim_context *c = (struct gtsim_context *)hContext;
    if (!c || c->magic != GTSIM_MAGIC_CONTEXT)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    for (uint32_t i = 0; i < c->driver->ndevices; i++)
        if (c->driver->devices[i]->lost)
            return ZE_RESULT_ERROR_DEVICE_LOST;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeContextSystemBarrier(ze_context_handle_t hContext,
                                                           ze_device_handle_t hDevice)
{
    (void)hDevice;
    return gtsim_zeContextGetStatus(hContext) == ZE_RESULT_ERROR_INVALID_NULL_HANDLE
               ? ZE_RESULT_ERROR_INVALID_NULL_HANDLE
               : ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeContextMakeMemoryResident(ze_context_handle_t hContext,
                                                                ze_device_handle_t hDevice,
                                                                void *ptr, size_t size)
{
    (void)hDevice;
    (void)ptr;
    (void)size;
    return gtsim_zeContextSystemBarrier(hContext, NULL);
}

static ze_result_t ZE_APICALL gtsim_zeContextEvictMemory(ze_context_handle_t hContext,
                                                         ze_device_handle_t hDevice, void *ptr,
                                                         size_t size)
{
    return gtsim_zeContextMakeMemoryResident(hContext, hDevice, ptr, size);
}

void gtsim_fill_context(ze_context_dditable_t *t)
{
    t->pfnCreate = gtsim_zeContextCreate;
    t->pfnCreateEx = gtsim_zeContextCreateEx;
    t->pfnDestroy = gtsim_zeContextDestroy;
    t->pfnGetStatus = gtsim_zeContextGetStatus;
    t->pfnSystemBarrier = gtsim_zeContextSystemBarrier;
    t->pfnMakeMemoryResident = gtsim_zeContextMakeMemoryResident;
    t->pfnEvictMemory = gtsim_zeContextEvictMemory;
}
