/* SPDX-License-Identifier: MIT */
/* Devices and sub-devices: enumeration and every property query that plain
 * Level Zero programs make before they launch work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gtsim/device_build.h"
#include "gtsim/gtsim.h"

/* Plausible PCI ids and marketing names per generation. */
static const struct {
    uint32_t device_id;
    const char *name;
    uint32_t subgroup_sizes[3];
    uint32_t nsubgroup_sizes;
    uint32_t slm_size;
    uint64_t mem_size;
} platform_info[GTSIM_PLATFORM_COUNT] = {
    [GTSIM_GEN12LP] =
        {0x9a49, "Intel(R) Iris(R) Xe Graphics [gtsim]", {8, 16, 32}, 3, 65536, 4ull << 30},
    [GTSIM_XEHPG] =
        {0x56a0, "Intel(R) Arc(TM) A770 Graphics [gtsim]", {8, 16, 32}, 3, 65536, 16ull << 30},
    [GTSIM_XEHPC] =
        {0x0bd5, "Intel(R) Data Center GPU Max 1550 [gtsim]", {16, 32, 0}, 2, 131072, 64ull << 30},
};

struct gtsim_device *gtsim_as_device(void *handle)
{
    struct gtsim_device *d = handle;
    return d && d->magic == GTSIM_MAGIC_DEVICE ? d : NULL;
}

static struct gtsim_device *new_device(struct gtsim_driver *drv, uint32_t ordinal)
{
    struct gtsim_device *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    d->magic = GTSIM_MAGIC_DEVICE;
    d->driver = drv;
    d->ordinal = ordinal;
    d->device_id = platform_info[drv->cfg.platform].device_id;
    return d;
}

/* UUID bytes: vendor, device id, ordinal, tile (0xff for the root). */
static void make_uuid(struct gtsim_device *d, uint32_t tile)
{
    memset(d->uuid, 0, sizeof(d->uuid));
    d->uuid[0] = 0x86;
    d->uuid[1] = 0x80;
    d->uuid[2] = (uint8_t)(d->device_id & 0xff);
    d->uuid[3] = (uint8_t)(d->device_id >> 8);
    d->uuid[4] = (uint8_t)d->ordinal;
    d->uuid[5] = (uint8_t)tile;
    memcpy(d->uuid + 8, "gtsim\0\0\1", 8);
}

struct gtsim_device *gtsim_device_build(struct gtsim_driver *drv, uint32_t ordinal, char *err,
                                        size_t errlen)
{
    const struct gtsim_config *c = &drv->cfg;
    struct gtsim_hw_config hc = {
        c->platform, c->tiles, c->slices,  c->subslices,         c->eus,
        c->threads,  c->pace,  c->workers, c->barrier_skip != 0, c->exec != 0};
    struct gtsim_device *root = new_device(drv, ordinal);

    if (!root) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    root->hw = gtsim_hw_create(&hc, err, errlen);
    if (!root->hw) {
        free(root);
        return NULL;
    }
    root->slice_first = 0;
    root->slice_count = c->tiles * c->slices;
    snprintf(root->name, sizeof(root->name), "%s", platform_info[c->platform].name);
    make_uuid(root, 0xff);
    if (c->tiles > 1) {
        root->sub = calloc(c->tiles, sizeof(*root->sub));
        if (!root->sub) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        for (uint32_t t = 0; t < c->tiles; t++) {
            struct gtsim_device *s = new_device(drv, ordinal);
            if (!s) {
                snprintf(err, errlen, "out of memory");
                return NULL;
            }
            s->root = root;
            s->subdevice_id = t;
            s->hw = root->hw;
            s->slice_first = t * c->slices;
            s->slice_count = c->slices;
            snprintf(s->name, sizeof(s->name), "%s", root->name);
            make_uuid(s, t);
            root->sub[t] = s;
        }
        root->nsub = c->tiles;
    }
    return root;
}

