/* SPDX-License-Identifier: MIT */
/* The event flow of a SYCL runtime on the "sycl" stream (seed documents
 * sycl-instrumentation.md and xpti-facts.md section 6), driven through the
 * dispatcher ABI exactly as the runtime does: one graph, a node per kernel
 * submission site (node_create only for instance 1), edges, task begin/end,
 * signal and wait notifications. Shared by the subscriber test and the
 * sycl_app program the correlation work reuses. */
#ifndef ZESTUB_TESTS_XPTI_SYCL_FLOW_H
#define ZESTUB_TESTS_XPTI_SYCL_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "xpti/xpti.h"
#include "xpti/xpti_if.h"

#define SYCL_FLOW_KERNEL "_ZTS9VectorAdd"
#define SYCL_FLOW_FUNCTION "main"
#define SYCL_FLOW_FILE "vadd.cpp"
#define SYCL_FLOW_LINE 42
#define SYCL_FLOW_COLUMN 7
#define SYCL_FLOW_DEVICE "gtsim:0"

struct sycl_flow {
    int submissions;    /* kernel submissions to emit (same site) */
    uint64_t graph_uid; /* filled in */
    uint64_t node_uid;  /* the first submission's 64-bit id */
    uint64_t copy_uid;  /* a memory-transfer node the kernel depends on */
    uint64_t edge_uid;
    uint64_t last_wait_instance;
    int api_failures; /* dispatcher calls that did not return what the runtime expects */
};

/* Returns 0 when every call succeeded (with tracing off the notifications
 * report FALSE, which the runtime treats as "nobody listens"). */
int sycl_flow_run(struct sycl_flow *flow);

#endif
