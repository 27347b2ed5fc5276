/* SPDX-License-Identifier: MIT */
/* zetdebug: driver and device discovery, register set properties, stats. */
#include "zetdebug/zd_impl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isa/isa.h"

#define MAX_DRIVERS 16
#define MAX_REGSETS 64

const char *zd_err_name(int code)
{
    switch (code) {
    case ZD_OK:
        return "ok";
    case ZD_E_TOO_EARLY:
        return "too-early";
    case ZD_E_NOT_SUPPORTED:
        return "not-supported";
    case ZD_E_NOT_PERMITTED:
        return "not-permitted";
    case ZD_E_BUSY:
        return "busy";
    case ZD_E_UNAVAILABLE:
        return "unavailable";
    case ZD_E_INVALID:
        return "invalid";
    case ZD_E_TIMEOUT:
        return "timeout";
    case ZD_E_LOST:
        return "lost";
    case ZD_E_NO_DRIVER:
        return "no-driver";
    case ZD_E_NOMEM:
        return "no-memory";
    case ZD_E_NO_LEVEL_ZERO:
        return "no-level-zero";
    case ZD_E_PENDING:
        return "pending";
    default:
        return "other";
    }
}

const char *zd_event_name(enum zd_event_type type)
{
    switch (type) {
    case ZD_EV_DETACHED:
        return "DETACHED";
    case ZD_EV_PROCESS_ENTRY:
        return "PROCESS_ENTRY";
    case ZD_EV_PROCESS_EXIT:
        return "PROCESS_EXIT";
    case ZD_EV_MODULE_LOAD:
        return "MODULE_LOAD";
    case ZD_EV_MODULE_UNLOAD:
        return "MODULE_UNLOAD";
    case ZD_EV_THREAD_STOPPED:
        return "THREAD_STOPPED";
    case ZD_EV_THREAD_UNAVAILABLE:
        return "THREAD_UNAVAILABLE";
    case ZD_EV_PAGE_FAULT:
        return "PAGE_FAULT";
    }
    return "(unknown)";
}

/* Grows the device table by one; returns the new slot or NULL. */
static struct zd_device *add_device(struct zd *zd, ze_device_handle_t h)
{
    size_t n = zd->ndev + 1;
    struct zd_device *d = realloc(zd->devs, n * sizeof(*d));
    ze_device_handle_t *hs;
    if (!d)
        return NULL;
    zd->devs = d;
    hs = realloc(zd->handles, n * sizeof(*hs));
    if (!hs)
        return NULL;
    zd->handles = hs;
    hs[zd->ndev] = h;
    d = &zd->devs[zd->ndev];
    memset(d, 0, sizeof(*d));
    d->index = (unsigned)zd->ndev;
    zd->ndev = n;
    return d;
}

static void fill_pci(struct zd *zd, ze_device_handle_t h, struct zd_device *d,
                     const struct zd_device *root)
{
    ze_pci_ext_properties_t pci = {.stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES};
    ze_result_t r;
    ZD_COUNT_OTHER(zd);
    r = zeDevicePciGetPropertiesExt(h, &pci);
    if (r == ZE_RESULT_SUCCESS)
        snprintf(d->pci_slot, sizeof(d->pci_slot), "%04x:%02x:%02x.%x",
                 (unsigned)pci.address.domain & 0xffffu, (unsigned)pci.address.bus & 0xffu,
                 (unsigned)pci.address.device & 0xffu, (unsigned)pci.address.function & 0xfu);
    else if (root) /* a tile sits behind its root's PCI function */
        memcpy(d->pci_slot, root->pci_slot, sizeof(d->pci_slot));
    else
        snprintf(d->pci_slot, sizeof(d->pci_slot), "0000:00:00.0");
}

static void why_not(struct zd_device *d, const char *fmt, const char *arg)
{
    d->can_attach = false;
    snprintf(d->why_not, sizeof(d->why_not), fmt, arg);
}

/* The device filter of intelgt-remote-protocol.md 1.1 plus the driver's
 * own ATTACH flag. */
