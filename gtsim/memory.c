/* SPDX-License-Identifier: MIT */
/* Unified shared memory. Every allocation is host memory whose address is
 * also its device address (as shared allocations are on real hardware); the
 * allocation table is what tells a valid device pointer from a stale one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/device_build.h"
#include "gtsim/gtsim.h"

/* Binary search: index of the last allocation with base <= addr, or -1. */
static long find_index(struct gtsim_driver *drv, uint64_t addr)
{
    long lo = 0, hi = (long)drv->nallocs - 1, found = -1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        if (drv->allocs[mid].base <= addr) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found;
}

const struct gtsim_alloc *gtsim_mem_find_locked(struct gtsim_driver *drv, uint64_t addr)
{
    long i = find_index(drv, addr);
    if (i < 0 || addr - drv->allocs[i].base >= drv->allocs[i].size)
        return NULL;
    return &drv->allocs[i];
}

bool gtsim_mem_is_valid(struct gtsim_driver *drv, uint64_t addr, size_t len)
{
    const struct gtsim_alloc *a;
    bool ok;
    pthread_mutex_lock(&drv->mem_lock);
    a = gtsim_mem_find_locked(drv, addr);
    ok = a && len <= a->size - (addr - a->base);
    pthread_mutex_unlock(&drv->mem_lock);
    return ok;
}

bool gtsim_mem_add(struct gtsim_driver *drv, const struct gtsim_alloc *a)
{
    long pos;
    pthread_mutex_lock(&drv->mem_lock);
    if (drv->nallocs == drv->cap_allocs) {
        size_t cap = drv->cap_allocs ? drv->cap_allocs * 2 : 64;
        struct gtsim_alloc *n = realloc(drv->allocs, cap * sizeof(*n));
        if (!n) {
            pthread_mutex_unlock(&drv->mem_lock);
            return false;
        }
        drv->allocs = n;
        drv->cap_allocs = cap;
    }
    pos = find_index(drv, a->base) + 1;
    memmove(&drv->allocs[pos + 1], &drv->allocs[pos],
            (drv->nallocs - (size_t)pos) * sizeof(*drv->allocs));
    drv->allocs[pos] = *a;
    drv->nallocs++;
    pthread_mutex_unlock(&drv->mem_lock);
    return true;
}

void *gtsim_mem_remove(struct gtsim_driver *drv, uint64_t base)
{
    void *mem;
    long i;
    pthread_mutex_lock(&drv->mem_lock);
    i = find_index(drv, base);
    if (i < 0 || drv->allocs[i].base != base) {
        pthread_mutex_unlock(&drv->mem_lock);
        return NULL;
    }
    mem = drv->allocs[i].mem;
    memmove(&drv->allocs[i], &drv->allocs[i + 1],
            (drv->nallocs - (size_t)i - 1) * sizeof(*drv->allocs));
    drv->nallocs--;
    pthread_mutex_unlock(&drv->mem_lock);
    return mem;
}

