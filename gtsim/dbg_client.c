/* SPDX-License-Identifier: MIT */
/* Debugger side of program debug: the zet calls a debugger process makes.
 * A session is a connection to the debuggee's gtsim for requests and their
 * replies, plus a stream of events (dbg_proto.h). The thread that makes a
 * request reads its reply itself: a hand-over through another thread costs
 * a wake-up per request, several times the work of the request on a busy
 * machine. A reader thread per session queues the events as they arrive
 * (for zetDebugReadEvent); when the debuggee goes away it queues DETACHED
 * (HOST_EXIT), and a request that meets the end of its stream waits for
 * that, so the queue is complete when the call says DEVICE_LOST. No call
 * ever waits on a dead process: both streams end when it dies.
 * zetDebugInterrupt makes no round trip and takes no lock: it answers from
 * what the reader recorded (dbg_intr_state.h) and writes its request on
 * the event stream, as Intel's runtime only queues it; the answer comes
 * as an event. */
#include <stdatomic.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "gtsim/dbg_client_int.h"
#include "gtsim/dbg_intr_state.h"
#include "gtsim/dbg_proto.h"
#include "gtsim/dbg_req.h"
#include "gtsim/device_build.h"
#include "gtsim/faults.h"
#include "gtsim/gtsim.h"
#include "gtsim/regfile.h"
#include "gtsim/ssa.h"
#include "gtsim/zet_fill.h"
#include "gtsim/zet_regset_props.h"

/* Sessions of this debugger process, to refuse double attaches early. */
static pthread_mutex_t sessions_lock = PTHREAD_MUTEX_INITIALIZER;
static struct client_session *sessions;

struct client_session *gtsim_client_session(zet_debug_session_handle_t h)
{
    struct client_session *s = (struct client_session *)h;
    return s && s->magic == GTSIM_MAGIC_SESSION ? s : NULL;
}

static void push_event(struct client_session *s, const zet_debug_event_t *ev)
{
    if (s->nevents == s->cap_events) {
        size_t cap = s->cap_events ? s->cap_events * 2 : 64;
        zet_debug_event_t *n = malloc(cap * sizeof(*n));
        if (!n)
            return;
        for (size_t i = 0; i < s->nevents; i++)
            n[i] = s->events[(s->head + i) % s->cap_events];
        free(s->events);
        s->events = n;
        s->cap_events = cap;
        s->head = 0;
    }
    s->events[(s->head + s->nevents) % s->cap_events] = *ev;
    s->nevents++;
}

bool gtsim_client_single_thread(const ze_device_thread_t *t)
{
    return t->slice != UINT32_MAX && t->subslice != UINT32_MAX && t->eu != UINT32_MAX &&
           t->thread != UINT32_MAX;
}

/* The reader's three messages; s->lock held. A thread counts as reported
 * stopped from the moment its event is queued, as in Intel's runtime,
 * which marks it when it generates the event. */
static void take_event(struct client_session *s, const zet_debug_event_t *ev)
{
    if (ev->type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED &&
        gtsim_client_single_thread(&ev->info.thread.thread))
        gtsim_intr_mark_stopped(&s->intr, &ev->info.thread.thread);
    push_event(s, ev);
}

static void take_answer(struct client_session *s, const void *p, uint32_t len)
{
    struct gtsim_dbg_answer a;
    memcpy(&a, p, sizeof(a));
    if (len - sizeof(a) >= (a.nbits + 7) / 8)
        gtsim_intr_mark_bits(&s->intr, (const uint8_t *)p + sizeof(a), a.nbits);
    push_event(s, &a.ev);
    /* Only now may the same request be made again (the runtime clears its
     * pending list after queuing the answers). */
    gtsim_intr_release(&s->intr, a.slot);
}

static void take_resumed(struct client_session *s, const struct gtsim_dbg_resumed *n)
{
    gtsim_intr_mark_resumed(&s->intr, &n->thread);
    s->resumes_seen = n->seq;
}

