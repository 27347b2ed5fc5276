/* SPDX-License-Identifier: MIT */
/* The shared setting of the thread-walk tests (tgt_walk.h). */
#include "tests/target/tgt_walk.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <zet_api.h>

#include "regsets/regs.h"
#include "target/intelgt.h"
#include "tests/lib/tap.h"

atomic_ulong walk_grf_main, walk_grf_other;
static pthread_t main_thread;

/* Ours first, then the loader's: each GRF read counted by who asked. */
ze_result_t ZE_APICALL zetDebugReadRegisters(zet_debug_session_handle_t h, ze_device_thread_t th,
                                             uint32_t type, uint32_t start, uint32_t count,
                                             void *buf)
{
    ze_result_t(ZE_APICALL * next)(zet_debug_session_handle_t, ze_device_thread_t, uint32_t,
                                   uint32_t, uint32_t, void *);
    *(void **)&next = dlsym(RTLD_NEXT, "zetDebugReadRegisters");
    if (type == REGS_GRF)
        atomic_fetch_add(
            pthread_equal(pthread_self(), main_thread) ? &walk_grf_main : &walk_grf_other, 1);
    return next ? next(h, th, type, start, count, buf) : ZE_RESULT_ERROR_UNINITIALIZED;
}

static void give_up(const char *what, const char *err)
{
    tap_diag("%s: %s", what, err);
    tap_bail(what);
}

void walk_start(struct rsp_target *t, struct conf_app *app, struct rsp_process_info *pi)
{
    struct rsp_event ev;
    char err[256] = "", ngroups[16];
    main_thread = pthread_self();
    snprintf(ngroups, sizeof(ngroups), "%u", WALK_GROUPS);
    if (tgt_target_new(t, err, sizeof(err)) != 0)
        give_up("tgt_target_new", err);
    if (conf_app_start_launched(app, 1,
                                (const char *const[]){"vadd", "--groups", ngroups, "--group-size",
                                                      "16", "--wait-launch", NULL}))
        give_up("the debuggee did not launch its kernel", "");
    memset(&ev, 0, sizeof(ev));
    if (t->ops->attach(t->ctx, (uint32_t)app->pid, &ev, err, sizeof(err)) != 0 ||
        t->ops->process_at(t->ctx, 0, pi) != 0 || pi->nthreads > WALK_GROUPS)
        give_up("attach", err);
}

int walk_finish(struct rsp_target *t, struct conf_app *app, char *err, size_t errlen)
{
    int rc = t->ops->detach(t->ctx, 1, err, errlen);
    conf_app_finish(app, 30000);
    conf_app_kill(app);
    tgt_target_free(t);
    return rc;
}

int walk_read_r0(struct rsp_target *t, uint32_t tid, uint8_t r0[WALK_REG_BYTES])
{
    char err[256];
    return t->ops->read_register(t->ctx, 1, tid, 0, r0, WALK_REG_BYTES, err, sizeof(err));
}
