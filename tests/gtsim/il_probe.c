/* SPDX-License-Identifier: MIT */
/* Creates a module the way an application does and says what happened,
 * one fact per line, for tests/gtsim/test_spirv.sh:
 *   il_probe FILE spirv|native FLAGS [SPECID=VALUE ...]
 * prints "spirv-version M.m", "create 0x<result>", "log <build log, lines
 * joined by ' | '>", "kernel <first kernel name>", "debug-info <bytes>
 * <has .debug_info 0|1>", "launch 0x<result>" (the first kernel on one
 * work-group of 16, every argument a 4 KiB shared buffer of ints 1..1024,
 * through a synchronous immediate command list), "sum <0|1>" (whether the
 * last buffer holds the sum of the others afterwards). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ze_api.h>
#include <zet_api.h>

#include "tests/lib/slurp.h"

static void print_log(ze_module_build_log_handle_t log)
{
    size_t n = 0;
    char *text;
    if (!log || zeModuleBuildLogGetString(log, &n, NULL) != ZE_RESULT_SUCCESS ||
        !(text = malloc(n))) {
        printf("log -\n");
        return;
    }
    zeModuleBuildLogGetString(log, &n, text);
    printf("log ");
    for (char *p = text; *p; p++)
        fputs(*p == '\n' ? (p[1] ? " | " : "") : (char[]){*p, 0}, stdout);
    printf("\n");
    free(text);
    zeModuleBuildLogDestroy(log);
}

static int has_debug_info(ze_module_handle_t m)
{
    size_t n = 0;
    uint8_t *buf;
    int found = 0;
    if (zetModuleGetDebugInfo((zet_module_handle_t)m, ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF, &n,
                              NULL) != ZE_RESULT_SUCCESS ||
        !(buf = malloc(n)))
        return -1;
    zetModuleGetDebugInfo((zet_module_handle_t)m, ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF, &n, buf);
    for (size_t i = 0; i + 11 <= n && !found; i++)
        found = memcmp(buf + i, ".debug_info", 11) == 0;
    printf("debug-info %zu %d\n", n, found);
    free(buf);
    return found;
}

/* Runs the first kernel with every argument a shared int buffer. */
static void launch(ze_context_handle_t ctx, ze_device_handle_t dev, ze_module_handle_t m,
                   const char *name)
{
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS};
    ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    ze_group_count_t groups = {1, 1, 1};
    ze_command_list_handle_t list;
    ze_kernel_handle_t k;
    int *buf[8] = {0};
    uint32_t nargs;
    ze_result_t r;

    if ((r = zeKernelCreate(m, &kd, &k)) != ZE_RESULT_SUCCESS ||
        (r = zeKernelGetProperties(k, &kp)) != ZE_RESULT_SUCCESS) {
        printf("launch 0x%x\n", (unsigned)r);
        return;
    }
    nargs = kp.numKernelArgs < 8 ? kp.numKernelArgs : 8;
    for (uint32_t i = 0; i < nargs; i++) {
        zeMemAllocShared(ctx, &dd, &hd, 4096, 64, dev, (void **)&buf[i]);
        for (int j = 0; j < 1024; j++)
            buf[i][j] = i + 1 < nargs ? j + 1 : 0;
        zeKernelSetArgumentValue(k, i, sizeof(void *), &buf[i]);
    }
    zeKernelSetGroupSize(k, 16, 1, 1);
    r = zeCommandListCreateImmediate(ctx, dev, &qd, &list);
    if (r == ZE_RESULT_SUCCESS) {
        r = zeCommandListAppendLaunchKernel(list, k, &groups, NULL, 0, NULL);
        zeCommandListDestroy(list);
    }
    printf("launch 0x%x\n", (unsigned)r);
    if (nargs >= 2) {
        int sum = 1;
        for (int j = 0; j < 16; j++)
            sum &= buf[nargs - 1][j] == (int)(nargs - 1) * (j + 1);
        printf("sum %d\n", sum);
    }
    for (uint32_t i = 0; i < nargs; i++)
        zeMemFree(ctx, buf[i]);
    zeKernelDestroy(k);
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_device_module_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC};
    ze_module_constants_t consts = {0};
    uint32_t ids[8], vals[8];
    const void *pvals[8];
    ze_module_build_log_handle_t log = NULL;
    ze_module_handle_t m;
    uint32_t n = 1, nk = 1;
    const char *names[1];
    size_t size;
    void *input;
    ze_result_t r;

    if (argc < 4 || argc > 12) {
        fprintf(stderr, "usage: il_probe FILE spirv|native FLAGS [SPECID=VALUE ...]\n");
        return 2;
    }
    if (!(input = tests_slurp(argv[1], &size))) {
        fprintf(stderr, "il_probe: cannot read %s\n", argv[1]);
        return 2;
    }
    if (zeInit(0) || zeDriverGet(&n, &drv) || (n = 1, zeDeviceGet(drv, &n, &dev)) ||
        zeContextCreate(drv, &cd, &ctx)) {
        printf("no device\n");
        return 1;
    }
    zeDeviceGetModuleProperties(dev, &mp);
    printf("spirv-version %u.%u\n", ZE_MAJOR_VERSION(mp.spirvVersionSupported),
           ZE_MINOR_VERSION(mp.spirvVersionSupported));
    for (int i = 4; i < argc; i++) {
        if (sscanf(argv[i], "%u=%u", &ids[i - 4], &vals[i - 4]) != 2)
            return 2;
        pvals[i - 4] = &vals[i - 4];
        consts.numConstants++;
    }
    consts.pConstantIds = ids;
    consts.pConstantValues = pvals;
    md.format = strcmp(argv[2], "spirv") == 0 ? ZE_MODULE_FORMAT_IL_SPIRV : ZE_MODULE_FORMAT_NATIVE;
    md.inputSize = size;
    md.pInputModule = input;
    md.pBuildFlags = argv[3];
    md.pConstants = consts.numConstants ? &consts : NULL;
    r = zeModuleCreate(ctx, dev, &md, &m, &log);
    printf("create 0x%x\n", (unsigned)r);
    print_log(log);
    if (r == ZE_RESULT_SUCCESS) {
        if (zeModuleGetKernelNames(m, &nk, names) == ZE_RESULT_SUCCESS && nk > 0) {
            printf("kernel %s\n", names[0]);
            has_debug_info(m);
            launch(ctx, dev, m, names[0]);
        }
        zeModuleDestroy(m);
    }
    zeContextDestroy(ctx);
    free(input);
    return 0;
}
