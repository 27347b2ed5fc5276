/* SPDX-License-Identifier: MIT */
/* A stand-in for the part of a SYCL runtime that talks to XPTI, for the
 * sycl_like example: it runs kernels with plain Level Zero and tells the
 * XPTI dispatcher (libxptifw) what the real runtime tells it
 * (doc/xpti-facts.md section 6): on stream "sycl", node_create with the
 * kernel_name / sym_* / sycl_device* metadata the first time a submission
 * site is seen, then task_begin / task_end around each launch with the
 * queue id stashed as "queue_id"; on "sycl.experimental.mem_alloc",
 * mem_alloc_begin/end and mem_release_begin/end around each allocation and
 * free. Every step is also logged on stdout, one line each, so tests can
 * compare what zestub joins with what really happened:
 *
 *   site KERNEL at FILE:LINE function FUNC uid=0xSITE_UID
 *   submit kernel KERNEL instance I queue 0xQ device D at FILE:LINE uid=0xTASK_UID
 *   end kernel KERNEL instance I queue 0xQ uid=0xTASK_UID result RESULT
 *   alloc 0xPTR size N at FILE:LINE uid=0xUID
 *   free 0xPTR at FILE:LINE uid=0xUID
 */
#ifndef EXAMPLES_SYCL_RT_H
#define EXAMPLES_SYCL_RT_H

#include <stddef.h>
#include <stdint.h>

#include "examples/l0_common.h"

/* A code location, as SYCL's code_location captures it at the call site.
 * C has no column builtin: the column is unknown (0). */
struct rt_loc {
    const char *function, *file;
    uint32_t line;
};
#define RT_HERE ((struct rt_loc){__func__, __FILE__, __LINE__})

struct rt_queue {
    struct l0_env *env;
    unsigned device; /* index among the driver's devices, for the log */
    uint64_t id;     /* what the runtime stashes as "queue_id" */
    ze_command_queue_handle_t q;
};

/* Starts the dispatcher and the two streams (subscribers load here). */
void rt_init(void);
void rt_fini(void);

int rt_queue_create(struct rt_queue *q, struct l0_env *env, unsigned device, uint64_t id);
void rt_queue_destroy(struct rt_queue *q);

/* sycl::malloc_device / sycl::free. */
void *rt_malloc_device(struct l0_env *env, size_t bytes, struct rt_loc loc);
void rt_free(struct l0_env *env, void *p, struct rt_loc loc);

/* queue.submit(...).wait(): launches `kernel` (arguments and group size
 * already set) with `groups` work-groups and waits for it. The task is
 * running from before the launch until the wait returns. Returns the
 * result of the wait (ZE_RESULT_ERROR_DEVICE_LOST after a page fault no
 * debugger handled). */
ze_result_t rt_submit(struct rt_queue *q, ze_kernel_handle_t kernel, const char *kernel_name,
                      uint32_t groups, struct rt_loc loc);

#endif
