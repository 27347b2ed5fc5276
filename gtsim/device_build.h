/* SPDX-License-Identifier: MIT */
#ifndef GTSIM_DEVICE_BUILD_H
#define GTSIM_DEVICE_BUILD_H

#include <stddef.h>
#include <stdint.h>

struct gtsim_driver;
struct gtsim_device;

/* Builds root device `ordinal` (and its tiles) from the driver's config. */
struct gtsim_device *gtsim_device_build(struct gtsim_driver *drv, uint32_t ordinal, char *err,
                                        size_t errlen);
struct gtsim_device *gtsim_as_device(void *handle);
/* The work-group limits zeDeviceGetComputeProperties reports: the total
 * and the per-dimension maxima (X, Y, Z). Kernels stay within them. */
void gtsim_device_group_limits(const struct gtsim_device *d, uint32_t *total, uint32_t dims[3]);

#endif
