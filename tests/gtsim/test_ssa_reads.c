/* SPDX-License-Identifier: MIT */
/* gtsim's register reads served in the debugger's process (gtsim/ssa.h):
 * the debuggee passes its register slots with attach, and
 * zetDebugReadRegisters of a stopped thread is a pread here, as a real
 * debugger reads the state save area without the debuggee's help.
 *
 * Run 1, the shared slots: while the debuggee's threads stop late (an
 * interrupt with interrupt_spread_ms), some read NOT_AVAILABLE, then all
 * read; a write made through zetDebugWriteRegisters (a request) reads
 * back; reads of every stopped thread succeed and give the same values
 * while the debuggee process is SIGSTOPped (bounded: a read that waits
 * for the stopped debuggee fails the check instead of hanging the test),
 * and again after SIGCONT; a thread resumed between two reads, and a
 * running one, read NOT_AVAILABLE; a bad thread INVALID_ARGUMENT; once
 * the debuggee is killed, DEVICE_LOST although its slots still read.
 * Run 2, the fallback (GTSIM_SSA_MEMFD=0 in the debuggee's environment:
 * no memfd, reads are requests): the same answers, cr0 of every stopped
 * thread as in run 1, and a read while the debuggee is SIGSTOPped waits
 * for SIGCONT, which shows the requests' path was taken. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zet_api.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

#define SPREAD_MS 1500
#define MAX_THREADS 256
#define GRF_BYTES 64 /* xehpc: 512-bit GRF registers */

struct device_view {
    ze_device_properties_t p;
    uint32_t all;
};

static void nap_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static ze_device_thread_t nth_thread(const struct device_view *v, uint32_t i)
{
    uint32_t th = v->p.numThreadsPerEU, eu = v->p.numEUsPerSubslice, ss = v->p.numSubslicesPerSlice;
    return (ze_device_thread_t){i / (th * eu * ss), i / (th * eu) % ss, i / th % eu, i % th};
}

/* cr0 of every thread into cr (4 dwords each); how many read SUCCESS and
 * how many NOT_AVAILABLE. */
static void read_all(zet_debug_session_handle_t s, const struct device_view *v, uint32_t *cr,
                     unsigned *ok, unsigned *na)
{
    *ok = *na = 0;
    for (uint32_t i = 0; i < v->all; i++) {
        ze_result_t r = conf_read_cr0(s, nth_thread(v, i), cr + 4 * i);
        *ok += r == ZE_RESULT_SUCCESS;
        *na += r == ZE_RESULT_ERROR_NOT_AVAILABLE;
    }
}

/* Reads made on a thread of their own, so the test can stop waiting for
 * them: with the debuggee SIGSTOPped, a read that needs the debuggee
 * waits until SIGCONT. */
struct bg_read {
    zet_debug_session_handle_t s;
    const struct device_view *v;
    uint32_t cr[4 * MAX_THREADS];
    uint8_t grf[GRF_BYTES];
    ze_device_thread_t one;
    unsigned ok, na;
    ze_result_t grf_r;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int done;
};

