/* SPDX-License-Identifier: MIT */
/* gtsim's API 1.5 zetDebugGetThreadRegisterSetProperties.
 *
 * The Debug table: asked for 1.4 (Debian's loader 1.8.12), gtsim writes
 * the eleven 1.4 entries and nothing after them; asked for 1.5 it also
 * fills the twelfth, the per-thread query.
 *
 * The query, on an xehpc device (256 GRF registers in hardware): a thread
 * running vadd as the fixture has it (no large GRF) reports GRF 128; a
 * thread running vadd built for large GRF (ocloc at test time, .ze_info
 * grf_count 256) reports 256; the other sets are the device's. A thread
 * that is not stopped, and "all threads", get ERROR_NOT_AVAILABLE, as from
 * Intel's runtime. The query is reached through the loader when it exports
 * the function (1.32 in tests/zetdebug/test_new_loader.sh), else through
 * gtsim's own 1.5 table, whose handles are the loader's in direct mode
 * (the loader's default with one driver). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zet_api.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

#define GRF_TYPE 1 /* ZET_DEBUG_REGSET_TYPE_GRF_INTEL_GPU */
#define SLOTS_1_4 11

typedef ze_result_t(ZE_APICALL *thread_regsets_fn)(zet_debug_session_handle_t, ze_device_thread_t,
                                                   uint32_t *, zet_debug_regset_properties_t *);
typedef ze_result_t(ZE_APICALL *debug_getter_fn)(ze_api_version_t, void *);

static void nap_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The Debug table as gtsim fills it for version v, in a buffer one entry
 * longer than 1.4's, the extra entry pre-set to a marker. */
static int debug_table(void *lib, ze_api_version_t v, void *slots[SLOTS_1_4 + 1], void *marker)
{
    debug_getter_fn get;
    *(void **)&get = dlsym(lib, "zetGetDebugProcAddrTable");
    for (int i = 0; i <= SLOTS_1_4; i++)
        slots[i] = NULL;
    slots[SLOTS_1_4] = marker;
    return get && get(v, slots) == ZE_RESULT_SUCCESS ? 0 : -1;
}

static void check_tables(void *lib, thread_regsets_fn *from_table)
{
    void *slots[SLOTS_1_4 + 1];
    int marker, filled = 1;

    if (!lib || debug_table(lib, ZE_MAKE_VERSION(1, 4), slots, &marker) != 0) {
        tap_ok(0, "gtsim's zetGetDebugProcAddrTable answers version 1.4 (%s)", dlerror());
        tap_ok(0, "and 1.5");
        return;
    }
    for (int i = 0; i < SLOTS_1_4; i++)
        filled = filled && slots[i] != NULL;
    tap_ok(filled && slots[SLOTS_1_4] == &marker,
           "asked for 1.4: the eleven 1.4 entries filled, nothing written after them");
    debug_table(lib, ZE_MAKE_VERSION(1, 5), slots, &marker);
    tap_ok(slots[SLOTS_1_4] != NULL && slots[SLOTS_1_4] != &marker,
           "asked for 1.5: the twelfth entry (pfnGetThreadRegisterSetProperties) filled");
    if (slots[SLOTS_1_4] != &marker)
        *(void **)from_table = slots[SLOTS_1_4];
}

/* vadd.cl built for xehpc with 256 GRF registers per thread, into dir. */
static int build_large_grf(const char *dir, char *path, size_t size)
{
    const char *src = getenv("top_srcdir");
    char cmd[2048];
    snprintf(cmd, sizeof(cmd),
             "ocloc compile -q -file '%s/tests/kernels/vadd.cl' -device pvc -options '-g' "
             "-internal_options '-cl-intel-256-GRF-per-thread' --format zebin -output vadd_large "
             "-output_no_suffix -out_dir '%s' >'%s/ocloc.log' 2>&1",
             src ? src : ".", dir, dir);
    snprintf(path, size, "%s/vadd_large", dir);
    return system(cmd) == 0 && access(path, R_OK) == 0 ? 0 : -1;
}

/* The first thread that reads as stopped. */
static int first_stopped(ze_device_handle_t dev, zet_debug_session_handle_t s,
                         ze_device_thread_t *out)
{
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    uint32_t cr[4];
    if (zeDeviceGetProperties(dev, &p) != ZE_RESULT_SUCCESS)
        return -1;
    for (uint32_t sl = 0; sl < p.numSlices; sl++)
        for (uint32_t ss = 0; ss < p.numSubslicesPerSlice; ss++)
            for (uint32_t eu = 0; eu < p.numEUsPerSubslice; eu++)
                for (uint32_t th = 0; th < p.numThreadsPerEU; th++) {
                    ze_device_thread_t t = {sl, ss, eu, th};
                    if (conf_read_cr0(s, t, cr) == ZE_RESULT_SUCCESS) {
                        *out = t;
                        return 0;
                    }
                }
    return -1;
}

