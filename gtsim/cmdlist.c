/* SPDX-License-Identifier: MIT */
/* Command lists record commands; immediate lists submit each one to their
 * own queue as it is appended. */
#include <stdlib.h>
#include <string.h>

#include "gtsim/dbg_server.h"
#include "gtsim/device_build.h"
#include "gtsim/gtsim.h"

static struct gtsim_list *as_list(ze_command_list_handle_t h)
{
    struct gtsim_list *l = (struct gtsim_list *)h;
    return l && l->magic == GTSIM_MAGIC_LIST ? l : NULL;
}

static void free_cmd(struct gtsim_cmd *c)
{
    free(c->wait);
    free(c->launch);
}

static ze_result_t new_list(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                            struct gtsim_list **out)
{
    struct gtsim_context *c = (struct gtsim_context *)hContext;
    struct gtsim_device *d = gtsim_as_device(hDevice);
    struct gtsim_list *l;
    if (!c || c->magic != GTSIM_MAGIC_CONTEXT || !d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    l = calloc(1, sizeof(*l));
    if (!l)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    l->magic = GTSIM_MAGIC_LIST;
    l->device = d;
    *out = l;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeCommandListCreate(ze_context_handle_t hContext,
                                                        ze_device_handle_t hDevice,
                                                        const ze_command_list_desc_t *desc,
                                                        ze_command_list_handle_t *phList)
{
    struct gtsim_list *l;
    ze_result_t r;
    if (!desc || !phList)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    r = new_list(hContext, hDevice, &l);
    if (r == ZE_RESULT_SUCCESS)
        *phList = (ze_command_list_handle_t)l;
    return r;
}

static ze_result_t ZE_APICALL gtsim_zeCommandListCreateImmediate(
    ze_context_handle_t hContext, ze_device_handle_t hDevice, const ze_command_queue_desc_t *desc,
    ze_command_list_handle_t *phList)
{
    struct gtsim_list *l;
    ze_result_t r;
    if (!desc || !phList)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    r = new_list(hContext, hDevice, &l);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    l->immediate = true;
    l->closed = true;
    l->synchronous = desc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    l->queue = calloc(1, sizeof(*l->queue));
    if (!l->queue) {
        free(l);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    l->queue->magic = GTSIM_MAGIC_QUEUE;
    l->queue->device = l->device;
    if (gtsim_queue_start(l->queue) != 0) {
        free(l->queue);
        free(l);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    gtsim_dbg_queue_created(l->device);
    *phList = (ze_command_list_handle_t)l;
    return ZE_RESULT_SUCCESS;
}

/* Immediate lists keep one command per submission; wait for the queue
 * before reusing the array, so the executing command is never freed. */
static void drain_immediate(struct gtsim_list *l)
{
    gtsim_queue_wait(l->queue, l->queue->submitted, UINT64_MAX);
    for (uint32_t i = 0; i < l->ncmds; i++)
        free_cmd(&l->cmds[i]);
    l->ncmds = 0;
}

static ze_result_t ZE_APICALL gtsim_zeCommandListDestroy(ze_command_list_handle_t hList)
{
    struct gtsim_list *l = as_list(hList);
    if (!l)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (l->immediate) {
        drain_immediate(l);
        gtsim_queue_stop(l->queue);
        gtsim_dbg_queue_destroyed(l->device);
        free(l->queue);
    }
    for (uint32_t i = 0; i < l->ncmds; i++)
        free_cmd(&l->cmds[i]);
    free(l->cmds);
    l->magic = 0;
    free(l);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeCommandListClose(ze_command_list_handle_t hList)
{
    struct gtsim_list *l = as_list(hList);
    if (!l)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    l->closed = true;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeCommandListReset(ze_command_list_handle_t hList)
{
    struct gtsim_list *l = as_list(hList);
    if (!l)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (l->immediate) {
        drain_immediate(l);
        return ZE_RESULT_SUCCESS;
    }
    for (uint32_t i = 0; i < l->ncmds; i++)
        free_cmd(&l->cmds[i]);
    l->ncmds = 0;
    l->closed = false;
    return ZE_RESULT_SUCCESS;
}

/* Appends a command (taking ownership of c's allocations) and, for an
 * immediate list, submits it. */
static ze_result_t append(struct gtsim_list *l, struct gtsim_cmd *c, ze_event_handle_t hSignal,
                          uint32_t nwait, ze_event_handle_t *phWait)
{
    struct gtsim_list *self = l;
    if (!l->immediate && l->closed) {
        free_cmd(c);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    if (nwait && !phWait) {
        free_cmd(c);
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    c->signal = (struct gtsim_event *)hSignal;
    if (c->signal && (c->signal->magic != GTSIM_MAGIC_EVENT || !c->signal->created)) {
        free_cmd(c);
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (nwait) {
        c->wait = calloc(nwait, sizeof(*c->wait));
        if (!c->wait) {
            free_cmd(c);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        for (uint32_t i = 0; i < nwait; i++) {
            struct gtsim_event *e = (struct gtsim_event *)phWait[i];
            if (!e || e->magic != GTSIM_MAGIC_EVENT || !e->created) {
                free_cmd(c);
                return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
            }
            c->wait[i] = e;
        }
        c->nwait = nwait;
    }
    if (l->immediate)
        drain_immediate(l);
    if (l->ncmds == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 16;
        struct gtsim_cmd *n = realloc(l->cmds, cap * sizeof(*n));
        if (!n) {
            free_cmd(c);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        l->cmds = n;
        l->cap = cap;
    }
    l->cmds[l->ncmds++] = *c;
    if (l->immediate) {
        uint64_t seq;
        ze_result_t r = gtsim_queue_submit(l->queue, &self, 1, NULL, &seq);
        if (r == ZE_RESULT_SUCCESS && l->synchronous)
            r = gtsim_queue_wait(l->queue, seq, UINT64_MAX);
        return r;
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeCommandListAppendLaunchKernel(
    ze_command_list_handle_t hList, ze_kernel_handle_t hKernel, const ze_group_count_t *groups,
    ze_event_handle_t hSignal, uint32_t nwait, ze_event_handle_t *phWait)
{
    struct gtsim_list *l = as_list(hList);
    struct gtsim_kernel *k = (struct gtsim_kernel *)hKernel;
    struct gtsim_cmd c = {.type = GTSIM_CMD_LAUNCH};
    ze_result_t r;
    if (!l || !k || k->magic != GTSIM_MAGIC_KERNEL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!groups)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!groups->groupCountX || !groups->groupCountY || !groups->groupCountZ)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    c.launch = calloc(1, sizeof(*c.launch));
    if (!c.launch)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c.launch->group_count[0] = groups->groupCountX;
    c.launch->group_count[1] = groups->groupCountY;
    c.launch->group_count[2] = groups->groupCountZ;
    r = gtsim_kernel_snapshot(k, c.launch); /* after the group counts: the payload has them */
    if (r != ZE_RESULT_SUCCESS) {
        free_cmd(&c);
        return r;
    }
    return append(l, &c, hSignal, nwait, phWait);
}

/* The group counts come from device-visible memory. On hardware the
 * command streamer reads them when the launch executes; gtsim reads them
 * when the launch is appended, so counts written by an earlier command of
 * the same list are not seen (README.md, "What is implemented"). */
static ze_result_t ZE_APICALL gtsim_zeCommandListAppendLaunchKernelIndirect(
    ze_command_list_handle_t hList, ze_kernel_handle_t hKernel, const ze_group_count_t *args,
    ze_event_handle_t hSignal, uint32_t nwait, ze_event_handle_t *phWait)
{
    struct gtsim_list *l = as_list(hList);
    ze_group_count_t groups;
    if (!l)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!args)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!gtsim_mem_is_valid(l->device->driver, (uint64_t)(uintptr_t)args, sizeof(*args)))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    groups = *args;
    return gtsim_zeCommandListAppendLaunchKernel(hList, hKernel, &groups, hSignal, nwait, phWait);
}

static ze_result_t ZE_APICALL gtsim_zeCommandListAppendMemoryCopy(
    ze_command_list_handle_t hList, void *dst, const void *src, size_t size,
    ze_event_handle_t hSignal, uint32_t nwait, ze_event_handle_t *phWait)
{
    struct gtsim_list *l = as_list(hList);
    struct gtsim_cmd c = {.type = GTSIM_CMD_COPY, .dst = dst, .src = src, .size = size};
    if (!l)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!dst || !src)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return append(l, &c, hSignal, nwait, phWait);
}

static ze_result_t ZE_APICALL gtsim_zeCommandListAppendMemoryFill(
    ze_command_list_handle_t hList, void *ptr, const void *pattern, size_t pattern_size,
    size_t size, ze_event_handle_t hSignal, uint32_t nwait, ze_event_handle_t *phWait)
{
    struct gtsim_list *l = as_list(hList);
    struct gtsim_cmd c = {.type = GTSIM_CMD_FILL, .dst = ptr, .size = size};
    if (!l)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!ptr || !pattern)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (pattern_size == 0 || pattern_size > sizeof(c.pattern) ||
        (pattern_size & (pattern_size - 1)))
        return ZE_RESULT_ERROR_INVALID_SIZE;
    memcpy(c.pattern, pattern, pattern_size);
    c.pattern_size = pattern_size;
    return append(l, &c, hSignal, nwait, phWait);
}

static ze_result_t ZE_APICALL gtsim_zeCommandListAppendBarrier(ze_command_list_handle_t hList,
                                                               ze_event_handle_t hSignal,
                                                               uint32_t nwait,
                                                               ze_event_handle_t *phWait)
{
    struct gtsim_list *l = as_list(hList);
    struct gtsim_cmd c = {.type = GTSIM_CMD_BARRIER};
    if (!l)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Commands of one queue run in order, so a barrier only has to wait. */
    return append(l, &c, hSignal, nwait, phWait);
}

static ze_result_t ZE_APICALL gtsim_zeCommandListAppendMemoryRangesBarrier(
    ze_command_list_handle_t hList, uint32_t numRanges, const size_t *pRangeSizes,
    const void **pRanges, ze_event_handle_t hSignal, uint32_t nwait, ze_event_handle_t *phWait)
{
    (void)numRanges;
    (void)pRangeSizes;
    (void)pRanges;
    return gtsim_zeCommandListAppendBarrier(hList, hSignal, nwait, phWait);
}

static ze_result_t ZE_APICALL gtsim_zeCommandListAppendSignalEvent(ze_command_list_handle_t hList,
                                                                   ze_event_handle_t hEvent)
{
    struct gtsim_list *l = as_list(hList);
    struct gtsim_cmd c = {.type = GTSIM_CMD_SIGNAL};
    if (!l || !hEvent)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return append(l, &c, hEvent, 0, NULL);
}

static ze_result_t ZE_APICALL gtsim_zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hList,
                                                                    uint32_t nwait,
                                                                    ze_event_handle_t *phWait)
{
    struct gtsim_list *l = as_list(hList);
    struct gtsim_cmd c = {.type = GTSIM_CMD_WAIT};
    if (!l)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return append(l, &c, NULL, nwait, phWait);
}

static ze_result_t ZE_APICALL gtsim_zeCommandListAppendEventReset(ze_command_list_handle_t hList,
                                                                  ze_event_handle_t hEvent)
{
    struct gtsim_list *l = as_list(hList);
    struct gtsim_cmd c = {.type = GTSIM_CMD_RESET};
    if (!l || !hEvent)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return append(l, &c, hEvent, 0, NULL);
}

void gtsim_fill_command_list(ze_command_list_dditable_t *t)
{
    t->pfnCreate = gtsim_zeCommandListCreate;
    t->pfnCreateImmediate = gtsim_zeCommandListCreateImmediate;
    t->pfnDestroy = gtsim_zeCommandListDestroy;
    t->pfnClose = gtsim_zeCommandListClose;
    t->pfnReset = gtsim_zeCommandListReset;
    t->pfnAppendBarrier = gtsim_zeCommandListAppendBarrier;
    t->pfnAppendMemoryRangesBarrier = gtsim_zeCommandListAppendMemoryRangesBarrier;
    t->pfnAppendMemoryCopy = gtsim_zeCommandListAppendMemoryCopy;
    t->pfnAppendMemoryFill = gtsim_zeCommandListAppendMemoryFill;
    t->pfnAppendSignalEvent = gtsim_zeCommandListAppendSignalEvent;
    t->pfnAppendWaitOnEvents = gtsim_zeCommandListAppendWaitOnEvents;
    t->pfnAppendEventReset = gtsim_zeCommandListAppendEventReset;
    t->pfnAppendLaunchKernel = gtsim_zeCommandListAppendLaunchKernel;
    t->pfnAppendLaunchKernelIndirect = gtsim_zeCommandListAppendLaunchKernelIndirect;
}
