/* SPDX-License-Identifier: MIT */
#include "examples/l0_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *l0_result_name(ze_result_t r)
{
    switch (r) {
    case ZE_RESULT_SUCCESS:
        return "ZE_RESULT_SUCCESS";
    case ZE_RESULT_NOT_READY:
        return "ZE_RESULT_NOT_READY";
    case ZE_RESULT_ERROR_DEVICE_LOST:
        return "ZE_RESULT_ERROR_DEVICE_LOST";
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
        return "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY";
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY:
        return "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY";
    case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE:
        return "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE";
    case ZE_RESULT_ERROR_UNINITIALIZED:
        return "ZE_RESULT_ERROR_UNINITIALIZED";
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
        return "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE";
    case ZE_RESULT_ERROR_INVALID_ARGUMENT:
        return "ZE_RESULT_ERROR_INVALID_ARGUMENT";
    case ZE_RESULT_ERROR_INVALID_NATIVE_BINARY:
        return "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY";
    case ZE_RESULT_ERROR_INVALID_KERNEL_NAME:
        return "ZE_RESULT_ERROR_INVALID_KERNEL_NAME";
    default:
        return "(another ze_result_t)";
    }
}

int l0_open(struct l0_env *env)
{
    uint32_t n = 1;
    ze_result_t r = zeInit(ZE_INIT_FLAG_GPU_ONLY);
    ze_context_desc_t cdesc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};

    memset(env, 0, sizeof(*env));
    if (r != ZE_RESULT_SUCCESS) {
        fprintf(stderr,
                "no Level Zero driver was found (zeInit returned %s, 0x%x).\n"
                "Without an Intel GPU, run on the simulated one:\n"
                "  ZE_ENABLE_ALT_DRIVERS=/absolute/path/to/libze_gtsim.so %s\n",
                l0_result_name(r), (unsigned)r, "<program>");
        return 1;
    }
    if (zeDriverGet(&n, &env->driver) != ZE_RESULT_SUCCESS || n == 0) {
        fprintf(stderr, "no Level Zero driver was found (zeDriverGet found none)\n");
        return 1;
    }
    n = 1;
    if (zeDeviceGet(env->driver, &n, &env->device) != ZE_RESULT_SUCCESS || n == 0) {
        fprintf(stderr, "the Level Zero driver has no device\n");
        return 1;
    }
    env->props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    L0_CHECK(zeDeviceGetProperties(env->device, &env->props));
    L0_CHECK(zeContextCreate(env->driver, &cdesc, &env->context));
    return 0;
}

const char *l0_ocloc_device(const ze_device_properties_t *p)
{
    /* PCI device-id families, the way an application picks its AOT binary. */
    uint32_t id = p->deviceId;
    if (id >= 0x0bd0 && id <= 0x0bdb)
        return "xehpc";
    if ((id >= 0x5690 && id <= 0x56ff) || (id >= 0x4f80 && id <= 0x4f88))
        return "xehpg";
    if ((id >= 0x9a40 && id <= 0x9a7f) || (id >= 0x4c80 && id <= 0x4c9f))
        return "gen12lp";
    return NULL;
}

static void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    void *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        *size = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int l0_load_module(struct l0_env *env, const char *name, const char *path,
                   ze_module_handle_t *module)
{
    char buf[4096];
    const char *plat = l0_ocloc_device(&env->props);
    ze_module_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC};
    ze_module_build_log_handle_t log = NULL;
    size_t size = 0;
    void *image;
    ze_result_t r;

    if (!path) {
        if (!plat) {
            fprintf(stderr, "no kernel binary for device id 0x%04x\n", env->props.deviceId);
            return 1;
        }
        snprintf(buf, sizeof(buf), "%s/%s-%s.elf", ZESTUB_KERNEL_DIR, name, plat);
        path = buf;
    }
    image = read_file(path, &size);
    if (!image) {
        fprintf(stderr, "cannot read kernel binary %s\n", path);
        return 1;
    }
    desc.format = ZE_MODULE_FORMAT_NATIVE;
    desc.inputSize = size;
    desc.pInputModule = image;
    r = zeModuleCreate(env->context, env->device, &desc, module, &log);
    free(image);
    if (r != ZE_RESULT_SUCCESS) {
        char text[1024] = "";
        size_t n = sizeof(text);
        if (log)
            zeModuleBuildLogGetString(log, &n, text);
        fprintf(stderr, "zeModuleCreate(%s) failed: %s\n%s", path, l0_result_name(r), text);
    }
    if (log)
        zeModuleBuildLogDestroy(log);
    return r == ZE_RESULT_SUCCESS ? 0 : 1;
}
