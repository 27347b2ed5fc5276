/* SPDX-License-Identifier: MIT */
/* Command queues: each queue has one submission thread that executes its
 * batches in order, as an in-order hardware queue would. Launches block that
 * thread (not the application) until every work-group has run. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/dbg_server.h"
#include "gtsim/device_build.h"
#include "gtsim/faults.h"
#include "gtsim/gtsim.h"
#include "gtsim/printf_buffer.h"

static struct gtsim_device *root_of(struct gtsim_device *d)
{
    return d->root ? d->root : d;
}

static bool events_ready(struct gtsim_cmd *c)
{
    for (uint32_t i = 0; i < c->nwait; i++)
        if (!c->wait[i]->signaled)
            return false;
    return true;
}

static void report_fault(struct gtsim_device *dev, const struct gtsim_hw_launch *l)
{
    uint32_t s, ss, eu, th;
    gtsim_hw_thread_coords(dev->hw, l->fault_thread, &s, &ss, &eu, &th);
    fprintf(stderr,
            "gtsim: %s at 0x%" PRIx64 " in kernel '%s' (thread %u.%u.%u.%u), no debugger "
            "attached: device %u is lost\n",
            l->fault_illegal ? "illegal instruction" : "page fault", l->fault_address,
            l->kernel.name, s, ss, eu, th, dev->ordinal);
}

static void execute(struct gtsim_queue *q, struct gtsim_cmd *c)
{
    struct gtsim_device *dev = q->device;
    struct gtsim_driver *drv = dev->driver;

    pthread_mutex_lock(&drv->sync_lock);
    while (!events_ready(c) && !q->stopping)
        gtsim_wait_until(drv, NULL);
    pthread_mutex_unlock(&drv->sync_lock);
    if (q->stopping)
        return;

    if (!root_of(dev)->lost) {
        switch (c->type) {
        case GTSIM_CMD_LAUNCH:
            if (gtsim_faults_launch_loses()) {
                fprintf(stderr, "gtsim: GTSIM_FAULTS: device %u lost at the launch of '%s'\n",
                        root_of(dev)->ordinal, c->launch->kernel.name);
                root_of(dev)->lost = true;
                gtsim_dbg_device_lost(root_of(dev));
                break;
            }
            c->launch->slice_first = dev->slice_first;
            c->launch->slice_count = dev->slice_count;
            if (gtsim_hw_run(dev->hw, c->launch) == -EFAULT) {
                report_fault(dev, c->launch);
                root_of(dev)->lost = true;
            }
            gtsim_printf_after_launch(c->launch->printf_buffer, c->launch->kernel.name);
            break;
        case GTSIM_CMD_COPY:
            memmove(c->dst, c->src, c->size);
            break;
        case GTSIM_CMD_FILL:
            for (size_t off = 0; off < c->size; off += c->pattern_size) {
                size_t n = c->size - off < c->pattern_size ? c->size - off : c->pattern_size;
                memcpy((uint8_t *)c->dst + off, c->pattern, n);
            }
            break;
        case GTSIM_CMD_RESET:
            pthread_mutex_lock(&drv->sync_lock);
            c->signal->signaled = false;
            pthread_cond_broadcast(&drv->sync_cv);
            pthread_mutex_unlock(&drv->sync_lock);
            return;
        case GTSIM_CMD_BARRIER:
        case GTSIM_CMD_SIGNAL:
        case GTSIM_CMD_WAIT:
            break;
        }
    }
    /* Events are signalled even on a lost device so host waits finish;
     * the synchronize calls report the loss. */
    if (c->signal)
        gtsim_event_signal(c->signal);
}

static void *queue_main(void *arg)
{
    struct gtsim_queue *q = arg;
    struct gtsim_driver *drv = q->device->driver;

    pthread_mutex_lock(&drv->sync_lock);
    for (;;) {
        while (!q->head && !q->stopping)
            gtsim_wait_until(drv, NULL);
        if (!q->head)
            break;
        struct gtsim_batch *b = q->head;
        pthread_mutex_unlock(&drv->sync_lock);
        for (uint32_t i = 0; i < b->nlists; i++)
            for (uint32_t k = 0; k < b->lists[i]->ncmds; k++)
                execute(q, &b->lists[i]->cmds[k]);
        pthread_mutex_lock(&drv->sync_lock);
        q->head = b->next;
        if (!q->head)
            q->tail = NULL;
        q->completed = b->seq;
        if (b->fence)
            b->fence->signaled = true;
        pthread_cond_broadcast(&drv->sync_cv);
        free(b->lists);
        free(b);
    }
    pthread_mutex_unlock(&drv->sync_lock);
    return NULL;
}

int gtsim_queue_start(struct gtsim_queue *q)
{
    if (pthread_create(&q->thread, NULL, queue_main, q) != 0)
        return -EAGAIN;
    q->started = true;
    return 0;
}

void gtsim_queue_stop(struct gtsim_queue *q)
{
    struct gtsim_driver *drv = q->device->driver;
    if (!q->started)
        return;
    pthread_mutex_lock(&drv->sync_lock);
    q->stopping = true;
    pthread_cond_broadcast(&drv->sync_cv);
    pthread_mutex_unlock(&drv->sync_lock);
    pthread_join(q->thread, NULL);
    q->started = false;
}

