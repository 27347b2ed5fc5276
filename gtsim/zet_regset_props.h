/* SPDX-License-Identifier: MIT */
/* Register-set properties as zetDebugGetRegisterSetProperties and its
 * per-thread form (API 1.5) give them. */
#ifndef GTSIM_ZET_REGSET_PROPS_H
#define GTSIM_ZET_REGSET_PROPS_H

#include <zet_api.h>

#include "gtsim/regfile.h"

/* The layout's sets, the count idiom of the API; a non-zero grf_count
 * replaces the GRF set's count (one thread's large-GRF mode). */
ze_result_t gtsim_regset_props(const struct gtsim_regfile_layout *lay, uint32_t grf_count,
                               uint32_t *pCount, zet_debug_regset_properties_t *props);
ze_result_t ZE_APICALL gtsim_zetDebugGetRegisterSetProperties(zet_device_handle_t hDevice,
                                                              uint32_t *pCount,
                                                              zet_debug_regset_properties_t *props);

#endif
