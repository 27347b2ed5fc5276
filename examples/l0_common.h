/* SPDX-License-Identifier: MIT */
/* Shared plumbing of the example programs: plain Level Zero, nothing that
 * knows whether the device is real or simulated. */
#ifndef EXAMPLES_L0_COMMON_H
#define EXAMPLES_L0_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <ze_api.h>

struct l0_env {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
    ze_device_properties_t props;
};

const char *l0_result_name(ze_result_t r);
/* zeInit, first GPU driver and device, a context. Prints why on failure. */
int l0_open(struct l0_env *env);
/* The ocloc device name whose binaries this device runs ("pvc", ...). */
const char *l0_ocloc_device(const ze_device_properties_t *props);
/* Loads <kernel_dir>/<name>-<platform>.elf (or path if given) as a module. */
int l0_load_module(struct l0_env *env, const char *name, const char *path,
                   ze_module_handle_t *module);
#define L0_CHECK(call)                                                                             \
    do {                                                                                           \
        ze_result_t l0_r_ = (call);                                                                \
        if (l0_r_ != ZE_RESULT_SUCCESS) {                                                          \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                   \
                    l0_result_name(l0_r_));                                                        \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

#endif
