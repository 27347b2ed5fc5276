/* SPDX-License-Identifier: MIT */
/* A scripted Level Zero driver for zetdebug's tests: the ze and zet
 * functions zetdebug calls, defined here so that a test linked with this
 * file and without the loader can make each answer what a real driver
 * may and gtsim never does. A test sets F's fields before the call it
 * wants to steer. */
#ifndef ZESTUB_TESTS_ZETDEBUG_ZD_FAKE_DRIVER_H
#define ZESTUB_TESTS_ZETDEBUG_ZD_FAKE_DRIVER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ze_api.h>
#include <zet_api.h>

struct fdev {
    ze_device_type_t type;
    uint32_t vendor;
    ze_result_t props_r, pci_r, dbg_r, regs_r1, regs_r2;
    bool attach_flag;
    int regsets; /* 0: the five sets; 1: GRF only, an unreadable CE, SBA v1, 70 sets */
    uint32_t nsub;
    struct fdev *subs;
    bool is_sub;
};

struct fake_driver {
    ze_result_t init_r, drv_r1, drv_r2, devget_r;
    uint32_t ndrivers;
    uint32_t ndev;     /* devices of every driver but the first when empty_first */
    bool empty_first;  /* the first driver has no devices */
    struct fdev *devs; /* the devices of each driver */
    unsigned devget_calls;
    /* sessions */
    ze_result_t attach_r, detach_r, ack_r, run_r, mem_r, reg_r;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* Reads wait at a shut gate whatever their timeout, so a test knows
     * the reader is inside zetDebugReadEvent (reading). */
    bool gated, reading;
    unsigned gate_shut; /* times the gate was shut, for gate_watchdog */
    unsigned detaches;  /* zetDebugDetach calls */
    struct {
        ze_result_t r;
        zet_debug_event_type_t type;
        bool need_ack;
    } script[16];
    unsigned nscript, next;
    unsigned acks;
};
extern struct fake_driver F;

/* zetDebugGetThreadRegisterSetProperties' answer (API 1.5) and its calls. */
extern ze_result_t thread_r;
extern unsigned thread_calls;

/* An Intel GPU with every query answering. */
struct fdev fake_gpu(void);
/* The i-th event read answers r with an event of that type (needing an
 * acknowledgement when ack); reads past the last scripted answer NOT_READY. */
void fake_script(unsigned i, ze_result_t r, zet_debug_event_type_t type, bool ack);
/* Shut, event reads wait at the gate whatever their timeout (a watchdog
 * opens it after 5 s), so a test knows the reader is inside a read. */
void fake_gate(bool shut);
/* Waits (10 s at most) until a read is held at the gate. */
bool fake_gate_reached(void);
/* zetDebugDetach calls so far. */
unsigned fake_detaches(void);

#endif
