/* SPDX-License-Identifier: MIT */
/* A fake device model behind gdbstub's target interface, for the RSP tests:
 * two devices (pid 1: 8 threads, 128 x 256-bit GRF; pid 2, a sub-device: 4
 * threads with a PVC-sized register file of 256 x 512-bit GRF), thread 1.3
 * unavailable, 64 KiB of default-space memory at 0x10000 and 4 KiB of SLM
 * per device. Tests steer it with "monitor mock ..." (see mock_target.c). */
#ifndef ZESTUB_TESTS_RSP_MOCK_TARGET_H
#define ZESTUB_TESTS_RSP_MOCK_TARGET_H

#include "gdbstub/target.h"

struct mock_target;

struct mock_target *mock_target_new(void);
void mock_target_free(struct mock_target *m);
/* Back to the state mock_target_new gives, cheaply (the catalogs, the pipe
 * and the devices' memory stay; an attach gives memory and registers their
 * first values again, filling only what was written since). */
void mock_target_reset(struct mock_target *m);
const struct rsp_target_ops *mock_target_ops(void);
/* Devices attached now (client_gone detaches them all). */
unsigned mock_target_attached_count(const struct mock_target *m);

#endif