/* One debuggee run: 5 checks. */
static void one_run(ze_device_handle_t dev, thread_regsets_fn fn, const char *kernel_file,
                    uint32_t want_grf)
{
    const char *args[] = {"vadd", "--groups", "4", "--wait-launch", NULL, NULL, NULL};
    const char *what = kernel_file ? "large-GRF vadd" : "vadd";
    zet_debug_regset_properties_t dev_props[32], thr_props[32];
    uint32_t ndev = 32, nthr = 0;
    zet_debug_session_handle_t s;
    zet_debug_event_t ev;
    struct conf_app app;
    ze_device_thread_t t;
    ze_result_t r;
    int same = 1, grf_seen = 0;

    if (kernel_file) {
        args[4] = "--kernel-file";
        args[5] = kernel_file;
    }
    if (conf_app_start_ready(&app, 1, args))
        tap_bail("the debuggee did not start");
    if (conf_attach(dev, &app, &s))
        return;
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY, CONF_DEADLINE_MS, &ev);
    r = fn(s, (ze_device_thread_t){0, 0, 0, 0}, &nthr, NULL);
    tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE,
           "%s: a thread that is not stopped: NOT_AVAILABLE (got %s)", what, conf_result(r));
    conf_app_send(&app, "go");
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &ev);
    zetDebugAcknowledgeEvent(s, &ev);
    if (!conf_app_expect(&app, "armed", CONF_DEADLINE_MS, NULL, 0))
        tap_bail("the debuggee did not get to its launch");
    conf_app_send(&app, "launch");
    conf_app_expect(&app, "launched", CONF_DEADLINE_MS, NULL, 0);
    nap_ms(300); /* well inside the time a paced thread runs */
    zetDebugInterrupt(s, conf_all_threads);
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED, CONF_DEADLINE_MS, &ev);
    if (first_stopped(dev, s, &t) != 0) {
        tap_ok(0, "%s: a thread stopped by the interrupt", what);
        zetDebugDetach(s);
        conf_app_kill(&app);
        return;
    }
    r = fn(s, conf_all_threads, &nthr, NULL);
    tap_ok(r == ZE_RESULT_ERROR_NOT_AVAILABLE, "%s: all threads at once: NOT_AVAILABLE (got %s)",
           what, conf_result(r));
    zetDebugGetRegisterSetProperties(dev, &ndev, dev_props);
    nthr = 0;
    r = fn(s, t, &nthr, NULL);
    tap_ok(r == ZE_RESULT_SUCCESS && nthr == ndev,
           "%s: stopped thread %u.%u.%u.%u: %u sets, the device's %u (%s)", what, t.slice,
           t.subslice, t.eu, t.thread, nthr, ndev, conf_result(r));
    for (uint32_t i = 0; i < 32; i++)
        thr_props[i] =
            (zet_debug_regset_properties_t){.stype = ZET_STRUCTURE_TYPE_DEBUG_REGSET_PROPERTIES};
    r = fn(s, t, &nthr, thr_props);
    for (uint32_t i = 0; r == ZE_RESULT_SUCCESS && i < nthr && i < ndev; i++) {
        if (thr_props[i].type == GRF_TYPE) {
            grf_seen = thr_props[i].count == want_grf;
            tap_diag("%s: GRF count %u (device-level %u)", what, thr_props[i].count,
                     dev_props[i].count);
        } else {
            same = same && thr_props[i].type == dev_props[i].type &&
                   thr_props[i].count == dev_props[i].count &&
                   thr_props[i].byteSize == dev_props[i].byteSize;
        }
    }
    tap_ok(r == ZE_RESULT_SUCCESS && grf_seen && same,
           "%s: GRF has %u registers, every other set is the device's (%s)", what, want_grf,
           conf_result(r));
    zetDebugResume(s, conf_all_threads);
    zetDebugDetach(s);
    conf_app_kill(&app);
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8];
    uint32_t nd = 8;
    thread_regsets_fn from_loader, from_table = NULL, fn;
    const char *lib_path = getenv("GTSIM_LIB");
    const char *icpt = getenv("ZE_ENABLE_LOADER_INTERCEPT");
    char dir[] = "/tmp/zestub-largegrf.XXXXXX", large[512], cmd[600];
    void *lib;

    setenv("GTSIM_CONFIG", "platform=xehpc,subslices=2,eus=2,threads=4", 1);
    conf_init(argc, argv, 240);
    if (!lib_path) {
        printf("1..0 # SKIP GTSIM_LIB is not set: this tests gtsim\n");
        return 0;
    }
    tap_plan(13);
    conf_set_pace(20);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
    check_tables(lib, &from_table);
    *(void **)&from_loader = dlsym(RTLD_DEFAULT, "zetDebugGetThreadRegisterSetProperties");
    fn = from_loader;
    if (from_loader)
        tap_diag("the query through the loader's zetDebugGetThreadRegisterSetProperties");
    else if (icpt && strcmp(icpt, "1") == 0)
        fn = NULL; /* the loader's handles are not gtsim's */
    else {
        fn = from_table;
        tap_diag("the loader has no zetDebugGetThreadRegisterSetProperties: the query through "
                 "gtsim's 1.5 table (direct mode: the loader's handles are gtsim's)");
    }
    if (!fn) {
        for (int i = 0; i < 11; i++)
            tap_skip("no way to the query: the loader has none and intercepts handles");
        return tap_done();
    }
    if (!mkdtemp(dir) || build_large_grf(dir, large, sizeof(large)) != 0) {
        tap_skip("no ocloc (package intel-opencl-icd) or it failed: no large-GRF kernel");
        for (int i = 0; i < 5; i++)
            tap_skip("no large-GRF kernel");
        one_run(devs[0], fn, NULL, 128);
    } else {
        tap_ok(1, "vadd built for large GRF with ocloc");
        one_run(devs[0], fn, NULL, 128);
        one_run(devs[0], fn, large, 256);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", dir);
    return tap_done();
}
