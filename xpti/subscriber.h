/* SPDX-License-Identifier: MIT */
/* Internals of libzestub_xpti.so, the subscriber that fills the XPTI table. */
#ifndef ZESTUB_XPTI_SUBSCRIBER_H
#define ZESTUB_XPTI_SUBSCRIBER_H

#include <stdint.h>

#include "xpti/xpti.h"
#include "xpti/xtab_writer.h"

/* The table index of the code location `ev` belongs to, recording it (with
 * the runtime's metadata) the first time; XTAB_NONE if `ev` has no payload
 * or the site area is full. Cheap for a known location: no metadata read. */
uint32_t sub_site_of(struct xtab_w *w, const struct xpti_event *ev);

#endif
