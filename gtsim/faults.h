/* SPDX-License-Identifier: MIT */
/* GTSIM_FAULTS: zetDebug calls that fail, slow down or lose the device on
 * purpose, so a debugger's error paths can be tested (README.md, "Fault
 * injection"). Read once at the first zeInit; each rule keeps its own count
 * across the whole process. */
#ifndef GTSIM_FAULTS_H
#define GTSIM_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ze_api.h>

enum gtsim_fault_call {
    GTSIM_FAULT_ATTACH,
    GTSIM_FAULT_DETACH,
    GTSIM_FAULT_READ_EVENT, /* counts only calls that would deliver an event */
    GTSIM_FAULT_ACK,
    GTSIM_FAULT_INTERRUPT,
    GTSIM_FAULT_RESUME,
    GTSIM_FAULT_READ_MEMORY,
    GTSIM_FAULT_WRITE_MEMORY,
    GTSIM_FAULT_READ_REGISTERS,
    GTSIM_FAULT_WRITE_REGISTERS,
    GTSIM_FAULT_CALLS
};

/* What one call must do. */
struct gtsim_fault_hit {
    long delay_ms;      /* sleep this long first */
    bool fail;          /* then return result instead of doing the call */
    ze_result_t result; /* ZE_RESULT_ERROR_DEVICE_LOST when lose is set */
    bool lose;          /* the device is lost: the session ends */
};

/* Parses GTSIM_FAULTS (may be NULL or empty). 0, or -EINVAL with a
 * sentence in err. Called by zeInit, which fails on a bad setting. */
int gtsim_faults_init(const char *text, char *err, size_t errlen);
/* Counts one call of this kind and says what it must do. */
void gtsim_faults_check(enum gtsim_fault_call call, struct gtsim_fault_hit *hit);
/* Could a call of this kind be failed, delayed or lose the device (a rule
 * names it, or a time:ms rule is set)? Reads only what gtsim_faults_init
 * set, with no lock: zetDebugInterrupt asks it from a signal handler. */
bool gtsim_faults_may_touch(enum gtsim_fault_call call);
/* Milliseconds after an attach at which its device is lost, or -1. */
long gtsim_faults_lost_after_ms(void);
/* Counts one kernel launch; true for the one "launch:at=N" loses the
 * device at (the Nth, 1-based). */
bool gtsim_faults_launch_loses(void);

#endif
