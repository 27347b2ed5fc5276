/* SPDX-License-Identifier: MIT */
/* A kernel's printf buffer: allocated when the kernel is created, as
 * Intel's runtime does, its address given to every launch as the
 * printf_buffer implicit argument (kernel.c), looked at when a launch has
 * run (queue.c). Formatting its records is not implemented. */
#include "gtsim/printf_buffer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/zebin.h"

bool gtsim_printf_wanted(const struct gtsim_zebin_kernel *info)
{
    for (size_t i = 0; i < info->nargs; i++)
        if (info->args[i].kind == GTSIM_ZEBIN_ARG_IMPLICIT &&
            strcmp(info->args[i].arg_type, "printf_buffer") == 0)
            return true;
    return false;
}

uint8_t *gtsim_printf_buffer_create(struct gtsim_driver *drv, struct gtsim_device *dev)
{
    struct gtsim_alloc a = {0};
    void *mem = NULL;
    uint32_t start = GTSIM_PRINTF_BUFFER_START;

    /* 64 KiB aligned, as the runtime places it. */
    if (posix_memalign(&mem, 64u << 10, GTSIM_PRINTF_BUFFER_SIZE) != 0)
        return NULL;
    memset(mem, 0, GTSIM_PRINTF_BUFFER_SIZE);
    memcpy(mem, &start, sizeof(start));
    a.base = (uint64_t)(uintptr_t)mem;
    a.size = GTSIM_PRINTF_BUFFER_SIZE;
    a.type = ZE_MEMORY_TYPE_HOST;
    a.device = dev;
    a.mem = mem;
    if (!gtsim_mem_add(drv, &a)) {
        free(mem);
        return NULL;
    }
    return mem;
}

void gtsim_printf_buffer_destroy(struct gtsim_driver *drv, uint8_t *buf)
{
    if (buf)
        free(gtsim_mem_remove(drv, (uint64_t)(uintptr_t)buf));
}

void gtsim_printf_after_launch(uint8_t *buf, const char *kernel)
{
    uint32_t used, start = GTSIM_PRINTF_BUFFER_START;
    if (!buf)
        return;
    used = __atomic_load_n((uint32_t *)(void *)buf, __ATOMIC_SEQ_CST);
    if (used > start)
        fprintf(stderr,
                "gtsim: kernel '%s' wrote %u bytes of printf output; gtsim does not format "
                "printf output, dropped\n",
                kernel,
                (used < GTSIM_PRINTF_BUFFER_SIZE ? used : GTSIM_PRINTF_BUFFER_SIZE) - start);
    __atomic_store_n((uint32_t *)(void *)buf, start, __ATOMIC_SEQ_CST);
}
