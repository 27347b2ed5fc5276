/* SPDX-License-Identifier: MIT */
/* zetdebug: debug sessions, events and their reader thread, detaches
 * (handed to the reader during a read), run control, memory and
 * registers. */
#include "zetdebug/zd_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Static_assert(sizeof(zet_debug_event_t) <= sizeof(((struct zd_event *)0)->raw),
               "struct zd_event.raw must hold a zet_debug_event_t");

/* How long one zetDebugReadEvent of the reader thread may block (200 ms
 * before 2026-11-24); events themselves wake the reader at once. Only so
 * the reader notices a stop: Level Zero has no call that ends a read in
 * progress. zd_detach does not wait it out: during a read it hands the
 * detach to the reader, which makes it when the read returns, at most
 * this much later; zd_wait_detached (every dump, the server's exit) and
 * zd_close wait up to this much once, for all sessions together. */
#define READER_SLICE_MS 50
/* Event reads failing in a row, READER_RETRY_MS apart, before the session
 * is taken for dead: about 2.5 s. */
#define READER_RETRY_MS 50
#define READER_MAX_FAILURES 50

/* The session whose reader runs on this thread, so zd_detach can refuse
 * to be called from that reader's callback. Set by the reader itself: the
 * callback may run before pthread_create has stored the thread's id in
 * s->reader, and before zd_start_reader has set s->reader_started. */
static _Thread_local const struct zd_session *reader_of;

static ze_device_thread_t to_ze(struct zd_thread t)
{
    return (ze_device_thread_t){
        .slice = t.slice, .subslice = t.subslice, .eu = t.eu, .thread = t.thread};
}

static struct zd_thread from_ze(ze_device_thread_t t)
{
    return (struct zd_thread){
        .slice = t.slice, .subslice = t.subslice, .eu = t.eu, .thread = t.thread};
}

/* "1.2.3.4" or "all" for messages. */
static const char *thread_str(struct zd_thread t, char *buf, size_t size)
{
    if (t.slice == ZD_ALL && t.subslice == ZD_ALL && t.eu == ZD_ALL && t.thread == ZD_ALL)
        snprintf(buf, size, "all threads");
    else
        snprintf(buf, size, "thread %u.%u.%u.%u", (unsigned)t.slice, (unsigned)t.subslice,
                 (unsigned)t.eu, (unsigned)t.thread);
    return buf;
}

int zd_attach(struct zd *zd, size_t device, uint32_t pid, struct zd_session **out,
              struct zd_error *err)
{
    zet_debug_config_t cfg = {.pid = pid};
    struct zd_session *s;
    ze_result_t r;

