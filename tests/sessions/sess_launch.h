/* SPDX-License-Identifier: MIT */
/* What the sessions tests that run a kernel share: letting a --wait-launch
 * debuggee (tests/conformance's) load its module and launch, with the
 * module load released through sessions/, and the driver's register reads
 * so far. */
#ifndef ZESTUB_TESTS_SESS_LAUNCH_H
#define ZESTUB_TESTS_SESS_LAUNCH_H

#include <stdint.h>

#include "sessions/sess.h"
#include "tests/conformance/conf_util.h"

/* Sends "go", releases the module load note (within deadline_ms), waits
 * for "armed", sends "launch", waits for "launched", then lets the device
 * dispatch every group (300 ms; at pace 1 none ends). 0, or -1 when the
 * application did not say so in time. */
int sess_test_launch(struct conf_app *app, struct sess_manager *m, uint64_t deadline_ms);

/* zetDebugReadRegisters calls so far (zd's statistics). */
uint64_t sess_test_reads(struct zd *zd);

#endif
