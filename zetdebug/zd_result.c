/* SPDX-License-Identifier: MIT */
/* ze_result_t -> enum zd_err and a sentence. One table for every call, plus
 * the attach sentences of intelgt-remote-protocol.md 1.4, which Intel's GDB
 * scripts match on (keep "attempting to attach too early" verbatim). */
#include "zetdebug/zd_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every ze_result_t we map. Anything not listed becomes ZD_E_OTHER with its
 * hex value; see README.md for the same table in prose. */
static const struct zd_result_entry {
    ze_result_t r;
    int code;
    const char *name;
    const char *sentence;
} table[] = {
    {ZE_RESULT_NOT_READY, ZD_E_TIMEOUT, "NOT_READY", "nothing happened within the timeout"},
    {ZE_RESULT_ERROR_DEVICE_LOST, ZD_E_LOST, "ERROR_DEVICE_LOST",
     "the device was lost or the debugged process is gone"},
    {ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, ZD_E_NOMEM, "ERROR_OUT_OF_HOST_MEMORY",
     "out of host memory"},
    {ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, ZD_E_NOMEM, "ERROR_OUT_OF_DEVICE_MEMORY",
     "out of device memory"},
    {ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET, ZD_E_LOST, "ERROR_DEVICE_REQUIRES_RESET",
     "the device needs a reset"},
    {ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE, ZD_E_UNAVAILABLE, "ERROR_DEVICE_IN_LOW_POWER_STATE",
     "the device is in a low power state; try again"},
    {ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS, ZD_E_NOT_PERMITTED, "ERROR_INSUFFICIENT_PERMISSIONS",
     "not permitted: run as the application's user or as root"},
    {ZE_RESULT_ERROR_NOT_AVAILABLE, ZD_E_UNAVAILABLE, "ERROR_NOT_AVAILABLE",
     "the thread is running or unavailable (or already in the requested state)"},
    {ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE, ZD_E_NOT_SUPPORTED, "ERROR_DEPENDENCY_UNAVAILABLE",
     "a component the driver needs is missing"},
    {ZE_RESULT_ERROR_UNINITIALIZED, ZD_E_NO_DRIVER, "ERROR_UNINITIALIZED",
     "the Level Zero driver is not initialised"},
    {ZE_RESULT_ERROR_UNSUPPORTED_VERSION, ZD_E_NOT_SUPPORTED, "ERROR_UNSUPPORTED_VERSION",
     "the driver does not support this API version"},
    {ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, ZD_E_NOT_SUPPORTED, "ERROR_UNSUPPORTED_FEATURE",
     "the driver does not support this operation"},
    {ZE_RESULT_ERROR_INVALID_ARGUMENT, ZD_E_INVALID, "ERROR_INVALID_ARGUMENT",
     "invalid argument (address, thread or register range)"},
    {ZE_RESULT_ERROR_INVALID_NULL_HANDLE, ZD_E_INVALID, "ERROR_INVALID_NULL_HANDLE",
     "invalid handle"},
    {ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, ZD_E_BUSY, "ERROR_HANDLE_OBJECT_IN_USE",
     "the object is in use"},
    {ZE_RESULT_ERROR_INVALID_NULL_POINTER, ZD_E_INVALID, "ERROR_INVALID_NULL_POINTER",
     "invalid pointer argument"},
    {ZE_RESULT_ERROR_INVALID_SIZE, ZD_E_INVALID, "ERROR_INVALID_SIZE", "invalid size"},
    {ZE_RESULT_ERROR_UNSUPPORTED_SIZE, ZD_E_NOT_SUPPORTED, "ERROR_UNSUPPORTED_SIZE",
     "the device does not support this size"},
    {ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT, ZD_E_NOT_SUPPORTED, "ERROR_UNSUPPORTED_ALIGNMENT",
     "the device does not support this alignment"},
    {ZE_RESULT_ERROR_INVALID_ENUMERATION, ZD_E_INVALID, "ERROR_INVALID_ENUMERATION",
     "invalid enumeration value (memory space or register set type)"},
    {ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION, ZD_E_NOT_SUPPORTED, "ERROR_UNSUPPORTED_ENUMERATION",
     "the device does not support this value"},
    {ZE_RESULT_ERROR_UNKNOWN, ZD_E_OTHER, "ERROR_UNKNOWN", "unknown driver error"},
};

static const struct zd_result_entry *lookup(ze_result_t r)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (table[i].r == r)
            return &table[i];
    return NULL;
}

const char *zd_result_name(uint32_t raw)
{
    const struct zd_result_entry *e;
    if (raw == ZE_RESULT_SUCCESS)
        return "SUCCESS";
    e = lookup((ze_result_t)raw);
    return e ? e->name : "(unknown result)";
}

int zd_code_of(ze_result_t r)
{
    const struct zd_result_entry *e;
    if (r == ZE_RESULT_SUCCESS)
        return ZD_OK;
    e = lookup(r);
    return e ? e->code : ZD_E_OTHER;
}

