/* SPDX-License-Identifier: MIT */
/* Event pools, events and fences: host-visible completion flags. One
 * driver-wide lock and condition variable serve them all, which is plenty
 * for a simulator and rules out lost wake-ups between objects. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "gtsim/gtsim.h"

void gtsim_deadline(uint64_t timeout_ns, struct timespec *deadline, bool *forever)
{
    *forever = timeout_ns == UINT64_MAX;
    clock_gettime(CLOCK_MONOTONIC, deadline);
    if (*forever)
        return;
    uint64_t ns = (uint64_t)deadline->tv_nsec + timeout_ns % 1000000000u;
    deadline->tv_sec += (time_t)(timeout_ns / 1000000000u + ns / 1000000000u);
    deadline->tv_nsec = (long)(ns % 1000000000u);
}

/* Waits on the driver's sync condition (lock held); -ETIMEDOUT at deadline. */
int gtsim_wait_until(struct gtsim_driver *drv, const struct timespec *deadline)
{
    if (!deadline) {
        pthread_cond_wait(&drv->sync_cv, &drv->sync_lock);
        return 0;
    }
    return pthread_cond_timedwait(&drv->sync_cv, &drv->sync_lock, deadline) == ETIMEDOUT
               ? -ETIMEDOUT
               : 0;
}

void gtsim_event_signal(struct gtsim_event *ev)
{
    struct gtsim_driver *drv = ev->pool->driver;
    pthread_mutex_lock(&drv->sync_lock);
    ev->signaled = true;
    pthread_cond_broadcast(&drv->sync_cv);
    pthread_mutex_unlock(&drv->sync_lock);
}

static struct gtsim_event *as_event(ze_event_handle_t h)
{
    struct gtsim_event *e = (struct gtsim_event *)h;
    return e && e->magic == GTSIM_MAGIC_EVENT && e->created ? e : NULL;
}

