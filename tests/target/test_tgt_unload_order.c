/* SPDX-License-Identifier: MIT */
/* A module unload that came before the application's end is told before
 * the exit, even when both wait in the queue when the server next looks
 * (a loaded machine: test_libraries.py saw only W1 once). Here the target
 * is not asked for events until the application has unloaded its module,
 * ended and been gone a while, so both notes are queued; the events must
 * then be the library change, then the exit. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "target/intelgt.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"

int main(int argc, char **argv)
{
    struct rsp_target t;
    struct conf_app app;
    struct rsp_event ev;
    struct rsp_library lib = {0, 0, 0, false};
    char err[256] = "", order[64] = "";
    uint64_t end;
    bool ended = false;

    setvbuf(stdout, NULL, _IOLBF, 0);
    dup2(STDOUT_FILENO, STDERR_FILENO); /* "Detached from ..." in whole lines */
    conf_init(argc, argv, 120);
    tap_plan(4);
    if (tgt_target_new(&t, err, sizeof(err)) != 0) {
        tap_diag("tgt_target_new: %s", err);
        tap_bail("no target");
    }
    if (conf_app_start_ready(&app, 1, (const char *const[]){"vadd", NULL}) != 0)
        tap_bail("the debuggee did not start");
    memset(&ev, 0, sizeof(ev));
    if (t.ops->attach(t.ctx, (uint32_t)app.pid, &ev, err, sizeof(err)) != 0) {
        tap_diag("attach: %s", err);
        tap_bail("no attach");
    }
    conf_app_send(&app, "go");
    end = conf_now_ms() + 20000;
    while (t.ops->libraries->library_count(t.ctx, 1) == 0 && conf_now_ms() < end)
        usleep(10000);
    tap_ok(t.ops->libraries->library_at(t.ctx, 1, 0, &lib) == 0 && lib.needs_ack,
           "the module load waits for its acknowledgement");
    tap_ok(t.ops->resume(t.ctx, &(struct rsp_resume){RSP_RESUME_CONTINUE, -1, -1, 0, 0}, 1, err,
                         sizeof(err)) == 0 &&
               t.ops->libraries->ack_library(t.ctx, 1, lib.begin, lib.end, err, sizeof(err)) == 0,
           "continue and acknowledge: %s", err);
    /* No event is asked for until the application has ended. */
    tap_ok(conf_app_expect(&app, "done ZE_RESULT_SUCCESS", 30000, NULL, 0) &&
               conf_app_finish(&app, 10000) != 0,
           "the application unloads its module and ends");
    usleep(1500 * 1000); /* the event reader sees the end meanwhile */
    end = conf_now_ms() + 20000;
    while (!ended && conf_now_ms() < end && strlen(order) + 12 < sizeof(order)) {
        if (t.ops->next_event(t.ctx, &ev) <= 0) {
            usleep(10000);
            continue;
        }
        if (ev.kind == RSP_EVENT_LIBRARY)
            strcat(order, "library ");
        else if (ev.kind == RSP_EVENT_EXITED)
            strcat(order, "exit "), ended = true;
        else
            strcat(order, "other ");
        if (!ended)
            (void)t.ops->resume(t.ctx, &(struct rsp_resume){RSP_RESUME_CONTINUE, -1, -1, 0, 0}, 1,
                                err, sizeof(err));
    }
    tap_ok(strcmp(order, "library exit ") == 0,
           "the unload is told, then the exit: %s(want: library exit)", order);
    conf_app_kill(&app);
    tgt_target_free(&t);
    return tap_done();
}
