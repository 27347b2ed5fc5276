/* SPDX-License-Identifier: MIT */
/* A device as Intel's <device> element of the target description says it:
 * the one mapping from the driver's device, for the server's description
 * (target/tgt_ops.c) and the cores' (report/core_out.c), which must agree. */
#ifndef ZESTUB_REPORT_DEVICE_DESC_H
#define ZESTUB_REPORT_DEVICE_DESC_H

#include <stddef.h>

#include "regsets/tdesc_xml.h"
#include "zetdebug/zd.h"

/* Fills *out from d; its name is copied into name (namelen bytes), the
 * other strings point into d. */
void report_device_desc(const struct zd_device *d, struct regs_tdesc_device *out, char *name,
                        size_t namelen);

#endif