static ze_result_t do_alloc(ze_context_handle_t hContext, size_t size, size_t alignment,
                            ze_memory_type_t type, ze_device_handle_t hDevice, void **pptr)
{
    struct gtsim_context *c = (struct gtsim_context *)hContext;
    struct gtsim_driver *drv;
    struct gtsim_alloc a = {0};
    void *mem;

    if (!c || c->magic != GTSIM_MAGIC_CONTEXT)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (hDevice && !gtsim_as_device(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pptr)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (size == 0)
        return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (alignment & (alignment - 1))
        return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    drv = c->driver;
    if (alignment < 64)
        alignment = 64;
    if (posix_memalign(&mem, alignment, size) != 0)
        return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    memset(mem, 0, size);
    a.base = (uint64_t)(uintptr_t)mem;
    a.size = size;
    a.type = type;
    a.device = gtsim_as_device(hDevice);
    a.mem = mem;

    if (!gtsim_mem_add(drv, &a)) {
        free(mem);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *pptr = mem;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeMemAllocDevice(ze_context_handle_t hContext,
                                                     const ze_device_mem_alloc_desc_t *desc,
                                                     size_t size, size_t alignment,
                                                     ze_device_handle_t hDevice, void **pptr)
{
    if (!desc)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!hDevice)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return do_alloc(hContext, size, alignment, ZE_MEMORY_TYPE_DEVICE, hDevice, pptr);
}

static ze_result_t ZE_APICALL gtsim_zeMemAllocShared(ze_context_handle_t hContext,
                                                     const ze_device_mem_alloc_desc_t *ddesc,
                                                     const ze_host_mem_alloc_desc_t *hdesc,
                                                     size_t size, size_t alignment,
                                                     ze_device_handle_t hDevice, void **pptr)
{
    if (!ddesc || !hdesc)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return do_alloc(hContext, size, alignment, ZE_MEMORY_TYPE_SHARED, hDevice, pptr);
}

static ze_result_t ZE_APICALL gtsim_zeMemAllocHost(ze_context_handle_t hContext,
                                                   const ze_host_mem_alloc_desc_t *hdesc,
                                                   size_t size, size_t alignment, void **pptr)
{
    if (!hdesc)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return do_alloc(hContext, size, alignment, ZE_MEMORY_TYPE_HOST, NULL, pptr);
}

static ze_result_t ZE_APICALL gtsim_zeMemFree(ze_context_handle_t hContext, void *ptr)
{
    struct gtsim_context *c = (struct gtsim_context *)hContext;
    struct gtsim_driver *drv;
    void *mem;

    if (!c || c->magic != GTSIM_MAGIC_CONTEXT)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!ptr)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    drv = c->driver;
    mem = gtsim_mem_remove(drv, (uint64_t)(uintptr_t)ptr);
    if (!mem)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    free(mem);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeMemGetAllocProperties(ze_context_handle_t hContext,
                                                            const void *ptr,
                                                            ze_memory_allocation_properties_t *p,
                                                            ze_device_handle_t *phDevice)
{
    struct gtsim_context *c = (struct gtsim_context *)hContext;
    const struct gtsim_alloc *a;
    if (!c || c->magic != GTSIM_MAGIC_CONTEXT)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!ptr || !p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&c->driver->mem_lock);
    a = gtsim_mem_find_locked(c->driver, (uint64_t)(uintptr_t)ptr);
    p->type = a ? a->type : ZE_MEMORY_TYPE_UNKNOWN;
    p->id = a ? a->base : 0;
    p->pageSize = a ? 4096 : 0;
    if (phDevice)
        *phDevice = a ? (ze_device_handle_t)a->device : NULL;
    pthread_mutex_unlock(&c->driver->mem_lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeMemGetAddressRange(ze_context_handle_t hContext,
                                                         const void *ptr, void **pBase,
                                                         size_t *pSize)
{
    struct gtsim_context *c = (struct gtsim_context *)hContext;
    const struct gtsim_alloc *a;
    if (!c || c->magic != GTSIM_MAGIC_CONTEXT)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!ptr)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&c->driver->mem_lock);
    a = gtsim_mem_find_locked(c->driver, (uint64_t)(uintptr_t)ptr);
    if (a) {
        if (pBase)
            *pBase = a->mem;
        if (pSize)
            *pSize = a->size;
    }
    pthread_mutex_unlock(&c->driver->mem_lock);
    return a ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

void gtsim_fill_mem(ze_mem_dditable_t *t)
{
    t->pfnAllocShared = gtsim_zeMemAllocShared;
    t->pfnAllocDevice = gtsim_zeMemAllocDevice;
    t->pfnAllocHost = gtsim_zeMemAllocHost;
    t->pfnFree = gtsim_zeMemFree;
    t->pfnGetAllocProperties = gtsim_zeMemGetAllocProperties;
    t->pfnGetAddressRange = gtsim_zeMemGetAddressRange;
}
