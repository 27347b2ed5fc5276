/* SPDX-License-Identifier: MIT */
/* Decoded instructions of one device, by tile and IP, so the executor asks
 * IGA once per instruction and not once per thread and step. An entry keeps
 * the bytes it was decoded from (breakpoint bit cleared): code a debugger
 * rewrote is decoded again; setting or clearing a breakpoint is not a
 * rewrite. Not thread-safe: hw.c calls it under hw->lock. */
#ifndef GTSIM_DECODE_CACHE_H
#define GTSIM_DECODE_CACHE_H

#include <stdint.h>

#include "gtsim/iga.h"

struct gtsim_decode_cache;

struct gtsim_decode_cache *gtsim_decode_cache_create(enum gtsim_platform p);
void gtsim_decode_cache_destroy(struct gtsim_decode_cache *c);

/* The decoded instruction at code (avail bytes readable), which tile
 * fetches at ip. NULL when it cannot be decoded (or out of memory). */
const struct gtsim_xinsn *gtsim_decode_cache_get(struct gtsim_decode_cache *c, uint32_t tile,
                                                 uint32_t ip, const uint8_t *code, size_t avail);

#endif