static ze_result_t ZE_APICALL gtsim_zeEventPoolCreate(ze_context_handle_t hContext,
                                                      const ze_event_pool_desc_t *desc,
                                                      uint32_t numDevices,
                                                      ze_device_handle_t *phDevices,
                                                      ze_event_pool_handle_t *phPool)
{
    struct gtsim_context *c = (struct gtsim_context *)hContext;
    struct gtsim_pool *p;
    (void)numDevices;
    (void)phDevices;
    if (!c || c->magic != GTSIM_MAGIC_CONTEXT)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phPool)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->count == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    p = calloc(1, sizeof(*p));
    if (!p || !(p->events = calloc(desc->count, sizeof(*p->events)))) {
        free(p);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    p->magic = GTSIM_MAGIC_POOL;
    p->driver = c->driver;
    p->count = desc->count;
    for (uint32_t i = 0; i < p->count; i++) {
        p->events[i].magic = GTSIM_MAGIC_EVENT;
        p->events[i].pool = p;
    }
    *phPool = (ze_event_pool_handle_t)p;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeEventPoolDestroy(ze_event_pool_handle_t hPool)
{
    struct gtsim_pool *p = (struct gtsim_pool *)hPool;
    if (!p || p->magic != GTSIM_MAGIC_POOL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    p->magic = 0;
    free(p->events);
    free(p);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeEventCreate(ze_event_pool_handle_t hPool,
                                                  const ze_event_desc_t *desc,
                                                  ze_event_handle_t *phEvent)
{
    struct gtsim_pool *p = (struct gtsim_pool *)hPool;
    if (!p || p->magic != GTSIM_MAGIC_POOL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phEvent)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->index >= p->count)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&p->driver->sync_lock);
    p->events[desc->index].created = true;
    p->events[desc->index].signaled = false;
    pthread_mutex_unlock(&p->driver->sync_lock);
    *phEvent = (ze_event_handle_t)&p->events[desc->index];
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeEventDestroy(ze_event_handle_t hEvent)
{
    struct gtsim_event *e = as_event(hEvent);
    if (!e)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    e->created = false;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeEventHostSignal(ze_event_handle_t hEvent)
{
    struct gtsim_event *e = as_event(hEvent);
    if (!e)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    gtsim_event_signal(e);
    return ZE_RESULT_SUCCESS;
}

/* Waits until *flag is set (it is guarded by the driver's sync lock);
 * ZE_RESULT_NOT_READY when the timeout (ns; 0 = poll) passes first. */
static ze_result_t wait_flag(struct gtsim_driver *drv, const bool *flag, uint64_t timeout)
{
    struct timespec dl;
    bool forever;
    ze_result_t r = ZE_RESULT_SUCCESS;
    gtsim_deadline(timeout, &dl, &forever);
    pthread_mutex_lock(&drv->sync_lock);
    while (!*flag) {
        if (timeout == 0 || gtsim_wait_until(drv, forever ? NULL : &dl) == -ETIMEDOUT) {
            r = *flag ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
            break;
        }
    }
    pthread_mutex_unlock(&drv->sync_lock);
    return r;
}

static ze_result_t ZE_APICALL gtsim_zeEventHostSynchronize(ze_event_handle_t hEvent,
                                                           uint64_t timeout)
{
    struct gtsim_event *e = as_event(hEvent);
    if (!e)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return wait_flag(e->pool->driver, &e->signaled, timeout);
}

static ze_result_t ZE_APICALL gtsim_zeEventQueryStatus(ze_event_handle_t hEvent)
{
    return gtsim_zeEventHostSynchronize(hEvent, 0);
}

static ze_result_t ZE_APICALL gtsim_zeEventHostReset(ze_event_handle_t hEvent)
{
    struct gtsim_event *e = as_event(hEvent);
    if (!e)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&e->pool->driver->sync_lock);
    e->signaled = false;
    pthread_mutex_unlock(&e->pool->driver->sync_lock);
    return ZE_RESULT_SUCCESS;
}

static struct gtsim_fence *as_fence(ze_fence_handle_t h)
{
    struct gtsim_fence *f = (struct gtsim_fence *)h;
    return f && f->magic == GTSIM_MAGIC_FENCE ? f : NULL;
}

static ze_result_t ZE_APICALL gtsim_zeFenceCreate(ze_command_queue_handle_t hQueue,
                                                  const ze_fence_desc_t *desc,
                                                  ze_fence_handle_t *phFence)
{
    struct gtsim_queue *q = (struct gtsim_queue *)hQueue;
    struct gtsim_fence *f;
    if (!q || q->magic != GTSIM_MAGIC_QUEUE)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phFence)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    f = calloc(1, sizeof(*f));
    if (!f)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    f->magic = GTSIM_MAGIC_FENCE;
    f->queue = q;
    f->signaled = (desc->flags & ZE_FENCE_FLAG_SIGNALED) != 0;
    *phFence = (ze_fence_handle_t)f;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeFenceDestroy(ze_fence_handle_t hFence)
{
    struct gtsim_fence *f = as_fence(hFence);
    if (!f)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    f->magic = 0;
    free(f);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeFenceHostSynchronize(ze_fence_handle_t hFence,
                                                           uint64_t timeout)
{
    struct gtsim_fence *f = as_fence(hFence);
    struct gtsim_device *d;
    ze_result_t r;
    if (!f)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    d = f->queue->device;
    r = wait_flag(d->driver, &f->signaled, timeout);
    if (r == ZE_RESULT_SUCCESS && (d->root ? d->root : d)->lost)
        r = ZE_RESULT_ERROR_DEVICE_LOST;
    return r;
}

static ze_result_t ZE_APICALL gtsim_zeFenceQueryStatus(ze_fence_handle_t hFence)
{
    return gtsim_zeFenceHostSynchronize(hFence, 0);
}

static ze_result_t ZE_APICALL gtsim_zeFenceReset(ze_fence_handle_t hFence)
{
    struct gtsim_fence *f = as_fence(hFence);
    if (!f)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&f->queue->device->driver->sync_lock);
    f->signaled = false;
    pthread_mutex_unlock(&f->queue->device->driver->sync_lock);
    return ZE_RESULT_SUCCESS;
}

void gtsim_fill_event_pool(ze_event_pool_dditable_t *t)
{
    t->pfnCreate = gtsim_zeEventPoolCreate;
    t->pfnDestroy = gtsim_zeEventPoolDestroy;
}

void gtsim_fill_event(ze_event_dditable_t *t)
{
    t->pfnCreate = gtsim_zeEventCreate;
    t->pfnDestroy = gtsim_zeEventDestroy;
    t->pfnHostSignal = gtsim_zeEventHostSignal;
    t->pfnHostSynchronize = gtsim_zeEventHostSynchronize;
    t->pfnQueryStatus = gtsim_zeEventQueryStatus;
    t->pfnHostReset = gtsim_zeEventHostReset;
}

void gtsim_fill_fence(ze_fence_dditable_t *t)
{
    t->pfnCreate = gtsim_zeFenceCreate;
    t->pfnDestroy = gtsim_zeFenceDestroy;
    t->pfnHostSynchronize = gtsim_zeFenceHostSynchronize;
    t->pfnQueryStatus = gtsim_zeFenceQueryStatus;
    t->pfnReset = gtsim_zeFenceReset;
}
