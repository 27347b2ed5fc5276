/* SPDX-License-Identifier: MIT */
/* The scripted driver (zd_fake_driver.h). */
#include "tests/zetdebug/zd_fake_driver.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

struct fake_driver F = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

ze_result_t ZE_APICALL zeInit(ze_init_flags_t flags)
{
    (void)flags;
    return F.init_r;
}

ze_result_t ZE_APICALL zeDriverGet(uint32_t *count, ze_driver_handle_t *drivers)
{
    if (!drivers) {
        *count = F.ndrivers;
        return F.drv_r1;
    }
    for (uint32_t i = 0; i < *count; i++)
        drivers[i] = (ze_driver_handle_t)(uintptr_t)(i + 1);
    return F.drv_r2;
}

ze_result_t ZE_APICALL zeDeviceGet(ze_driver_handle_t drv, uint32_t *count,
                                   ze_device_handle_t *devs)
{
    bool empty = F.empty_first && (uintptr_t)drv == 1;
    F.devget_calls++;
    if (!devs) {
        *count = empty ? 0 : F.ndev;
        return (uintptr_t)drv == 2 ? F.devget_r : ZE_RESULT_SUCCESS;
    }
    for (uint32_t i = 0; i < *count; i++)
        devs[i] = (ze_device_handle_t)&F.devs[i];
    return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeDeviceGetProperties(ze_device_handle_t h, ze_device_properties_t *p)
{
    struct fdev *d = (struct fdev *)h;
    if (d->props_r != ZE_RESULT_SUCCESS)
        return d->props_r;
    p->type = d->type;
    p->vendorId = d->vendor;
    p->deviceId = 0x1234;
    p->flags = d->is_sub ? ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE : 0;
    p->subdeviceId = d->is_sub ? (uint32_t)(d - d[0].subs) : 0;
    snprintf(p->name, sizeof(p->name), "fake");
    p->numSlices = p->numSubslicesPerSlice = p->numEUsPerSubslice = p->numThreadsPerEU = 2;
    return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeDevicePciGetPropertiesExt(ze_device_handle_t h, ze_pci_ext_properties_t *p)
{
    struct fdev *d = (struct fdev *)h;
    p->address.domain = 0;
    p->address.bus = d->is_sub ? 0x4b : 0x3a; /* a tile's own answer differs */
    p->address.device = 1;
    p->address.function = 2;
    return d->pci_r;
}

ze_result_t ZE_APICALL zeDeviceGetSubDevices(ze_device_handle_t h, uint32_t *count,
                                             ze_device_handle_t *subs)
{
    struct fdev *d = (struct fdev *)h;
    if (!subs) {
        *count = d->nsub;
        return ZE_RESULT_SUCCESS;
    }
    for (uint32_t i = 0; i < *count; i++)
        subs[i] = (ze_device_handle_t)&d->subs[i];
    return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zetDeviceGetDebugProperties(zet_device_handle_t h,
                                                   zet_device_debug_properties_t *p)
{
    struct fdev *d = (struct fdev *)h;
    p->flags = d->attach_flag ? ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH : 0;
    return d->dbg_r;
}

ze_result_t ZE_APICALL zetDebugGetRegisterSetProperties(zet_device_handle_t h, uint32_t *count,
                                                        zet_debug_regset_properties_t *p)
{
    static const uint32_t five[] = {1, 4, 5, 6, 11};
    struct fdev *d = (struct fdev *)h;
    if (!p) {
        *count = d->regsets ? 70 : 5;
        return d->regs_r1;
    }
    for (uint32_t i = 0; i < *count; i++) {
        p[i].type = d->regsets ? (i == 0 ? 1 : i == 1 ? 4 : i == 2 ? 11 : 99) : five[i];
        p[i].version = d->regsets && i == 2 ? 1 : 0;
        p[i].count = 8;
        p[i].generalFlags = d->regsets && i == 1 ? 0 : ZET_DEBUG_REGSET_FLAG_READABLE;
    }
    return d->regs_r2;
}

/* API 1.5's per-thread query, absent from Debian's 1.4 headers. Linked
 * with --export-dynamic so zetdebug's dlsym finds it, as it finds the
 * 1.32 loader's. A thread on an odd EU runs in large-GRF mode (256 GRF
 * registers, 128 otherwise); thread_r stands for a driver whose Debug
 * table lacks the slot (the loader then answers UNINITIALIZED). */
ze_result_t thread_r;
unsigned thread_calls;
ze_result_t ZE_APICALL zetDebugGetThreadRegisterSetProperties(zet_debug_session_handle_t s,
                                                              ze_device_thread_t t, uint32_t *count,
                                                              zet_debug_regset_properties_t *p);
ze_result_t ZE_APICALL zetDebugGetThreadRegisterSetProperties(zet_debug_session_handle_t s,
                                                              ze_device_thread_t t, uint32_t *count,
                                                              zet_debug_regset_properties_t *p)
{
    static const uint32_t five[] = {1, 4, 5, 6, 11};
    (void)s;
    thread_calls++;
    if (thread_r != ZE_RESULT_SUCCESS)
        return thread_r;
    if (!p) {
        *count = 5;
        return ZE_RESULT_SUCCESS;
    }
    for (uint32_t i = 0; i < *count && i < 5; i++) {
        p[i].type = five[i];
        p[i].version = 0;
        p[i].count = i == 0 ? (t.eu % 2 ? 256 : 128) : 8;
        p[i].generalFlags = ZET_DEBUG_REGSET_FLAG_READABLE;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zetDebugAttach(zet_device_handle_t h, const zet_debug_config_t *c,
                                      zet_debug_session_handle_t *s)
{
    (void)h;
    (void)c;
    *s = (zet_debug_session_handle_t)(uintptr_t)0x5e5;
    return F.attach_r;
}

ze_result_t ZE_APICALL zetDebugDetach(zet_debug_session_handle_t s)
{
    ze_result_t r;
    (void)s;
    pthread_mutex_lock(&F.lock);
    F.detaches++;
    r = F.reading ? ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE : F.detach_r; /* never during a read */
    pthread_mutex_unlock(&F.lock);
    return r;
}

ze_result_t ZE_APICALL zetDebugReadEvent(zet_debug_session_handle_t s, uint64_t timeout,
                                         zet_debug_event_t *ev)
{
    ze_result_t r = ZE_RESULT_NOT_READY;
    (void)s;
    pthread_mutex_lock(&F.lock);
    if (F.gated) {
        F.reading = true;
        pthread_cond_broadcast(&F.cond);
        while (F.gated)
            pthread_cond_wait(&F.cond, &F.lock);
        F.reading = false;
    }
    if (F.next < F.nscript) {
        r = F.script[F.next].r;
        memset(ev, 0, sizeof(*ev));
        ev->type = F.script[F.next].type;
        ev->flags = F.script[F.next].need_ack ? ZET_DEBUG_EVENT_FLAG_NEED_ACK : 0;
        if (ev->type == ZET_DEBUG_EVENT_TYPE_DETACHED)
            ev->info.detached.reason = ZET_DEBUG_DETACH_REASON_HOST_EXIT;
        F.next++;
    }
    pthread_mutex_unlock(&F.lock);
    if (r == ZE_RESULT_NOT_READY) {
        struct timespec ts = {0, (long)(timeout < 20 ? timeout : 20) * 1000000L};
        nanosleep(&ts, NULL);
    }
    return r;
}

ze_result_t ZE_APICALL zetDebugAcknowledgeEvent(zet_debug_session_handle_t s,
                                                const zet_debug_event_t *ev)
{
    (void)s;
    (void)ev;
    pthread_mutex_lock(&F.lock);
    F.acks++;
    pthread_mutex_unlock(&F.lock);
    return F.ack_r;
}

ze_result_t ZE_APICALL zetDebugInterrupt(zet_debug_session_handle_t s, ze_device_thread_t t)
{
    (void)s;
    (void)t;
    return F.run_r;
}

ze_result_t ZE_APICALL zetDebugResume(zet_debug_session_handle_t s, ze_device_thread_t t)
{
    (void)s;
    (void)t;
    return F.run_r;
}

ze_result_t ZE_APICALL zetDebugReadMemory(zet_debug_session_handle_t s, ze_device_thread_t t,
                                          const zet_debug_memory_space_desc_t *d, size_t n,
                                          void *buf)
{
    (void)s, (void)t, (void)d, (void)n, (void)buf;
    return F.mem_r;
}

ze_result_t ZE_APICALL zetDebugWriteMemory(zet_debug_session_handle_t s, ze_device_thread_t t,
                                           const zet_debug_memory_space_desc_t *d, size_t n,
                                           const void *buf)
{
    (void)s, (void)t, (void)d, (void)n, (void)buf;
    return F.mem_r;
}

ze_result_t ZE_APICALL zetDebugReadRegisters(zet_debug_session_handle_t s, ze_device_thread_t t,
                                             uint32_t type, uint32_t start, uint32_t count,
                                             void *buf)
{
    (void)s, (void)t, (void)type, (void)start, (void)count, (void)buf;
    return F.reg_r;
}

ze_result_t ZE_APICALL zetDebugWriteRegisters(zet_debug_session_handle_t s, ze_device_thread_t t,
                                              uint32_t type, uint32_t start, uint32_t count,
                                              void *buf)
{
    (void)s, (void)t, (void)type, (void)start, (void)count, (void)buf;
    return F.reg_r;
}

struct fdev fake_gpu(void)
{
    return (struct fdev){.type = ZE_DEVICE_TYPE_GPU, .vendor = 0x8086, .attach_flag = true};
}

void fake_script(unsigned i, ze_result_t r, zet_debug_event_type_t type, bool ack)
{
    F.script[i].r = r;
    F.script[i].type = type;
    F.script[i].need_ack = ack;
    F.nscript = i + 1;
}

bool fake_gate_reached(void)
{
    struct timespec until;
    bool reading;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&F.lock);
    while (!F.reading && pthread_cond_timedwait(&F.cond, &F.lock, &until) == 0) {
    }
    reading = F.reading;
    pthread_mutex_unlock(&F.lock);
    return reading;
}

/* Opens the gate shut for the n-th time after 5 s if it still is: a
 * zetdebug that joined a reader held at it would otherwise hang the test
 * instead of failing it. */
static void *gate_watchdog(void *arg)
{
    const struct timespec wait = {5, 0};
    nanosleep(&wait, NULL);
    pthread_mutex_lock(&F.lock);
    if (F.gated && F.gate_shut == (unsigned)(uintptr_t)arg) {
        F.gated = false;
        pthread_cond_broadcast(&F.cond);
    }
    pthread_mutex_unlock(&F.lock);
    return NULL;
}

void fake_gate(bool shut)
{
    pthread_t dog;
    pthread_mutex_lock(&F.lock);
    F.gated = shut;
    F.gate_shut += shut;
    pthread_cond_broadcast(&F.cond);
    if (shut && pthread_create(&dog, NULL, gate_watchdog, (void *)(uintptr_t)F.gate_shut) == 0)
        pthread_detach(dog);
    pthread_mutex_unlock(&F.lock);
}

unsigned fake_detaches(void)
{
    unsigned n;
    pthread_mutex_lock(&F.lock);
    n = F.detaches;
    pthread_mutex_unlock(&F.lock);
    return n;
}
