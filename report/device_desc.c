/* SPDX-License-Identifier: MIT */
#include "report/device_desc.h"

#include <stdio.h>

void report_device_desc(const struct zd_device *d, struct regs_tdesc_device *out, char *name,
                        size_t namelen)
{
    snprintf(name, namelen, "%.*s", namelen > 128 ? 127 : (int)namelen - 1, d->name);
    *out =
        (struct regs_tdesc_device){.vendor_id = (uint16_t)d->vendor_id,
                                   .device_id = (uint16_t)d->device_id,
                                   .name = name,
                                   .pci_slot = d->pci_slot,
                                   .uuid = d->uuid,
                                   .total_cores = d->slices * d->subslices * d->eus,
                                   .total_threads = d->nthreads,
                                   .subdevice_id = d->parent >= 0 ? (int32_t)d->subdevice_id : -1};
}
