/* SPDX-License-Identifier: MIT */
/* The executor: runs one decoded Xe-HPC instruction (iga.h) for one
 * hardware thread, lane by lane, on its register file, its work-group's
 * shared local memory and device memory. hw.c owns the thread (IP, stops,
 * barriers, end of thread); this file only computes. What is modelled and
 * what stops the thread as an illegal instruction: README.md, "Executing
 * instructions". */
#ifndef GTSIM_EXEC_H
#define GTSIM_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "gtsim/iga.h"
#include "gtsim/regfile.h"

/* Lanes a goto parked until the join it named (structured control flow):
 * bit i of off is lane i, waiting at wait_ip[i] (an IP, offset from
 * isabase). A thread that never diverged has none (NULL). */
struct gtsim_exec_simt {
    uint32_t off;
    uint32_t wait_ip[32];
};

/* True when [addr, addr+len) is device memory a kernel may touch. */
typedef bool (*gtsim_mem_check_fn)(void *ctx, uint64_t addr, uint64_t len);

struct gtsim_exec_env {
    const struct gtsim_regfile_layout *layout;
    uint8_t *slot; /* the thread's registers */
    uint8_t *slm;
    uint32_t slm_size;
    /* Where A32 stateless (BTI 255) addresses point: the launch's indirect
     * data (cross-thread and per-thread payload), which r0.0 locates. */
    uint8_t *indirect;
    uint32_t indirect_size;
    gtsim_mem_check_fn mem_ok;
    void *mem_ctx;
    uint32_t ip; /* the instruction's IP (offset from isabase) */
    /* The thread's parked lanes: *simt is allocated by the first goto that
     * parks one, and freed by the owner of the thread (hw.c) when it ends. */
    struct gtsim_exec_simt **simt;
    int32_t jump;           /* out: GTSIM_EXEC_JUMP, bytes from this instruction */
    uint64_t fault_address; /* out: GTSIM_EXEC_FAULT */
    const char *why;        /* out: GTSIM_EXEC_ILLEGAL, what is not modelled */
};

enum gtsim_exec_result {
    GTSIM_EXEC_NEXT = 0, /* done; the IP moves on */
    GTSIM_EXEC_JUMP,     /* done; the IP moves by jump bytes */
    GTSIM_EXEC_FAULT,    /* a memory access outside every allocation (fault_address) */
    GTSIM_EXEC_ILLEGAL,  /* not modelled: nothing was written */
};

enum gtsim_exec_result gtsim_exec_one(const struct gtsim_xinsn *x, struct gtsim_exec_env *env);

#endif
