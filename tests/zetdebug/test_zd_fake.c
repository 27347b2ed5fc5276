/* SPDX-License-Identifier: MIT */
/* zetdebug over a scripted driver: this program defines the Level Zero
 * functions zetdebug calls (it is linked without the loader), so each can
 * answer what a real driver may and gtsim never does: a device that is not
 * a GPU or not Intel's, debug properties or register sets that cannot be
 * read or miss a set, a failing PCI query, drivers without devices, more
 * drivers than zetdebug keeps, an event type newer than the API, event
 * reads that fail and recover or lose the device, and every result of the
 * run-control, memory and register calls. The expected sentences are
 * zetdebug/README.md's, written out here. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ze_api.h>
#include <zet_api.h>

#include "tests/lib/tap.h"
#include "zetdebug/zd.h"

/* ---- the scripted driver ---- */

struct fdev {
    ze_device_type_t type;
    uint32_t vendor;
    ze_result_t props_r, pci_r, dbg_r, regs_r1, regs_r2;
    bool attach_flag;
    int regsets; /* 0: the five sets; 1: GRF only, an unreadable CE, SBA v1, 70 sets */
    uint32_t nsub;
    struct fdev *subs;
    bool is_sub;
};

static struct {
    ze_result_t init_r, drv_r1, drv_r2, devget_r;
    uint32_t ndrivers;
    uint32_t ndev;     /* devices of every driver but the first when empty_first */
    bool empty_first;  /* the first driver has no devices */
    struct fdev *devs; /* the devices of each driver */
    unsigned devget_calls;
    /* sessions */
    ze_result_t attach_r, detach_r, ack_r, run_r, mem_r, reg_r;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* Reads wait at a shut gate whatever their timeout, so a test knows
     * the reader is inside zetDebugReadEvent (reading). */
    bool gated, reading;
    unsigned gate_shut; /* times the gate was shut, for gate_watchdog */
    unsigned detaches;  /* zetDebugDetach calls */
    struct {
        ze_result_t r;
        zet_debug_event_type_t type;
        bool need_ack;
    } script[16];
    unsigned nscript, next;
    unsigned acks;
} F = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

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
static ze_result_t thread_r;
static unsigned thread_calls;
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

/* ---- discovery ---- */

static struct fdev good(void)
{
    return (struct fdev){.type = ZE_DEVICE_TYPE_GPU, .vendor = 0x8086, .attach_flag = true};
}

static void test_no_devices(void)
{
    struct zd *zd = NULL;
    struct zd_error e = {0};
    int rc;

    unsetenv("ZE_ENABLE_ALT_DRIVERS");
    F.ndrivers = 0;
    rc = zd_open(&zd, &e);
    tap_ok(rc == ZD_E_NO_DRIVER && zd == NULL && e.raw == ZE_RESULT_ERROR_UNINITIALIZED &&
               strstr(e.msg, "no Level Zero GPU driver found (zeInit: 0x78000001)"),
           "zeInit works but no driver: %s", e.msg);
    F.ndrivers = 1;
    F.drv_r2 = ZE_RESULT_ERROR_UNKNOWN;
    rc = zd_open(&zd, &e);
    tap_ok(rc == ZD_E_NO_DRIVER && e.raw == ZE_RESULT_ERROR_UNKNOWN,
           "listing the drivers fails: %s", e.msg);
    F.drv_r2 = ZE_RESULT_SUCCESS;

    /* 20 drivers, of which zetdebug keeps 16: the first has no devices,
     * the second cannot list its own, the rest have none either. */
    F.ndrivers = 20;
    F.empty_first = true;
    F.ndev = 0;
    F.devget_r = ZE_RESULT_ERROR_UNKNOWN;
    F.devget_calls = 0;
    rc = zd_open(&zd, &e);
    tap_ok(rc == 0 && zd && zd_device_count(zd) == 0 && F.devget_calls == 16,
           "20 drivers without devices: none listed, 16 drivers asked (%u)", F.devget_calls);
    zd_close(zd);
    F.devget_r = ZE_RESULT_SUCCESS;
    F.empty_first = false;
    F.ndrivers = 1;
}

