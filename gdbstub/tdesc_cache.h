/* SPDX-License-Identifier: MIT */
/* The target-description XML already built, by what it was built from
 * (tdesc_cache.c). GDB reads target.xml after every attach and for every
 * new description id; the document is some 30 KB of printf output for a
 * PVC-sized register file, and depends on nothing but the registers of the
 * catalogue and the device's <device> attributes. */
#ifndef ZESTUB_GDBSTUB_TDESC_CACHE_H
#define ZESTUB_GDBSTUB_TDESC_CACHE_H

#include "gdbstub/packet.h"
#include "gdbstub/target.h"
#include "regsets/regs_catalog.h"

struct rsp_tdesc_cache;

void rsp_tdesc_cache_free(struct rsp_tdesc_cache *c);
/* The XML built from a catalogue holding exactly these registers and this
 * device (NULL: no <device> element), or NULL. The registers and the
 * device are compared by value, not by pointer: a catalogue freed at a
 * detach and another allocated at the same address after the next attach
 * do not match unless they are the same registers. */
const struct rsp_buf *rsp_tdesc_cache_find(const struct rsp_tdesc_cache *c,
                                           const struct regs_catalog *regs,
                                           const struct rsp_device_info *dev);
/* Keeps a copy of xml for regs and dev, replacing the oldest entry when
 * full; creates *c on first use. Out of memory keeps nothing (the next
 * request builds again). */
void rsp_tdesc_cache_store(struct rsp_tdesc_cache **c, const struct regs_catalog *regs,
                           const struct rsp_device_info *dev, const struct rsp_buf *xml);

#endif
