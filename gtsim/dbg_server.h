/* SPDX-License-Identifier: MIT */
/* The debuggee side of program debug: the endpoint a debugger attaches to,
 * and the hooks the host API calls so the debugger sees modules, queues and
 * stopped threads. */
#ifndef GTSIM_DBG_SERVER_H
#define GTSIM_DBG_SERVER_H

struct gtsim_driver;
struct gtsim_device;
struct gtsim_module;

/* Opens the endpoint (always: a debuggee without ZET_ENABLE_PROGRAM_DEBUGGING
 * answers attaches with UNSUPPORTED_FEATURE). Failures are reported on
 * stderr and leave the process undebuggable, never broken. */
void gtsim_dbg_server_start(struct gtsim_driver *drv);

/* Host API hooks. module_created blocks until every attached debugger that
 * sees the module acknowledged its load event (or went away). */
void gtsim_dbg_module_created(struct gtsim_module *m);
void gtsim_dbg_module_destroyed(struct gtsim_module *m);
void gtsim_dbg_queue_created(struct gtsim_device *d);
void gtsim_dbg_queue_destroyed(struct gtsim_device *d);
/* The root device is lost (GTSIM_FAULTS launch:at=N): every session
 * that sees it is told so and disconnected. */
void gtsim_dbg_device_lost(struct gtsim_device *root);

#endif
