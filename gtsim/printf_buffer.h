/* SPDX-License-Identifier: MIT */
/* A kernel's printf buffer, as Intel's runtime gives one to every kernel
 * whose .ze_info has a printf_buffer payload argument (README.md,
 * "printf"). */
#ifndef GTSIM_PRINTF_BUFFER_H
#define GTSIM_PRINTF_BUFFER_H

#include <stdbool.h>
#include <stdint.h>

#include "gtsim/gtsim.h"

/* The runtime's size: 4 MiB (IGC's code compares its reservations with
 * it), and its first dword's initial value: the offset of the first free
 * byte, just after that dword. */
#define GTSIM_PRINTF_BUFFER_SIZE (4u << 20)
#define GTSIM_PRINTF_BUFFER_START 4u

/* True when the kernel's payload has a printf_buffer argument. */
bool gtsim_printf_wanted(const struct gtsim_zebin_kernel *info);
/* Allocates and initialises the buffer, entered in the allocation table so
 * the kernel may write it; NULL when out of memory. */
uint8_t *gtsim_printf_buffer_create(struct gtsim_driver *drv, struct gtsim_device *dev);
void gtsim_printf_buffer_destroy(struct gtsim_driver *drv, uint8_t *buf);
/* After a launch: what the kernel printed is not formatted by gtsim, so a
 * note on stderr says how much was dropped; the buffer is reset for the
 * next launch, as the runtime does after printing it. */
void gtsim_printf_after_launch(uint8_t *buf, const char *kernel);

#endif
