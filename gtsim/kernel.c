/* SPDX-License-Identifier: MIT */
/* Kernels: argument values, group sizes and the snapshot a launch runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/device_build.h"
#include "gtsim/gtsim.h"
#include "gtsim/printf_buffer.h"
#include "gtsim/zebin.h"

/* Shared local memory given to a work-group when the kernel does not say
 * how much it needs: the whole of a subslice's SLM on these parts. */
#define DEFAULT_SLM (64u << 10)

static struct gtsim_kernel *as_kernel(ze_kernel_handle_t h)
{
    struct gtsim_kernel *k = (struct gtsim_kernel *)h;
    return k && k->magic == GTSIM_MAGIC_KERNEL ? k : NULL;
}

/* The zebin's main entry for explicit argument idx: the one that carries
 * its kind and payload size. */
static const struct gtsim_zebin_arg *arg_info(const struct gtsim_kernel *k, uint32_t idx)
{
    const struct gtsim_zebin_arg *best = NULL;
    for (size_t i = 0; i < k->info->nargs; i++) {
        const struct gtsim_zebin_arg *a = &k->info->args[i];
        if (a->arg_index != (int)idx || a->kind == GTSIM_ZEBIN_ARG_BUFFER_OFFSET)
            continue;
        if (!best || (best->size == 0 && a->size > 0))
            best = a;
    }
    return best;
}

static uint32_t max_group_size(const struct gtsim_kernel *k)
{
    const struct gtsim_config *c = &k->module->device->driver->cfg;
    uint32_t n = c->eus * c->threads * k->info->simd_size;
    return n > 1024 ? 1024 : n;
}

static ze_result_t ZE_APICALL gtsim_zeKernelCreate(ze_module_handle_t hModule,
                                                   const ze_kernel_desc_t *desc,
                                                   ze_kernel_handle_t *phKernel)
{
    struct gtsim_module *m = (struct gtsim_module *)hModule;
    struct gtsim_kernel *k;
    size_t i;
    if (!m || m->magic != GTSIM_MAGIC_MODULE)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phKernel || !desc->pKernelName)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (i = 0; i < m->zebin->nkernels; i++)
        if (strcmp(m->zebin->kernels[i].name, desc->pKernelName) == 0)
            break;
    if (i == m->zebin->nkernels)
        return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    k = calloc(1, sizeof(*k));
    if (!k)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    k->magic = GTSIM_MAGIC_KERNEL;
    k->module = m;
    k->info = &m->zebin->kernels[i];
    k->entry = m->kernel_at[i];
    k->group_size[0] = k->group_size[1] = k->group_size[2] = 1;
    for (size_t a = 0; a < k->info->nargs; a++)
        if (k->info->args[a].arg_index >= 0 && (uint32_t)k->info->args[a].arg_index >= k->nargs)
            k->nargs = (uint32_t)k->info->args[a].arg_index + 1;
    k->args = k->nargs ? calloc(k->nargs, sizeof(*k->args)) : NULL;
    if (k->nargs && !k->args) {
        free(k);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (gtsim_printf_wanted(k->info)) {
        k->printf_buffer = gtsim_printf_buffer_create(m->device->driver, m->device);
        if (!k->printf_buffer) {
            free(k->args);
            free(k);
            return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
        }
    }
    *phKernel = (ze_kernel_handle_t)k;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeKernelDestroy(ze_kernel_handle_t hKernel)
{
    struct gtsim_kernel *k = as_kernel(hKernel);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    k->magic = 0;
    gtsim_printf_buffer_destroy(k->module->device->driver, k->printf_buffer);
    free(k->args);
    free(k);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t x,
                                                         uint32_t y, uint32_t z)
{
    struct gtsim_kernel *k = as_kernel(hKernel);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!x || !y || !z || (uint64_t)x * y * z > max_group_size(k))
        return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    k->group_size[0] = x;
    k->group_size[1] = y;
    k->group_size[2] = z;
    return ZE_RESULT_SUCCESS;
}