    *out = NULL;
    if (!zd || device >= zd->ndev)
        return zd_fail(err, ZD_E_INVALID, 0, "no device %zu", device);
    s = calloc(1, sizeof(*s));
    if (!s)
        return zd_fail(err, ZD_E_NOMEM, 0, "out of memory");
    s->zd = zd;
    s->device = device;
    s->pid = pid;
    ZD_COUNT(zd, attach);
    r = zetDebugAttach(zd->handles[device], &cfg, &s->h);
    if (r != ZE_RESULT_SUCCESS) {
        free(s);
        return zd_attach_result(err, r, pid, zd->devs[device].parent >= 0);
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    *out = s;
    return zd_from_result(err, ZE_RESULT_SUCCESS, "");
}

size_t zd_session_device(const struct zd_session *s)
{
    return s->device;
}

static void session_free(struct zd_session *s)
{
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static bool on_reader_of(const struct zd *zd)
{
    return reader_of && reader_of->zd == zd;
}

/* ---- detaches handed to the reader -------------------------------------------
 * Level Zero has no call that ends a zetDebugReadEvent in progress, and
 * zetDebugDetach frees the driver's session (Intel's compute-runtime,
 * gtsim), so it must wait for the read to return: rather than make
 * zd_detach's caller wait out the reader's slice, the reader makes the call
 * itself when its read returns. struct zd keeps the readers to join, and
 * the first failure to give. */

/* Joins the handed-off readers that have already detached (their join
 * waits only for the thread's return), so a long-lived caller that never
 * calls zd_wait_detached keeps no finished thread unjoined. */
static void reap_finished(struct zd *zd)
{
    struct zd_session **p, *done = NULL;
    pthread_mutex_lock(&zd->handoff);
    for (p = &zd->handed; *p;) {
        struct zd_session *s = *p;
        if (!s->finished) {
            p = &s->next_handed;
            continue;
        }
        *p = s->next_handed;
        s->next_handed = done;
        done = s;
    }
    pthread_mutex_unlock(&zd->handoff);
    while (done) {
        struct zd_session *s = done;
        done = s->next_handed;
        pthread_join(s->reader, NULL);
        session_free(s);
    }
}

static int hand_off(struct zd_session *s, struct zd_error *err)
{
    struct zd *zd = s->zd;
    /* Not from a reader of zd: it would join threads from a callback. */
    if (!on_reader_of(zd))
        reap_finished(zd);
    pthread_mutex_lock(&zd->handoff);
    s->next_handed = zd->handed;
    zd->handed = s;
    pthread_mutex_unlock(&zd->handoff);
    return zd_fail(err, ZD_E_PENDING, 0,
                   "detaching: handed to the session's event reader, which detaches when its "
                   "read returns");
}

static void finish_handoff(struct zd_session *s)
{
    struct zd *zd = s->zd;
    struct zd_error e;
    zd_detach_failed_fn fn = NULL;
    void *ctx = NULL;
    ze_result_t r;

    ZD_COUNT(zd, detach);
    r = zetDebugDetach(s->h);
    if (r == ZE_RESULT_ERROR_DEVICE_LOST) /* the debuggee is gone: success */
        r = ZE_RESULT_SUCCESS;
    zd_from_result(&e, r, "detaching");
    pthread_mutex_lock(&zd->handoff);
    if (r != ZE_RESULT_SUCCESS) {
        if (!zd->late_failed)
            zd->late_err = e;
        zd->late_failed = true;
        fn = zd->on_failure;
        ctx = zd->on_failure_ctx;
    }
    pthread_mutex_unlock(&zd->handoff);
    /* Outside the lock: the callback may take the caller's own locks, and
     * those may be held around a zd_detach that takes this one. */
    if (fn)
        fn(ctx, s->device, &e);
    pthread_mutex_lock(&zd->handoff);
    s->finished = true;
    pthread_mutex_unlock(&zd->handoff);
}

int zd_wait_detached(struct zd *zd, struct zd_error *err)
{
    struct zd_session *s;
    struct zd_error e;
    bool failed;

    if (!zd)
        return zd_fail(err, ZD_E_INVALID, 0, "no zetdebug handle");
    if (on_reader_of(zd))
        return zd_fail(err, ZD_E_INVALID, 0,
                       "zd_wait_detached called from an event reader: it could join itself");
    pthread_mutex_lock(&zd->handoff);
    s = zd->handed;
    zd->handed = NULL;
    pthread_mutex_unlock(&zd->handoff);
    while (s) {
        struct zd_session *next = s->next_handed;
        pthread_join(s->reader, NULL);
        session_free(s);
        s = next;
    }
    pthread_mutex_lock(&zd->handoff);
    failed = zd->late_failed;
    e = zd->late_err;
    zd->late_failed = false;
    pthread_mutex_unlock(&zd->handoff);
    if (!failed)
        return zd_from_result(err, ZE_RESULT_SUCCESS, "");
    if (err)
        *err = e;
    return e.code;
}

/* Here rather than beside zd_open: closing waits for the sessions' readers
 * first (no reader may outlive the handle: each holds zd for its
 * counters), and only then frees what zd_open built. */
void zd_close(struct zd *zd)
{
    if (!zd)
        return;
    (void)zd_wait_detached(zd, NULL);
    zd_free_handle(zd);
}

void zd_on_detach_failure(struct zd *zd, zd_detach_failed_fn fn, void *ctx)
{
    if (!zd)
        return;
    pthread_mutex_lock(&zd->handoff);
    zd->on_failure = fn;
    zd->on_failure_ctx = ctx;
    pthread_mutex_unlock(&zd->handoff);
}

/* Asks the reader to stop. True when it is inside zetDebugReadEvent: the
 * detach is then handed to it and it is not joined. Otherwise it is joined
 * (its callback may be using the caller's state, which the caller frees
 * after zd_detach). */
static bool stop_reader(struct zd_session *s)
{
    bool handed;
    pthread_mutex_lock(&s->lock);
    s->stop = true;
    handed = s->handed_off = s->in_read;
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    if (!handed)
        pthread_join(s->reader, NULL);
    return handed;
}

int zd_detach(struct zd_session *s, struct zd_error *err)
{
    ze_result_t r;
    if (!s)
        return zd_fail(err, ZD_E_INVALID, 0, "no session");
    if (reader_of == s)
        return zd_fail(err, ZD_E_INVALID, 0,
                       "zd_detach called from the session's own event callback");
    if (s->reader_started && stop_reader(s))
        return hand_off(s, err);
    ZD_COUNT(s->zd, detach);
    r = zetDebugDetach(s->h);
    session_free(s);
    /* A debuggee that is gone has detached us already: that is success. */
    if (r == ZE_RESULT_ERROR_DEVICE_LOST)
        r = ZE_RESULT_SUCCESS;
    return zd_from_result(err, r, "detaching");
}

/* zet_debug_event_t -> struct zd_event. 0, or -1 for a type we do not know
 * (newer drivers may add some; the event is still kept raw for its ack). */
static int convert(const zet_debug_event_t *e, struct zd_event *ev)
{
    memset(ev, 0, sizeof(*ev));
    memcpy(ev->raw, e, sizeof(*e));
    ev->need_ack = (e->flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK) != 0;
    switch (e->type) {
    case ZET_DEBUG_EVENT_TYPE_DETACHED:
        ev->type = ZD_EV_DETACHED;
        ev->detach_reason = (uint32_t)e->info.detached.reason;
        return 0;
    case ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY:
        ev->type = ZD_EV_PROCESS_ENTRY;
        return 0;
    case ZET_DEBUG_EVENT_TYPE_PROCESS_EXIT:
        ev->type = ZD_EV_PROCESS_EXIT;
        return 0;
    case ZET_DEBUG_EVENT_TYPE_MODULE_LOAD:
    case ZET_DEBUG_EVENT_TYPE_MODULE_UNLOAD:
        ev->type =
            e->type == ZET_DEBUG_EVENT_TYPE_MODULE_LOAD ? ZD_EV_MODULE_LOAD : ZD_EV_MODULE_UNLOAD;
        ev->module_begin = e->info.module.moduleBegin;
        ev->module_end = e->info.module.moduleEnd;
        ev->module_load = e->info.module.load;
        return 0;
    case ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED:
    case ZET_DEBUG_EVENT_TYPE_THREAD_UNAVAILABLE:
        ev->type = e->type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED ? ZD_EV_THREAD_STOPPED
                                                                  : ZD_EV_THREAD_UNAVAILABLE;
        ev->thread = from_ze(e->info.thread.thread);
        return 0;
    case ZET_DEBUG_EVENT_TYPE_PAGE_FAULT:
        ev->type = ZD_EV_PAGE_FAULT;
        ev->fault_address = e->info.page_fault.address;
        ev->fault_mask = e->info.page_fault.mask;
        ev->fault_reason = (enum zd_fault_reason)e->info.page_fault.reason;
        return 0;
    default:
        return -1;
    }
}

/* One zetDebugReadEvent. Unknown event types are acknowledged when they ask
 * for it and reported as ZD_E_OTHER, so no caller ever sees them. */
static int read_one(struct zd_session *s, uint64_t timeout_ms, struct zd_event *ev,
                    struct zd_error *err)
{
    zet_debug_event_t e = {.type = ZET_DEBUG_EVENT_TYPE_INVALID};
    ze_result_t r;
    ZD_COUNT(s->zd, read_event);
    r = zetDebugReadEvent(s->h, timeout_ms, &e);
    if (r == ZE_RESULT_NOT_READY)
        return zd_fail(err, ZD_E_TIMEOUT, (uint32_t)r, "no event within %" PRIu64 " ms",
                       timeout_ms);
    if (r != ZE_RESULT_SUCCESS)
        return zd_from_result(err, r, "reading a debug event");
    if (convert(&e, ev) != 0) {
        if (e.flags & ZET_DEBUG_EVENT_FLAG_NEED_ACK) {
            ZD_COUNT(s->zd, ack);
            (void)zetDebugAcknowledgeEvent(s->h, &e);
        }
        return zd_fail(err, ZD_E_OTHER, 0, "ignored a debug event of unknown type %u",
                       (unsigned)e.type);
    }
    return zd_from_result(err, ZE_RESULT_SUCCESS, "");
}

int zd_read_event(struct zd_session *s, uint64_t timeout_ms, struct zd_event *ev,
                  struct zd_error *err)
{
    if (s->reader_started)
        return zd_fail(err, ZD_E_INVALID, 0, "this session's events belong to its reader thread");
    return read_one(s, timeout_ms, ev, err);
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Waits up to ms on the wake condition; true when asked to stop. */
static bool pause_unless_stopped(struct zd_session *s, uint64_t ms)
{
    struct timespec until;
    bool stop;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)(ms / 1000);
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->lock);
    while (!s->stop && pthread_cond_timedwait(&s->wake, &s->lock, &until) != ETIMEDOUT) {
    }
    stop = s->stop;
    pthread_mutex_unlock(&s->lock);
    return stop;
}

/* Marks the reader inside zetDebugReadEvent, unless zd_detach has asked
 * it to stop: false then. Under the lock, so zd_detach sees either a stop
 * the reader will notice before reading, or a read in progress. */
static bool enter_read(struct zd_session *s)
{
    bool go;
    pthread_mutex_lock(&s->lock);
    go = !s->stop;
    s->in_read = go;
    pthread_mutex_unlock(&s->lock);
    return go;
}

/* The read has returned: true when zd_detach handed the detach over
 * meanwhile (the caller may have freed what the callback uses). */
static bool leave_read(struct zd_session *s)
{
    bool handed;
    pthread_mutex_lock(&s->lock);
    s->in_read = false;
    handed = s->handed_off;
    pthread_mutex_unlock(&s->lock);
    return handed;
}

/* The session is dead (device lost, debuggee gone without a DETACHED
 * event), or its events cannot be read: tell the callback the way the
 * driver would have, with reason 0 (INVALID). Failing reads are marked,
 * with the driver's words: the application may be alive, and the session
 * still holds its threads until zd_detach. */
static void deliver_end(struct zd_session *s, int rc, struct zd_error *err)
{
    struct zd_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = ZD_EV_DETACHED;
    ev.detach_reason = 0;
    if (rc != ZD_E_LOST) {
        err->code = rc;
        ev.read_error = err;
    }
    s->fn(s->ctx, &ev);
}

static void *reader_main(void *arg)
{
    struct zd_session *s = arg;
    unsigned failures = 0; /* event reads failed in a row */
    reader_of = s;
    while (enter_read(s)) {
        struct zd_event ev;
        struct zd_error err;
        uint64_t t0 = now_ms();
        int rc = read_one(s, READER_SLICE_MS, &ev, &err);
        if (leave_read(s)) {
            finish_handoff(s); /* no callback: the event is dropped */
            break;
        }
        if (rc == 0)
            failures = 0;
        if (rc == ZD_E_TIMEOUT) {
            /* A driver whose debuggee is gone answers NOT_READY at once
             * (gtsim does, after the queued events): wait out the slice so
             * the reader never spins. */
            uint64_t spent = now_ms() - t0;
            if (spent + 5 < READER_SLICE_MS && pause_unless_stopped(s, READER_SLICE_MS - spent))
                break;
            continue;
        }
        if (rc == ZD_E_OTHER && err.raw == 0)
            continue; /* an unknown event type, already acknowledged */
        /* A failed read (an ioctl error, not a lost device) leaves the
         * event with the driver: read again after a pause, and give up
         * only when reads keep failing, rather than tell the client the
         * process is gone because of one error. */
        if (rc != 0 && rc != ZD_E_LOST && ++failures < READER_MAX_FAILURES) {
            if (pause_unless_stopped(s, READER_RETRY_MS))
                break;
            continue;
        }
        if (rc != 0) {
            deliver_end(s, rc, &err);
            break;
        }
        s->fn(s->ctx, &ev);
        if (ev.type == ZD_EV_DETACHED)
            break;
    }
    return NULL;
}

int zd_start_reader(struct zd_session *s, zd_event_fn fn, void *ctx, struct zd_error *err)
{
    int rc;
    if (!s || !fn)
        return zd_fail(err, ZD_E_INVALID, 0, "zd_start_reader needs a session and a callback");
    if (s->reader_started)
        return zd_fail(err, ZD_E_INVALID, 0, "the session already has a reader thread");
    s->fn = fn;
    s->ctx = ctx;
    rc = pthread_create(&s->reader, NULL, reader_main, s);
    if (rc != 0)
        return zd_fail(err, rc == EAGAIN ? ZD_E_NOMEM : ZD_E_OTHER, 0,
                       "cannot start the event reader thread: %s", strerror(rc));
    s->reader_started = true;
    return zd_from_result(err, ZE_RESULT_SUCCESS, "");
}

int zd_ack(struct zd_session *s, const struct zd_event *ev, struct zd_error *err)
{
    zet_debug_event_t e;
    ze_result_t r;
    memcpy(&e, ev->raw, sizeof(e));
    ZD_COUNT(s->zd, ack);
    r = zetDebugAcknowledgeEvent(s->h, &e);
    return zd_from_result(err, r, "acknowledging a debug event");
}

int zd_interrupt(struct zd_session *s, struct zd_thread t, struct zd_error *err)
{
    char what[64], ts[32];
    ze_result_t r;
    ZD_COUNT(s->zd, interrupt);
    r = zetDebugInterrupt(s->h, to_ze(t));
    if (r == ZE_RESULT_ERROR_NOT_AVAILABLE)
        return zd_fail(err, ZD_E_UNAVAILABLE, (uint32_t)r,
                       "interrupting %s: already stopped or unavailable",
                       thread_str(t, ts, sizeof(ts)));
    /* Intel's runtime (DebugSessionImp::interrupt): the same thread id is
     * in its pending list, whose answers are still to come. Not a failure:
     * the caller waits for that answer. */
    if (r == ZE_RESULT_NOT_READY)
        return zd_fail(err, ZD_E_PENDING, (uint32_t)r,
                       "interrupting %s: the same interrupt is pending, its answer will come",
                       thread_str(t, ts, sizeof(ts)));
    snprintf(what, sizeof(what), "interrupting %s", thread_str(t, ts, sizeof(ts)));
    return zd_from_result(err, r, what);
}

int zd_resume(struct zd_session *s, struct zd_thread t, struct zd_error *err)
{
    char what[64], ts[32];
    ze_result_t r;
    ZD_COUNT(s->zd, resume);
    r = zetDebugResume(s->h, to_ze(t));
    if (r == ZE_RESULT_ERROR_NOT_AVAILABLE)
        return zd_fail(err, ZD_E_UNAVAILABLE, (uint32_t)r, "resuming %s: nothing is stopped",
                       thread_str(t, ts, sizeof(ts)));
    snprintf(what, sizeof(what), "resuming %s", thread_str(t, ts, sizeof(ts)));
    return zd_from_result(err, r, what);
}

static int memory(struct zd_session *s, struct zd_thread t, enum zd_space space, uint64_t addr,
                  size_t size, void *buf, bool write, struct zd_error *err)
{
    zet_debug_memory_space_desc_t d = {
        .stype = ZET_STRUCTURE_TYPE_DEBUG_MEMORY_SPACE_DESC,
        .type = space == ZD_SPACE_SLM ? ZET_DEBUG_MEMORY_SPACE_TYPE_SLM
                                      : ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT,
        .address = addr,
    };
    char what[128], ts[32];
    ze_result_t r;
    if (write) {
        ZD_COUNT(s->zd, write_memory);
        r = zetDebugWriteMemory(s->h, to_ze(t), &d, size, buf);
    } else {
        ZD_COUNT(s->zd, read_memory);
        r = zetDebugReadMemory(s->h, to_ze(t), &d, size, buf);
    }
    if (r == ZE_RESULT_SUCCESS)
        return zd_from_result(err, r, "");
    snprintf(what, sizeof(what), "%s %zu bytes %s 0x%" PRIx64 "%s (%s)",
             write ? "writing" : "reading", size, write ? "to" : "at", addr,
             space == ZD_SPACE_SLM ? " in SLM" : "", thread_str(t, ts, sizeof(ts)));
    if (r == ZE_RESULT_ERROR_NOT_AVAILABLE)
        return zd_fail(err, ZD_E_UNAVAILABLE, (uint32_t)r,
                       "%s: the thread is running or cannot reach that memory", what);
    if (r == ZE_RESULT_ERROR_INVALID_ARGUMENT)
        return zd_fail(err, ZD_E_INVALID, (uint32_t)r,
                       "%s: the address is not mapped or the range is not accessible", what);
    return zd_from_result(err, r, what);
}

int zd_read_memory(struct zd_session *s, struct zd_thread t, enum zd_space space, uint64_t addr,
                   size_t size, void *buf, struct zd_error *err)
{
    return memory(s, t, space, addr, size, buf, false, err);
}

int zd_write_memory(struct zd_session *s, struct zd_thread t, enum zd_space space, uint64_t addr,
                    size_t size, const void *buf, struct zd_error *err)
{
    /* zetDebugWriteMemory takes a const buffer; the cast is for the shared
     * helper only. */
    return memory(s, t, space, addr, size, (void *)buf, true, err);
}

static int registers(struct zd_session *s, struct zd_thread t, uint32_t type, uint32_t start,
                     uint32_t count, void *buf, bool write, struct zd_error *err)
{
    char what[128], ts[32];
    ze_result_t r;
    if (write) {
        ZD_COUNT(s->zd, write_registers);
        r = zetDebugWriteRegisters(s->h, to_ze(t), type, start, count, buf);
    } else {
        ZD_COUNT(s->zd, read_registers);
        r = zetDebugReadRegisters(s->h, to_ze(t), type, start, count, buf);
    }
    if (r == ZE_RESULT_SUCCESS)
        return zd_from_result(err, r, "");
    snprintf(what, sizeof(what), "%s registers %u..%u of set %u (%s)",
             write ? "writing" : "reading", (unsigned)start, (unsigned)(start + count - 1),
             (unsigned)type, thread_str(t, ts, sizeof(ts)));
    if (r == ZE_RESULT_ERROR_NOT_AVAILABLE)
        return zd_fail(err, ZD_E_UNAVAILABLE, (uint32_t)r,
                       "%s: the thread is running or unavailable", what);
    if (r == ZE_RESULT_ERROR_INVALID_ARGUMENT)
        return zd_fail(err, ZD_E_INVALID, (uint32_t)r, "%s: no such registers%s", what,
                       write ? " or the set is read-only" : "");
    return zd_from_result(err, r, what);
}

int zd_read_registers(struct zd_session *s, struct zd_thread t, uint32_t type, uint32_t start,
                      uint32_t count, void *buf, struct zd_error *err)
{
    return registers(s, t, type, start, count, buf, false, err);
}

int zd_write_registers(struct zd_session *s, struct zd_thread t, uint32_t type, uint32_t start,
                       uint32_t count, const void *buf, struct zd_error *err)
{
    return registers(s, t, type, start, count, (void *)buf, true, err);
}