static void check_attach(struct zd *zd, ze_device_handle_t h, struct zd_device *d)
{
    zet_device_debug_properties_t dp = {.stype = ZET_STRUCTURE_TYPE_DEVICE_DEBUG_PROPERTIES};
    struct zd_regset rs[MAX_REGSETS];
    size_t n = 0;
    unsigned have = 0;
    char missing[64];
    struct zd_error err;
    ze_result_t r;

    d->can_attach = true;
    if (d->vendor_id != 0x8086) {
        char v[8];
        snprintf(v, sizeof(v), "%04x", (unsigned)d->vendor_id);
        why_not(d, "not an Intel GPU (vendor 0x%s)", v);
        return;
    }
    ZD_COUNT_OTHER(zd);
    r = zetDeviceGetDebugProperties(h, &dp);
    if (r != ZE_RESULT_SUCCESS) {
        why_not(d, "the driver does not report debug properties (%s)", zd_result_name((uint32_t)r));
        return;
    }
    if (!(dp.flags & ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH)) {
        if (d->parent >= 0)
            why_not(d, "%s",
                    "the driver does not offer attaching to this sub-device (tile attach is "
                    "off); attach to its root device");
        else
            why_not(d, "%s",
                    "the driver does not offer program debug on this device (is EU debug "
                    "enabled in the kernel driver?)");
        return;
    }
    if (zd_regsets(zd, d->index, rs, MAX_REGSETS, &n, &err) != 0) {
        why_not(d, "cannot read its register sets: %.120s", err.msg);
        return;
    }
    /* Which sets are needed is the ISA's (isa/): the driver's type
     * numbers are handed over as they are. */
    for (size_t i = 0; i < n; i++)
        have |= isa_regset_needed(rs[i].type, rs[i].version, rs[i].count, rs[i].readable);
    if (isa_attach_missing(have, missing, sizeof(missing)))
        why_not(d, "unsupported register layout: missing%s", missing);
}

static int add_props(struct zd *zd, ze_device_handle_t h, int parent, struct zd_device **out,
                     struct zd_error *err)
{
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    struct zd_device *d;
    ze_result_t r;

    ZD_COUNT_OTHER(zd);
    r = zeDeviceGetProperties(h, &p);
    if (r != ZE_RESULT_SUCCESS)
        return zd_from_result(err, r, "reading device properties");
    *out = NULL;
    if (p.type != ZE_DEVICE_TYPE_GPU)
        return 0;
    d = add_device(zd, h);
    if (!d)
        return zd_fail(err, ZD_E_NOMEM, 0, "out of memory listing devices");
    d->parent = parent;
    d->subdevice_id = (p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) ? p.subdeviceId : 0;
    d->vendor_id = p.vendorId;
    d->device_id = p.deviceId;
    snprintf(d->name, sizeof(d->name), "%.*s", (int)sizeof(p.name), p.name);
    memcpy(d->uuid, p.uuid.id, sizeof(d->uuid));
    d->slices = p.numSlices;
    d->subslices = p.numSubslicesPerSlice;
    d->eus = p.numEUsPerSubslice;
    d->threads = p.numThreadsPerEU;
    d->nthreads = d->slices * d->subslices * d->eus * d->threads;
    fill_pci(zd, h, d, parent >= 0 ? &zd->devs[parent] : NULL);
    check_attach(zd, h, d);
    *out = d;
    return 0;
}

static int add_root(struct zd *zd, ze_device_handle_t h, struct zd_error *err)
{
    struct zd_device *root;
    ze_device_handle_t *subs;
    uint32_t nsub = 0;
    size_t ri;
    ze_result_t r;
    int rc = add_props(zd, h, -1, &root, err);

    if (rc || !root)
        return rc;
    ri = root->index;
    ZD_COUNT_OTHER(zd);
    r = zeDeviceGetSubDevices(h, &nsub, NULL);
    if (r != ZE_RESULT_SUCCESS || nsub == 0)
        return 0; /* no sub-devices is the common case, not an error */
    subs = calloc(nsub, sizeof(*subs));
    if (!subs)
        return zd_fail(err, ZD_E_NOMEM, 0, "out of memory listing sub-devices");
    ZD_COUNT_OTHER(zd);
    r = zeDeviceGetSubDevices(h, &nsub, subs);
    for (uint32_t i = 0; r == ZE_RESULT_SUCCESS && i < nsub && rc == 0; i++) {
        struct zd_device *sd;
        rc = add_props(zd, subs[i], (int)ri, &sd, err);
        if (rc == 0 && sd)
            zd->devs[ri].nsub++; /* zd->devs may have moved: index, not pointer */
    }
    free(subs);
    return rc;
}

/* zeInit failed. With ZE_ENABLE_ALT_DRIVERS set the user has chosen a
 * driver already: say what is wrong with the name, or that the driver
 * itself failed to start (a driver that does so prints its reason), never
 * "install the runtime". */