static void *reader_main(void *arg)
{
    struct client_session *s = arg;
    struct gtsim_dbg_hdr h;
    void *p;

    while (gtsim_dbg_recv(&s->erx, &h, &p) == 0) {
        pthread_mutex_lock(&s->lock);
        if (h.type == GTSIM_DBG_EVENT && h.len == sizeof(zet_debug_event_t))
            take_event(s, p);
        else if (h.type == GTSIM_DBG_ANSWER && h.len >= sizeof(struct gtsim_dbg_answer))
            take_answer(s, p, h.len);
        else if (h.type == GTSIM_DBG_RESUMED && h.len == sizeof(struct gtsim_dbg_resumed))
            take_resumed(s, p);
        else if (h.type == GTSIM_DBG_LOST)
            s->lost = true; /* the end of stream that follows says DETACHED(INVALID) */
        free(p);
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_lock(&s->lock);
    if (!s->dead) {
        zet_debug_event_t ev = {.type = ZET_DEBUG_EVENT_TYPE_DETACHED};
        /* The real driver reports a debug connection that went invalid
         * (a lost device) as DETACHED with reason INVALID. */
        ev.info.detached.reason =
            s->lost ? ZET_DEBUG_DETACH_REASON_INVALID : ZET_DEBUG_DETACH_REASON_HOST_EXIT;
        push_event(s, &ev);
        s->dead = true;
    }
    atomic_store(&s->gone, true);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Extra microseconds per register or memory access, as a real driver's
 * ioctl costs (README.md, "Cost model"): GTSIM_CONFIG's debug_latency_us,
 * else GTSIM_DEBUG_LATENCY_US. Read once; 0 when neither is set. */
static long access_latency_us(void)
{
    static long us = -1;
    if (us < 0) {
        const struct gtsim_driver *drv = gtsim_driver_get();
        const char *v = getenv("GTSIM_DEBUG_LATENCY_US");
        char *end = NULL;
        long n = v ? strtol(v, &end, 10) : 0;
        us = v && end && *end == 0 && n > 0 && n < 1000000 ? n : 0;
        if (drv && drv->cfg.debug_latency_us)
            us = drv->cfg.debug_latency_us;
    }
    return us;
}

/* The access takes `us` more, as said: a nanosleep of 10 us lasted about
 * 60 here (the kernel's default timer slack is 50 us), so every figure
 * with a modelled latency modelled a slower driver than it said. A thread
 * that pays a modelled latency gets a timer slack of 1 ns (once; it keeps
 * it: the knob is for benchmarks) and sleeps to an absolute end: 10 us
 * then last 13-14 us on this VM (the wake-up). A sleep, not a spin: the
 * latency of a real ioctl overlaps with other host threads' work. */
void gtsim_client_access_cost(uint32_t type)
{
    static _Thread_local bool precise;
    long us = access_latency_us();
    struct timespec end;
    if (!us || type < GTSIM_DBG_READ_MEM || type > GTSIM_DBG_WRITE_REGS)
        return;
    if (!precise) {
        (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        precise = true;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += us / 1000000;
    end.tv_nsec += us % 1000000 * 1000;
    if (end.tv_nsec >= 1000000000L) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR)
        ;
}

/* ---- GTSIM_FAULTS (faults.c) --------------------------------------------- */

/* The device is lost: the session ends as when the real driver's debug
 * connection goes invalid (DETACHED, then every call fails). Closing our
 * end makes the debuggee resume the threads we stopped. Caller holds
 * s->lock. */
static void lose_device_locked(struct client_session *s)
{
    if (!s->dead && !s->lost) {
        s->lost = true;
        fprintf(stderr, "gtsim: GTSIM_FAULTS: device lost (debug session of process %u)\n", s->pid);
        gtsim_req_shut(&s->req);
        shutdown(s->event_fd, SHUT_RDWR);
    }
}

static bool past(const struct timespec *at)
{
    struct timespec now;
    if (at->tv_sec == 0)
        return false;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > at->tv_sec || (now.tv_sec == at->tv_sec && now.tv_nsec >= at->tv_nsec);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
    while (ms > 0 && nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Counts a call; true when it must return *r instead of running. */
bool gtsim_client_fault(struct client_session *s, enum gtsim_fault_call call, ze_result_t *r)
{
    struct gtsim_fault_hit hit;
    if (s) {
        pthread_mutex_lock(&s->lock);
        if (past(&s->lose_at))
            lose_device_locked(s);
        pthread_mutex_unlock(&s->lock);
    }
    gtsim_faults_check(call, &hit);
    sleep_ms(hit.delay_ms);
    if (!hit.fail)
        return false;
    if (hit.lose && s) {
        pthread_mutex_lock(&s->lock);
        lose_device_locked(s);
        pthread_mutex_unlock(&s->lock);
    }
    *r = hit.result;
    return true;
}

/* The request stream failed: the debuggee is gone or closed the session
 * (or the stream is out of step, which ends it too). Waits for the reader
 * to queue what the event stream still held, then DETACHED, so a caller
 * that reads events after DEVICE_LOST finds them all, as it did when both
 * came on one stream. Shutting our end of the event stream bounds the
 * wait whatever the peer does; what it already sent is still read. */
ze_result_t gtsim_client_stream_ended(struct client_session *s)
{
    gtsim_req_shut(&s->req);
    shutdown(s->event_fd, SHUT_RDWR);
    pthread_mutex_lock(&s->lock);
    while (!s->dead)
        pthread_cond_wait(&s->cv, &s->lock);
    pthread_mutex_unlock(&s->lock);
    return ZE_RESULT_ERROR_DEVICE_LOST;
}

/* One request and its reply on st, which the caller holds (or owns s
 * alone). */
static ze_result_t exchange(struct client_session *s, struct gtsim_req_stream *st, uint32_t type,
                            const void *a, size_t alen, const void *b, size_t blen, int pass_fd,
                            void *out, size_t outlen)
{
    ze_result_t r = ZE_RESULT_ERROR_UNKNOWN;
    int rc = gtsim_req_exchange(st, type, a, alen, b, blen, pass_fd, &r, out, outlen);
    if (rc == -EMSGSIZE)
        return ZE_RESULT_ERROR_DEVICE_LOST; /* nothing went; the session goes on */
    return rc ? gtsim_client_stream_ended(s) : r;
}

/* Sends a request and waits for its reply. out/outlen receive reply data.
 * A register or memory access may go on a further stream when the first
 * is busy: the runtime takes no session lock for those. */
ze_result_t gtsim_client_request(struct client_session *s, uint32_t type, const void *a,
                                 size_t alen, const void *b, size_t blen, void *out, size_t outlen)
{
    struct gtsim_req_stream *st;
    ze_result_t r;
    bool dead;
    /* The caller's own time, as a real driver's ioctl: outside any lock. */
    gtsim_client_access_cost(type);
    st = gtsim_req_take(&s->req, type >= GTSIM_DBG_READ_MEM && type <= GTSIM_DBG_WRITE_REGS);
    pthread_mutex_lock(&s->lock);
    dead = s->dead;
    pthread_mutex_unlock(&s->lock);
    r = dead ? ZE_RESULT_ERROR_DEVICE_LOST
             : exchange(s, st, type, a, alen, b, blen, -1, out, outlen);
    gtsim_req_give(st);
    return r;
}

/* ---- attach / detach ----------------------------------------------------- */

static ze_result_t connect_to(uint32_t pid, int *out)
{
    char path[108];
    struct stat st;
    char proc[32];
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd;

    if (pid == 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    /* The endpoint lives in the debuggee owner's directory. */
    snprintf(proc, sizeof(proc), "/proc/%u", pid);
    if (stat(proc, &st) != 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (gtsim_dbg_socket_path((pid_t)pid, st.st_uid, path, sizeof(path)))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        int e = errno;
        close(fd);
        /* No endpoint yet: the process has not initialised Level Zero. */
        if (e == ENOENT || e == ECONNREFUSED)
            return ZE_RESULT_NOT_READY;
        if (e == EACCES || e == EPERM)
            return ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS;
        return ZE_RESULT_ERROR_UNKNOWN;
    }
    *out = fd;
    return ZE_RESULT_SUCCESS;
}

static void free_session(struct client_session *s)
{
    free(s->events);
    gtsim_ssa_view_close(&s->ssa);
    gtsim_intr_fini(&s->intr);
    gtsim_req_fini(&s->req); /* closes the request streams */
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cv);
    s->magic = 0;
    free(s);
}

/* GTSIM_FAULTS time:ms=N: when this session's device will be lost. */
static void arm_lost_timer(struct client_session *s)
{
    long ms = gtsim_faults_lost_after_ms();
    if (ms < 0)
        return;
    pthread_mutex_lock(&s->lock);
    clock_gettime(CLOCK_MONOTONIC, &s->lose_at);
    s->lose_at.tv_sec += ms / 1000 + (s->lose_at.tv_nsec + ms % 1000 * 1000000L) / 1000000000L;
    s->lose_at.tv_nsec = (s->lose_at.tv_nsec + ms % 1000 * 1000000L) % 1000000000L;
    pthread_mutex_unlock(&s->lock);
}

/* A session on connection fd (taken over, closed on failure) with its
 * event stream and reader thread; *peer is the debuggee's end of the
 * stream, for ATTACH to pass. */
static ze_result_t new_session(struct gtsim_device *d, uint32_t pid, int fd,
                               struct client_session **out, int *peer)
{
    struct client_session *s = calloc(1, sizeof(*s));
    const struct gtsim_hw_config *c = gtsim_hw_config(d->hw);
    pthread_condattr_t ca;
    int sv[2];
    if (!s || gtsim_intr_init(&s->intr, d->slice_count, c->subslices, c->eus, c->threads) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        if (s)
            gtsim_intr_fini(&s->intr);
        free(s);
        close(fd);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    atomic_init(&s->gone, false);
    s->ssa.fd = -1;
    s->magic = GTSIM_MAGIC_SESSION;
    s->device = d;
    s->pid = pid;
    gtsim_req_init(&s->req, fd,
                   gtsim_driver_get() ? gtsim_driver_get()->cfg.poll_us : GTSIM_DEFAULT_POLL_US);
    s->event_fd = sv[0];
    gtsim_dbg_rx_init(&s->erx, sv[0]);
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&s->reader, NULL, reader_main, s) != 0) {
        close(sv[0]);
        close(sv[1]);
        free_session(s);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *out = s;
    *peer = sv[1];
    return ZE_RESULT_SUCCESS;
}

/* Ends the streams and the reader; the session is then only memory (and
 * descriptors free_session closes). */
static void close_streams(struct client_session *s)
{
    gtsim_req_shut(&s->req);
    shutdown(s->event_fd, SHUT_RDWR);
    pthread_join(s->reader, NULL);
    close(s->event_fd);
}

/* Knocks: ATTACH with the event stream's other end. */
static ze_result_t knock(struct client_session *s, int peer)
{
    struct gtsim_device *d = s->device;
    struct gtsim_dbg_attach rq;
    struct gtsim_dbg_ssa_info info = {0};
    ze_result_t r;
    int ssa_fd;
    rq.ordinal = d->ordinal;
    rq.tile = d->root ? (int32_t)d->subdevice_id : -1;
    rq.config_id = gtsim_dbg_config_id(&d->driver->cfg);
    r = exchange(s, &s->req.first, GTSIM_DBG_ATTACH, &rq, sizeof(rq), NULL, 0, peer, &info,
                 sizeof(info));
    /* The debuggee holds its own copy now (or never will); ours would keep
     * the stream open after the debuggee died. */
    close(peer);
    /* The register slots' memfd, when the debuggee could make one. */
    ssa_fd = gtsim_dbg_rx_take_fd(&s->req.first.rx);
    s->ssa_slice_first = info.slice_first;
    s->ssa_slice_count = info.slice_count;
    if (r == ZE_RESULT_SUCCESS && info.slice_count == d->slice_count)
        (void)gtsim_ssa_view_open(&s->ssa, ssa_fd, &info, gtsim_hw_thread_count(d->hw),
                                  gtsim_hw_layout(d->hw)->slot_size);
    else if (ssa_fd >= 0)
        close(ssa_fd);
    return r;
}

static ze_result_t ZE_APICALL gtsim_zetDebugAttach(zet_device_handle_t hDevice,
                                                   const zet_debug_config_t *config,
                                                   zet_debug_session_handle_t *phSession)
{
    struct gtsim_device *d = gtsim_as_device(hDevice);
    struct client_session *s;
    ze_result_t r;
    int fd, peer;

    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!config || !phSession)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (d->root && !d->driver->cfg.tile_attach)
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    if (gtsim_client_fault(NULL, GTSIM_FAULT_ATTACH, &r))
        return r;
    pthread_mutex_lock(&sessions_lock);
    for (s = sessions; s; s = s->next)
        if (s->device == d) {
            r = s->pid == config->pid ? ZE_RESULT_ERROR_NOT_AVAILABLE
                                      : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
            pthread_mutex_unlock(&sessions_lock);
            return r;
        }
    pthread_mutex_unlock(&sessions_lock);

    r = connect_to(config->pid, &fd);
    if (r == ZE_RESULT_SUCCESS)
        r = new_session(d, config->pid, fd, &s, &peer);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    r = knock(s, peer);
    if (r == ZE_RESULT_ERROR_DEVICE_LOST)
        r = ZE_RESULT_NOT_READY; /* the process went away while we knocked */
    if (r != ZE_RESULT_SUCCESS) {
        pthread_mutex_lock(&s->lock);
        s->dead = true; /* no DETACHED event for a session that never was */
        pthread_mutex_unlock(&s->lock);
        close_streams(s);
        free_session(s);
        return r;
    }
    arm_lost_timer(s);
    pthread_mutex_lock(&sessions_lock);
    s->next = sessions;
    sessions = s;
    pthread_mutex_unlock(&sessions_lock);
    *phSession = (zet_debug_session_handle_t)s;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zetDebugDetach(zet_debug_session_handle_t hSession)
{
    struct client_session *s = gtsim_client_session(hSession);
    ze_result_t injected = ZE_RESULT_SUCCESS;
    if (!s)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* An injected failure still ends the session, as the real driver's
     * detach closes the connection and frees the session whatever the
     * close says. */
    (void)gtsim_client_fault(s, GTSIM_FAULT_DETACH, &injected);
    /* The debuggee resumes our threads when it gets DETACH or sees us go. */
    (void)gtsim_client_request(s, GTSIM_DBG_DETACH, NULL, 0, NULL, 0, NULL, 0);
    pthread_mutex_lock(&s->lock);
    s->dead = true;
    pthread_mutex_unlock(&s->lock);
    close_streams(s);
    pthread_mutex_lock(&sessions_lock);
    for (struct client_session **pp = &sessions; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    pthread_mutex_unlock(&sessions_lock);
    free_session(s);
    return injected;
}

static ze_result_t ZE_APICALL gtsim_zetDebugReadEvent(zet_debug_session_handle_t hSession,
                                                      uint64_t timeout_ms, zet_debug_event_t *ev)
{
    struct client_session *s = gtsim_client_session(hSession);
    struct timespec dl;
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (!s)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!ev)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    if (timeout_ms != UINT64_MAX) {
        uint64_t ns = (uint64_t)dl.tv_nsec + timeout_ms % 1000 * 1000000u;
        dl.tv_sec += (time_t)(timeout_ms / 1000 + ns / 1000000000u);
        dl.tv_nsec = (long)(ns % 1000000000u);
    }
    pthread_mutex_lock(&s->lock);
    /* A dead session with nothing queued never blocks. */
    while (s->nevents == 0 && !s->dead && timeout_ms != 0) {
        bool forever = timeout_ms == UINT64_MAX, lose_first;
        if (past(&s->lose_at))
            lose_device_locked(s); /* the reader queues DETACHED */
        /* GTSIM_FAULTS time:ms=N may come before the caller's timeout. */
        lose_first = s->lose_at.tv_sec && !s->lost &&
                     (forever || s->lose_at.tv_sec < dl.tv_sec ||
                      (s->lose_at.tv_sec == dl.tv_sec && s->lose_at.tv_nsec < dl.tv_nsec));
        if (forever && !lose_first)
            pthread_cond_wait(&s->cv, &s->lock);
        else if (pthread_cond_timedwait(&s->cv, &s->lock, lose_first ? &s->lose_at : &dl) ==
                     ETIMEDOUT &&
                 !lose_first)
            break;
    }
    if (s->nevents && s->events[s->head].type != ZET_DEBUG_EVENT_TYPE_DETACHED) {
        struct gtsim_fault_hit hit;
        gtsim_faults_check(GTSIM_FAULT_READ_EVENT, &hit);
        pthread_mutex_unlock(&s->lock);
        sleep_ms(hit.delay_ms);
        pthread_mutex_lock(&s->lock);
        if (hit.fail) {
            /* The event stays queued, unless the device is lost with it. */
            if (hit.lose) {
                s->head = (s->head + 1) % s->cap_events;
                s->nevents--;
                lose_device_locked(s);
            }
            pthread_mutex_unlock(&s->lock);
            return hit.result;
        }
    }
    if (s->nevents) {
        *ev = s->events[s->head];
        s->head = (s->head + 1) % s->cap_events;
        s->nevents--;
    } else {
        r = ZE_RESULT_NOT_READY;
    }
    pthread_mutex_unlock(&s->lock);
    return r;
}

static ze_result_t ZE_APICALL gtsim_zetDebugAcknowledgeEvent(zet_debug_session_handle_t hSession,
                                                             const zet_debug_event_t *ev)
{
    struct client_session *s = gtsim_client_session(hSession);
    ze_result_t r;
    if (!s)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!ev)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (gtsim_client_fault(s, GTSIM_FAULT_ACK, &r))
        return r;
    return gtsim_client_request(s, GTSIM_DBG_ACK, ev, sizeof(*ev), NULL, 0, NULL, 0);
}

/* As Intel's runtime (DebugSessionImp::interrupt): answered from what
 * this process knows, the request queued (written on the event stream in
 * one send) and SUCCESS at once; its answer is an event. No lock, no
 * allocation, no wait: safe in a signal handler that interrupted any other
 * zetDebug* call, unless GTSIM_FAULTS has a rule for interrupts or a
 * time:ms rule (their bookkeeping takes locks). */
static ze_result_t ZE_APICALL gtsim_zetDebugInterrupt(zet_debug_session_handle_t hSession,
                                                      ze_device_thread_t thread)
{
    struct client_session *s = gtsim_client_session(hSession);
    struct gtsim_dbg_interrupt_req rq = {thread, 0, 0};
    ze_result_t r;
    if (!s)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (gtsim_faults_may_touch(GTSIM_FAULT_INTERRUPT) &&
        gtsim_client_fault(s, GTSIM_FAULT_INTERRUPT, &r))
        return r;
    if (atomic_load(&s->gone))
        return ZE_RESULT_ERROR_DEVICE_LOST;
    if (!gtsim_intr_in_range(&s->intr, &thread))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    r = gtsim_intr_claim(&s->intr, &thread, &rq.slot);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    /* Small enough to go in one piece whoever else sends an interrupt. */
    if (gtsim_dbg_send(s->event_fd, GTSIM_DBG_INTERRUPT, &rq, sizeof(rq), NULL, 0) != 0) {
        gtsim_intr_release(&s->intr, rq.slot);
        return ZE_RESULT_ERROR_DEVICE_LOST; /* the reader queues DETACHED */
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL gtsim_zetDebugResume(zet_debug_session_handle_t hSession,
                                                   ze_device_thread_t thread)
{
    struct client_session *s = gtsim_client_session(hSession);
    struct gtsim_dbg_thread_req rq = {thread};
    uint32_t seq;
    ze_result_t r;
    if (!s)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (gtsim_client_fault(s, GTSIM_FAULT_RESUME, &r))
        return r;
    r = gtsim_client_request(s, GTSIM_DBG_RESUME, &rq, sizeof(rq), NULL, 0, &seq, sizeof(seq));
    /* The runtime forgets the resumed threads were stopped before resume
     * returns; the reader will when the debuggee's note comes. Until then
     * forget them here, unless the reader is past that note already (it
     * may then have seen a new stop of one of them). */
    pthread_mutex_lock(&s->lock);
    if (r == ZE_RESULT_SUCCESS && (int32_t)(seq - s->resumes_seen) > 0)
        gtsim_intr_mark_resumed(&s->intr, &thread);
    pthread_mutex_unlock(&s->lock);
    return r;
}

static ze_result_t memory(zet_debug_session_handle_t hSession, ze_device_thread_t thread,
                          const zet_debug_memory_space_desc_t *desc, size_t size, void *buf,
                          bool write)
{
    struct client_session *s = gtsim_client_session(hSession);
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (!s)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !buf)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->type > ZET_DEBUG_MEMORY_SPACE_TYPE_SLM)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (size == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    if (gtsim_client_fault(s, write ? GTSIM_FAULT_WRITE_MEMORY : GTSIM_FAULT_READ_MEMORY, &r))
        return r;
    /* Large transfers go in pieces that fit one message. */
    for (size_t done = 0; done < size && r == ZE_RESULT_SUCCESS;) {
        size_t n = size - done < GTSIM_DBG_MAX_XFER ? size - done : GTSIM_DBG_MAX_XFER;
        struct gtsim_dbg_mem_req rq = {thread, desc->type, 0, desc->address + done, n};
        uint8_t *p = (uint8_t *)buf + done;
        r = write ? gtsim_client_request(s, GTSIM_DBG_WRITE_MEM, &rq, sizeof(rq), p, n, NULL, 0)
                  : gtsim_client_request(s, GTSIM_DBG_READ_MEM, &rq, sizeof(rq), NULL, 0, p, n);
        done += n;
    }
    return r;
}

static ze_result_t ZE_APICALL gtsim_zetDebugReadMemory(zet_debug_session_handle_t hSession,
                                                       ze_device_thread_t thread,
                                                       const zet_debug_memory_space_desc_t *desc,
                                                       size_t size, void *buf)
{
    return memory(hSession, thread, desc, size, buf, false);
}

static ze_result_t ZE_APICALL gtsim_zetDebugWriteMemory(zet_debug_session_handle_t hSession,
                                                        ze_device_thread_t thread,
                                                        const zet_debug_memory_space_desc_t *desc,
                                                        size_t size, const void *buf)
{
    return memory(hSession, thread, desc, size, (void *)buf, true);
}

void gtsim_fill_zet_debug(zet_debug_dditable_t *t)
{
    t->pfnAttach = gtsim_zetDebugAttach;
    t->pfnDetach = gtsim_zetDebugDetach;
    t->pfnReadEvent = gtsim_zetDebugReadEvent;
    t->pfnAcknowledgeEvent = gtsim_zetDebugAcknowledgeEvent;
    t->pfnInterrupt = gtsim_zetDebugInterrupt;
    t->pfnResume = gtsim_zetDebugResume;
    t->pfnReadMemory = gtsim_zetDebugReadMemory;
    t->pfnWriteMemory = gtsim_zetDebugWriteMemory;
    t->pfnGetRegisterSetProperties = gtsim_zetDebugGetRegisterSetProperties;
}
