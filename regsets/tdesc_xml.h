/* SPDX-License-Identifier: MIT */
/* The target-description XML of a register catalogue (protocol 3.1-3.2),
 * shared by the server (qXfer:features:read) and the core writer (its
 * program note): both must describe the registers in the same words. */
#ifndef ZESTUB_REGSETS_TDESC_XML_H
#define ZESTUB_REGSETS_TDESC_XML_H

#include <stddef.h>
#include <stdint.h>

#include "regsets/regs_catalog.h"

/* What Intel's <device> element says about the device. */
struct regs_tdesc_device {
    uint16_t vendor_id, device_id;
    const char *name;
    const char *pci_slot; /* "" or NULL: "0000:00:00.0" */
    const uint8_t *uuid;  /* 16 bytes in driver order, NULL: no attribute */
    uint32_t total_cores, total_threads;
    int32_t subdevice_id; /* -1: a root device (no attribute) */
};

/* The whole document, NUL-terminated, in a malloc'd buffer (*len without
 * the NUL). dev NULL: no <device> element. NULL when out of memory. */
char *regs_tdesc_xml(const struct regs_catalog *c, const struct regs_tdesc_device *dev,
                     size_t *len);

#endif
