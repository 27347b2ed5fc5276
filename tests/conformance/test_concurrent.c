/* SPDX-License-Identifier: MIT */
/* Register and memory accesses of one session from several host threads
 * at once. Intel's runtime takes no session lock for them, and a debugger
 * may read many threads' state in parallel (zestub's dump does): every
 * answer must be the one its own call asked for, whatever else is in
 * flight. Threads are held at a breakpoint, read once from this thread for
 * reference, then read and written concurrently. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

#define WORKERS 4
#define ROUNDS 200
#define MAX_STOPS 64
#define MAX_GRF_BYTES (256 * 64)

struct shared {
    zet_debug_session_handle_t s;
    ze_device_thread_t stops[MAX_STOPS];
    unsigned n;
    uint32_t grf_count, grf_bytes; /* registers, bytes each */
    uint8_t *grf[MAX_STOPS];       /* reference GRF of each thread */
    uint32_t cr0[MAX_STOPS][4];    /* reference cr0 */
    uint8_t slm[MAX_STOPS][64];    /* reference SLM bytes at 0x40 */
};

struct worker {
    struct shared *sh;
    unsigned id;
    unsigned calls, wrong, failed; /* results */
    char first[160];               /* the first mismatch, said */
};

static void note(struct worker *w, const char *what, unsigned t, ze_result_t r)
{
    if (!w->first[0])
        snprintf(w->first, sizeof(w->first), "worker %u, stop %u: %s (%s)", w->id, t, what,
                 conf_result(r));
}

/* One round: every thread's GRF, cr0 and SLM, in an order of its own, and
 * a write of one GRF register that only this worker uses, read back. */