static int no_driver(struct zd_error *err, ze_result_t r)
{
    const char *alt = getenv("ZE_ENABLE_ALT_DRIVERS");
    if (!alt || !*alt)
        return zd_fail(err, ZD_E_NO_DRIVER, (uint32_t)r,
                       "no Level Zero GPU driver found (zeInit: 0x%x): install Intel's GPU "
                       "compute runtime, or for the simulator set "
                       "ZE_ENABLE_ALT_DRIVERS=/abs/path/libze_gtsim.so",
                       (unsigned)r);
    /* The loader takes a comma-separated list of absolute paths. The reason
     * comes before the path: a long path must not cut it off the message. */
    for (const char *p = alt; *p;) {
        size_t n = strcspn(p, ",");
        char path[4096];
        snprintf(path, sizeof(path), "%.*s", (int)n, p);
        if (path[0] && path[0] != '/')
            return zd_fail(err, ZD_E_NO_DRIVER, (uint32_t)r,
                           "ZE_ENABLE_ALT_DRIVERS names a driver by a relative path (the Level "
                           "Zero loader only loads drivers named by absolute path): '%s'",
                           path);
        if (path[0] && access(path, R_OK) != 0)
            return zd_fail(err, ZD_E_NO_DRIVER, (uint32_t)r,
                           "ZE_ENABLE_ALT_DRIVERS names a driver that does not exist or cannot be "
                           "read: %s",
                           path);
        p += n + (p[n] == ',');
    }
    return zd_fail(err, ZD_E_NO_DRIVER, (uint32_t)r,
                   "the Level Zero driver ZE_ENABLE_ALT_DRIVERS names failed to initialise "
                   "(zeInit: %s, 0x%x); its own message, if it printed one, says why",
                   zd_result_name((uint32_t)r), (unsigned)r);
}

/* The loader splits ZE_ENABLE_ALT_DRIVERS at commas and dlopens each entry
 * as it is: an empty entry (an empty value, a leading, trailing or doubled
 * comma) opens the program itself, where the loader finds its own entry
 * point and recurses until the stack overflows (level-zero-facts.md,
 * section 1). Say what is wrong before zeInit can crash us. */
static int alt_drivers_unsafe(struct zd_error *err)
{
    const char *alt = getenv("ZE_ENABLE_ALT_DRIVERS");
    if (!alt)
        return 0;
    /* The message names the empty entry by its number, not the value: driver
     * paths are long and the whole sentence must fit zd_error.msg. */
    unsigned entry = 1;
    for (const char *p = alt;; p++, entry++) {
        size_t n = strcspn(p, ",");
        if (n == 0 && !*alt)
            return zd_fail(err, ZD_E_NO_DRIVER, 0,
                           "ZE_ENABLE_ALT_DRIVERS is set but empty, which crashes the Level Zero "
                           "loader: name the driver by absolute path, or unset it");
        if (n == 0)
            return zd_fail(err, ZD_E_NO_DRIVER, 0,
                           "ZE_ENABLE_ALT_DRIVERS has an empty entry (entry %u: a comma at its "
                           "start or end, or two in a row), which crashes the Level Zero loader: "
                           "separate absolute driver paths by single commas",
                           entry);
        p += n;
        if (!*p)
            return 0;
    }
}

int zd_open(struct zd **out, struct zd_error *err)
{
    ze_driver_handle_t drivers[MAX_DRIVERS];
    uint32_t ndrv = 0;
    struct zd *zd;
    ze_result_t r;
    int rc = 0;

    *out = NULL;
    zd = calloc(1, sizeof(*zd));
    if (!zd)
        return zd_fail(err, ZD_E_NOMEM, 0, "out of memory");
    zd->thread_regsets = zd_lookup_thread_regsets();
    pthread_mutex_init(&zd->handoff, NULL);
    rc = alt_drivers_unsafe(err);
    if (rc != 0) {
        zd_free_handle(zd);
        return rc;
    }
    ZD_COUNT_OTHER(zd);
    r = zeInit(0);
    if (r != ZE_RESULT_SUCCESS) {
        zd_free_handle(zd);
        return no_driver(err, r);
    }
    ZD_COUNT_OTHER(zd);
    r = zeDriverGet(&ndrv, NULL);
    if (r == ZE_RESULT_SUCCESS && ndrv > 0) {
        if (ndrv > MAX_DRIVERS)
            ndrv = MAX_DRIVERS;
        ZD_COUNT_OTHER(zd);
        r = zeDriverGet(&ndrv, drivers);
    }
    if (r != ZE_RESULT_SUCCESS || ndrv == 0) {
        zd_free_handle(zd);
        return no_driver(err, r != ZE_RESULT_SUCCESS ? r : ZE_RESULT_ERROR_UNINITIALIZED);
    }
    for (uint32_t i = 0; i < ndrv && rc == 0; i++) {
        ze_device_handle_t *devs;
        uint32_t n = 0;
        ZD_COUNT_OTHER(zd);
        r = zeDeviceGet(drivers[i], &n, NULL);
        if (r != ZE_RESULT_SUCCESS || n == 0)
            continue; /* a driver without devices is not an error */
        devs = calloc(n, sizeof(*devs));
        if (!devs) {
            rc = zd_fail(err, ZD_E_NOMEM, 0, "out of memory listing devices");
            break;
        }
        ZD_COUNT_OTHER(zd);
        r = zeDeviceGet(drivers[i], &n, devs);
        for (uint32_t k = 0; r == ZE_RESULT_SUCCESS && k < n && rc == 0; k++)
            rc = add_root(zd, devs[k], err);
        free(devs);
    }
    if (rc) {
        zd_free_handle(zd);
        return rc;
    }
    *out = zd;
    return 0;
}