static ze_result_t ZE_APICALL gtsim_zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
                                                ze_device_handle_t *phDevices)
{
    struct gtsim_driver *drv = (struct gtsim_driver *)hDriver;
    if (!drv || drv->magic != GTSIM_MAGIC_DRIVER)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || !phDevices) {
        *pCount = drv->nvisible;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > drv->nvisible)
        *pCount = drv->nvisible;
    for (uint32_t i = 0; i < *pCount; i++)
        phDevices[i] = (ze_device_handle_t)drv->visible[i];
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDeviceGetSubDevices(ze_device_handle_t hDevice,
                                                          uint32_t *pCount,
                                                          ze_device_handle_t *phSubdevices)
{
    struct gtsim_device *d = gtsim_as_device(hDevice);
    uint32_t shown = 0;
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* The tiles ZE_AFFINITY_MASK left (all without one). */
    for (uint32_t i = 0; i < d->nsub; i++) {
        if (d->tile_mask && !(d->tile_mask & (1u << i)))
            continue;
        if (*pCount != 0 && phSubdevices) {
            if (shown == *pCount)
                break;
            phSubdevices[shown] = (ze_device_handle_t)d->sub[i];
        }
        shown++;
    }
    *pCount = shown;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDeviceGetProperties(ze_device_handle_t hDevice,
                                                          ze_device_properties_t *p)
{
    struct gtsim_device *d = gtsim_as_device(hDevice);
    const struct gtsim_config *c;
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    c = &d->driver->cfg;
    p->type = ZE_DEVICE_TYPE_GPU;
    p->vendorId = 0x8086;
    p->deviceId = d->device_id;
    p->flags = ZE_DEVICE_PROPERTY_FLAG_INTEGRATED * (c->platform == GTSIM_GEN12LP);
    /* A tile ZE_AFFINITY_MASK shows alone is a root device to the
     * application, as with the runtime. */
    if (d->root && !d->shown_as_root)
        p->flags |= ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE;
    p->subdeviceId = d->root && !d->shown_as_root ? d->subdevice_id : 0;
    p->coreClockRate = 1600;
    p->maxMemAllocSize = platform_info[c->platform].mem_size / 2;
    p->maxHardwareContexts = 64;
    p->maxCommandQueuePriority = 0;
    p->numThreadsPerEU = c->threads;
    p->physicalEUSimdWidth = c->platform == GTSIM_XEHPC ? 16 : 8;
    p->numEUsPerSubslice = c->eus;
    p->numSubslicesPerSlice = c->subslices;
    p->numSlices = d->slice_count;
    /* One tick is 1000 ns. The API gives that in nanoseconds for the 1.0
     * stype and in ticks per second for DEVICE_PROPERTIES_1_2, and the
     * runtime follows the stype the caller set (Intel's test_device
     * checks that the two differ). */
    p->timerResolution = p->stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 ? 1000000 : 1000;
    p->timestampValidBits = 64;
    p->kernelTimestampValidBits = 32;
    memcpy(p->uuid.id, d->uuid, sizeof(p->uuid.id));
    snprintf(p->name, sizeof(p->name), "%s", d->name);
    return ZE_RESULT_SUCCESS;
}

void gtsim_device_group_limits(const struct gtsim_device *d, uint32_t *total, uint32_t dims[3])
{
    const struct gtsim_config *c = &d->driver->cfg;
    /* A work-group must fit one subslice; at the smallest SIMD width. */
    uint32_t max_group = c->eus * c->threads * platform_info[c->platform].subgroup_sizes[0];
    if (max_group > 1024)
        max_group = 1024;
    *total = max_group;
    dims[0] = dims[1] = max_group;
    dims[2] = 64 < max_group ? 64 : max_group;
}

static ze_result_t ZE_APICALL gtsim_zeDeviceGetComputeProperties(ze_device_handle_t hDevice,
                                                                 ze_device_compute_properties_t *p)
{
    struct gtsim_device *d = gtsim_as_device(hDevice);
    const struct gtsim_config *c;
    uint32_t dims[3];
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    c = &d->driver->cfg;
    gtsim_device_group_limits(d, &p->maxTotalGroupSize, dims);
    p->maxGroupSizeX = dims[0];
    p->maxGroupSizeY = dims[1];
    p->maxGroupSizeZ = dims[2];
    p->maxGroupCountX = 0xffffffffu;
    p->maxGroupCountY = 0xffffffffu;
    p->maxGroupCountZ = 0xffffffffu;
    p->maxSharedLocalMemory = platform_info[c->platform].slm_size;
    p->numSubGroupSizes = platform_info[c->platform].nsubgroup_sizes;
    memset(p->subGroupSizes, 0, sizeof(p->subGroupSizes));
    for (uint32_t i = 0; i < p->numSubGroupSizes; i++)
        p->subGroupSizes[i] = platform_info[c->platform].subgroup_sizes[i];
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDeviceGetModuleProperties(ze_device_handle_t hDevice,
                                                                ze_device_module_properties_t *p)
{
    struct gtsim_device *d = gtsim_as_device(hDevice);
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* SPIR-V is compiled by ocloc (il_build.h); 1.2 is what Intel's runtime
     * reports. */
    p->spirvVersionSupported = ZE_MAKE_VERSION(1, 2);
    p->flags = ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS;
    p->fp16flags = ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST;
    p->fp32flags = ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST | ZE_DEVICE_FP_FLAG_FMA;
    p->fp64flags = 0;
    p->maxArgumentsSize = 2048;
    p->printfBufferSize = 4 << 20;
    memset(p->nativeKernelSupported.id, 0, sizeof(p->nativeKernelSupported.id));
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDeviceGetCommandQueueGroupProperties(
    ze_device_handle_t hDevice, uint32_t *pCount, ze_command_queue_group_properties_t *p)
{
    if (!gtsim_as_device(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || !p) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    *pCount = 1;
    p->flags =
        ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
    p->maxMemoryFillPatternSize = 16;
    p->numQueues = 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDeviceGetMemoryProperties(ze_device_handle_t hDevice,
                                                                uint32_t *pCount,
                                                                ze_device_memory_properties_t *p)
{
    struct gtsim_device *d = gtsim_as_device(hDevice);
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || !p) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    *pCount = 1;
    p->flags = 0;
    p->maxClockRate = 1600;
    p->maxBusWidth = 64;
    p->totalSize = platform_info[d->driver->cfg.platform].mem_size;
    snprintf(p->name, sizeof(p->name), "%s", "HBM");
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDeviceGetMemoryAccessProperties(
    ze_device_handle_t hDevice, ze_device_memory_access_properties_t *p)
{
    ze_memory_access_cap_flags_t rw = ZE_MEMORY_ACCESS_CAP_FLAG_RW;
    if (!gtsim_as_device(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->hostAllocCapabilities = rw;
    p->deviceAllocCapabilities = rw;
    p->sharedSingleDeviceAllocCapabilities = rw;
    p->sharedCrossDeviceAllocCapabilities = 0;
    p->sharedSystemAllocCapabilities = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDeviceGetCacheProperties(ze_device_handle_t hDevice,
                                                               uint32_t *pCount,
                                                               ze_device_cache_properties_t *p)
{
    if (!gtsim_as_device(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || !p) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    *pCount = 1;
    p->flags = 0;
    p->cacheSize = 16u << 20;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDeviceGetStatus(ze_device_handle_t hDevice)
{
    struct gtsim_device *d = gtsim_as_device(hDevice);
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return (d->root ? d->root : d)->lost ? ZE_RESULT_ERROR_DEVICE_LOST : ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDevicePciGetPropertiesExt(ze_device_handle_t hDevice,
                                                                ze_pci_ext_properties_t *p)
{
    struct gtsim_device *d = gtsim_as_device(hDevice);
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* Sub-devices share their root's PCI function, as tiles do. */
    p->address.domain = 0;
    p->address.bus = 0x3a + d->ordinal;
    p->address.device = 0;
    p->address.function = 0;
    p->maxSpeed.genVersion = 4;
    p->maxSpeed.width = 16;
    p->maxSpeed.maxBandwidth = 32ll * 1000 * 1000 * 1000;
    return ZE_RESULT_SUCCESS;
}

/* Host time in nanoseconds of the monotonic clock; device time in ticks of
 * the timerResolution zeDeviceGetProperties reports (1000 ns), from the
 * same clock, so the two advance together as on hardware. */
static ze_result_t ZE_APICALL gtsim_zeDeviceGetGlobalTimestamps(ze_device_handle_t hDevice,
                                                                uint64_t *host, uint64_t *device)
{
    struct timespec ts;
    uint64_t ns;
    if (!gtsim_as_device(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!host || !device)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    *host = ns;
    *device = ns / 1000;
    return ZE_RESULT_SUCCESS;
}

void gtsim_fill_device(ze_device_dditable_t *t)
{
    t->pfnGet = gtsim_zeDeviceGet;
    t->pfnGetSubDevices = gtsim_zeDeviceGetSubDevices;
    t->pfnGetProperties = gtsim_zeDeviceGetProperties;
    t->pfnGetComputeProperties = gtsim_zeDeviceGetComputeProperties;
    t->pfnGetModuleProperties = gtsim_zeDeviceGetModuleProperties;
    t->pfnGetCommandQueueGroupProperties = gtsim_zeDeviceGetCommandQueueGroupProperties;
    t->pfnGetMemoryProperties = gtsim_zeDeviceGetMemoryProperties;
    t->pfnGetMemoryAccessProperties = gtsim_zeDeviceGetMemoryAccessProperties;
    t->pfnGetCacheProperties = gtsim_zeDeviceGetCacheProperties;
    t->pfnGetStatus = gtsim_zeDeviceGetStatus;
    t->pfnPciGetPropertiesExt = gtsim_zeDevicePciGetPropertiesExt;
    t->pfnGetGlobalTimestamps = gtsim_zeDeviceGetGlobalTimestamps;
}