static void test_filter(void)
{
    struct fdev subs[2], devs[7];
    struct zd *zd = NULL;
    struct zd_error e = {0};
    struct zd_regset rs[8];
    size_t n = 0;
    int rc;

    subs[0] = good();
    subs[1] = good();
    subs[0].is_sub = subs[1].is_sub = true;
    subs[0].subs = subs[1].subs = subs;
    subs[1].pci_r = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    subs[1].attach_flag = false;
    for (int i = 0; i < 7; i++)
        devs[i] = good();
    devs[0].type = ZE_DEVICE_TYPE_CPU;
    devs[1].vendor = 0x1002;
    devs[2].dbg_r = ZE_RESULT_ERROR_UNKNOWN;
    devs[3].attach_flag = false;
    devs[4].regs_r1 = ZE_RESULT_ERROR_DEVICE_LOST;
    devs[5].regsets = 1;
    devs[5].pci_r = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    devs[6].nsub = 2;
    devs[6].subs = subs;
    F.devs = devs;
    F.ndev = 7;
    rc = zd_open(&zd, &e);
    if (!tap_ok(rc == 0 && zd_device_count(zd) == 8,
                "7 devices: the CPU left out, 6 GPUs and 2 sub-devices listed (%zu) %s",
                zd_device_count(zd), e.msg)) {
        zd_close(zd);
        return;
    }
    tap_ok(!zd_device_at(zd, 0)->can_attach &&
               strcmp(zd_device_at(zd, 0)->why_not, "not an Intel GPU (vendor 0x1002)") == 0,
           "another vendor: %s", zd_device_at(zd, 0)->why_not);
    tap_ok(!zd_device_at(zd, 1)->can_attach &&
               strcmp(zd_device_at(zd, 1)->why_not,
                      "the driver does not report debug properties (ERROR_UNKNOWN)") == 0,
           "debug properties fail: %s", zd_device_at(zd, 1)->why_not);
    tap_ok(!zd_device_at(zd, 2)->can_attach &&
               strstr(zd_device_at(zd, 2)->why_not, "does not offer program debug on this device"),
           "no ATTACH flag on a root: %s", zd_device_at(zd, 2)->why_not);
    tap_ok(!zd_device_at(zd, 3)->can_attach &&
               strstr(zd_device_at(zd, 3)->why_not, "cannot read its register sets: querying "
                                                    "register sets: ") &&
               strstr(zd_device_at(zd, 3)->why_not, "ERROR_DEVICE_LOST"),
           "register sets fail: %s", zd_device_at(zd, 3)->why_not);
    tap_ok(!zd_device_at(zd, 4)->can_attach &&
               strcmp(zd_device_at(zd, 4)->why_not,
                      "unsupported register layout: missing CE CR SR SBA(version 0, isabase)") == 0,
           "register sets missing or unreadable: %s", zd_device_at(zd, 4)->why_not);
    rc = zd_regsets(zd, 4, rs, 8, &n, &e);
    tap_ok(rc == 0 && n == 8 && rs[0].type == 1 && rs[0].readable && !rs[1].readable &&
               rs[2].version == 1,
           "70 sets reported: zd_regsets gives the 8 asked for");
    tap_ok(zd_device_at(zd, 5)->can_attach && zd_device_at(zd, 5)->nsub == 2 &&
               strcmp(zd_device_at(zd, 4)->pci_slot, "0000:00:00.0") == 0 &&
               strcmp(zd_device_at(zd, 5)->pci_slot, "0000:3a:01.2") == 0 &&
               strcmp(zd_device_at(zd, 6)->pci_slot, "0000:4b:01.2") == 0 &&
               strcmp(zd_device_at(zd, 7)->pci_slot, "0000:3a:01.2") == 0,
           "PCI: a root without it 0000:00:00.0; a tile without it its root's (%s)",
           zd_device_at(zd, 7)->pci_slot);
    tap_ok(zd_device_at(zd, 6)->can_attach && zd_device_at(zd, 7)->parent == 5 &&
               !zd_device_at(zd, 7)->can_attach &&
               strstr(zd_device_at(zd, 7)->why_not, "tile attach is off"),
           "a tile without the ATTACH flag: %s", zd_device_at(zd, 7)->why_not);
    devs[5].regs_r1 = ZE_RESULT_SUCCESS;
    devs[5].regs_r2 = ZE_RESULT_ERROR_UNKNOWN;
    rc = zd_regsets(zd, 4, rs, 8, &n, &e);
    tap_ok(rc == ZD_E_OTHER && n == 0 && strncmp(e.msg, "querying register sets: ", 24) == 0,
           "the second register set query fails: %s", e.msg);
    zd_close(zd);

    devs[3].props_r = ZE_RESULT_ERROR_DEVICE_LOST;
    zd = (struct zd *)1;
    rc = zd_open(&zd, &e);
    tap_ok(rc == ZD_E_LOST && zd == NULL && strncmp(e.msg, "reading device properties: ", 27) == 0,
           "a device whose properties fail ends zd_open: %s", e.msg);
}

