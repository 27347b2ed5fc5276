/* SPDX-License-Identifier: MIT */
/* gtsim answers as Intel's runtime does where Intel's conformance suite
 * saw a difference (issue 33), through the real loader: group-size
 * suggestions (zeros accepted, the device's own limits kept), module
 * symbols, kernel attributes and settings, the timer resolution in the unit
 * the properties' stype asks for, global timestamps, samplers and
 * indirect launches. The native vadd fixture is the module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ze_api.h>

#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

static ze_context_handle_t ctx;
static ze_device_handle_t dev;
static ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};

static int within_limits(uint32_t x, uint32_t y, uint32_t z)
{
    return x && y && z && x <= cp.maxGroupSizeX && y <= cp.maxGroupSizeY && z <= cp.maxGroupSizeZ &&
           (uint64_t)x * y * z <= cp.maxTotalGroupSize;
}

static void group_sizes(ze_kernel_handle_t k)
{
    uint32_t x = 0, y = 0, z = 0;
    ze_result_t r = zeKernelSuggestGroupSize(k, 64, 0, 0, &x, &y, &z);
    tap_ok(r == ZE_RESULT_SUCCESS && x && 64 % x == 0 && y == 1 && z == 1,
           "suggest(64, 0, 0) is accepted: 0x%x, %u x %u x %u", (unsigned)r, x, y, z);
    r = zeKernelSuggestGroupSize(k, 0, 0, 0, &x, &y, &z);
    tap_ok(r == ZE_RESULT_SUCCESS && x == 1 && y == 1 && z == 1,
           "suggest(0, 0, 0) gives 1 x 1 x 1: 0x%x, %u x %u x %u", (unsigned)r, x, y, z);
    r = zeKernelSuggestGroupSize(k, 1, 1, 4096, &x, &y, &z);
    tap_ok(r == ZE_RESULT_SUCCESS && within_limits(x, y, z) && 4096 % z == 0,
           "suggest(1, 1, 4096) keeps Z within maxGroupSizeZ %u: %u x %u x %u", cp.maxGroupSizeZ, x,
           y, z);
    r = zeKernelSuggestGroupSize(k, 1024, 1024, 1024, &x, &y, &z);
    tap_ok(r == ZE_RESULT_SUCCESS && within_limits(x, y, z),
           "suggest(1024, 1024, 1024) stays within every limit (total %u): %u x %u x %u",
           cp.maxTotalGroupSize, x, y, z);
}

static void symbols(ze_module_handle_t m)
{
    size_t size = 0;
    void *p = NULL;
    ze_result_t r = zeModuleGetGlobalPointer(m, "no_such_global", &size, &p);
    tap_ok(r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
           "zeModuleGetGlobalPointer without -ze-take-global-address: UNSUPPORTED_FEATURE (0x%x)",
           (unsigned)r);
    r = zeModuleGetFunctionPointer(m, "vadd", &p);
    tap_ok(r == ZE_RESULT_SUCCESS && p != NULL,
           "zeModuleGetFunctionPointer of a kernel gives its code address (0x%x, %p)", (unsigned)r,
           p);
    p = NULL;
    r = zeModuleGetFunctionPointer(m, "no_such_function", &p);
    tap_ok(r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
           "zeModuleGetFunctionPointer of another name without -library-compile: "
           "UNSUPPORTED_FEATURE (0x%x)",
           (unsigned)r);
}

static void kernel_settings(ze_kernel_handle_t k)
{
    ze_kernel_indirect_access_flags_t f = 0;
    uint32_t size = 0;
    char buf[8] = "x", *pbuf = buf;
    ze_result_t r = zeKernelSetIndirectAccess(k, ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
                                                     ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST);
    ze_result_t r2 = zeKernelGetIndirectAccess(k, &f);
    tap_ok(r == ZE_RESULT_SUCCESS && r2 == ZE_RESULT_SUCCESS &&
               f == (ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE | ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST),
           "zeKernelSetIndirectAccess is kept and read back (0x%x 0x%x, flags %u)", (unsigned)r,
           (unsigned)r2, (unsigned)f);
    r = zeKernelSetCacheConfig(k, ZE_CACHE_CONFIG_FLAG_LARGE_SLM);
    tap_ok(r == ZE_RESULT_SUCCESS, "zeKernelSetCacheConfig(LARGE_SLM) succeeds (0x%x)",
           (unsigned)r);
    r = zeKernelGetSourceAttributes(k, &size, NULL);
    r2 = zeKernelGetSourceAttributes(k, &size, &pbuf);
    tap_ok(r == ZE_RESULT_SUCCESS && r2 == ZE_RESULT_SUCCESS && size == 1 && buf[0] == 0,
           "zeKernelGetSourceAttributes: an empty string of size 1 (0x%x 0x%x, size %u)",
           (unsigned)r, (unsigned)r2, size);
}

static void timestamps_and_samplers(void)
{
    ze_device_properties_t p10 = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ze_device_properties_t p12 = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    uint64_t h1 = 0, d1 = 0, h2 = 0, d2 = 0;
    ze_sampler_desc_t sd = {.stype = ZE_STRUCTURE_TYPE_SAMPLER_DESC,
                            .addressMode = ZE_SAMPLER_ADDRESS_MODE_CLAMP,
                            .filterMode = ZE_SAMPLER_FILTER_MODE_NEAREST};
    ze_sampler_handle_t s = NULL;
    ze_result_t r = zeDeviceGetProperties(dev, &p10);
    ze_result_t r2 = zeDeviceGetProperties(dev, &p12);
    tap_ok(r == ZE_RESULT_SUCCESS && r2 == ZE_RESULT_SUCCESS && p10.timerResolution == 1000 &&
               p12.timerResolution == 1000000,
           "timerResolution follows the stype: 1000 ns a tick (1.0), 1,000,000 ticks a second "
           "(1.2): %llu, %llu",
           (unsigned long long)p10.timerResolution, (unsigned long long)p12.timerResolution);
    r = zeDeviceGetGlobalTimestamps(dev, &h1, &d1);
    r2 = zeDeviceGetGlobalTimestamps(dev, &h2, &d2);
    tap_ok(r == ZE_RESULT_SUCCESS && r2 == ZE_RESULT_SUCCESS && h2 >= h1 && d2 >= d1 && d1 > 0 &&
               d1 >= h1 / 1000 - 1 && d1 <= h1 / 1000 + 1,
           "zeDeviceGetGlobalTimestamps: host ns and device ticks of 1000 ns advance together "
           "(%llu/%llu)",
           (unsigned long long)h1, (unsigned long long)d1);
    r = zeSamplerCreate(ctx, dev, &sd, &s);
    r2 = s ? zeSamplerDestroy(s) : ZE_RESULT_ERROR_UNKNOWN;
    tap_ok(r == ZE_RESULT_SUCCESS && r2 == ZE_RESULT_SUCCESS,
           "zeSamplerCreate and zeSamplerDestroy succeed (0x%x 0x%x)", (unsigned)r, (unsigned)r2);
    sd.addressMode = (ze_sampler_address_mode_t)77;
    r = zeSamplerCreate(ctx, dev, &sd, &s);
    tap_ok(r == ZE_RESULT_ERROR_INVALID_ENUMERATION,
           "zeSamplerCreate with a bad address mode is INVALID_ENUMERATION (0x%x)", (unsigned)r);
}

static void indirect_launch(ze_kernel_handle_t k)
{
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS};
    ze_command_list_handle_t list;
    ze_group_count_t *counts = NULL, on_stack = {1, 1, 1};
    void *buf[3] = {0};
    ze_result_t r, r2;
    for (int i = 0; i < 3; i++) {
        zeMemAllocShared(ctx, &dd, &hd, 4096, 64, dev, &buf[i]);
        zeKernelSetArgumentValue(k, (uint32_t)i, sizeof(void *), &buf[i]);
    }
    zeKernelSetGroupSize(k, 16, 1, 1);
    zeMemAllocShared(ctx, &dd, &hd, sizeof(*counts), 8, dev, (void **)&counts);
    *counts = (ze_group_count_t){2, 1, 1};
    zeCommandListCreateImmediate(ctx, dev, &qd, &list);
    r = zeCommandListAppendLaunchKernelIndirect(list, k, counts, NULL, 0, NULL);
    r2 = zeCommandListAppendLaunchKernelIndirect(list, k, &on_stack, NULL, 0, NULL);
    tap_ok(r == ZE_RESULT_SUCCESS, "zeCommandListAppendLaunchKernelIndirect launches (0x%x)",
           (unsigned)r);
    tap_ok(r2 == ZE_RESULT_ERROR_INVALID_ARGUMENT,
           "... and refuses counts outside device-visible memory (0x%x)", (unsigned)r2);
    zeCommandListDestroy(list);
    zeMemFree(ctx, counts);
    for (int i = 0; i < 3; i++)
        zeMemFree(ctx, buf[i]);
}

int main(void)
{
    const char *lib = getenv("GTSIM_LIB"), *src = getenv("top_srcdir");
    ze_driver_handle_t drv;
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .format = ZE_MODULE_FORMAT_NATIVE};
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "vadd"};
    ze_module_handle_t m;
    ze_kernel_handle_t k;
    char path[4096];
    uint32_t n = 1;
    size_t size = 0;
    void *image;

    tap_plan(16);
    if (!lib || !src) {
        tap_diag("GTSIM_LIB and top_srcdir must be set (make check sets them)");
        return tap_done();
    }
    setenv("ZE_ENABLE_ALT_DRIVERS", lib, 1);
    setenv("GTSIM_CONFIG", "platform=xehpc", 1);
    snprintf(path, sizeof(path), "%s/tests/kernels/fixtures/vadd-xehpc.elf", src);
    image = tests_slurp(path, &size);
    if (!image || zeInit(0) || zeDriverGet(&n, &drv) || zeDeviceGet(drv, &n, &dev) ||
        zeContextCreate(drv, &cd, &ctx) || zeDeviceGetComputeProperties(dev, &cp)) {
        tap_diag("no gtsim device or no fixture %s", path);
        return tap_done();
    }
    md.inputSize = size;
    md.pInputModule = image;
    if (zeModuleCreate(ctx, dev, &md, &m, NULL) || zeKernelCreate(m, &kd, &k)) {
        tap_diag("the vadd fixture does not load");
        return tap_done();
    }
    group_sizes(k);
    symbols(m);
    kernel_settings(k);
    timestamps_and_samplers();
    indirect_launch(k);
    zeKernelDestroy(k);
    zeModuleDestroy(m);
    zeContextDestroy(ctx);
    free(image);
    return tap_done();
}
