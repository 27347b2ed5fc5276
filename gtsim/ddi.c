/* SPDX-License-Identifier: MIT */
/* The entry points the Level Zero loader looks up in a driver library: one
 * getter per function table (level-zero-facts.md section 3). Each fills the
 * 1.4 layout from the installed headers (Debug also the 1.5 entry, for a
 * loader that asks for it); slots gtsim does not implement stay
 * NULL, which the loader turns into ZE_RESULT_ERROR_UNSUPPORTED_FEATURE in
 * direct mode (ZE_RESULT_ERROR_UNINITIALIZED in intercept mode). */
#include <stddef.h>
#include <string.h>

#include <ze_ddi.h>
#include <zes_ddi.h>
#include <zet_ddi.h>

#include "gtsim/gtsim.h"
#include "gtsim/zet_fill.h"

/* Tables are filled for any 1.x request; only a different major is refused. */
#define GTSIM_GETTER(prefix, Name, type, fill)                                                     \
    ZE_DLLEXPORT ze_result_t ZE_APICALL prefix##Get##Name##ProcAddrTable(ze_api_version_t v,       \
                                                                         type *t);                 \
    ZE_DLLEXPORT ze_result_t ZE_APICALL prefix##Get##Name##ProcAddrTable(ze_api_version_t v,       \
                                                                         type *t)                  \
    {                                                                                              \
        if (!t)                                                                                    \
            return ZE_RESULT_ERROR_INVALID_NULL_POINTER;                                           \
        if (ZE_MAJOR_VERSION(v) != 1)                                                              \
            return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;                                            \
        memset(t, 0, sizeof(*t));                                                                  \
        fill;                                                                                      \
        return ZE_RESULT_SUCCESS;                                                                  \
    }

/* ze: 17 mandatory tables, then 6 optional experimental ones. */
GTSIM_GETTER(ze, Global, ze_global_dditable_t, gtsim_fill_global(t);)
GTSIM_GETTER(ze, Driver, ze_driver_dditable_t, gtsim_fill_driver(t);)
GTSIM_GETTER(ze, Device, ze_device_dditable_t, gtsim_fill_device(t);)
GTSIM_GETTER(ze, Context, ze_context_dditable_t, gtsim_fill_context(t);)
GTSIM_GETTER(ze, CommandQueue, ze_command_queue_dditable_t, gtsim_fill_command_queue(t);)
GTSIM_GETTER(ze, CommandList, ze_command_list_dditable_t, gtsim_fill_command_list(t);)
GTSIM_GETTER(ze, Event, ze_event_dditable_t, gtsim_fill_event(t);)
GTSIM_GETTER(ze, EventPool, ze_event_pool_dditable_t, gtsim_fill_event_pool(t);)
GTSIM_GETTER(ze, Fence, ze_fence_dditable_t, gtsim_fill_fence(t);)
GTSIM_GETTER(ze, Image, ze_image_dditable_t, (void)0)
GTSIM_GETTER(ze, Kernel, ze_kernel_dditable_t, gtsim_fill_kernel(t);)
GTSIM_GETTER(ze, Mem, ze_mem_dditable_t, gtsim_fill_mem(t);)
GTSIM_GETTER(ze, Module, ze_module_dditable_t, gtsim_fill_module(t);)
GTSIM_GETTER(ze, ModuleBuildLog, ze_module_build_log_dditable_t, gtsim_fill_build_log(t);)
GTSIM_GETTER(ze, PhysicalMem, ze_physical_mem_dditable_t, (void)0)
GTSIM_GETTER(ze, Sampler, ze_sampler_dditable_t, gtsim_fill_sampler(t);)
GTSIM_GETTER(ze, VirtualMem, ze_virtual_mem_dditable_t, (void)0)
GTSIM_GETTER(ze, DeviceExp, ze_device_exp_dditable_t, (void)0)
GTSIM_GETTER(ze, EventExp, ze_event_exp_dditable_t, (void)0)
GTSIM_GETTER(ze, ImageExp, ze_image_exp_dditable_t, (void)0)
GTSIM_GETTER(ze, KernelExp, ze_kernel_exp_dditable_t, (void)0)
GTSIM_GETTER(ze, FabricEdgeExp, ze_fabric_edge_exp_dditable_t, (void)0)
GTSIM_GETTER(ze, FabricVertexExp, ze_fabric_vertex_exp_dditable_t, (void)0)

