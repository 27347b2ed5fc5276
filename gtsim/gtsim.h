/* SPDX-License-Identifier: MIT */
/* gtsim's Level Zero objects. Every ze handle gtsim hands out is a pointer
 * to one of these structs; each starts with a magic number so a stale or
 * foreign handle is rejected instead of dereferenced blindly. */
#ifndef GTSIM_GTSIM_H
#define GTSIM_GTSIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ze_api.h>
#include <ze_ddi.h>

#include "gtsim/config.h"
#include "gtsim/hw.h"
struct gtsim_zebin;
struct gtsim_zebin_kernel;

enum gtsim_magic {
    GTSIM_MAGIC_DRIVER = 0x47544472,
    GTSIM_MAGIC_DEVICE = 0x47544465,
    GTSIM_MAGIC_CONTEXT = 0x47544378,
    GTSIM_MAGIC_MODULE = 0x4754506d,
    GTSIM_MAGIC_BUILDLOG = 0x4754426c,
    GTSIM_MAGIC_KERNEL = 0x47544b6e,
    GTSIM_MAGIC_LIST = 0x47544c73,
    GTSIM_MAGIC_QUEUE = 0x47545175,
    GTSIM_MAGIC_POOL = 0x47545070,
    GTSIM_MAGIC_EVENT = 0x47544576,
    GTSIM_MAGIC_FENCE = 0x47544663,
    GTSIM_MAGIC_SAMPLER = 0x47545370,
};

struct gtsim_device {
    uint32_t magic;
    struct gtsim_driver *driver;
    struct gtsim_device *root; /* NULL for a root device */
    uint32_t ordinal;          /* root device index */
    uint32_t subdevice_id;     /* tile index, for sub-devices */
    uint32_t nsub;
    struct gtsim_device **sub;
    struct gtsim_hw *hw;  /* shared by a root device and its tiles */
    uint32_t slice_first; /* this device's view of the hw slices */
    uint32_t slice_count;
    uint32_t device_id; /* PCI device id */
    uint8_t uuid[ZE_MAX_DEVICE_UUID_SIZE];
    char name[ZE_MAX_DEVICE_NAME];
    bool lost; /* a fault nobody debugged: every later submission fails */
    /* ZE_AFFINITY_MASK (affinity.c): the tiles a root shows (bit per
     * tile; 0 = all), and a tile shown as a root device. */
    uint32_t tile_mask;
    bool shown_as_root;
};

struct gtsim_alloc {
    uint64_t base;
    size_t size;
    ze_memory_type_t type;
    struct gtsim_device *device;
    void *mem; /* what to free */
};

struct gtsim_driver {
    uint32_t magic;
    struct gtsim_config cfg;
    uint32_t ndevices;
    struct gtsim_device **devices;
    /* What zeDeviceGet shows after ZE_AFFINITY_MASK (affinity.c): roots,
     * or a root's one selected tile. devices[] keeps every root, which
     * the debug endpoint addresses by ordinal. */
    uint32_t nvisible;
    struct gtsim_device **visible;
    bool debugging_enabled; /* ZET_ENABLE_PROGRAM_DEBUGGING=1 at zeInit */

    pthread_mutex_t mem_lock;   /* guards allocs */
    struct gtsim_alloc *allocs; /* sorted by base */
    size_t nallocs, cap_allocs;

    pthread_mutex_t sync_lock; /* guards every event, fence and queue counter */
    pthread_cond_t sync_cv;    /* broadcast whenever any of them changes */
};

struct gtsim_context {
    uint32_t magic;
    struct gtsim_driver *driver;
};

struct gtsim_module {
    uint32_t magic;
    struct gtsim_device *device;
    struct gtsim_zebin *zebin;
    void *image; /* the module ELF as the application gave it */
    size_t image_size;
    void *debug_image; /* the debug zebin (debug_zebin.h): what module events delimit */
    size_t debug_size;
    uint64_t load;       /* lowest device address of the module's code */
    uint64_t *kernel_at; /* device address of each kernel's code */
    /* Build flags that change what the runtime answers for symbols
     * (zeModuleGetGlobalPointer, zeModuleGetFunctionPointer). */
    bool take_global_address; /* -ze-take-global-address */
    bool library_compile;     /* -library-compile */
};

struct gtsim_build_log {
    uint32_t magic;
    char *text;
};

struct gtsim_kernel_arg {
    bool set;
    uint32_t size;
    uint8_t value[64]; /* by-value arguments larger than this are refused */
};

struct gtsim_kernel {
    uint32_t magic;
    struct gtsim_module *module;
    const struct gtsim_zebin_kernel *info;
    uint64_t entry;
    uint32_t group_size[3];
    struct gtsim_kernel_arg *args;
    uint32_t nargs;
    /* Kept for the getters; gtsim's memory is one address space, so
     * neither changes what a launch can reach. */
    ze_kernel_indirect_access_flags_t indirect_access;
    ze_cache_config_flags_t cache_config;
    /* The kernel's printf buffer when its .ze_info asks for one (kernel.c,
     * printf_buffer.c); NULL otherwise. */
    uint8_t *printf_buffer;
};

struct gtsim_sampler {
    uint32_t magic;
    ze_sampler_desc_t desc;
};

