/* SPDX-License-Identifier: MIT */
/* GTSIM_CONFIG: the shape of the simulated GPU, from one environment
 * variable ("key=value,key=value"). See gtsim/README.md for the keys. */
#ifndef GTSIM_CONFIG_H
#define GTSIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gtsim/platform.h"

struct gtsim_config {
    enum gtsim_platform platform;
    uint32_t devices;   /* root devices */
    uint32_t tiles;     /* sub-devices per root device; 1 = none */
    uint32_t slices;    /* per tile */
    uint32_t subslices; /* per slice */
    uint32_t eus;       /* per subslice */
    uint32_t threads;   /* per EU */
    uint64_t pace;      /* instructions per second per thread, 0 = unlimited */
    uint32_t workers;   /* simulator worker threads per root device */
    bool tile_attach;   /* sub-devices can be attached individually */
    /* Cost knobs, not the shape (README.md, "Cost model"): */
    uint32_t debug_latency_us;    /* debugger side: extra per register/memory access */
    uint32_t interrupt_spread_ms; /* debuggee side: interrupted threads stop over this window */
    /* A behaviour, not the shape (README.md, "Hangs"): 1 = the last thread
     * of every work-group never arrives at a barrier. */
    uint32_t barrier_skip;
    uint32_t poll_us; /* a debug stream polls this long before it sleeps */
    /* 1 = threads execute instructions (README.md, "Executing
     * instructions"); 0 = they walk them (the default for now). */
    uint32_t exec;
};

/* At most this many hardware threads per root device (all tiles). */
#define GTSIM_MAX_THREADS_PER_DEVICE 262144u
/* poll_us's default: a reply or the next request of a burst comes within
 * a few microseconds, a wake-up costs tens of them on a VM. */
#define GTSIM_DEFAULT_POLL_US 50u

void gtsim_config_defaults(struct gtsim_config *cfg);
/* Parses text over the defaults; 0 or -EINVAL with a sentence in err. */
int gtsim_config_parse(const char *text, struct gtsim_config *cfg, char *err, size_t errlen);
const char *gtsim_platform_config_name(enum gtsim_platform p);

#endif