void zd_free_handle(struct zd *zd)
{
    if (!zd)
        return;
    pthread_mutex_destroy(&zd->handoff);
    free(zd->devs);
    free(zd->handles);
    free(zd);
}

size_t zd_device_count(const struct zd *zd)
{
    return zd ? zd->ndev : 0;
}

const struct zd_device *zd_device_at(const struct zd *zd, size_t index)
{
    return zd && index < zd->ndev ? &zd->devs[index] : NULL;
}

bool zd_has_thread_regsets(const struct zd *zd)
{
    return zd && zd->thread_regsets;
}

zd_thread_regsets_fn zd_lookup_thread_regsets(void)
{
    /* The loader's exported symbol, not zeDriverGetExtensionFunctionAddress:
     * it is a core entry point, and only the loader's version turns its
     * session handle into the driver's (see README.md). */
    void *sym = dlsym(RTLD_DEFAULT, "zetDebugGetThreadRegisterSetProperties");
    zd_thread_regsets_fn fn;

    /* POSIX allows converting dlsym's void * to a function pointer. */
    *(void **)&fn = sym;
    return fn;
}

void zd_regsets_convert(const zet_debug_regset_properties_t *props, uint32_t count,
                        struct zd_regset *out, size_t max, size_t *n)
{
    *n = 0;
    for (uint32_t i = 0; i < count && *n < max; i++) {
        out[*n] = (struct zd_regset){
            .type = props[i].type,
            .version = props[i].version,
            .count = props[i].count,
            .bit_size = props[i].bitSize,
            .byte_size = props[i].byteSize,
            .readable = (props[i].generalFlags & ZET_DEBUG_REGSET_FLAG_READABLE) != 0,
            .writable = (props[i].generalFlags & ZET_DEBUG_REGSET_FLAG_WRITEABLE) != 0,
        };
        (*n)++;
    }
}

int zd_regsets(struct zd *zd, size_t device, struct zd_regset *out, size_t max, size_t *n,
               struct zd_error *err)
{
    zet_debug_regset_properties_t props[MAX_REGSETS];
    uint32_t count = 0;
    ze_result_t r;

    *n = 0;
    if (!zd || device >= zd->ndev)
        return zd_fail(err, ZD_E_INVALID, 0, "no device %zu", device);
    ZD_COUNT(zd, regset_props);
    r = zetDebugGetRegisterSetProperties(zd->handles[device], &count, NULL);
    if (r != ZE_RESULT_SUCCESS)
        return zd_from_result(err, r, "querying register sets");
    if (count > MAX_REGSETS)
        count = MAX_REGSETS;
    for (uint32_t i = 0; i < count; i++)
        props[i] =
            (zet_debug_regset_properties_t){.stype = ZET_STRUCTURE_TYPE_DEBUG_REGSET_PROPERTIES};
    ZD_COUNT(zd, regset_props);
    r = zetDebugGetRegisterSetProperties(zd->handles[device], &count, props);
    if (r != ZE_RESULT_SUCCESS)
        return zd_from_result(err, r, "querying register sets");
    zd_regsets_convert(props, count, out, max, n);
    return zd_from_result(err, ZE_RESULT_SUCCESS, "");
}

void zd_get_stats(const struct zd *zd, struct zd_stats *out)
{
    /* The counters are atomics; reading them through a const pointer is
     * fine, the cast only drops const for the C11 generic functions. */
    struct zd_counters *c = (struct zd_counters *)&zd->n;
    out->read_event = atomic_load_explicit(&c->read_event, memory_order_relaxed);
    out->ack = atomic_load_explicit(&c->ack, memory_order_relaxed);
    out->interrupt = atomic_load_explicit(&c->interrupt, memory_order_relaxed);
    out->resume = atomic_load_explicit(&c->resume, memory_order_relaxed);
    out->read_memory = atomic_load_explicit(&c->read_memory, memory_order_relaxed);
    out->write_memory = atomic_load_explicit(&c->write_memory, memory_order_relaxed);
    out->read_registers = atomic_load_explicit(&c->read_registers, memory_order_relaxed);
    out->write_registers = atomic_load_explicit(&c->write_registers, memory_order_relaxed);
    out->regset_props = atomic_load_explicit(&c->regset_props, memory_order_relaxed);
    out->attach = atomic_load_explicit(&c->attach, memory_order_relaxed);
    out->detach = atomic_load_explicit(&c->detach, memory_order_relaxed);
    out->total = atomic_load_explicit(&c->total, memory_order_relaxed);
}