int zd_fail(struct zd_error *err, int code, uint32_t raw, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->raw = raw;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

int zd_from_result(struct zd_error *err, ze_result_t r, const char *what)
{
    const struct zd_result_entry *e;
    if (r == ZE_RESULT_SUCCESS) {
        if (err) {
            err->code = ZD_OK;
            err->raw = 0;
            err->msg[0] = '\0';
        }
        return ZD_OK;
    }
    e = lookup(r);
    if (e)
        return zd_fail(err, e->code, (uint32_t)r, "%s: %s (ZE_RESULT_%s, 0x%x)", what, e->sentence,
                       e->name, (unsigned)r);
    return zd_fail(err, ZD_E_OTHER, (uint32_t)r, "%s: failed with error code '0x%x'", what,
                   (unsigned)r);
}

/* NOT_READY: the driver cannot tell "not yet" from "never". A process
 * without the Level Zero loader in its map will not become attachable by
 * retrying, so it gets its own code (no "too early", which Intel's GDB and
 * zestub dump retry on). */
static int not_ready(struct zd_error *err, ze_result_t r, uint32_t pid)
{
    struct zd_proc p;
    zd_proc_probe(pid, &p);
    if (!p.exists)
        return zd_fail(err, ZD_E_INVALID, (uint32_t)r, "no such process: %u", (unsigned)pid);
    if (p.exited)
        return zd_fail(err, ZD_E_INVALID, (uint32_t)r,
                       "process %u has exited (it ended during the attach, and its parent has "
                       "not reaped it yet)",
                       (unsigned)pid);
    if (!p.maps_errno && !p.level_zero)
        return zd_fail(err, ZD_E_NO_LEVEL_ZERO, (uint32_t)r,
                       "process %u has not loaded Level Zero (no libze_loader in "
                       "/proc/%u/maps): zestub debugs programs that use Level Zero",
                       (unsigned)pid, (unsigned)pid);
    return zd_fail(err, ZD_E_TOO_EARLY, (uint32_t)r,
                   "attempting to attach too early: process %u has not initialised Level "
                   "Zero on this device yet; retry once it has called zeInit",
                   (unsigned)pid);
}

/* UNSUPPORTED_FEATURE: asks about ZET_ENABLE_PROGRAM_DEBUGGING only when
 * the process's environment cannot be read; otherwise says what it holds. */
static int not_supported(struct zd_error *err, ze_result_t r, uint32_t pid, bool subdevice)
{
    const char *tile = subdevice ? " Is sub-device (tile) attach enabled in the driver?" : "";
    char v[16], app_alt[4096];
    const char *mine = getenv("ZE_ENABLE_ALT_DRIVERS");
    int has = zd_proc_getenv(pid, "ZET_ENABLE_PROGRAM_DEBUGGING", v, sizeof(v));
    int alt = zd_proc_getenv(pid, "ZE_ENABLE_ALT_DRIVERS", app_alt, sizeof(app_alt));
    /* The loader's own variable: another driver there is sure to refuse. */
    bool other_driver = alt >= 0 && (alt == 1 ? !mine || strcmp(mine, app_alt) != 0 : !!mine);

    if (has < 0)
        return zd_fail(err, ZD_E_NOT_SUPPORTED, (uint32_t)r,
                       "attaching is not supported: was ZET_ENABLE_PROGRAM_DEBUGGING=1 set in "
                       "the application's environment before it started?%s",
                       tile);
    if (has == 0 || strcmp(v, "1") != 0)
        return zd_fail(err, ZD_E_NOT_SUPPORTED, (uint32_t)r,
                       "attaching is not supported: process %u was started without "
                       "ZET_ENABLE_PROGRAM_DEBUGGING=1; restart it with that in its "
                       "environment.%s",
                       (unsigned)pid, tile);
    if (other_driver)
        return zd_fail(err, ZD_E_NOT_SUPPORTED, (uint32_t)r,
                       "attaching is not supported: process %u runs with "
                       "ZE_ENABLE_ALT_DRIVERS=%s, zestub with %s: use the application's.%s",
                       (unsigned)pid, alt == 1 ? app_alt : "(unset)", mine ? mine : "(unset)",
                       tile);
    return zd_fail(err, ZD_E_NOT_SUPPORTED, (uint32_t)r,
                   "attaching is not supported although process %u has "
                   "ZET_ENABLE_PROGRAM_DEBUGGING=1: its driver settings may differ from "
                   "zestub's; run 'zestub doctor %u'.%s",
                   (unsigned)pid, (unsigned)pid, tile);
}

int zd_attach_result(struct zd_error *err, ze_result_t r, uint32_t pid, bool subdevice)
{
    switch (r) {
    case ZE_RESULT_SUCCESS:
        return zd_from_result(err, r, "attach");
    case ZE_RESULT_NOT_READY:
        return not_ready(err, r, pid);
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
        return not_supported(err, r, pid, subdevice);
    case ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS:
        return zd_fail(err, ZD_E_NOT_PERMITTED, (uint32_t)r,
                       "attaching is not permitted: run zestub as the user of process %u or as "
                       "root",
                       (unsigned)pid);
    case ZE_RESULT_ERROR_NOT_AVAILABLE:
        return zd_fail(err, ZD_E_BUSY, (uint32_t)r,
                       "a debugger is already attached (to this device, its root device or one "
                       "of its sub-devices)");
    case ZE_RESULT_ERROR_INVALID_ARGUMENT:
        return zd_fail(err, ZD_E_INVALID, (uint32_t)r, "no such process: %u", (unsigned)pid);
    default: {
        /* Intel's wording first (scripts match it), then what the code means. */
        const struct zd_result_entry *e = lookup(r);
        return zd_fail(err, zd_code_of(r) == ZD_E_LOST ? ZD_E_LOST : ZD_E_OTHER, (uint32_t)r,
                       "failed to attach with error code '0x%x'%s%s%s%s%s", (unsigned)r,
                       e ? " (ZE_RESULT_" : "", e ? e->name : "", e ? ": " : "",
                       e ? e->sentence : "", e ? ")" : "");
    }
    }
}