static void *bg_main(void *arg)
{
    struct bg_read *b = arg;
    unsigned ok, na;
    ze_result_t r;
    read_all(b->s, b->v, b->cr, &ok, &na);
    r = zetDebugReadRegisters(b->s, b->one, CONF_REG_GRF, 3, 1, b->grf);
    pthread_mutex_lock(&b->lock);
    b->ok = ok;
    b->na = na;
    b->grf_r = r;
    b->done = 1;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* Waits up to ms for the reads; 1 when they were done. */
static int bg_wait(struct bg_read *b, long ms)
{
    struct timespec dl;
    int done;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += ms / 1000;
    dl.tv_nsec += (ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&b->lock);
    while (!b->done && pthread_cond_timedwait(&b->cv, &b->lock, &dl) == 0)
        ;
    done = b->done;
    pthread_mutex_unlock(&b->lock);
    return done;
}

/* Waits until the kernel reports process pid stopped by a signal. */
static int wait_sigstopped(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    for (int i = 0; i < 500; i++) {
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
        char *p;
        if (f)
            fclose(f);
        buf[n] = 0;
        p = strrchr(buf, ')');
        if (p && p[1] == ' ' && p[2] == 'T')
            return 0;
        nap_ms(10);
    }
    return -1;
}

/* Starts the loop kernel on every hardware thread and interrupts it. */
static int start_and_interrupt(ze_device_handle_t dev, const struct device_view *v,
                               struct conf_app *app, zet_debug_session_handle_t *s)
{
    char groups[16];
    const char *const args[] = {"loop", "--groups", groups, "--wait-launch", NULL};
    zet_debug_event_t ev;
    snprintf(groups, sizeof(groups), "%u", v->all);
    if (conf_app_start_ready(app, 1, args))
        tap_bail("the debuggee did not start");
    if (conf_attach(dev, app, s))
        return -1;
    conf_wait_event(*s, ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY, CONF_DEADLINE_MS, &ev);
    conf_app_send(app, "go");
    conf_wait_event(*s, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &ev);
    zetDebugAcknowledgeEvent(*s, &ev);
    if (!conf_app_expect(app, "armed", CONF_DEADLINE_MS, NULL, 0))
        tap_bail("the debuggee did not get to its launch");
    conf_app_send(app, "launch");
    conf_app_expect(app, "launched", CONF_DEADLINE_MS, NULL, 0);
    nap_ms(300);
    return zetDebugInterrupt(*s, conf_all_threads) == ZE_RESULT_SUCCESS ? 0 : -1;
}

/* A write through the request path, read back: 1 check. */
static void write_read_back(zet_debug_session_handle_t s, ze_device_thread_t one, const char *what,
                            uint8_t *pattern)
{
    uint8_t back[GRF_BYTES] = {0};
    ze_result_t w, r;
    for (int i = 0; i < GRF_BYTES; i++)
        pattern[i] = (uint8_t)(0xa5 ^ (i * 7));
    w = zetDebugWriteRegisters(s, one, CONF_REG_GRF, 3, 1, pattern);
    r = zetDebugReadRegisters(s, one, CONF_REG_GRF, 3, 1, back);
    tap_ok(w == ZE_RESULT_SUCCESS && r == ZE_RESULT_SUCCESS &&
               memcmp(back, pattern, GRF_BYTES) == 0,
           "%s: r3 written with zetDebugWriteRegisters reads back the same (%s, %s)", what,
           conf_result(w), conf_result(r));
}

/* The checks both runs make once every thread is stopped and reported:
 * 4 checks. */
static void common_checks(zet_debug_session_handle_t s, const struct device_view *v,
                          const char *what, uint32_t *cr)
{
    ze_device_thread_t one = nth_thread(v, 1), bad = {v->p.numSlices, 0, 0, 0};
    unsigned ok, na, halted = 0;
    uint8_t pattern[GRF_BYTES];
    uint32_t c[4];
    ze_result_t r1, r2;

    read_all(s, v, cr, &ok, &na);
    for (uint32_t i = 0; i < v->all; i++)
        halted += (cr[4 * i + 1] & CONF_CR0_1_EXT_HALT) != 0;
    tap_ok(ok == v->all && halted == v->all,
           "%s: cr0 of all %u threads reads, each with the external halt bit (%u read, %u halted)",
           what, v->all, ok, halted);
    write_read_back(s, one, what, pattern);
    r1 = zetDebugReadRegisters(s, bad, CONF_REG_CR, 0, 1, c);
    r2 = zetDebugReadRegisters(s, conf_all_threads, CONF_REG_CR, 0, 1, c);
    tap_ok(r1 == ZE_RESULT_ERROR_INVALID_ARGUMENT && r2 == ZE_RESULT_ERROR_INVALID_ARGUMENT,
           "%s: a slice out of range, and all threads: INVALID_ARGUMENT (%s, %s)", what,
           conf_result(r1), conf_result(r2));
    r1 = conf_read_cr0(s, one, c);
    r2 = zetDebugResume(s, one);
    {
        ze_result_t r3 = conf_read_cr0(s, one, c);
        nap_ms(50); /* it runs its loop now */
        ze_result_t r4 = conf_read_cr0(s, one, c);
        tap_ok(r1 == ZE_RESULT_SUCCESS && r2 == ZE_RESULT_SUCCESS &&
                   r3 == ZE_RESULT_ERROR_NOT_AVAILABLE && r4 == ZE_RESULT_ERROR_NOT_AVAILABLE,
               "%s: a thread read, resumed, read again: NOT_AVAILABLE, and while it runs (%s, "
               "resume %s, %s, %s)",
               what, conf_result(r1), conf_result(r2), conf_result(r3), conf_result(r4));
    }
}

/* Run 1: 11 checks (attach included). */
static void shared_run(ze_device_handle_t dev, const struct device_view *v, uint32_t *cr_shared)
{
    static struct bg_read b;
    struct conf_app app;
    zet_debug_session_handle_t s;
    zet_debug_event_t ev;
    ze_device_thread_t two = nth_thread(v, 2);
    unsigned ok = 0, na = 0, late = 0;
    uint32_t cr[4 * MAX_THREADS];
    uint8_t grf_before[GRF_BYTES];
    uint64_t t0;
    pthread_t tid;
    int same, done;
    ze_result_t r;

    if (start_and_interrupt(dev, v, &app, &s) != 0) {
        tap_ok(0, "shared: interrupt of the running kernel");
        return;
    }
    /* The interrupt's threads reach their halt over SPREAD_MS: once the
     * first reads, most have not yet. */
    t0 = conf_now_ms();
    while (ok == 0 && conf_now_ms() - t0 < CONF_DEADLINE_MS)
        read_all(s, v, cr, &ok, &na);
    late = na;
    r = conf_read_event(s, CONF_DEADLINE_MS, &ev);
    read_all(s, v, cr, &ok, &na);
    tap_ok(late > 0 && r == ZE_RESULT_SUCCESS && ev.type == ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED &&
               ok == v->all,
           "shared: while the interrupt's threads stop late, %u of %u read NOT_AVAILABLE; after "
           "its THREAD_STOPPED all %u read",
           late, v->all, ok);
    common_checks(s, v, "shared", cr_shared);

    /* Thread 1 runs again. Thread 2's r3 gets a pattern of ours, for the
     * reads made while the debuggee is stopped to compare. */
    memset(grf_before, 0x3c, sizeof(grf_before));
    r = zetDebugWriteRegisters(s, two, CONF_REG_GRF, 3, 1, grf_before);
    read_all(s, v, cr, &ok, &na);
    b.s = s;
    b.v = v;
    b.one = two;
    pthread_mutex_init(&b.lock, NULL);
    pthread_cond_init(&b.cv, NULL);
    if (kill(app.pid, SIGSTOP) != 0 || wait_sigstopped(app.pid) != 0)
        tap_bail("the debuggee did not stop on SIGSTOP");
    pthread_create(&tid, NULL, bg_main, &b);
    done = bg_wait(&b, 5000);
    same = done && b.grf_r == ZE_RESULT_SUCCESS && memcmp(b.grf, grf_before, GRF_BYTES) == 0;
    for (uint32_t i = 0; same && i < v->all; i++)
        same = i == 1 || memcmp(b.cr + 4 * i, cr + 4 * i, 4 * sizeof(uint32_t)) == 0;
    tap_ok(done && b.ok == v->all - 1 && b.na == 1,
           "shared: with the debuggee SIGSTOPped, the %u stopped threads read and the running "
           "one is NOT_AVAILABLE, without waiting for the debuggee (%s: %u read, %u not "
           "available)",
           v->all - 1, done ? "done" : "still waiting after 5 s", b.ok, b.na);
    tap_ok(same, "shared: ... and give what they gave before the SIGSTOP (cr0 of every thread, "
                 "r3 written through a request)");
    kill(app.pid, SIGCONT);
    bg_wait(&b, CONF_DEADLINE_MS);
    pthread_join(tid, NULL);
    read_all(s, v, cr, &ok, &na);
    {
        uint8_t pattern[GRF_BYTES];
        tap_ok(ok == v->all - 1, "shared: after SIGCONT the stopped threads still read (%u)", ok);
        write_read_back(s, two, "shared, after SIGCONT", pattern);
    }
    /* Killed with its threads stopped: the slots would still read, the
     * session is over. */
    conf_app_kill(&app);
    r = conf_read_cr0(s, two, cr);
    tap_ok(r == ZE_RESULT_ERROR_DEVICE_LOST,
           "shared: the debuggee killed with its threads stopped: DEVICE_LOST (%s)",
           conf_result(r));
    zetDebugDetach(s);
}

/* Run 2: 7 checks (attach included). */
static void fallback_run(ze_device_handle_t dev, const struct device_view *v,
                         const uint32_t *cr_shared)
{
    static struct bg_read b;
    struct conf_app app;
    zet_debug_session_handle_t s;
    zet_debug_event_t ev;
    uint32_t cr[4 * MAX_THREADS];
    unsigned same = 0;
    pthread_t tid;
    int waited;

    setenv("GTSIM_SSA_MEMFD", "0", 1);
    if (start_and_interrupt(dev, v, &app, &s) != 0) {
        tap_ok(0, "fallback: interrupt of the running kernel");
        return;
    }
    conf_wait_event(s, ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED, CONF_DEADLINE_MS, &ev);
    common_checks(s, v, "fallback", cr);
    for (uint32_t i = 0; i < v->all; i++)
        same += i == 1 || (cr[4 * i] == cr_shared[4 * i] && cr[4 * i + 1] == cr_shared[4 * i + 1]);
    tap_ok(same == v->all,
           "fallback: cr0's dwords 0 and 1 of every interrupted thread as the shared path read "
           "them (%u of %u)",
           same, v->all);
    b.s = s;
    b.v = v;
    b.one = nth_thread(v, 2);
    pthread_mutex_init(&b.lock, NULL);
    pthread_cond_init(&b.cv, NULL);
    if (kill(app.pid, SIGSTOP) != 0 || wait_sigstopped(app.pid) != 0)
        tap_bail("the debuggee did not stop on SIGSTOP");
    pthread_create(&tid, NULL, bg_main, &b);
    waited = !bg_wait(&b, 1500);
    kill(app.pid, SIGCONT);
    waited = waited && bg_wait(&b, CONF_DEADLINE_MS);
    tap_ok(waited && b.ok == v->all - 1,
           "fallback: with the debuggee SIGSTOPped a read waits (requests), and is answered "
           "after SIGCONT (%u read)",
           b.ok);
    pthread_join(tid, NULL);
    conf_app_kill(&app);
    zetDebugDetach(s);
    unsetenv("GTSIM_SSA_MEMFD");
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8];
    uint32_t nd = 8;
    struct device_view v = {.p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES}};
    static uint32_t cr_shared[4 * MAX_THREADS];
    char cfg[256];

    snprintf(cfg, sizeof(cfg), "platform=xehpc,subslices=2,eus=2,threads=4");
    setenv("GTSIM_CONFIG", cfg, 1);
    conf_init(argc, argv, 240);
    if (!getenv("GTSIM_LIB")) {
        printf("1..0 # SKIP GTSIM_LIB is not set: this tests gtsim\n");
        return 0;
    }
    tap_plan(18);
    conf_set_pace(20);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    if (zeDeviceGetProperties(devs[0], &v.p) != ZE_RESULT_SUCCESS)
        tap_bail("zeDeviceGetProperties failed");
    v.all = v.p.numSlices * v.p.numSubslicesPerSlice * v.p.numEUsPerSubslice * v.p.numThreadsPerEU;
    if (v.all < 3 || v.all > MAX_THREADS)
        tap_bail("this test wants a device of 3 to 256 threads");
    /* For the debuggees only (this process has read its configuration). */
    snprintf(cfg, sizeof(cfg), "%s,interrupt_spread_ms=%d", getenv("GTSIM_CONFIG"), SPREAD_MS);
    setenv("GTSIM_CONFIG", cfg, 1);
    shared_run(devs[0], &v, cr_shared);
    fallback_run(devs[0], &v, cr_shared);
    return tap_done();
}