enum gtsim_cmd_type {
    GTSIM_CMD_LAUNCH,
    GTSIM_CMD_COPY,
    GTSIM_CMD_FILL,
    GTSIM_CMD_BARRIER,
    GTSIM_CMD_SIGNAL,
    GTSIM_CMD_WAIT,
    GTSIM_CMD_RESET,
};

struct gtsim_event;

struct gtsim_cmd {
    enum gtsim_cmd_type type;
    struct gtsim_event *signal;
    uint32_t nwait;
    struct gtsim_event **wait;
    struct gtsim_hw_launch *launch; /* LAUNCH */
    void *dst;                      /* COPY, FILL */
    const void *src;
    size_t size;
    uint8_t pattern[16];
    size_t pattern_size;
};

struct gtsim_queue;

struct gtsim_list {
    uint32_t magic;
    struct gtsim_device *device;
    bool closed;
    bool immediate;
    bool synchronous;
    struct gtsim_queue *queue; /* immediate lists own one */
    struct gtsim_cmd *cmds;
    uint32_t ncmds, cap;
};

struct gtsim_batch {
    struct gtsim_batch *next;
    struct gtsim_list **lists;
    uint32_t nlists;
    struct gtsim_fence *fence;
    uint64_t seq;
};

struct gtsim_queue {
    uint32_t magic;
    struct gtsim_device *device;
    pthread_t thread;
    bool started, stopping;
    struct gtsim_batch *head, *tail; /* guarded by driver->sync_lock */
    uint64_t submitted, completed;
};

struct gtsim_pool {
    uint32_t magic;
    struct gtsim_driver *driver;
    uint32_t count;
    struct gtsim_event *events;
};

struct gtsim_event {
    uint32_t magic;
    struct gtsim_pool *pool;
    bool created;
    bool signaled; /* guarded by driver->sync_lock */
};

struct gtsim_fence {
    uint32_t magic;
    struct gtsim_queue *queue;
    bool signaled; /* guarded by driver->sync_lock */
};

/* The process's driver: a Level Zero driver is a per-process singleton by
 * the API's design (zeDriverGet takes no context), so this is gtsim's one
 * piece of global state. NULL until zeInit succeeds. */
struct gtsim_driver *gtsim_driver_get(void);

/* Applies ZE_AFFINITY_MASK (NULL or empty: everything) to the built
 * devices; 0, or -1 when out of memory. */
int gtsim_affinity_apply(struct gtsim_driver *drv, const char *mask);

/* Allocation table (memory.c). */
const struct gtsim_alloc *gtsim_mem_find_locked(struct gtsim_driver *drv, uint64_t addr);
bool gtsim_mem_is_valid(struct gtsim_driver *drv, uint64_t addr, size_t len);
/* Enters an allocation gtsim made itself (a kernel's printf buffer) in the
 * table, so kernels may touch it; false when out of memory. */
bool gtsim_mem_add(struct gtsim_driver *drv, const struct gtsim_alloc *a);
/* Removes the allocation that starts at base; returns what to free, or
 * NULL when there is none. */
void *gtsim_mem_remove(struct gtsim_driver *drv, uint64_t base);

/* Queue execution (queue.c). */
int gtsim_queue_start(struct gtsim_queue *q);
void gtsim_queue_stop(struct gtsim_queue *q);
ze_result_t gtsim_queue_submit(struct gtsim_queue *q, struct gtsim_list **lists, uint32_t n,
                               struct gtsim_fence *fence, uint64_t *seq);
ze_result_t gtsim_queue_wait(struct gtsim_queue *q, uint64_t seq, uint64_t timeout_ns);

/* Kernel state captured at append time (kernel.c): code, SIMD width, SLM
 * size and whether a pointer argument is outside every live allocation. */
ze_result_t gtsim_kernel_snapshot(struct gtsim_kernel *k, struct gtsim_hw_launch *out);

/* Helpers shared by the API files. */
void gtsim_event_signal(struct gtsim_event *ev);
int gtsim_wait_until(struct gtsim_driver *drv, const struct timespec *deadline);
void gtsim_deadline(uint64_t timeout_ns, struct timespec *deadline, bool *forever);

/* DDI table fillers, one per API file. */
void gtsim_fill_global(ze_global_dditable_t *t);
void gtsim_fill_driver(ze_driver_dditable_t *t);
void gtsim_fill_device(ze_device_dditable_t *t);
void gtsim_fill_context(ze_context_dditable_t *t);
void gtsim_fill_mem(ze_mem_dditable_t *t);
void gtsim_fill_module(ze_module_dditable_t *t);
void gtsim_fill_build_log(ze_module_build_log_dditable_t *t);
void gtsim_fill_kernel(ze_kernel_dditable_t *t);
void gtsim_fill_command_list(ze_command_list_dditable_t *t);
void gtsim_fill_command_queue(ze_command_queue_dditable_t *t);
void gtsim_fill_event_pool(ze_event_pool_dditable_t *t);
void gtsim_fill_event(ze_event_dditable_t *t);
void gtsim_fill_fence(ze_fence_dditable_t *t);
void gtsim_fill_sampler(ze_sampler_dditable_t *t);

#endif