/* ---- sessions ---- */

struct seen {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct zd_session *s;
    enum zd_event_type types[16];
    uint32_t reasons[16];
    unsigned n;
    int detach_rc;
};

static void on_event(void *ctx, const struct zd_event *ev)
{
    struct seen *w = ctx;
    struct zd_error e;
    int rc = zd_detach(w->s, &e); /* refused: it would join itself */
    pthread_mutex_lock(&w->lock);
    w->detach_rc = rc;
    if (w->n < 16) {
        w->reasons[w->n] = ev->detach_reason;
        w->types[w->n++] = ev->type;
    }
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static bool wait_for(struct seen *w, unsigned n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&w->lock);
    while (w->n < n && pthread_cond_timedwait(&w->cond, &w->lock, &until) == 0) {
    }
    n = w->n >= n;
    pthread_mutex_unlock(&w->lock);
    return n;
}

static void script(unsigned i, ze_result_t r, zet_debug_event_type_t type, bool ack)
{
    F.script[i].r = r;
    F.script[i].type = type;
    F.script[i].need_ack = ack;
    F.nscript = i + 1;
}

static void test_calls(struct zd *zd)
{
    struct zd_thread one = {1, 2, 3, 4};
    struct zd_session *s = NULL;
    struct zd_error e;
    struct zd_event ev;
    uint8_t buf[8] = {0};
    int rc;

    if (!tap_ok(zd_attach(zd, 0, 42, &s, &e) == 0 && s, "attached to the fake device"))
        return;
    pthread_mutex_lock(&F.lock);
    F.next = 0;
    F.acks = 0;
    script(0, ZE_RESULT_SUCCESS, (zet_debug_event_type_t)0x99, true);
    script(1, ZE_RESULT_ERROR_UNKNOWN, ZET_DEBUG_EVENT_TYPE_INVALID, false);
    pthread_mutex_unlock(&F.lock);
    rc = zd_read_event(s, 10, &ev, &e);
    tap_ok(rc == ZD_E_OTHER && e.raw == 0 && F.acks == 1 &&
               strcmp(e.msg, "ignored a debug event of unknown type 153") == 0,
           "an event type newer than the API: acknowledged, not delivered: %s", e.msg);
    rc = zd_read_event(s, 10, &ev, &e);
    tap_ok(rc == ZD_E_OTHER &&
               strncmp(e.msg, "reading a debug event: unknown driver error", 43) == 0,
           "an event read that fails: %s", e.msg);

    F.run_r = ZE_RESULT_ERROR_NOT_AVAILABLE;
    rc = zd_interrupt(s, one, &e);
    tap_ok(rc == ZD_E_UNAVAILABLE &&
               strcmp(e.msg, "interrupting thread 1.2.3.4: already stopped or unavailable") == 0,
           "interrupt, not available: %s", e.msg);
    rc = zd_resume(s, zd_thread_all(), &e);
    tap_ok(rc == ZD_E_UNAVAILABLE && strcmp(e.msg, "resuming all threads: nothing is stopped") == 0,
           "resume, not available: %s", e.msg);
    F.run_r = ZE_RESULT_NOT_READY;
    rc = zd_interrupt(s, zd_thread_all(), &e);
    tap_ok(rc == ZD_E_PENDING && e.raw == 0x1 &&
               strcmp(e.msg, "interrupting all threads: the same interrupt is pending, its answer "
                             "will come") == 0,
           "interrupt, the same one pending: %s", e.msg);
    F.run_r = ZE_RESULT_ERROR_DEVICE_LOST;
    rc = zd_interrupt(s, zd_thread_all(), &e);
    tap_ok(rc == ZD_E_LOST &&
               strncmp(e.msg, "interrupting all threads: the device was lost", 45) == 0,
           "interrupt, lost: %s", e.msg);
    rc = zd_resume(s, one, &e);
    tap_ok(rc == ZD_E_LOST &&
               strncmp(e.msg, "resuming thread 1.2.3.4: the device was lost", 44) == 0,
           "resume, lost: %s", e.msg);
    F.run_r = ZE_RESULT_SUCCESS;

    F.mem_r = ZE_RESULT_ERROR_NOT_AVAILABLE;
    rc = zd_read_memory(s, one, ZD_SPACE_DEFAULT, 0x1000, 8, buf, &e);
    tap_ok(rc == ZD_E_UNAVAILABLE &&
               strcmp(e.msg, "reading 8 bytes at 0x1000 (thread 1.2.3.4): the thread is running "
                             "or cannot reach that memory") == 0,
           "read memory, not available: %s", e.msg);
    F.mem_r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    rc = zd_write_memory(s, one, ZD_SPACE_SLM, 0x10, 4, buf, &e);
    tap_ok(rc == ZD_E_INVALID &&
               strcmp(e.msg, "writing 4 bytes to 0x10 in SLM (thread 1.2.3.4): the address is not "
                             "mapped or the range is not accessible") == 0,
           "write SLM, invalid: %s", e.msg);
    F.mem_r = ZE_RESULT_ERROR_UNKNOWN;
    rc = zd_write_memory(s, zd_thread_all(), ZD_SPACE_DEFAULT, 0x20, 2, buf, &e);
    tap_ok(rc == ZD_E_OTHER &&
               strncmp(e.msg, "writing 2 bytes to 0x20 (all threads): unknown", 46) == 0,
           "write memory, unknown: %s", e.msg);
    F.mem_r = ZE_RESULT_SUCCESS;
    tap_ok(zd_write_memory(s, one, ZD_SPACE_DEFAULT, 0x20, 2, buf, &e) == 0 && e.code == 0,
           "write memory succeeds");

    F.reg_r = ZE_RESULT_ERROR_NOT_AVAILABLE;
    rc = zd_write_registers(s, one, 6, 2, 3, buf, &e);
    tap_ok(rc == ZD_E_UNAVAILABLE &&
               strcmp(e.msg, "writing registers 2..4 of set 6 (thread 1.2.3.4): the thread is "
                             "running or unavailable") == 0,
           "write registers, not available: %s", e.msg);
    F.reg_r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    rc = zd_write_registers(s, one, 11, 0, 1, buf, &e);
    tap_ok(rc == ZD_E_INVALID && strstr(e.msg, ": no such registers or the set is read-only"),
           "write registers, invalid: %s", e.msg);
    rc = zd_read_registers(s, one, 1, 200, 1, buf, &e);
    tap_ok(rc == ZD_E_INVALID && strstr(e.msg, "reading registers 200..200 of set 1") &&
               strstr(e.msg, ": no such registers") && !strstr(e.msg, "read-only"),
           "read registers, invalid: %s", e.msg);
    F.reg_r = ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET;
    rc = zd_read_registers(s, one, 1, 0, 1, buf, &e);
    tap_ok(rc == ZD_E_LOST && strstr(e.msg, "the device needs a reset"),
           "read registers, needs a reset: %s", e.msg);
    F.reg_r = ZE_RESULT_SUCCESS;
    tap_ok(zd_write_registers(s, one, 1, 0, 1, buf, &e) == 0, "write registers succeeds");

    F.detach_r = ZE_RESULT_ERROR_UNKNOWN;
    rc = zd_detach(s, &e);
    tap_ok(rc == ZD_E_OTHER && strncmp(e.msg, "detaching: unknown driver error", 31) == 0,
           "a detach that fails says so (the session is gone either way): %s", e.msg);
    F.detach_r = ZE_RESULT_SUCCESS;
}

