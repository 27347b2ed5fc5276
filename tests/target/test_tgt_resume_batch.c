/* SPDX-License-Identifier: MIT */
/* A resume that covers every thread of a device is one zetDebugResume of
 * the whole device, whatever the client's spelling: vCont;c:p1.-1 (Intel's
 * GDB's `continue` of the current inferior) and vCont;s:p1.T;c:p1.-1 (a
 * step with the others running) as vCont;c. Before, both resumed each
 * stopped thread alone: a driver call per thread (5,971 of them at 8,192
 * threads in Intel's GDB's session). A continue of one named thread stays
 * a resume of that thread. Counted at the driver, as test_tgt_regkeep. */
#include <dlfcn.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zet_api.h>

#include "target/tgt_int.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

#define REG_BYTES 256

static unsigned long resumes;
static ze_device_thread_t last_resumed;

ze_result_t ZE_APICALL zetDebugResume(zet_debug_session_handle_t h, ze_device_thread_t th)
{
    ze_result_t(ZE_APICALL * next)(zet_debug_session_handle_t, ze_device_thread_t);
    *(void **)&next = dlsym(RTLD_NEXT, "zetDebugResume");
    resumes++;
    last_resumed = th;
    return next ? next(h, th) : ZE_RESULT_ERROR_UNINITIALIZED;
}

static ze_result_t last_interrupt = ZE_RESULT_SUCCESS;

ze_result_t ZE_APICALL zetDebugInterrupt(zet_debug_session_handle_t h, ze_device_thread_t th)
{
    ze_result_t(ZE_APICALL * next)(zet_debug_session_handle_t, ze_device_thread_t);
    *(void **)&next = dlsym(RTLD_NEXT, "zetDebugInterrupt");
    last_interrupt = next ? next(h, th) : ZE_RESULT_ERROR_UNINITIALIZED;
    return last_interrupt;
}

static bool is_all(ze_device_thread_t th)
{
    return th.slice == UINT32_MAX && th.subslice == UINT32_MAX && th.eu == UINT32_MAX &&
           th.thread == UINT32_MAX;
}

static void give_up(const char *what, const char *err)
{
    tap_diag("%s: %s", what, err);
    tap_bail(what);
}

/* The next stop within timeout_ms: 1, or 0 when none came. */
static int next_stop(struct rsp_target *t, struct rsp_event *ev, int timeout_ms)
{
    uint64_t end = conf_now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        struct pollfd p = {t->ops->event_fd(t->ctx), POLLIN, 0};
        if (t->ops->next_event(t->ctx, ev) > 0) {
            if (ev->kind == RSP_EVENT_STOP)
                return 1;
            tap_diag("event of kind %d for p%lld.%lld while waiting for a stop", (int)ev->kind,
                     (long long)ev->pid, (long long)ev->tid);
        }
        if (conf_now_ms() >= end)
            return 0;
        if (p.fd < 0 || poll(&p, 1, 100) < 0)
            usleep(10000);
    }
}

/* Reads r0 of every thread (as Intel's GDB's `info threads` does), so each
 * stopped thread is known stopped; the first one read in *first. */
static unsigned read_all(struct rsp_target *t, uint32_t nthreads, uint32_t *first)
{
    unsigned n = 0;
    *first = 0;
    for (uint32_t tid = 1; tid <= nthreads; tid++) {
        uint8_t r0[REG_BYTES];
        char err[256];
        if (t->ops->read_register(t->ctx, 1, tid, 0, r0, sizeof(r0), err, sizeof(err)) != 0)
            continue;
        if (!*first)
            *first = tid;
        n++;
    }
    return n;
}

/* The client's ^C and its stop. */
static void stop_all(struct rsp_target *t)
{
    struct rsp_event ev;
    char err[256] = "";
    if (t->ops->interrupt(t->ctx, err, sizeof(err)) != 0 || !next_stop(t, &ev, 30000)) {
        tap_diag("zetDebugInterrupt answered 0x%x", (unsigned)last_interrupt);
        give_up("the interrupt gave no stop", err);
    }
}

int main(int argc, char **argv)
{
    struct rsp_target t;
    struct conf_app app;
    struct rsp_event ev;
    struct rsp_process_info pi;
    char err[256] = "";
    uint32_t first;
    unsigned stopped;
    unsigned long calls;
    int got;

    setenv("GTSIM_CONFIG", "platform=xehpc,subslices=4,eus=8,threads=8,pace=2", 1);
    conf_init(argc, argv, 300);
    tap_plan(7);
    if (tgt_target_new(&t, err, sizeof(err)) != 0)
        give_up("tgt_target_new", err);
    if (conf_app_start_launched(&app, 1,
                                (const char *const[]){"vadd", "--groups", "256", "--group-size",
                                                      "16", "--wait-launch", NULL}))
        give_up("the debuggee did not launch its kernel", "");
    memset(&ev, 0, sizeof(ev));
    if (t.ops->attach(t.ctx, (uint32_t)app.pid, &ev, err, sizeof(err)) != 0 ||
        t.ops->process_at(t.ctx, 0, &pi) != 0)
        give_up("attach", err);

    /* vCont;c:p1.-1 */
    stopped = read_all(&t, pi.nthreads, &first);
    tap_ok(stopped > 1, "the attach stopped %u threads", stopped);
    resumes = 0;
    if (t.ops->resume(t.ctx, &(struct rsp_resume){RSP_RESUME_CONTINUE, 1, -1, 0, 0}, 1, err,
                      sizeof(err)) != 0)
        tap_diag("resume: %s", err);
    calls = resumes;
    tap_ok(calls == 1 && is_all(last_resumed),
           "vCont;c:p1.-1 is one resume of the whole device (%lu zetDebugResume calls)", calls);
    stop_all(&t);

    /* vCont;s:p1.T;c:p1.-1 */
    stopped = read_all(&t, pi.nthreads, &first);
    resumes = 0;
    if (t.ops->resume(t.ctx,
                      (struct rsp_resume[]){{RSP_RESUME_STEP, 1, first, 0, 0},
                                            {RSP_RESUME_CONTINUE, 1, -1, 0, 0}},
                      2, err, sizeof(err)) != 0)
        tap_diag("resume: %s", err);
    calls = resumes;
    tap_ok(calls == 1 && is_all(last_resumed),
           "vCont;s:p1.%u;c:p1.-1 with %u threads stopped is one resume of the device (%lu calls)",
           first, stopped, calls);
    memset(&ev, 0, sizeof(ev));
    got = next_stop(&t, &ev, 30000);
    tap_ok(got && ev.tid == first, "the stepped thread's stop is reported (p%lld.%lld)",
           (long long)ev.pid, (long long)ev.tid);

    /* vCont;c:p1.T: that thread alone */
    stopped = read_all(&t, pi.nthreads, &first);
    tap_ok(stopped > 1, "everything stopped for the step's report (%u threads)", stopped);
    resumes = 0;
    if (t.ops->resume(t.ctx, &(struct rsp_resume){RSP_RESUME_CONTINUE, 1, first, 0, 0}, 1, err,
                      sizeof(err)) != 0)
        tap_diag("resume: %s", err);
    calls = resumes;
    tap_ok(calls == 1 && !is_all(last_resumed),
           "vCont;c:p1.%u resumes that thread alone (%lu calls)", first, calls);
    resumes = 0;
    (void)t.ops->detach(t.ctx, 1, err, sizeof(err));
    tap_ok(conf_app_finish(&app, 60000) == 1, "the application ends after the detach");
    conf_app_kill(&app);
    tgt_target_free(&t);
    return tap_done();
}
