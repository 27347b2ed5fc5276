/* SPDX-License-Identifier: MIT */
/* zetdebug internals shared by its .c files; nothing outside zetdebug/
 * includes this (it pulls in the Level Zero headers). */
#ifndef ZESTUB_ZD_IMPL_H
#define ZESTUB_ZD_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <ze_api.h>
#include <zet_api.h>

#include "zetdebug/zd.h"

/* Level Zero calls made, by kind; relaxed atomics because sessions call
 * from their reader threads and from the caller's threads at once. */
struct zd_counters {
    atomic_uint_fast64_t read_event, ack, interrupt, resume, read_memory, write_memory,
        read_registers, write_registers, regset_props, attach, detach, total;
};

/* zetDebugGetThreadRegisterSetProperties (API 1.5); loaders before 1.5
 * (Debian's 1.8.12) do not export it, so it is looked up at run time. */
typedef ze_result_t(ZE_APICALL *zd_thread_regsets_fn)(zet_debug_session_handle_t,
                                                      ze_device_thread_t, uint32_t *,
                                                      zet_debug_regset_properties_t *);

struct zd {
    size_t ndev;
    struct zd_device *devs;
    ze_device_handle_t *handles;
    struct zd_counters n;
    zd_thread_regsets_fn thread_regsets; /* NULL: the loader has none */

    /* Detaches handed to a session's reader (zd_session.c). `handoff`
     * guards the list, the first failure not yet returned by
     * zd_wait_detached, and the late-failure callback. */
    pthread_mutex_t handoff;
    struct zd_session *handed; /* readers not yet joined, newest first */
    bool late_failed;
    struct zd_error late_err;
    zd_detach_failed_fn on_failure;
    void *on_failure_ctx;
};

/* Frees what zd_open built (zd.c): its own failure paths, and zd_close
 * (zd_session.c) once every reader is joined. */
void zd_free_handle(struct zd *zd);

struct zd_session {
    struct zd *zd;
    size_t device;
    uint32_t pid;
    zet_debug_session_handle_t h;

    /* The reader thread. `lock` guards stop, in_read and handed_off;
     * `wake` lets zd_detach cut short the reader's back-off sleep. */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;
    bool in_read;        /* the reader is inside zetDebugReadEvent */
    bool handed_off;     /* zd_detach left the detach to the reader */
    bool reader_started; /* set once by zd_start_reader, read by zd_detach */
    pthread_t reader;
    zd_event_fn fn;
    void *ctx;

    /* A handed-off detach: the next in zd->handed, and `finished` (under
     * zd->handoff) once the reader has detached and is about to return. */
    struct zd_session *next_handed;
    bool finished;
};

/* Count one Level Zero call of a kind (the field of struct zd_counters). */
#define ZD_COUNT(zd, field)                                                                        \
    do {                                                                                           \
        atomic_fetch_add_explicit(&(zd)->n.field, 1, memory_order_relaxed);                        \
        atomic_fetch_add_explicit(&(zd)->n.total, 1, memory_order_relaxed);                        \
    } while (0)
#define ZD_COUNT_OTHER(zd) atomic_fetch_add_explicit(&(zd)->n.total, 1, memory_order_relaxed)

int zd_fail(struct zd_error *err, int code, uint32_t raw, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "what: sentence (ZE_RESULT_NAME, 0x...)"; returns the zd_err code. */
int zd_from_result(struct zd_error *err, ze_result_t r, const char *what);
int zd_attach_result(struct zd_error *err, ze_result_t r, uint32_t pid, bool subdevice);
int zd_code_of(ze_result_t r);
/* The loader's zetDebugGetThreadRegisterSetProperties, or NULL. */
zd_thread_regsets_fn zd_lookup_thread_regsets(void);
/* Copy count driver properties into out (at most max); sets *n. */
void zd_regsets_convert(const zet_debug_regset_properties_t *props, uint32_t count,
                        struct zd_regset *out, size_t max, size_t *n);

#endif