static void test_reader(struct zd *zd)
{
    struct seen w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct zd_stats before, after;
    struct zd_error e;
    bool got;
    int rc;

    /* An unknown event (acknowledged, skipped), three failed reads (kept
     * trying), a module load, then the device lost: a DETACHED with
     * reason 0 that the driver never sent. */
    pthread_mutex_lock(&F.lock);
    F.next = 0;
    F.acks = 0;
    script(0, ZE_RESULT_SUCCESS, (zet_debug_event_type_t)0x77, true);
    script(1, ZE_RESULT_ERROR_UNKNOWN, ZET_DEBUG_EVENT_TYPE_INVALID, false);
    script(2, ZE_RESULT_ERROR_UNKNOWN, ZET_DEBUG_EVENT_TYPE_INVALID, false);
    script(3, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, ZET_DEBUG_EVENT_TYPE_INVALID, false);
    script(4, ZE_RESULT_SUCCESS, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, false);
    script(5, ZE_RESULT_ERROR_DEVICE_LOST, ZET_DEBUG_EVENT_TYPE_INVALID, false);
    pthread_mutex_unlock(&F.lock);
    if (!tap_ok(zd_attach(zd, 0, 42, &w.s, &e) == 0, "attached for the reader"))
        return;
    zd_get_stats(zd, &before);
    tap_ok(zd_start_reader(w.s, NULL, &w, &e) == ZD_E_INVALID, "a reader needs a callback");
    tap_ok(zd_start_reader(w.s, on_event, &w, &e) == 0, "reader started");
    got = wait_for(&w, 2);
    tap_ok(got && w.n == 2 && w.types[0] == ZD_EV_MODULE_LOAD && w.types[1] == ZD_EV_DETACHED &&
               w.reasons[1] == 0,
           "failed reads retried; the lost device ends with a DETACHED of reason 0 (%u events)",
           w.n);
    tap_ok(w.detach_rc == ZD_E_INVALID, "zd_detach from the session's own callback is refused");
    F.detach_r = ZE_RESULT_ERROR_DEVICE_LOST;
    rc = zd_detach(w.s, &e);
    zd_get_stats(zd, &after);
    tap_ok(rc == 0 && after.read_event - before.read_event >= 6 && F.acks == 1,
           "detach of a lost session succeeds; 6 reads, 1 acknowledgement (%llu reads)",
           (unsigned long long)(after.read_event - before.read_event));
    F.detach_r = ZE_RESULT_SUCCESS;

    /* A DETACHED from the driver ends the reader too. */
    memset(&w.n, 0, sizeof(w.n));
    pthread_mutex_lock(&F.lock);
    F.next = 0;
    script(0, ZE_RESULT_SUCCESS, ZET_DEBUG_EVENT_TYPE_DETACHED, false);
    pthread_mutex_unlock(&F.lock);
    if (zd_attach(zd, 0, 42, &w.s, &e) != 0 || zd_start_reader(w.s, on_event, &w, &e) != 0) {
        tap_ok(0, "second reader started: %s", e.msg);
        return;
    }
    got = wait_for(&w, 1);
    tap_ok(got && w.types[0] == ZD_EV_DETACHED && w.reasons[0] == 1 && w.detach_rc == ZD_E_INVALID,
           "the driver's DETACHED (host exit), the first event, is delivered; zd_detach from "
           "its callback is refused even then; the reader ends");
    tap_ok(zd_detach(w.s, &e) == 0, "detached");
}