ze_result_t gtsim_queue_submit(struct gtsim_queue *q, struct gtsim_list **lists, uint32_t n,
                               struct gtsim_fence *fence, uint64_t *seq)
{
    struct gtsim_driver *drv = q->device->driver;
    struct gtsim_batch *b = calloc(1, sizeof(*b));
    if (!b || !(b->lists = malloc(n * sizeof(*lists)))) {
        free(b);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(b->lists, lists, n * sizeof(*lists));
    b->nlists = n;
    b->fence = fence;
    pthread_mutex_lock(&drv->sync_lock);
    if (fence)
        fence->signaled = false;
    b->seq = ++q->submitted;
    if (q->tail)
        q->tail->next = b;
    else
        q->head = b;
    q->tail = b;
    pthread_cond_broadcast(&drv->sync_cv);
    pthread_mutex_unlock(&drv->sync_lock);
    if (seq)
        *seq = b->seq;
    return ZE_RESULT_SUCCESS;
}

ze_result_t gtsim_queue_wait(struct gtsim_queue *q, uint64_t seq, uint64_t timeout_ns)
{
    struct gtsim_driver *drv = q->device->driver;
    struct timespec dl;
    bool forever;
    ze_result_t r = ZE_RESULT_SUCCESS;

    gtsim_deadline(timeout_ns, &dl, &forever);
    pthread_mutex_lock(&drv->sync_lock);
    while (q->completed < seq) {
        if (timeout_ns == 0 || gtsim_wait_until(drv, forever ? NULL : &dl) == -ETIMEDOUT) {
            if (q->completed < seq)
                r = ZE_RESULT_NOT_READY;
            break;
        }
    }
    pthread_mutex_unlock(&drv->sync_lock);
    if (r == ZE_RESULT_SUCCESS && root_of(q->device)->lost)
        r = ZE_RESULT_ERROR_DEVICE_LOST;
    return r;
}

static struct gtsim_queue *as_queue(ze_command_queue_handle_t h)
{
    struct gtsim_queue *q = (struct gtsim_queue *)h;
    return q && q->magic == GTSIM_MAGIC_QUEUE ? q : NULL;
}

static ze_result_t ZE_APICALL gtsim_zeCommandQueueCreate(ze_context_handle_t hContext,
                                                         ze_device_handle_t hDevice,
                                                         const ze_command_queue_desc_t *desc,
                                                         ze_command_queue_handle_t *phQueue)
{
    struct gtsim_context *c = (struct gtsim_context *)hContext;
    struct gtsim_device *d = gtsim_as_device(hDevice);
    struct gtsim_queue *q;
    if (!c || c->magic != GTSIM_MAGIC_CONTEXT || !d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phQueue)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->ordinal != 0 || desc->index != 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    q = calloc(1, sizeof(*q));
    if (!q)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    q->magic = GTSIM_MAGIC_QUEUE;
    q->device = d;
    if (gtsim_queue_start(q) != 0) {
        free(q);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    gtsim_dbg_queue_created(d);
    *phQueue = (ze_command_queue_handle_t)q;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeCommandQueueDestroy(ze_command_queue_handle_t hQueue)
{
    struct gtsim_queue *q = as_queue(hQueue);
    if (!q)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Work already submitted finishes first, as on a real queue. */
    gtsim_queue_wait(q, q->submitted, UINT64_MAX);
    gtsim_queue_stop(q);
    gtsim_dbg_queue_destroyed(q->device);
    q->magic = 0;
    free(q);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL
gtsim_zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t hQueue, uint32_t n,
                                        ze_command_list_handle_t *phLists, ze_fence_handle_t hFence)
{
    struct gtsim_queue *q = as_queue(hQueue);
    struct gtsim_fence *f = (struct gtsim_fence *)hFence;
    if (!q)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!phLists)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (n == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    if (f && f->magic != GTSIM_MAGIC_FENCE)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    for (uint32_t i = 0; i < n; i++) {
        struct gtsim_list *l = (struct gtsim_list *)phLists[i];
        if (!l || l->magic != GTSIM_MAGIC_LIST)
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (!l->closed || l->immediate)
            return ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE;
    }
    return gtsim_queue_submit(q, (struct gtsim_list **)phLists, n, f, NULL);
}

static ze_result_t ZE_APICALL gtsim_zeCommandQueueSynchronize(ze_command_queue_handle_t hQueue,
                                                              uint64_t timeout)
{
    struct gtsim_queue *q = as_queue(hQueue);
    uint64_t seq;
    if (!q)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&q->device->driver->sync_lock);
    seq = q->submitted;
    pthread_mutex_unlock(&q->device->driver->sync_lock);
    return gtsim_queue_wait(q, seq, timeout);
}

void gtsim_fill_command_queue(ze_command_queue_dditable_t *t)
{
    t->pfnCreate = gtsim_zeCommandQueueCreate;
    t->pfnDestroy = gtsim_zeCommandQueueDestroy;
    t->pfnExecuteCommandLists = gtsim_zeCommandQueueExecuteCommandLists;
    t->pfnSynchronize = gtsim_zeCommandQueueSynchronize;
}
