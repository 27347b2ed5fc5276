/* SPDX-License-Identifier: MIT */
/* bench/xpti/floor.c: the dispatch floor the Notify row is measured against. */
#ifndef ZESTUB_BENCH_XPTI_FLOOR_H
#define ZESTUB_BENCH_XPTI_FLOOR_H

#include "xpti/xpti.h"

xpti_result_t xpti_bench_floor_notify(xpti_stream_id_t stream, uint16_t trace_type,
                                      struct xpti_event *parent, struct xpti_event *object,
                                      uint64_t instance, const void *user_data);

#endif