/* zd_thread_regsets: the per-thread answer when the loader and driver
 * have it, the device's sets (count 8) when the driver's slot is empty,
 * and a real failure passed on, not hidden behind the fallback. */
static void test_thread_regsets(struct zd *zd)
{
    struct zd_thread small = {0, 0, 2, 1}, large = {0, 0, 3, 1};
    struct zd_regset rs[8];
    struct zd_session *s = NULL;
    struct zd_error e;
    bool per = false;
    size_t n = 0;
    int rc;

    if (!tap_ok(zd_attach(zd, 0, 42, &s, &e) == 0 && s, "attached for thread register sets"))
        return;
    thread_r = ZE_RESULT_SUCCESS;
    rc = zd_thread_regsets(s, small, rs, 8, &n, &per, &e);
    tap_ok(rc == 0 && per && n == 5 && rs[0].type == 1 && rs[0].count == 128,
           "per-thread sets: GRF x%u for a normal thread", n ? rs[0].count : 0);
    rc = zd_thread_regsets(s, large, rs, 8, &n, &per, &e);
    tap_ok(rc == 0 && per && n == 5 && rs[0].count == 256,
           "per-thread sets: GRF x%u for a large-GRF thread", n ? rs[0].count : 0);
    thread_r = ZE_RESULT_ERROR_UNINITIALIZED;
    thread_calls = 0;
    rc = zd_thread_regsets(s, large, rs, 8, &n, &per, &e);
    tap_ok(rc == 0 && !per && n == 5 && rs[0].count == 8 && thread_calls == 1,
           "a driver without the slot: the device's sets (GRF x%u), one try", n ? rs[0].count : 0);
    thread_r = ZE_RESULT_ERROR_DEVICE_LOST;
    rc = zd_thread_regsets(s, large, rs, 8, &n, &per, &e);
    tap_ok(rc != 0 && !per && n == 0 && strstr(e.msg, "thread's register sets"),
           "a failing per-thread query is reported: %s", e.msg);
    thread_r = ZE_RESULT_SUCCESS;
    zd_detach(s, &e);
}

