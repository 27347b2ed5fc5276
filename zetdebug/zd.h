/* SPDX-License-Identifier: MIT */
/* zetdebug: the only layer that calls Level Zero. It turns devices, debug
 * sessions, events, memory and registers into plain C types, and every
 * ze_result_t into an error value plus a sentence that tells a user what to
 * do. Layers above never include a Level Zero header. */
#ifndef ZESTUB_ZD_H
#define ZESTUB_ZD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZD_ALL UINT32_MAX /* a thread field meaning "every" */

/* Error kinds (negative return values); raw keeps the ze_result_t. */
enum zd_err {
    ZD_OK = 0,
    ZD_E_TOO_EARLY = -1,     /* ZE_RESULT_NOT_READY on attach: retry later */
    ZD_E_NOT_SUPPORTED = -2, /* cannot attach / call unsupported */
    ZD_E_NOT_PERMITTED = -3, /* insufficient permissions */
    ZD_E_BUSY = -4,          /* a debugger is already attached / resource busy */
    ZD_E_UNAVAILABLE = -5,   /* thread running or unavailable (NOT_AVAILABLE) */
    ZD_E_INVALID = -6,       /* bad argument, address, register range */
    ZD_E_TIMEOUT = -7,       /* no event within the timeout (NOT_READY on read) */
    ZD_E_LOST = -8,          /* device lost / debuggee gone */
    ZD_E_NO_DRIVER = -9,     /* zeInit failed: no Level Zero driver */
    ZD_E_NOMEM = -10,
    ZD_E_OTHER = -11,
    ZD_E_NO_LEVEL_ZERO = -12, /* attach: the process has not loaded Level Zero */
    /* interrupt: NOT_READY, an identical interrupt is still pending; its
     * answer (one event) will come, as for one accepted now.
     * zd_detach: handed to the session's reader, which detaches once its
     * read returns; the result comes through zd_wait_detached */
    ZD_E_PENDING = -13,
};

struct zd_error {
    int code;     /* enum zd_err */
    uint32_t raw; /* the ze_result_t, 0 when none */
    char msg[256];
};

struct zd_thread {
    uint32_t slice, subslice, eu, thread;
};

struct zd_device {
    unsigned index; /* position in zd_devices() */
    int parent;     /* index of the root device, -1 for a root */
    uint32_t subdevice_id;
    uint32_t vendor_id, device_id;
    char name[256];
    char pci_slot[16]; /* dddd:bb:dd.f, "0000:00:00.0" if unknown */
    uint8_t uuid[16];
    uint32_t slices, subslices, eus, threads; /* per-device topology */
    uint32_t nthreads;
    unsigned nsub; /* sub-devices of a root */
    bool can_attach;
    char why_not[160]; /* when !can_attach */
};

enum zd_event_type {
    ZD_EV_DETACHED = 1,
    ZD_EV_PROCESS_ENTRY,
    ZD_EV_PROCESS_EXIT,
    ZD_EV_MODULE_LOAD,
    ZD_EV_MODULE_UNLOAD,
    ZD_EV_THREAD_STOPPED,
    ZD_EV_THREAD_UNAVAILABLE,
    ZD_EV_PAGE_FAULT,
};

enum zd_fault_reason { ZD_FAULT_INVALID = 0, ZD_FAULT_MAPPING = 1, ZD_FAULT_PERMISSION = 2 };

struct zd_event {
    enum zd_event_type type;
    bool need_ack;
    uint32_t detach_reason; /* DETACHED: 1 = host exit */
    /* DETACHED made up by the reader because reading events kept failing
     * (not a lost device): the last failure, valid during the callback
     * only; NULL for every other event. The session is still attached. */
    const struct zd_error *read_error;
    uint64_t module_begin, module_end, module_load; /* MODULE_* */
    struct zd_thread thread;                        /* THREAD_* */
    uint64_t fault_address, fault_mask;             /* PAGE_FAULT */
    enum zd_fault_reason fault_reason;
    uint8_t raw[40]; /* the zet_debug_event_t, for acknowledgement */
};

/* Register set description (types as in zet_debug_regset_type_intel_gpu_t). */
struct zd_regset {
    uint32_t type, version, count, bit_size, byte_size;
    bool readable, writable;
};

enum zd_space { ZD_SPACE_DEFAULT = 0, ZD_SPACE_SLM = 1 };

struct zd;
struct zd_session;

/* Counters of Level Zero calls made, for tests and benchmarks. */
struct zd_stats {
    uint64_t read_event, ack, interrupt, resume, read_memory, write_memory, read_registers,
        write_registers, regset_props;
    /* Added after the first version: attach and detach calls, and every
     * Level Zero call made (including discovery and the ones above). */
    uint64_t attach, detach, total;
};

/* zeInit and enumeration of every driver's devices and sub-devices (roots
 * first, each followed by its sub-devices). */
int zd_open(struct zd **out, struct zd_error *err);
/* Waits for every detach handed to a reader (zd_wait_detached), so no
 * reader thread outlives the handle, then frees it. Every session must
 * have been detached (handed off or not) before. */
void zd_close(struct zd *zd);
size_t zd_device_count(const struct zd *zd);
const struct zd_device *zd_device_at(const struct zd *zd, size_t index);
/* Device-level register sets (zetDebugGetRegisterSetProperties). */
int zd_regsets(struct zd *zd, size_t device, struct zd_regset *out, size_t max, size_t *n,
               struct zd_error *err);