/* Largest divisor of n that is at most limit. */
static uint32_t divisor_at_most(uint32_t n, uint32_t limit)
{
    for (uint32_t d = limit < n ? limit : n; d > 1; d--)
        if (n % d == 0)
            return d;
    return 1;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* Intel's runtime accepts a global size of 0 in any dimension (it sizes
 * only the dimensions above 1 and gives the others a group size of 1), so
 * gtsim does too; every suggestion stays within the kernel's total and the
 * device's per-dimension limits (zeDeviceGetComputeProperties). */
static ze_result_t ZE_APICALL gtsim_zeKernelSuggestGroupSize(ze_kernel_handle_t hKernel,
                                                             uint32_t gx, uint32_t gy, uint32_t gz,
                                                             uint32_t *x, uint32_t *y, uint32_t *z)
{
    struct gtsim_kernel *k = as_kernel(hKernel);
    uint32_t limit, total, dims[3];
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!x || !y || !z)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    gtsim_device_group_limits(k->module->device, &total, dims);
    limit = min_u32(max_group_size(k), total);
    *x = divisor_at_most(gx ? gx : 1, min_u32(limit, dims[0]));
    *y = divisor_at_most(gy ? gy : 1, min_u32(limit / *x, dims[1]));
    *z = divisor_at_most(gz ? gz : 1, min_u32(limit / (*x * *y), dims[2]));
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeKernelSetArgumentValue(ze_kernel_handle_t hKernel,
                                                             uint32_t idx, size_t size,
                                                             const void *value)
{
    struct gtsim_kernel *k = as_kernel(hKernel);
    const struct gtsim_zebin_arg *info;
    struct gtsim_kernel_arg *a;
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (idx >= k->nargs)
        return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    info = arg_info(k, idx);
    a = &k->args[idx];
    if (info && info->kind == GTSIM_ZEBIN_ARG_LOCAL_PTR) {
        /* A __local pointer: the value is the size of the buffer. */
        if (value || size == 0)
            return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        a->size = (uint32_t)size;
        a->set = true;
        return ZE_RESULT_SUCCESS;
    }
    if (info &&
        (info->kind == GTSIM_ZEBIN_ARG_GLOBAL_PTR || info->kind == GTSIM_ZEBIN_ARG_CONST_PTR)) {
        if (size != sizeof(void *))
            return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
    } else if (size > sizeof(a->value) || (info && info->size && size != info->size)) {
        return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
    }
    memset(a->value, 0, sizeof(a->value));
    if (value)
        memcpy(a->value, value, size);
    a->size = (uint32_t)size;
    a->set = true;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeKernelGetProperties(ze_kernel_handle_t hKernel,
                                                          ze_kernel_properties_t *p)
{
    struct gtsim_kernel *k = as_kernel(hKernel);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->numKernelArgs = k->nargs;
    p->requiredGroupSizeX = p->requiredGroupSizeY = p->requiredGroupSizeZ = 0;
    p->requiredNumSubGroups = 0;
    p->requiredSubgroupSize = 0;
    p->maxSubgroupSize = k->info->simd_size;
    p->maxNumSubgroups = max_group_size(k) / k->info->simd_size;
    p->localMemSize = k->info->slm_size;
    p->privateMemSize = 0;
    p->spillMemSize = 0;
    memset(&p->uuid, 0, sizeof(p->uuid));
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeKernelGetName(ze_kernel_handle_t hKernel, size_t *pSize,
                                                    char *pName)
{
    struct gtsim_kernel *k = as_kernel(hKernel);
    size_t n;
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pSize)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    n = strlen(k->info->name) + 1;
    if (pName) {
        if (*pSize < n)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        memcpy(pName, k->info->name, n);
    }
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

/* Intel's runtime records the flags and answers success (kernel_imp.cpp,
 * setIndirectAccess); every allocation is reachable from every kernel in
 * gtsim anyway. */
static ze_result_t ZE_APICALL gtsim_zeKernelSetIndirectAccess(ze_kernel_handle_t hKernel,
                                                              ze_kernel_indirect_access_flags_t f)
{
    struct gtsim_kernel *k = as_kernel(hKernel);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (f & ~(ze_kernel_indirect_access_flags_t)(ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST |
                                                 ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
                                                 ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    k->indirect_access |= f; /* the runtime only ever sets these */
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeKernelGetIndirectAccess(ze_kernel_handle_t hKernel,
                                                              ze_kernel_indirect_access_flags_t *f)
{
    struct gtsim_kernel *k = as_kernel(hKernel);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!f)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *f = k->indirect_access;
    return ZE_RESULT_SUCCESS;
}

/* A cache preference: recorded, as the runtime records it; gtsim has no
 * cache whose split it could change. */
static ze_result_t ZE_APICALL gtsim_zeKernelSetCacheConfig(ze_kernel_handle_t hKernel,
                                                           ze_cache_config_flags_t flags)
{
    struct gtsim_kernel *k = as_kernel(hKernel);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (flags & ~(ze_cache_config_flags_t)(ZE_CACHE_CONFIG_FLAG_LARGE_SLM |
                                           ZE_CACHE_CONFIG_FLAG_LARGE_DATA))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    k->cache_config = flags;
    return ZE_RESULT_SUCCESS;
}

/* The kernel's language attributes (OpenCL C __attribute__s) as a string.
 * gtsim's zebin reader does not keep them, so the string is empty, which
 * is the runtime's answer for a kernel declared without attributes. The
 * runtime's protocol: with pString NULL the size (with the NUL) is
 * returned, else the string is copied into *pString. */
static ze_result_t ZE_APICALL gtsim_zeKernelGetSourceAttributes(ze_kernel_handle_t hKernel,
                                                                uint32_t *pSize, char **pString)
{
    struct gtsim_kernel *k = as_kernel(hKernel);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pSize)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!pString) {
        *pSize = 1;
        return ZE_RESULT_SUCCESS;
    }
    if (!*pString)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pSize > 0)
        (*pString)[0] = 0;
    return ZE_RESULT_SUCCESS;
}

static bool mem_ok(void *ctx, uint64_t addr, uint64_t len)
{
    return gtsim_mem_is_valid(ctx, addr, (size_t)len);
}

/* Writes n bytes of value at byte `at` of a payload entry, cut to its size. */
static void put(struct gtsim_hw_launch *out, const struct gtsim_zebin_arg *a, uint32_t at,
                const void *value, uint32_t n)
{
    if (at >= a->size)
        return;
    memcpy(out->cross_thread + a->offset + at, value, a->size - at < n ? a->size - at : n);
}

/* The cross-thread payload the runtime writes for the executor: each
 * payload_arguments entry at its offset. Implicit arguments gtsim does not
 * know are left zero (README.md, "Executing instructions"). Returns false
 * when the payload does not fit the launch. */
static bool fill_payload(struct gtsim_kernel *k, struct gtsim_hw_launch *out)
{
    uint32_t slm_off = k->info->slm_size;
    for (size_t i = 0; i < k->info->nargs; i++) {
        const struct gtsim_zebin_arg *a = &k->info->args[i];
        if (a->size == 0)
            continue;
        if (a->offset + a->size > GTSIM_HW_CROSS_THREAD_MAX)
            return false;
        if (a->offset + a->size > out->cross_thread_size)
            out->cross_thread_size = a->offset + a->size;
        if (a->kind == GTSIM_ZEBIN_ARG_IMPLICIT) {
            const uint32_t *v = NULL;
            if (strcmp(a->arg_type, "local_size") == 0 ||
                strcmp(a->arg_type, "enqueued_local_size") == 0)
                v = k->group_size;
            else if (strcmp(a->arg_type, "num_work_groups") == 0)
                v = out->group_count;
            else if (strcmp(a->arg_type, "printf_buffer") == 0) {
                uint64_t p = (uint64_t)(uintptr_t)k->printf_buffer;
                put(out, a, 0, &p, 8);
                continue;
            }
            for (uint32_t d = 0; v && d < 3 && d * 4 < a->size; d++)
                put(out, a, d * 4, &v[d], 4);
            continue; /* global_id_offset and the others: zero */
        }
        if (a->arg_index < 0 || (uint32_t)a->arg_index >= k->nargs)
            continue;
        const struct gtsim_kernel_arg *v = &k->args[a->arg_index];
        if (a->kind == GTSIM_ZEBIN_ARG_LOCAL_PTR) {
            /* The argument's offset in the group's SLM, after the kernel's
             * static SLM and the earlier local arguments. */
            uint64_t off = (slm_off + 15u) & ~15u;
            put(out, a, 0, &off, 8);
            slm_off = (uint32_t)off + v->size;
        } else if (a->kind != GTSIM_ZEBIN_ARG_BUFFER_OFFSET) {
            /* By value or a pointer's address; buffer_offset stays 0 since
             * gtsim passes whole allocations' addresses. */
            uint32_t n = v->size < a->size ? v->size : a->size;
            memcpy(out->cross_thread + a->offset, v->value,
                   n < sizeof(v->value) ? n : sizeof(v->value));
        }
    }
    return true;
}

ze_result_t gtsim_kernel_snapshot(struct gtsim_kernel *k, struct gtsim_hw_launch *out)
{
    struct gtsim_driver *drv = k->module->device->driver;
    uint32_t slm = k->info->slm_size;

    snprintf(out->kernel.name, sizeof(out->kernel.name), "%s", k->info->name);
    out->kernel.entry = k->entry;
    out->kernel.size = (uint32_t)k->info->text_size;
    out->kernel.simd = k->info->simd_size ? k->info->simd_size : 1;
    out->kernel.grf_count = k->info->grf_count;
    memcpy(out->group_size, k->group_size, sizeof(out->group_size));
    for (uint32_t i = 0; i < k->nargs; i++) {
        const struct gtsim_zebin_arg *info = arg_info(k, i);
        uint64_t ptr = 0;
        if (!k->args[i].set)
            return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        if (!info)
            continue;
        if (info->kind == GTSIM_ZEBIN_ARG_LOCAL_PTR) {
            slm += k->args[i].size;
            continue;
        }
        if (info->kind != GTSIM_ZEBIN_ARG_GLOBAL_PTR && info->kind != GTSIM_ZEBIN_ARG_CONST_PTR)
            continue;
        memcpy(&ptr, k->args[i].value, sizeof(ptr));
        /* Arguments are checked at append time, like the real driver's
         * residency check; the first bad one is what the threads fault on. */
        if (!out->has_bad_pointer && !gtsim_mem_is_valid(drv, ptr, 1)) {
            out->has_bad_pointer = true;
            out->bad_pointer = ptr;
        }
    }
    out->kernel.slm_size = slm ? slm : DEFAULT_SLM;
    out->local_id_size = k->info->local_id_size;
    out->mem_ok = mem_ok;
    out->mem_ctx = drv;
    out->printf_buffer = k->printf_buffer;
    if (!fill_payload(k, out))
        out->cross_thread_size = 0; /* executed, its prologue reads zeros */
    return ZE_RESULT_SUCCESS;
}

void gtsim_fill_kernel(ze_kernel_dditable_t *t)
{
    t->pfnCreate = gtsim_zeKernelCreate;
    t->pfnDestroy = gtsim_zeKernelDestroy;
    t->pfnSetGroupSize = gtsim_zeKernelSetGroupSize;
    t->pfnSuggestGroupSize = gtsim_zeKernelSuggestGroupSize;
    t->pfnSetArgumentValue = gtsim_zeKernelSetArgumentValue;
    t->pfnGetProperties = gtsim_zeKernelGetProperties;
    t->pfnGetName = gtsim_zeKernelGetName;
    t->pfnSetIndirectAccess = gtsim_zeKernelSetIndirectAccess;
    t->pfnGetIndirectAccess = gtsim_zeKernelGetIndirectAccess;
    t->pfnSetCacheConfig = gtsim_zeKernelSetCacheConfig;
    t->pfnGetSourceAttributes = gtsim_zeKernelGetSourceAttributes;
}