/* ---- detaches handed to the reader ---- */

/* Waits (10 s at most) until a read is held at the gate. */
static bool gate_reached(void)
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

static void gate(bool shut)
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

static unsigned detaches(void)
{
    unsigned n;
    pthread_mutex_lock(&F.lock);
    n = F.detaches;
    pthread_mutex_unlock(&F.lock);
    return n;
}

/* Attaches with the gate shut, starts the reader and waits until it is
 * inside a read; then zd_detach must hand the detach over. Returns the
 * zd_detach answer, -100 when the read never came. */
static int detach_during_read(struct zd *zd, struct seen *w, struct zd_error *e)
{
    gate(true);
    if (zd_attach(zd, 0, 42, &w->s, e) != 0 || zd_start_reader(w->s, on_event, w, e) != 0 ||
        !gate_reached()) {
        gate(false);
        return -100;
    }
    return zd_detach(w->s, e);
}

/* What the late-failure callback was given. */
struct late {
    pthread_mutex_t lock;
    unsigned n;
    size_t device;
    struct zd_error e;
};

static void on_late(void *ctx, size_t device, const struct zd_error *e)
{
    struct late *l = ctx;
    pthread_mutex_lock(&l->lock);
    l->n++;
    l->device = device;
    l->e = *e;
    pthread_mutex_unlock(&l->lock);
}

static void test_handoff(struct zd *zd)
{
    struct seen w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct zd_stats before, after;
    struct zd_error e;
    unsigned during;
    int rc;

    /* A module load that needs an acknowledgement is what the held read
     * returns: read after the hand-off, it is dropped (the detach
     * releases it), never delivered. */
    pthread_mutex_lock(&F.lock);
    F.next = 0;
    F.acks = 0;
    F.detaches = 0;
    script(0, ZE_RESULT_SUCCESS, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, true);
    pthread_mutex_unlock(&F.lock);
    zd_get_stats(zd, &before);
    rc = detach_during_read(zd, &w, &e);
    during = detaches();
    tap_ok(rc == ZD_E_PENDING && e.code == ZD_E_PENDING && during == 0,
           "zd_detach during a read: handed to the reader (%s), zetDebugDetach not called while "
           "the read is in progress (%u calls): %s",
           zd_err_name(rc), during, e.msg);
    gate(false);
    rc = zd_wait_detached(zd, &e);
    zd_get_stats(zd, &after);
    tap_ok(rc == 0 && detaches() == 1 && after.detach - before.detach == 1,
           "zd_wait_detached: the reader detached once, counted (%u calls, rc %d)", detaches(), rc);
    tap_ok(w.n == 0 && F.next == 1 && F.acks == 0,
           "the event its read returned (%u read) never reached the callback (%u calls) nor was "
           "acknowledged",
           F.next, w.n);
}

