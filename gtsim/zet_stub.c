/* SPDX-License-Identifier: MIT */
/* Program debug (zetDeviceGetDebugProperties, zetModuleGetDebugInfo and the
 * zetDebug* calls) is not simulated yet: the slots stay empty, so a debugger
 * gets ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, exactly what a driver without
 * debug support returns. The debug side replaces this file. */
#include "gtsim/zet_fill.h"

void gtsim_fill_zet_device(zet_device_dditable_t *t)
{
    (void)t;
}

void gtsim_fill_zet_module(zet_module_dditable_t *t)
{
    (void)t;
}

void gtsim_fill_zet_debug(zet_debug_dditable_t *t)
{
    (void)t;
}
