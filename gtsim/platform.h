/* SPDX-License-Identifier: MIT */
/* The Intel GT generations gtsim can impersonate. Shared by every gtsim file
 * that needs to know which encoding or register layout applies. */
#ifndef GTSIM_PLATFORM_H
#define GTSIM_PLATFORM_H

enum gtsim_platform {
    GTSIM_GEN12LP = 0, /* Tiger Lake-like (ocloc device "tgllp") */
    GTSIM_XEHPG = 1,   /* DG2-like (ocloc device "dg2") */
    GTSIM_XEHPC = 2,   /* Ponte Vecchio-like (ocloc device "pvc") */
    GTSIM_PLATFORM_COUNT
};

#endif