static void round_of(struct worker *w, unsigned round, uint8_t *buf)
{
    struct shared *sh = w->sh;
    for (unsigned i = 0; i < sh->n; i++) {
        unsigned t = (i * (w->id + 1) + round) % sh->n;
        uint32_t cr[4];
        uint8_t mine[64], back[64];
        uint32_t reg =
            sh->grf_count - 1 - w->id; /* the top ones: left out of the reference check */
        ze_result_t r =
            zetDebugReadRegisters(sh->s, sh->stops[t], CONF_REG_GRF, 0, sh->grf_count, buf);
        w->calls++;
        if (r != ZE_RESULT_SUCCESS)
            w->failed++, note(w, "GRF read failed", t, r);
        else if (memcmp(buf, sh->grf[t], (size_t)(sh->grf_count - WORKERS) * sh->grf_bytes) != 0)
            w->wrong++, note(w, "GRF differs from the reference", t, r);
        r = conf_read_cr0(sh->s, sh->stops[t], cr);
        w->calls++;
        if (r != ZE_RESULT_SUCCESS || memcmp(cr, sh->cr0[t], sizeof(cr)) != 0)
            w->wrong++, note(w, "cr0 differs", t, r);
        r = conf_read_mem(sh->s, sh->stops[t], ZET_DEBUG_MEMORY_SPACE_TYPE_SLM, CONF_SLM_TAG | 0x40,
                          sizeof(back), back);
        w->calls++;
        if (r != ZE_RESULT_SUCCESS || memcmp(back, sh->slm[t], sizeof(back)) != 0)
            w->wrong++, note(w, "SLM differs", t, r);
        for (unsigned b = 0; b < sizeof(mine); b++)
            mine[b] = (uint8_t)(w->id * 31 + round * 7 + t + b);
        r = zetDebugWriteRegisters(sh->s, sh->stops[t], CONF_REG_GRF, reg, 1, mine);
        if (r == ZE_RESULT_SUCCESS)
            r = zetDebugReadRegisters(sh->s, sh->stops[t], CONF_REG_GRF, reg, 1, back);
        w->calls += 2;
        if (r != ZE_RESULT_SUCCESS || memcmp(back, mine, sh->grf_bytes) != 0)
            w->wrong++, note(w, "own GRF register not read back", t, r);
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    uint8_t *buf = malloc(MAX_GRF_BYTES);
    for (unsigned round = 0; buf && round < ROUNDS; round++)
        round_of(w, round, buf);
    free(buf);
    return NULL;
}

/* The GRF's size from the device's register sets. */
static int grf_shape(ze_device_handle_t dev, uint32_t *count, uint32_t *bytes)
{
    zet_debug_regset_properties_t props[32];
    uint32_t n = 32;
    for (uint32_t i = 0; i < n; i++)
        props[i] =
            (zet_debug_regset_properties_t){.stype = ZET_STRUCTURE_TYPE_DEBUG_REGSET_PROPERTIES};
    if (zetDebugGetRegisterSetProperties(dev, &n, props) != ZE_RESULT_SUCCESS)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (props[i].type == CONF_REG_GRF) {
            *count = props[i].count;
            *bytes = props[i].byteSize;
            return (size_t)*count * *bytes <= MAX_GRF_BYTES && *bytes <= 64 && *count > WORKERS + 4
                       ? 0
                       : -1;
        }
    return -1;
}

static int reference(struct shared *sh)
{
    for (unsigned t = 0; t < sh->n; t++) {
        if (!(sh->grf[t] = malloc((size_t)sh->grf_count * sh->grf_bytes)) ||
            zetDebugReadRegisters(sh->s, sh->stops[t], CONF_REG_GRF, 0, sh->grf_count,
                                  sh->grf[t]) != ZE_RESULT_SUCCESS ||
            conf_read_cr0(sh->s, sh->stops[t], sh->cr0[t]) != ZE_RESULT_SUCCESS ||
            conf_read_mem(sh->s, sh->stops[t], ZET_DEBUG_MEMORY_SPACE_TYPE_SLM, CONF_SLM_TAG | 0x40,
                          64, sh->slm[t]) != ZE_RESULT_SUCCESS)
            return -1;
    }
    return 0;
}

static void concurrent(ze_device_handle_t dev)
{
    struct conf_app app;
    const char *const args[] = {"slm", "--groups", "2", "--group-size", "64", NULL};
    struct shared sh = {0};
    struct worker w[WORKERS];
    pthread_t tid[WORKERS];
    zet_debug_event_t ev, stops[MAX_STOPS];
    char line[256];
    unsigned threads = 0, simd = 0, calls = 0, wrong = 0, failed = 0, started = 0;
    uint64_t off;

    int shape = grf_shape(dev, &sh.grf_count, &sh.grf_bytes);
    tap_ok(shape == 0, "the device's GRF: %u x %u bytes", sh.grf_count, sh.grf_bytes);
    if (shape != 0)
        return;
    if (conf_app_start_ready(&app, 1, args))
        tap_bail("debuggee did not start");
    if (conf_attach(dev, &app, &sh.s))
        return;
    conf_app_send(&app, "go");
    if (!conf_wait_event(sh.s, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, CONF_DEADLINE_MS, &ev) ||
        conf_nth_insn(sh.s, ev.info.module.load, 2, &off, NULL) != 0 ||
        conf_plant_bp(sh.s, ev.info.module.load + off) != 0)
        tap_bail("no breakpoint planted in the slm kernel");
    zetDebugAcknowledgeEvent(sh.s, &ev);
    if (conf_app_expect(&app, "kernel simd", CONF_DEADLINE_MS, line, sizeof(line)))
        sscanf(line, "kernel simd %u threads %u", &simd, &threads);
    sh.n = conf_collect(sh.s, ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED, threads, CONF_DEADLINE_MS, stops,
                        MAX_STOPS);
    for (unsigned i = 0; i < sh.n; i++)
        sh.stops[i] = stops[i].info.thread.thread;
    tap_ok(threads > 1 && sh.n == threads, "all %u threads stopped at the breakpoint (%u)", threads,
           sh.n);
    tap_ok(sh.n > 0 && reference(&sh) == 0, "each thread's GRF, cr0 and SLM read from one thread");

    for (unsigned i = 0; i < WORKERS; i++) {
        w[i] = (struct worker){.sh = &sh, .id = i};
        started += pthread_create(&tid[i], NULL, worker_main, &w[i]) == 0;
    }
    tap_ok(started == WORKERS, "%u host threads read and write at once", started);
    for (unsigned i = 0; i < started; i++) {
        pthread_join(tid[i], NULL);
        calls += w[i].calls;
        wrong += w[i].wrong;
        failed += w[i].failed;
        if (w[i].first[0])
            tap_diag("%s", w[i].first);
    }
    tap_ok(calls == WORKERS * ROUNDS * sh.n * 5 && failed == 0,
           "every one of their %u calls was answered", calls);
    tap_ok(calls > 0 && wrong == 0, "every answer is the one its call asked for (%u wrong)", wrong);

    /* The kernel runs on (gtsim's exec=1 too): give back the registers the
     * workers wrote before it goes on. */
    int ok = 1;
    for (unsigned i = 0; i < sh.n; i++) {
        uint32_t first = sh.grf_count - WORKERS;
        if (zetDebugWriteRegisters(sh.s, sh.stops[i], CONF_REG_GRF, first, WORKERS,
                                   sh.grf[i] + (size_t)first * sh.grf_bytes) != ZE_RESULT_SUCCESS ||
            conf_continue_past_bp(sh.s, sh.stops[i]) != ZE_RESULT_SUCCESS)
            ok = 0;
    }
    tap_ok(ok && sh.n > 0,
           "restore the written registers, continue every thread past the breakpoint");
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", CONF_DEADLINE_MS, NULL, 0) &&
               conf_app_finish(&app, CONF_DEADLINE_MS),
           "the slm launch completes and the application exits 0");
    conf_wait_event(sh.s, ZET_DEBUG_EVENT_TYPE_DETACHED, CONF_DEADLINE_MS, &ev);
    tap_ok(zetDebugDetach(sh.s) == ZE_RESULT_SUCCESS, "detach");
    for (unsigned t = 0; t < sh.n; t++)
        free(sh.grf[t]);
}

int main(int argc, char **argv)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[8];
    uint32_t nd = 8;

    conf_init(argc, argv, 120);
    tap_plan(10);
    if (conf_open(&drv, devs, &nd))
        tap_bail("no Level Zero device");
    concurrent(devs[0]);
    return tap_done();
}