/* zet: 12 mandatory tables and one optional. */
GTSIM_GETTER(zet, Device, zet_device_dditable_t, gtsim_fill_zet_device(t);)
GTSIM_GETTER(zet, Context, zet_context_dditable_t, (void)0)
GTSIM_GETTER(zet, CommandList, zet_command_list_dditable_t, (void)0)
GTSIM_GETTER(zet, Kernel, zet_kernel_dditable_t, (void)0)
GTSIM_GETTER(zet, Module, zet_module_dditable_t, gtsim_fill_zet_module(t);)
/* Debug: the 1.4 entries for any 1.x; the 1.5 entry
 * (zetDebugGetThreadRegisterSetProperties) only when the loader asks for
 * 1.5 or later, since only then is its table that large (an older loader's
 * table ends after the 1.4 entries: writing there would overwrite its
 * memory). */
ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetDebugProcAddrTable(ze_api_version_t v,
                                                             zet_debug_dditable_t *t);
ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetDebugProcAddrTable(ze_api_version_t v,
                                                             zet_debug_dditable_t *t)
{
    if (!t)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (ZE_MAJOR_VERSION(v) != 1)
        return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
    memset(t, 0, sizeof(*t));
    gtsim_fill_zet_debug(t);
    gtsim_fill_zet_debug_regs(t);
    if (ZE_MINOR_VERSION(v) >= 5) {
        gtsim_pfn_thread_regsets_t fn = gtsim_zet_debug_thread_regsets();
        memcpy((char *)t +
                   offsetof(struct gtsim_zet_debug_dditable_1_5, pfnGetThreadRegisterSetProperties),
               &fn, sizeof(fn));
    }
    return ZE_RESULT_SUCCESS;
}
GTSIM_GETTER(zet, Metric, zet_metric_dditable_t, (void)0)
GTSIM_GETTER(zet, MetricGroup, zet_metric_group_dditable_t, (void)0)
GTSIM_GETTER(zet, MetricQuery, zet_metric_query_dditable_t, (void)0)
GTSIM_GETTER(zet, MetricQueryPool, zet_metric_query_pool_dditable_t, (void)0)
GTSIM_GETTER(zet, MetricStreamer, zet_metric_streamer_dditable_t, (void)0)
GTSIM_GETTER(zet, TracerExp, zet_tracer_exp_dditable_t, (void)0)
GTSIM_GETTER(zet, MetricGroupExp, zet_metric_group_exp_dditable_t, (void)0)

/* zes: sysman is not simulated; the tables exist because the loader
 * requires them. */
GTSIM_GETTER(zes, Device, zes_device_dditable_t, (void)0)
GTSIM_GETTER(zes, Driver, zes_driver_dditable_t, (void)0)
GTSIM_GETTER(zes, Diagnostics, zes_diagnostics_dditable_t, (void)0)
GTSIM_GETTER(zes, Engine, zes_engine_dditable_t, (void)0)
GTSIM_GETTER(zes, FabricPort, zes_fabric_port_dditable_t, (void)0)
GTSIM_GETTER(zes, Fan, zes_fan_dditable_t, (void)0)
GTSIM_GETTER(zes, Firmware, zes_firmware_dditable_t, (void)0)
GTSIM_GETTER(zes, Frequency, zes_frequency_dditable_t, (void)0)
GTSIM_GETTER(zes, Led, zes_led_dditable_t, (void)0)
GTSIM_GETTER(zes, Memory, zes_memory_dditable_t, (void)0)
GTSIM_GETTER(zes, PerformanceFactor, zes_performance_factor_dditable_t, (void)0)
GTSIM_GETTER(zes, Power, zes_power_dditable_t, (void)0)
GTSIM_GETTER(zes, Psu, zes_psu_dditable_t, (void)0)
GTSIM_GETTER(zes, Ras, zes_ras_dditable_t, (void)0)
GTSIM_GETTER(zes, Scheduler, zes_scheduler_dditable_t, (void)0)
GTSIM_GETTER(zes, Standby, zes_standby_dditable_t, (void)0)
GTSIM_GETTER(zes, Temperature, zes_temperature_dditable_t, (void)0)
