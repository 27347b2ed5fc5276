/* SPDX-License-Identifier: MIT */
/* The zet Debug function table as API 1.5 lays it out. The installed
 * headers may be API 1.4 (Debian 12's), so gtsim declares the 1.5 table
 * itself: the 1.4 table's eleven entries, then
 * pfnGetThreadRegisterSetProperties, in that order (the public zet_ddi.h
 * of any 1.5+ release). A loader that asks for version >= 1.5 passes a
 * table this large; one that asks for 1.4 passes only the 1.4 part, so
 * gtsim must not write past it. */
#ifndef GTSIM_ZET_DEBUG_1_5_H
#define GTSIM_ZET_DEBUG_1_5_H

#include <stddef.h>

#include <zet_ddi.h>

typedef ze_result_t(ZE_APICALL *gtsim_pfn_thread_regsets_t)(zet_debug_session_handle_t hDebug,
                                                            ze_device_thread_t thread,
                                                            uint32_t *pCount,
                                                            zet_debug_regset_properties_t *props);

struct gtsim_zet_debug_dditable_1_5 {
    zet_debug_dditable_t v1_4; /* eleven function pointers, no padding */
    gtsim_pfn_thread_regsets_t pfnGetThreadRegisterSetProperties;
};

_Static_assert(sizeof(zet_debug_dditable_t) == 11 * sizeof(void (*)(void)),
               "the installed 1.4 zet Debug table has eleven entries");
_Static_assert(offsetof(struct gtsim_zet_debug_dditable_1_5, pfnGetThreadRegisterSetProperties) ==
                   11 * sizeof(void (*)(void)),
               "the 1.5 entry follows the eleven of 1.4");

#endif
