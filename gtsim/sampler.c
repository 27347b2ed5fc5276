/* SPDX-License-Identifier: MIT */
/* Samplers: objects that hold an addressing and filtering mode for image
 * reads. gtsim has no images, so a sampler is only its description; it
 * exists so that programs (and Intel's conformance tests) that create one
 * get a handle, as from the runtime, instead of an unsupported call. */
#include <stdlib.h>

#include "gtsim/device_build.h"
#include "gtsim/gtsim.h"

static ze_result_t ZE_APICALL gtsim_zeSamplerCreate(ze_context_handle_t hContext,
                                                    ze_device_handle_t hDevice,
                                                    const ze_sampler_desc_t *desc,
                                                    ze_sampler_handle_t *phSampler)
{
    struct gtsim_context *c = (struct gtsim_context *)hContext;
    struct gtsim_sampler *s;
    if (!c || c->magic != GTSIM_MAGIC_CONTEXT || !gtsim_as_device(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phSampler)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if ((unsigned)desc->addressMode > ZE_SAMPLER_ADDRESS_MODE_MIRROR ||
        (unsigned)desc->filterMode > ZE_SAMPLER_FILTER_MODE_LINEAR)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    s = calloc(1, sizeof(*s));
    if (!s)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    s->magic = GTSIM_MAGIC_SAMPLER;
    s->desc = *desc;
    s->desc.pNext = NULL;
    *phSampler = (ze_sampler_handle_t)s;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeSamplerDestroy(ze_sampler_handle_t hSampler)
{
    struct gtsim_sampler *s = (struct gtsim_sampler *)hSampler;
    if (!s || s->magic != GTSIM_MAGIC_SAMPLER)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    s->magic = 0;
    free(s);
    return ZE_RESULT_SUCCESS;
}

void gtsim_fill_sampler(ze_sampler_dditable_t *t)
{
    t->pfnCreate = gtsim_zeSamplerCreate;
    t->pfnDestroy = gtsim_zeSamplerDestroy;
}