/* The register sets of one thread: zetDebugGetThreadRegisterSetProperties
 * when the loader has it (API 1.5+) and the driver answers, else the
 * device's sets (zd_regsets). *per_thread says which one answered. */
int zd_thread_regsets(struct zd_session *s, struct zd_thread t, struct zd_regset *out, size_t max,
                      size_t *n, bool *per_thread, struct zd_error *err);
/* Whether the loader has that query at all (looked up once by zd_open):
 * without it zd_thread_regsets always answers with the device's sets. */
bool zd_has_thread_regsets(const struct zd *zd);

int zd_attach(struct zd *zd, size_t device, uint32_t pid, struct zd_session **out,
              struct zd_error *err);
/* Ends the session; s is no longer the caller's whatever the answer. Safe
 * on a session whose debuggee is gone (a lost device counts as success).
 * Level Zero cannot cut short a zetDebugReadEvent, and zetDebugDetach
 * frees the driver's session, so it is never called during a read:
 * - the reader is inside zetDebugReadEvent: the detach is handed to it and
 *   ZD_E_PENDING is returned at once. It never calls the event callback
 *   again (an event it was reading is dropped: a held one is released by
 *   the detach), calls zetDebugDetach when its read returns (within 50
 *   ms), and its result comes through zd_wait_detached and the
 *   late-failure callback (zd_on_detach_failure);
 * - otherwise (no reader, or it is between reads or in the callback, which
 *   may be using the caller's state): the reader is stopped and joined,
 *   and the answer is zetDebugDetach's (0 or the failure).
 * Refused (ZD_E_INVALID, nothing done) from the session's own callback. */
int zd_detach(struct zd_session *s, struct zd_error *err);
/* Joins every reader a detach was handed to and returns the first failure
 * of their zetDebugDetach not yet returned (0 when none); the failure is
 * then forgotten. Refused (ZD_E_INVALID) from a reader thread of zd's
 * sessions: it could join itself. */
int zd_wait_detached(struct zd *zd, struct zd_error *err);
/* Called, on the reader thread, for each handed-off detach the driver
 * refused (a lost device is no failure), with the session's device index
 * and the error, before zd_wait_detached returns it. It runs concurrently
 * with the caller's other threads (and with other readers' calls), so it
 * must be thread-safe; it must not call zd_wait_detached or zd_close.
 * Set it before the first detach that may be handed off; NULL removes
 * it. fn and ctx must stay valid until zd_wait_detached or zd_close. */
typedef void (*zd_detach_failed_fn)(void *ctx, size_t device, const struct zd_error *err);
void zd_on_detach_failure(struct zd *zd, zd_detach_failed_fn fn, void *ctx);
size_t zd_session_device(const struct zd_session *s);

/* One blocking read with a timeout in ms (never a poll loop above this). */
int zd_read_event(struct zd_session *s, uint64_t timeout_ms, struct zd_event *ev,
                  struct zd_error *err);
/* A reader thread that calls fn for every event until zd_detach or until
 * DETACHED was delivered. fn runs on the reader thread. */
typedef void (*zd_event_fn)(void *ctx, const struct zd_event *ev);
int zd_start_reader(struct zd_session *s, zd_event_fn fn, void *ctx, struct zd_error *err);

int zd_ack(struct zd_session *s, const struct zd_event *ev, struct zd_error *err);
int zd_interrupt(struct zd_session *s, struct zd_thread t, struct zd_error *err);
int zd_resume(struct zd_session *s, struct zd_thread t, struct zd_error *err);
int zd_read_memory(struct zd_session *s, struct zd_thread t, enum zd_space space, uint64_t addr,
                   size_t size, void *buf, struct zd_error *err);
int zd_write_memory(struct zd_session *s, struct zd_thread t, enum zd_space space, uint64_t addr,
                    size_t size, const void *buf, struct zd_error *err);
int zd_read_registers(struct zd_session *s, struct zd_thread t, uint32_t type, uint32_t start,
                      uint32_t count, void *buf, struct zd_error *err);
int zd_write_registers(struct zd_session *s, struct zd_thread t, uint32_t type, uint32_t start,
                       uint32_t count, const void *buf, struct zd_error *err);

/* What /proc tells about a process, without asking the driver (zd_proc.c):
 * the attach sentences and zestub doctor both use it. */
struct zd_proc {
    bool exists;     /* /proc/PID is there */
    int maps_errno;  /* 0 when its memory map was read */
    bool level_zero; /* the Level Zero loader is mapped */
    bool exited;     /* it has ended and waits to be reaped (a zombie) */
};
/* 0, or -errno when the map could not be read (p says what is known). */
int zd_proc_probe(uint32_t pid, struct zd_proc *p);
/* NAME in the environment PID was started with: 1 and its value in val,
 * 0 when unset, -errno when that environment cannot be read. */
int zd_proc_getenv(uint32_t pid, const char *name, char *val, size_t len);

/* Totals since zd_open, over all sessions. */
void zd_get_stats(const struct zd *zd, struct zd_stats *out);

/* Names for logs and tests: "ERROR_NOT_AVAILABLE" for a ze_result_t value,
 * "too-early" for an enum zd_err, "MODULE_LOAD" for an event type. */
const char *zd_result_name(uint32_t raw);
const char *zd_err_name(int code);
const char *zd_event_name(enum zd_event_type type);

static inline struct zd_thread zd_thread_all(void)
{
    struct zd_thread t = {ZD_ALL, ZD_ALL, ZD_ALL, ZD_ALL};
    return t;
}

#endif
