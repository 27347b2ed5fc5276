/* SPDX-License-Identifier: MIT */
/* The debuggee fuzz_gtsim_wire talks to: the endpoint of a gtsim driver
 * living in the fuzzer's own process (gtsim's sources are compiled in),
 * set up once with a device buffer and a loaded module, so attach replays a
 * module load and memory requests reach real allocations, the instruction
 * heap and the module's debug zebin. */
#ifndef ZESTUB_TESTS_FUZZ_GTSIM_WIRE_WORLD_H
#define ZESTUB_TESTS_FUZZ_GTSIM_WIRE_WORLD_H

#include <stdint.h>

#include <ze_api.h>

struct gtsim_module;

/* What the debuggee holds for the seeds to reach. */
struct gtsim_wire_world {
    char path[108];
    uint64_t config_id;
    uint8_t *buffer; /* a device allocation of GTSIM_WIRE_BUFFER_SIZE bytes */
    struct gtsim_module *module;
    ze_context_handle_t context; /* kept: the process's one context */
};
#define GTSIM_WIRE_BUFFER_SIZE 4096u

/* Empty (path[0] == 0) until gtsim_wire_world_init succeeds. */
extern struct gtsim_wire_world gtsim_wire_world;

/* zeInit with program debugging in a private runtime directory, one device
 * buffer and one module; the endpoint is then ready for connections. It
 * sets GTSIM_CONFIG=tiles=2 for the process: the seeds' fingerprint.
 * 0, or -1 when gtsim could not be set up. */
int gtsim_wire_world_init(void);

/* Addresses in the debuggee move from run to run (ASLR), so inputs name
 * them symbolically: a memory request whose address has one of these tags
 * in its top 16 bits is sent with the real place plus the low 16 bits. */
enum { TAG_BUFFER = 0xb0f0, TAG_IMAGE = 0xb0f1, TAG_ISA = 0xb0f2 };

/* The address that names low bytes past the place of tag. */
uint64_t gtsim_wire_symbolic(unsigned tag, uint64_t low);
/* The real address for a symbolic one; any other address as it is. */
uint64_t gtsim_wire_resolve(uint64_t addr);

#endif
