/* SPDX-License-Identifier: MIT */
/* Sets up the gtsim debuggee of fuzz_gtsim_wire in this process
 * (gtsim_wire_world.h) and resolves the inputs' symbolic addresses. */
#include "tests/fuzz/gtsim_wire_world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ze_ddi.h>

#include "gtsim/dbg_proto.h"
#include "gtsim/dbg_srv_int.h"
#include "gtsim/gtsim.h"
#include "tests/lib/slurp.h"

/* The same as ze_ddi.h's getters, defined in gtsim/ddi.c (compiled in). */
ze_result_t ZE_APICALL zeGetGlobalProcAddrTable(ze_api_version_t v, ze_global_dditable_t *t);
ze_result_t ZE_APICALL zeGetDriverProcAddrTable(ze_api_version_t v, ze_driver_dditable_t *t);
ze_result_t ZE_APICALL zeGetDeviceProcAddrTable(ze_api_version_t v, ze_device_dditable_t *t);
ze_result_t ZE_APICALL zeGetContextProcAddrTable(ze_api_version_t v, ze_context_dditable_t *t);
ze_result_t ZE_APICALL zeGetMemProcAddrTable(ze_api_version_t v, ze_mem_dditable_t *t);
ze_result_t ZE_APICALL zeGetModuleProcAddrTable(ze_api_version_t v, ze_module_dditable_t *t);

struct gtsim_wire_world gtsim_wire_world;
static char runtime_dir[64];

/* After gtsim's own exit handler removed the socket (atexit runs it
 * first): gtsim's per-user directory inside ours, then ours. */
static void remove_runtime_dir(void)
{
    char gtsim_dir[128];
    if (!runtime_dir[0])
        return;
    if (gtsim_dbg_runtime_dir(getuid(), gtsim_dir, sizeof(gtsim_dir)) == 0)
        rmdir(gtsim_dir);
    rmdir(runtime_dir);
}

static const char *fixture_path(char *buf, size_t len)
{
    const char *top = getenv("top_srcdir");
    snprintf(buf, len, "%s/tests/kernels/fixtures/vadd-xehpc.elf", top && *top ? top : ".");
    return buf;
}

/* A module from the fixture, or NULL (the seeds then reach less). */
static struct gtsim_module *load_module(ze_context_handle_t ctx, ze_device_handle_t dev)
{
    ze_module_dditable_t mod;
    ze_module_handle_t m = NULL;
    char path[512];
    size_t n = 0;
    void *zebin = tests_slurp(fixture_path(path, sizeof(path)), &n);
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .format = ZE_MODULE_FORMAT_NATIVE,
                           .inputSize = n,
                           .pInputModule = zebin};
    if (zebin && zeGetModuleProcAddrTable(ZE_API_VERSION_CURRENT, &mod) == ZE_RESULT_SUCCESS &&
        mod.pfnCreate(ctx, dev, &md, &m, NULL) != ZE_RESULT_SUCCESS)
        m = NULL;
    free(zebin);
    return (struct gtsim_module *)m;
}

int gtsim_wire_world_init(void)
{
    ze_global_dditable_t glob;
    ze_driver_dditable_t drvt;
    ze_device_dditable_t devt;
    ze_context_dditable_t ctxt;
    ze_mem_dditable_t memt;
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
    uint32_t one = 1;
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_device_mem_alloc_desc_t ad = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    void *buf = NULL;
    struct gtsim_wire_world *w = &gtsim_wire_world;

    snprintf(runtime_dir, sizeof(runtime_dir), "/tmp/zestub-fuzz-wire-XXXXXX");
    if (!mkdtemp(runtime_dir))
        return -1;
    atexit(remove_runtime_dir);
    setenv("GTSIM_RUNTIME_DIR", runtime_dir, 1);
    setenv("ZET_ENABLE_PROGRAM_DEBUGGING", "1", 1);
    setenv("GTSIM_CONFIG", "tiles=2", 1); /* tile sessions too; the seeds' fingerprint */
    if (zeGetGlobalProcAddrTable(ZE_API_VERSION_CURRENT, &glob) ||
        zeGetDriverProcAddrTable(ZE_API_VERSION_CURRENT, &drvt) ||
        zeGetDeviceProcAddrTable(ZE_API_VERSION_CURRENT, &devt) ||
        zeGetContextProcAddrTable(ZE_API_VERSION_CURRENT, &ctxt) ||
        zeGetMemProcAddrTable(ZE_API_VERSION_CURRENT, &memt) || glob.pfnInit(0) ||
        drvt.pfnGet(&one, &drv) || (one = 1, devt.pfnGet(drv, &one, &dev)) ||
        ctxt.pfnCreate(drv, &cd, &ctx) ||
        memt.pfnAllocDevice(ctx, &ad, GTSIM_WIRE_BUFFER_SIZE, 64, dev, &buf) ||
        !gtsim_srv_the_server)
        return -1;
    w->buffer = buf;
    w->context = ctx;
    memset(w->buffer, 0x5a, GTSIM_WIRE_BUFFER_SIZE);
    w->module = load_module(ctx, dev);
    w->config_id = gtsim_dbg_config_id(&gtsim_driver_get()->cfg);
    snprintf(w->path, sizeof(w->path), "%s", gtsim_srv_the_server->path);
    return 0;
}

uint64_t gtsim_wire_symbolic(unsigned tag, uint64_t low)
{
    return (uint64_t)tag << 48 | (low & 0xffff);
}

uint64_t gtsim_wire_resolve(uint64_t addr)
{
    const struct gtsim_wire_world *w = &gtsim_wire_world;
    uint64_t low = addr & 0xffff;
    switch (addr >> 48) {
    case TAG_BUFFER:
        return (uint64_t)(uintptr_t)w->buffer + low;
    case TAG_IMAGE:
        return w->module ? (uint64_t)(uintptr_t)w->module->debug_image + low : addr;
    case TAG_ISA:
        return w->module ? w->module->load + low : addr;
    default:
        return addr;
    }
}
