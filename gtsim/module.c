/* SPDX-License-Identifier: MIT */
/* Modules and build logs: a module is a zebin (native Intel GT ELF) whose
 * kernels' code is copied into the device's instruction heap. SPIR-V is
 * first compiled to a zebin by ocloc (il_build.h), as the runtime compiles
 * it; from there both load the same way. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/dbg_server.h"
#include "gtsim/debug_zebin.h"
#include "gtsim/device_build.h"
#include "gtsim/gtsim.h"
#include "gtsim/il_build.h"
#include "gtsim/zebin.h"

static struct gtsim_build_log *new_log(const char *fmt, ...)
{
    struct gtsim_build_log *log = calloc(1, sizeof(*log));
    va_list ap;
    int n;
    if (!log)
        return NULL;
    log->magic = GTSIM_MAGIC_BUILDLOG;
    va_start(ap, fmt);
    n = vasprintf(&log->text, fmt, ap);
    va_end(ap);
    if (n < 0) {
        free(log);
        return NULL;
    }
    return log;
}

static void give_log(ze_module_build_log_handle_t *phLog, struct gtsim_build_log *log)
{
    if (phLog) {
        *phLog = (ze_module_build_log_handle_t)log;
    } else if (log) {
        free(log->text);
        free(log);
    }
}

static ze_result_t fail(ze_module_build_log_handle_t *phLog, ze_result_t r, const char *msg)
{
    give_log(phLog, new_log("gtsim: %s\n", msg));
    return r;
}

/* The argument checks of zeModuleCreate, in the order the driver makes them;
 * ZE_RESULT_SUCCESS when the module can be built. */
static ze_result_t check_module_args(struct gtsim_context *c, struct gtsim_device *d,
                                     const ze_module_desc_t *desc, ze_module_handle_t *phModule)
{
    if (!c || c->magic != GTSIM_MAGIC_CONTEXT || !d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !phModule || !desc->pInputModule)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->format != ZE_MODULE_FORMAT_NATIVE && desc->format != ZE_MODULE_FORMAT_IL_SPIRV)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->inputSize == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    return ZE_RESULT_SUCCESS;
}

/* Frees a module that was never handed out (its parts may be NULL). */
static void discard_module(struct gtsim_module *m)
{
    gtsim_zebin_free(m->zebin);
    free(m->image);
    free(m->kernel_at);
    free(m);
}

/* Parses the zebin (the application's, or what ocloc made of its SPIR-V)
 * and keeps a copy of it; on failure the module is discarded. */
