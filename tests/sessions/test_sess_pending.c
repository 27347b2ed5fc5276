/* SPDX-License-Identifier: MIT */
/* sessions/ when an interrupt of all is still pending in the driver, as
 * Intel's runtime says with NOT_READY (DebugSessionImp::interrupt: the same
 * thread id is in its pending list; its one answer event will come). The
 * debuggee's gtsim gets interrupt_spread_ms, so the answer of an interrupt
 * comes SPREAD_MS after it and a stop-all made right after the client's
 * interrupt (sess_interrupt_device, a ^C) meets it pending:
 *   - an answer to an earlier interrupt of ours, still queued as a note,
 *     is not delivered as the answer to the client's interrupt;
 *   - the stop-all waits for the pending answer instead of failing;
 *   - when the pending interrupt was asked before a resume, the stop-all
 *     interrupts once more after its answer, and the thread that resume
 *     let run is stopped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sessions/sess.h"
#include "tests/conformance/conf_util.h"
#include "tests/lib/tap.h"
#include "tests/sessions/sess_launch.h"

#define DEADLINE_MS 20000
#define SPREAD_MS 700
#define PLAN 10

static uint64_t interrupts(struct zd *zd)
{
    struct zd_stats st;
    zd_get_stats(zd, &st);
    return st.interrupt;
}

static bool device_answer(const struct sess_note *n)
{
    return (n->type == SESS_NOTE_STOPPED || n->type == SESS_NOTE_UNAVAILABLE) &&
           n->thread == UINT32_MAX;
}

/* Device answers among the notes queued now (none is waited for). */
static unsigned queued_answers(struct sess_manager *m)
{
    struct sess_note n;
    unsigned k = 0;
    while (sess_poll(m, &n) == 0)
        k += device_answer(&n);
    return k;
}

/* The next device answer within timeout_ms: 1 and *out, or 0. */
static int next_answer(struct sess_manager *m, uint64_t timeout_ms, struct sess_note *out)
{
    uint64_t end = conf_now_ms() + timeout_ms;
    while (conf_now_ms() < end)
        if (sess_wait(m, 100, out) == 0 && device_answer(out))
            return 1;
    return 0;
}

/* Two threads stopped now, read through the public call: 0, or -1. */
static int two_stopped(struct sess_manager *m, uint32_t *a, uint32_t *b)
{
    unsigned found = 0;
    for (uint32_t t = 0; t < sess_thread_count(m, 0) && found < 2; t++)
        if (sess_state_stopped(sess_thread_state(m, 0, t)))
            *(found++ ? b : a) = t;
    return found == 2 ? 0 : -1;
}

/* The answer of an interrupt of ours, queued as a note, then the client's
 * interrupt: its answer is the first device answer delivered. */
static void stale_answer(struct sess_manager *m)
{
    struct zd_error err;
    int n = sess_stop_all(m, &err);
    tap_ok(n > 0 && err.code == 0, "stop-all (answered, its note left queued): %d stopped", n);
    tap_ok(sess_resume_all(m, &err) == 0, "resume all: %s", err.msg);
}

int main(int argc, char **argv)
{
    struct conf_app app = {.pid = -1};
    struct zd *zd = NULL;
    struct sess_manager *m = NULL;
    struct sess_options opt = {true, true};
    struct zd_error err;
    struct sess_note note;
    const char *cfg;
    char buf[1024];
    uint32_t x = 0, y = 0;
    uint64_t i0;
    int n, got;

    conf_init(argc, argv, 120);
    if (getenv("GTSIM_LIB") && !getenv("GTSIM_CONFIG"))
        setenv("GTSIM_CONFIG", "platform=xehpc,subslices=4,eus=8,threads=8", 1);
    conf_set_pace(2);
    tap_plan(PLAN);
    if (zd_open(&zd, &err) != 0)
        tap_bail(err.msg);
    /* For the debuggee only (this process has read its configuration). */
    cfg = getenv("GTSIM_CONFIG");
    if (getenv("GTSIM_LIB")) {
        snprintf(buf, sizeof(buf), "%s%sinterrupt_spread_ms=%d", cfg ? cfg : "",
                 cfg && *cfg ? "," : "", SPREAD_MS);
        setenv("GTSIM_CONFIG", buf, 1);
    }
    if (conf_app_start_ready(&app, 1,
                             (const char *const[]){"vadd", "--groups", "64", "--group-size", "32",
                                                   "--wait-launch", NULL}) != 0 ||
        sess_attach(zd, (uint32_t)app.pid, &opt, &m, &err) != 0 ||
        sess_test_launch(&app, m, DEADLINE_MS) != 0)
        tap_bail("the debuggee did not launch its kernel under the debugger");

    stale_answer(m);
    tap_ok(sess_interrupt_device(m, 0, &err) == 0, "the client's interrupt of all: %s", err.msg);
    n = (int)queued_answers(m);
    tap_ok(n == 0, "the earlier answer is not delivered for it (%d device answers queued)", n);

    /* The client's interrupt is pending for SPREAD_MS. */
    n = sess_stop_all(m, &err);
    tap_ok(n > 0 && err.code == 0,
           "a stop-all meeting it pending waits for its answer: %d stopped (%s)", n,
           err.code ? err.msg : "no error");
    got = next_answer(m, 3000, &note);
    tap_ok(got && note.type == SESS_NOTE_STOPPED,
           "the client's interrupt gets its answer as a note (%s, answer %llu)",
           got ? "came" : "none", (unsigned long long)note.answer);

    /* Pending from before a resume: thread x runs again after the
     * interrupt was asked; only an interrupt after its answer stops x. */
    if (two_stopped(m, &x, &y) != 0 || sess_resume_thread(m, 0, y, false, &err) != 0)
        tap_bail("no two stopped threads to resume");
    tap_ok(sess_interrupt_device(m, 0, &err) == 0, "the client's interrupt (thread %u runs)",
           y + 1);
    /* The debuggee halts at once what runs (the answer waits SPREAD_MS):
     * x, resumed after that, is not halted by this interrupt. */
    nanosleep(&(struct timespec){0, 100 * 1000000L}, NULL);
    if (sess_resume_thread(m, 0, x, false, &err) != 0)
        tap_diag("resuming thread %u: %s", x + 1, err.msg);
    i0 = interrupts(zd);
    n = sess_stop_all(m, &err);
    tap_ok(err.code == 0 && interrupts(zd) - i0 == 2,
           "stop-all: the pending answer, then an interrupt of its own (%llu interrupt calls, %s)",
           (unsigned long long)(interrupts(zd) - i0), err.code ? err.msg : "no error");
    tap_ok(sess_state_stopped(sess_thread_state(m, 0, x)),
           "thread %u, resumed after the pending interrupt was asked, is stopped", x + 1);

    sess_resume_all(m, &err);
    sess_detach_all(m);
    tap_ok(conf_app_finish(&app, 60000) == 1, "the application ends after the detach");
    conf_app_kill(&app);
    zd_close(zd);
    return tap_done();
}
