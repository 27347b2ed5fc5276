/* SPDX-License-Identifier: MIT */
/* zeInit and the driver object: builds the devices GTSIM_CONFIG describes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gtsim/gtsim.h"
#include "gtsim/dbg_server.h"
#include "gtsim/device_build.h"
#include "gtsim/faults.h"

static struct gtsim_driver *the_driver;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static ze_result_t init_result = ZE_RESULT_SUCCESS;
static bool init_done;

struct gtsim_driver *gtsim_driver_get(void)
{
    struct gtsim_driver *d;
    pthread_mutex_lock(&init_lock);
    d = the_driver;
    pthread_mutex_unlock(&init_lock);
    return d;
}

static ze_result_t create_driver(void)
{
    char err[256] = "";
    struct gtsim_driver *drv = calloc(1, sizeof(*drv));
    const char *dbg = getenv("ZET_ENABLE_PROGRAM_DEBUGGING");

    if (!drv)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    drv->magic = GTSIM_MAGIC_DRIVER;
    gtsim_config_defaults(&drv->cfg);
    if (gtsim_config_parse(getenv("GTSIM_CONFIG"), &drv->cfg, err, sizeof(err)) != 0) {
        fprintf(stderr, "gtsim: %s\n", err);
        free(drv);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    if (gtsim_faults_init(getenv("GTSIM_FAULTS"), err, sizeof(err)) != 0) {
        fprintf(stderr, "gtsim: %s\n", err);
        free(drv);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    drv->debugging_enabled = dbg && strcmp(dbg, "1") == 0;
    pthread_mutex_init(&drv->mem_lock, NULL);
    pthread_mutex_init(&drv->sync_lock, NULL);
    {
        /* Timeouts are computed on the monotonic clock (gtsim_deadline). */
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&drv->sync_cv, &ca);
        pthread_condattr_destroy(&ca);
    }
    drv->devices = calloc(drv->cfg.devices, sizeof(*drv->devices));
    if (!drv->devices) {
        free(drv);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; i < drv->cfg.devices; i++) {
        drv->devices[i] = gtsim_device_build(drv, i, err, sizeof(err));
        if (!drv->devices[i]) {
            fprintf(stderr, "gtsim: device %u: %s\n", i, err);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        drv->ndevices++;
    }
    if (gtsim_affinity_apply(drv, getenv("ZE_AFFINITY_MASK")) != 0)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    the_driver = drv;
    gtsim_dbg_server_start(drv);
    return ZE_RESULT_SUCCESS;
}

/* The loader calls zeInit several times per application call (level-zero-
 * facts.md section 2): only the first one builds anything. */
static ze_result_t ZE_APICALL gtsim_zeInit(ze_init_flags_t flags)
{
    ze_result_t r;
    if (flags & ~(ze_init_flags_t)(ZE_INIT_FLAG_GPU_ONLY | ZE_INIT_FLAG_VPU_ONLY))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    pthread_mutex_lock(&init_lock);
    if (!init_done) {
        init_result = create_driver();
        init_done = true;
    }
    r = init_result;
    pthread_mutex_unlock(&init_lock);
    /* A VPU-only request does not see a GPU driver; nor does anyone when
     * ZE_AFFINITY_MASK left no device (the runtime makes no driver then). */
    if (r == ZE_RESULT_SUCCESS &&
        (flags == ZE_INIT_FLAG_VPU_ONLY || gtsim_driver_get()->nvisible == 0))
        return ZE_RESULT_ERROR_UNINITIALIZED;
    return r;
}

static ze_result_t ZE_APICALL gtsim_zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers)
{
    struct gtsim_driver *drv = gtsim_driver_get();
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!drv)
        return ZE_RESULT_ERROR_UNINITIALIZED;
    if (*pCount == 0 || !phDrivers) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    phDrivers[0] = (ze_driver_handle_t)drv;
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

static struct gtsim_driver *as_driver(ze_driver_handle_t h)
{
    struct gtsim_driver *d = (struct gtsim_driver *)h;
    return d && d->magic == GTSIM_MAGIC_DRIVER ? d : NULL;
}

static ze_result_t ZE_APICALL gtsim_zeDriverGetApiVersion(ze_driver_handle_t h,
                                                          ze_api_version_t *version)
{
    if (!as_driver(h))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!version)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *version = ZE_API_VERSION_1_4;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDriverGetProperties(ze_driver_handle_t h,
                                                          ze_driver_properties_t *p)
{
    static const uint8_t uuid[ZE_MAX_DRIVER_UUID_SIZE] = {'g', 't', 's', 'i', 'm', 0, 0, 1};
    if (!as_driver(h))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    memcpy(p->uuid.id, uuid, sizeof(uuid));
    p->driverVersion = 0x00010000;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDriverGetIpcProperties(ze_driver_handle_t h,
                                                             ze_driver_ipc_properties_t *p)
{
    if (!as_driver(h))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0; /* no IPC memory or events */
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeDriverGetExtensionProperties(
    ze_driver_handle_t h, uint32_t *pCount, ze_driver_extension_properties_t *p)
{
    (void)p;
    if (!as_driver(h))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *pCount = 0;
    return ZE_RESULT_SUCCESS;
}

void gtsim_fill_global(ze_global_dditable_t *t)
{
    t->pfnInit = gtsim_zeInit;
}

void gtsim_fill_driver(ze_driver_dditable_t *t)
{
    t->pfnGet = gtsim_zeDriverGet;
    t->pfnGetApiVersion = gtsim_zeDriverGetApiVersion;
    t->pfnGetProperties = gtsim_zeDriverGetProperties;
    t->pfnGetIpcProperties = gtsim_zeDriverGetIpcProperties;
    t->pfnGetExtensionProperties = gtsim_zeDriverGetExtensionProperties;
}