static ze_result_t load_zebin(struct gtsim_module *m, const void *bin, size_t size,
                              ze_module_build_log_handle_t *phLog)
{
    char err[256];
    if (gtsim_zebin_parse(bin, size, &m->zebin, err, sizeof(err))) {
        free(m);
        return fail(phLog, ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, err);
    }
    if (m->zebin->e_machine != GTSIM_EM_INTELGT || m->zebin->nkernels == 0) {
        discard_module(m);
        return fail(phLog, ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                    "not an Intel GT zebin with kernels");
    }
    m->image_size = size;
    m->image = malloc(m->image_size);
    m->kernel_at = calloc(m->zebin->nkernels, sizeof(uint64_t));
    if (!m->image || !m->kernel_at) {
        discard_module(m);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(m->image, bin, m->image_size);
    return ZE_RESULT_SUCCESS;
}

/* All kernels of a module sit together in the instruction heap, so the
 * module has one load address, as with the real driver. On failure the
 * module is discarded. */
static ze_result_t place_kernels(struct gtsim_module *m, struct gtsim_device *d,
                                 ze_module_build_log_handle_t *phLog)
{
    size_t total = 0;
    uint64_t base;
    for (size_t i = 0; i < m->zebin->nkernels; i++)
        total += (m->zebin->kernels[i].text_size + 63) & ~(size_t)63;
    if (gtsim_hw_isa_alloc(d->hw, total, &base) != 0) {
        discard_module(m);
        return fail(phLog, ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "instruction heap is full");
    }
    m->load = base;
    for (size_t i = 0; i < m->zebin->nkernels; i++) {
        const struct gtsim_zebin_kernel *k = &m->zebin->kernels[i];
        m->kernel_at[i] = base;
        gtsim_hw_isa_write(d->hw, base, k->text, k->text_size);
        base += (k->text_size + 63) & ~(size_t)63;
    }
    return ZE_RESULT_SUCCESS;
}

/* Debuggers get the module with the kernels' device addresses applied, as
 * from Intel's driver; zeModuleGetNativeBinary and zetModuleGetDebugInfo keep
 * returning the application's image. On failure the module is discarded. */
static ze_result_t make_debug_image(struct gtsim_module *m, ze_module_build_log_handle_t *phLog)
{
    char err[256];
    int rc = gtsim_debug_zebin_create(m->zebin, m->kernel_at, &m->debug_image, &m->debug_size, err,
                                      sizeof(err));
    if (rc == 0)
        return ZE_RESULT_SUCCESS;
    discard_module(m);
    if (rc == -ENOMEM)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    give_log(phLog, new_log("gtsim: debug zebin: %s\n", err));
    return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
}

/* Is flag one of the space-separated words of flags? */
static bool has_flag(const char *flags, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = flags; p && (p = strstr(p, flag)); p += n)
        if ((p == flags || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return true;
    return false;
}

/* SPIR-V: the zebin ocloc makes of it (*bin, malloc'd) and ocloc's words
 * (*words, malloc'd, for the build log). */
static ze_result_t compile_il(struct gtsim_device *d, const ze_module_desc_t *desc, void **bin,
                              size_t *size, char **words, ze_module_build_log_handle_t *phLog)
{
    struct gtsim_il_result res;
    ze_result_t r = gtsim_il_build(d->driver->cfg.platform, desc->pInputModule, desc->inputSize,
                                   desc->pBuildFlags, desc->pConstants, &res);
    if (r != ZE_RESULT_SUCCESS) {
        give_log(phLog, res.log ? new_log("%s", res.log) : NULL);
        free(res.log);
        free(res.zebin);
        return r;
    }
    *bin = res.zebin;
    *size = res.zebin_size;
    *words = res.log;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeModuleCreate(ze_context_handle_t hContext,
                                                   ze_device_handle_t hDevice,
                                                   const ze_module_desc_t *desc,
                                                   ze_module_handle_t *phModule,
                                                   ze_module_build_log_handle_t *phLog)
{
    struct gtsim_context *c = (struct gtsim_context *)hContext;
    struct gtsim_device *d = gtsim_as_device(hDevice);
    struct gtsim_module *m;
    const void *bin;
    size_t size;
    void *compiled = NULL;
    char *words = NULL;
    ze_result_t r;

    if (phLog)
        *phLog = NULL;
    r = check_module_args(c, d, desc, phModule);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    bin = desc->pInputModule;
    size = desc->inputSize;
    if (desc->format == ZE_MODULE_FORMAT_IL_SPIRV) {
        r = compile_il(d, desc, &compiled, &size, &words, phLog);
        if (r != ZE_RESULT_SUCCESS)
            return r;
        bin = compiled;
    }
    m = calloc(1, sizeof(*m));
    if (!m) {
        free(compiled);
        free(words);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    m->magic = GTSIM_MAGIC_MODULE;
    m->device = d;
    m->take_global_address = has_flag(desc->pBuildFlags, "-ze-take-global-address");
    m->library_compile = has_flag(desc->pBuildFlags, "-library-compile");
    r = load_zebin(m, bin, size, phLog);
    free(compiled);
    if (r != ZE_RESULT_SUCCESS || (r = place_kernels(m, d, phLog)) != ZE_RESULT_SUCCESS ||
        (r = make_debug_image(m, phLog)) != ZE_RESULT_SUCCESS) {
        free(words);
        return r;
    }
    /* Blocks while an attached debugger looks at the new module. */
    gtsim_dbg_module_created(m);
    give_log(phLog, new_log("%s", words ? words : ""));
    free(words);
    *phModule = (ze_module_handle_t)m;
    return ZE_RESULT_SUCCESS;
}

static struct gtsim_module *as_module(ze_module_handle_t h)
{
    struct gtsim_module *m = (struct gtsim_module *)h;
    return m && m->magic == GTSIM_MAGIC_MODULE ? m : NULL;
}

static ze_result_t ZE_APICALL gtsim_zeModuleDestroy(ze_module_handle_t hModule)
{
    struct gtsim_module *m = as_module(hModule);
    if (!m)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* The code stays in the instruction heap (never reused), so a kernel
     * still running from a destroyed module cannot execute foreign code. */
    gtsim_dbg_module_destroyed(m);
    m->magic = 0;
    gtsim_zebin_free(m->zebin);
    free(m->image);
    free(m->debug_image);
    free(m->kernel_at);
    free(m);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeModuleGetKernelNames(ze_module_handle_t hModule,
                                                           uint32_t *pCount, const char **pNames)
{
    struct gtsim_module *m = as_module(hModule);
    uint32_t n;
    if (!m)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pCount)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    n = (uint32_t)m->zebin->nkernels;
    if (*pCount == 0 || !pNames) {
        *pCount = n;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > n)
        *pCount = n;
    for (uint32_t i = 0; i < *pCount; i++)
        pNames[i] = m->zebin->kernels[i].name;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeModuleGetProperties(ze_module_handle_t hModule,
                                                          ze_module_properties_t *p)
{
    if (!as_module(hModule))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!p)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeModuleGetNativeBinary(ze_module_handle_t hModule,
                                                            size_t *pSize, uint8_t *pBinary)
{
    struct gtsim_module *m = as_module(hModule);
    if (!m)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pSize)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (pBinary) {
        if (*pSize < m->image_size)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        memcpy(pBinary, m->image, m->image_size);
    }
    *pSize = m->image_size;
    return ZE_RESULT_SUCCESS;
}

/* gtsim loads no global variables (only the kernels' code), so no name is
 * found; the answer is then the runtime's for a name it does not know:
 * UNSUPPORTED_FEATURE unless the module was built with
 * -ze-take-global-address, else INVALID_GLOBAL_NAME (module_imp.cpp,
 * getGlobalPointer). */
static ze_result_t ZE_APICALL gtsim_zeModuleGetGlobalPointer(ze_module_handle_t hModule,
                                                             const char *pGlobalName, size_t *pSize,
                                                             void **pptr)
{
    struct gtsim_module *m = as_module(hModule);
    (void)pSize;
    (void)pptr;
    if (!m)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pGlobalName)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return m->take_global_address ? ZE_RESULT_ERROR_INVALID_GLOBAL_NAME
                                  : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

/* A kernel's name gives its code's device address, as the runtime does
 * when the name is not an exported function; other names get the
 * runtime's answers (module_imp.cpp, getFunctionPointer). gtsim does not
 * read exported function symbols. */
static ze_result_t ZE_APICALL gtsim_zeModuleGetFunctionPointer(ze_module_handle_t hModule,
                                                               const char *pFunctionName,
                                                               void **pfnFunction)
{
    struct gtsim_module *m = as_module(hModule);
    if (!m)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pFunctionName || !pfnFunction)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (size_t i = 0; i < m->zebin->nkernels; i++)
        if (strcmp(m->zebin->kernels[i].name, pFunctionName) == 0) {
            *pfnFunction = (void *)(uintptr_t)m->kernel_at[i];
            return ZE_RESULT_SUCCESS;
        }
    return m->library_compile ? ZE_RESULT_ERROR_INVALID_FUNCTION_NAME
                              : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

static ze_result_t ZE_APICALL gtsim_zeModuleBuildLogDestroy(ze_module_build_log_handle_t h)
{
    struct gtsim_build_log *log = (struct gtsim_build_log *)h;
    if (!log || log->magic != GTSIM_MAGIC_BUILDLOG)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    log->magic = 0;
    free(log->text);
    free(log);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zeModuleBuildLogGetString(ze_module_build_log_handle_t h,
                                                              size_t *pSize, char *pLog)
{
    struct gtsim_build_log *log = (struct gtsim_build_log *)h;
    size_t n;
    if (!log || log->magic != GTSIM_MAGIC_BUILDLOG)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!pSize)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    n = strlen(log->text) + 1;
    if (pLog) {
        if (*pSize < n)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        memcpy(pLog, log->text, n);
    }
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

void gtsim_fill_module(ze_module_dditable_t *t)
{
    t->pfnCreate = gtsim_zeModuleCreate;
    t->pfnDestroy = gtsim_zeModuleDestroy;
    t->pfnGetKernelNames = gtsim_zeModuleGetKernelNames;
    t->pfnGetProperties = gtsim_zeModuleGetProperties;
    t->pfnGetNativeBinary = gtsim_zeModuleGetNativeBinary;
    t->pfnGetGlobalPointer = gtsim_zeModuleGetGlobalPointer;
    t->pfnGetFunctionPointer = gtsim_zeModuleGetFunctionPointer;
}

void gtsim_fill_build_log(ze_module_build_log_dditable_t *t)
{
    t->pfnDestroy = gtsim_zeModuleBuildLogDestroy;
    t->pfnGetString = gtsim_zeModuleBuildLogGetString;
}