static void test_handoff_failure(struct zd *zd)
{
    struct seen w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct late l = {.lock = PTHREAD_MUTEX_INITIALIZER};
    struct zd_error e;
    int rc;

    zd_on_detach_failure(zd, on_late, &l);
    pthread_mutex_lock(&F.lock);
    F.nscript = F.next = 0;
    F.detaches = 0;
    F.detach_r = ZE_RESULT_ERROR_UNKNOWN;
    pthread_mutex_unlock(&F.lock);
    rc = detach_during_read(zd, &w, &e);
    tap_ok(rc == ZD_E_PENDING, "a second hand-off (%s)", zd_err_name(rc));
    gate(false);
    rc = zd_wait_detached(zd, &e);
    tap_ok(rc == ZD_E_OTHER && detaches() == 1 &&
               strncmp(e.msg, "detaching: unknown driver error", 31) == 0,
           "the driver's late refusal is zd_wait_detached's answer: %s", e.msg);
    tap_ok(l.n == 1 && l.device == 0 && l.e.code == ZD_E_OTHER && strcmp(l.e.msg, e.msg) == 0,
           "and was given to the late-failure callback, with the device (%u calls)", l.n);
    tap_ok(zd_wait_detached(zd, &e) == 0, "given once: the next zd_wait_detached answers 0");

    F.detach_r = ZE_RESULT_ERROR_DEVICE_LOST;
    rc = detach_during_read(zd, &w, &e);
    gate(false);
    tap_ok(rc == ZD_E_PENDING && zd_wait_detached(zd, &e) == 0 && l.n == 1 && detaches() == 2,
           "a lost device at the late detach is a success: no failure, no callback");
    F.detach_r = ZE_RESULT_SUCCESS;
    zd_on_detach_failure(zd, NULL, NULL);
}

/* A callback in progress: zd_detach joins it (it may be using the
 * caller's state), and the callback cannot join readers itself. */
struct slow {
    struct zd *zd;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool entered, done;
    int wait_rc;
};

static void on_slow(void *ctx, const struct zd_event *ev)
{
    struct slow *w = ctx;
    const struct timespec pause = {0, 50 * 1000000L};
    struct zd_error e;
    (void)ev;
    pthread_mutex_lock(&w->lock);
    w->entered = true;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    w->wait_rc = zd_wait_detached(w->zd, &e);
    nanosleep(&pause, NULL);
    pthread_mutex_lock(&w->lock);
    w->done = true;
    pthread_mutex_unlock(&w->lock);
}

static void test_detach_in_callback(struct zd *zd)
{
    struct slow w = {.zd = zd, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct zd_session *s = NULL;
    struct zd_error e;
    bool done;
    int rc;

    pthread_mutex_lock(&F.lock);
    F.next = 0;
    F.detaches = 0;
    script(0, ZE_RESULT_SUCCESS, ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY, false);
    pthread_mutex_unlock(&F.lock);
    if (zd_attach(zd, 0, 42, &s, &e) != 0 || zd_start_reader(s, on_slow, &w, &e) != 0) {
        tap_ok(0, "reader for a slow callback: %s", e.msg);
        return;
    }
    pthread_mutex_lock(&w.lock);
    while (!w.entered)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    rc = zd_detach(s, &e);
    pthread_mutex_lock(&w.lock);
    done = w.done;
    pthread_mutex_unlock(&w.lock);
    tap_ok(rc == 0 && done && detaches() == 1,
           "zd_detach while the callback runs joins it, then detaches (%s)", zd_err_name(rc));
    tap_ok(w.wait_rc == ZD_E_INVALID, "zd_wait_detached from a callback is refused");
}

/* zd_close with a detach still handed off: it joins the reader, which
 * detaches first (ASan and valgrind see the session freed). */
static void test_close_joins(struct zd *zd)
{
    struct seen w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct zd_error e;
    int rc;

    pthread_mutex_lock(&F.lock);
    F.nscript = F.next = 0;
    F.detaches = 0;
    pthread_mutex_unlock(&F.lock);
    rc = detach_during_read(zd, &w, &e);
    gate(false);
    zd_close(zd);
    tap_ok(rc == ZD_E_PENDING && detaches() == 1 && w.n == 0,
           "zd_close waits for a handed-off detach (%u calls)", detaches());
}

int main(void)
{
    struct fdev dev[1];
    struct zd *zd = NULL;
    struct zd_error e = {0};

    tap_plan(3 + 11 + 18 + 8 + 5 + 3 + 5 + 2 + 1);
    F.ndrivers = 1;
    test_no_devices();
    test_filter();
    dev[0] = good();
    F.devs = dev;
    F.ndev = 1;
    if (zd_open(&zd, &e) != 0)
        tap_bail(e.msg);
    test_calls(zd);
    test_reader(zd);
    test_thread_regsets(zd);
    test_handoff(zd);
    test_handoff_failure(zd);
    test_detach_in_callback(zd);
    test_close_joins(zd);
    return tap_done();
}
