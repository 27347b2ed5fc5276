/* SPDX-License-Identifier: MIT */
/* zestub dump's phases (attach, wait for the trigger, take the dump) and
 * its watchdog, shared by the attach form (dump.c) and launch mode
 * (dump_launch.c). */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/dump.h"
#include "report/dump_out.h"
#include "report/outfile.h"
#include "cli/outpattern.h"
#include "regsets/regs.h"
#include "sessions/sess.h"
#include "sessions/sess_xpti.h"

const char *dump_trigger_name(enum trigger t)
{
    return t == ON_PAGE_FAULT ? "page-fault"
           : t == ON_STOP     ? "stop"
           : t == ON_HANG     ? "hang"
                              : "now";
}

double dump_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* When the event stream last brought something (a note the trigger wait
 * saw, or the attach): settle() waits less after a quiet stream. */
static double last_note_s;
#define SETTLE_QUIET_MS 150u
#define SETTLE_SHORT_MS 20u

/* ---- watchdog ----------------------------------------------------------- */

/* One per process: the dump it guards is the process's only one. */
static struct watchdog {
    pthread_t tid;
    double deadline;
    struct dump_out *out;
} watchdog;

static void *watchdog_main(void *arg)
{
    struct watchdog *w = arg;
    /* The main loop honours the deadline itself; this only fires when a
     * device call hangs past it. */
    double grace = w->deadline + 2.0;
    while (dump_now_s() < grace) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "zestub dump: the device stopped answering; writing what was collected\n");
    dump_out_abort(w->out, 3);
    _exit(3);
}

void dump_watchdog_start(double deadline, struct dump_out *out)
{
    watchdog.deadline = deadline;
    watchdog.out = out;
    if (pthread_create(&watchdog.tid, NULL, watchdog_main, &watchdog) == 0)
        pthread_detach(watchdog.tid);
}

/* ---- phases --------------------------------------------------------------- */

/* How long a process without the Level Zero loader is retried: one that
 * was just started maps it within moments; one that never uses it should
 * not make the user wait for the whole timeout to hear so. */
#define NO_LEVEL_ZERO_GRACE_S 2.0

/* Why the attach failed, on one line for the dump's closing line. */
/* "Too early" for this long is no longer "too early": say what else it
 * may be (the driver's answer cannot tell), or that the process ended. */
#define NOT_READY_NOTE_S 5.0

static void not_ready_for_long(uint32_t pid, double waited, struct zd_error *err)
{
    struct zd_proc p;
    zd_proc_probe(pid, &p);
    if (!p.exists || p.exited)
        snprintf(err->msg, sizeof(err->msg), "process %u exited while zestub waited to attach",
                 (unsigned)pid);
    else
        snprintf(err->msg, sizeof(err->msg),
                 "the driver still answered 'not ready' after %.0f s: process %u has not "
                 "initialised Level Zero on its devices, or their debugger endpoint is "
                 "unavailable",
                 waited, (unsigned)pid);
}

static void record_failure(struct dump_out *out, uint32_t pid, const struct zd_error *err)
{
    char why[256];
    size_t n = (size_t)snprintf(why, sizeof(why), "cannot attach to process %u: %s", (unsigned)pid,
                                err->msg);
    for (size_t i = 0; i < n && i < sizeof(why); i++)
        if (why[i] == '\n')
            why[i] = ' ';
    if (out)
        dump_out_fail(out, why);
}

int dump_attach(struct zd *zd, uint32_t pid, double deadline, struct sess_manager **m,
                struct dump_out *out)
{
    struct sess_options so;
    struct zd_error err;
    struct zd_proc p;
    double start = dump_now_s(), grace = start + NO_LEVEL_ZERO_GRACE_S;
    bool told = false;

    zd_proc_probe(pid, &p);
    if (!p.exists || p.exited) {
        snprintf(err.msg, sizeof(err.msg),
                 p.exists ? "process %u has exited" : "no such process: %u", (unsigned)pid);
        fprintf(stderr, "zestub dump: %s\n", err.msg);
        if (out)
            dump_out_fail(out, err.msg);
        return 1;
    }
    sess_options_from_env(&so);
    for (;;) {
        int rc = sess_attach(zd, pid, &so, m, &err);
        last_note_s = dump_now_s(); /* the attach's module replays follow */
        if (rc == 0) {
            if (err.msg[0])
                fprintf(stderr, "zestub dump: some devices were not attached:\n%s\n", err.msg);
            return 0;
        }
        /* "Too early": the application has not initialised Level Zero yet. */
        if ((rc == ZD_E_TOO_EARLY && dump_now_s() < deadline) ||
            (rc == ZD_E_NO_LEVEL_ZERO && dump_now_s() < deadline && dump_now_s() < grace)) {
            struct timespec ts = {0, 100000000};
            if (rc == ZD_E_TOO_EARLY && !told && dump_now_s() - start >= NOT_READY_NOTE_S) {
                fprintf(stderr,
                        "zestub dump: process %u is not ready for a debugger after %.0f s (the "
                        "driver answers 'not ready'); trying until the deadline, %.0f s from "
                        "now (--timeout)\n",
                        pid, NOT_READY_NOTE_S, deadline - dump_now_s());
                told = true;
            }
            nanosleep(&ts, NULL);
            continue;
        }
        if (rc == ZD_E_TOO_EARLY && dump_now_s() - start >= NOT_READY_NOTE_S)
            not_ready_for_long(pid, dump_now_s() - start, &err);
        fprintf(stderr, "zestub dump: cannot attach to process %u:\n%s\n", pid, err.msg);
        record_failure(out, pid, &err);
        return rc == ZD_E_TOO_EARLY ? 3 : 1;
    }
}

int dump_trigger_note(struct sess_manager *m, enum trigger on, const struct sess_note *note)
{
    struct zd_error err;
    unsigned alive = 0;
    last_note_s = dump_now_s();
    switch (note->type) {
    case SESS_NOTE_MODULE_LOAD:
        /* Symbols are loaded by sessions/ already: let the app go on. */
        if (note->need_ack)
            sess_module_release(m, note->session, note->module_begin, note->module_end, &err);
        return -1;
    case SESS_NOTE_PAGE_FAULT:
        return on == ON_PAGE_FAULT ? 0 : -1;
    case SESS_NOTE_STOPPED:
        if (on == ON_STOP)
            return 0;
        /* A hang watch leaves such a thread stopped: if nothing else
         * happens, it is part of the hang that gets dumped. */
        if (on == ON_HANG)
            return -1;
        if (note->thread != UINT32_MAX &&
            sess_thread_reason(m, note->session, note->thread) == ISA_STOP_PAGE_FAULT)
            return 0;
        return -1;
    case SESS_NOTE_DETACHED:
        for (unsigned k = 0; k < sess_count(m); k++)
            alive += sess_alive(m, k);
        return alive ? -1 : 4;
    default:
        return -1;
    }
}

static void say_detach_failed(const char *slot, const struct zd_error *e)
{
    fprintf(stderr,
            "zestub dump: detaching from device [%s] failed, its threads may still be stopped: "
            "%s\n",
            slot, e->msg);
}

/* A detach handed to an event reader that the driver refused, said from
 * that reader's thread: one fprintf, so the line stays whole. */
static void late_detach_failed(void *ctx, size_t device, const struct zd_error *e)
{
    say_detach_failed(zd_device_at(ctx, device)->pci_slot, e);
}

void dump_detach(struct zd *zd, struct sess_manager *m)
{
    /* Each detach is handed to its device's event reader if that is
     * inside a read, then all are waited for at once: a dump of N devices
     * waits one reader's slice, not N. */
    zd_on_detach_failure(zd, late_detach_failed, zd);
    for (unsigned k = 0; m && k < sess_count(m); k++) {
        struct zd_error err;
        if (sess_alive(m, k) && sess_detach(m, k, &err) != 0)
            say_detach_failed(sess_device(m, k)->pci_slot, &err);
    }
    (void)zd_wait_detached(zd, NULL);
    zd_on_detach_failure(zd, NULL, NULL);
}

int dump_wait_trigger(struct sess_manager *m, enum trigger on, double deadline)
{
    if (on == ON_NOW)
        return 0;
    for (;;) {
        struct sess_note note;
        double left = deadline - dump_now_s();
        int rc;
        if (left <= 0)
            return 3;
        if (sess_wait(m, (uint64_t)(left * 1000) + 1, &note) != 0)
            continue;
        if ((rc = dump_trigger_note(m, on, &note)) >= 0)
            return rc;
    }
}

int dump_wait_loop(struct sess_manager *m, enum trigger on, double deadline, int wake_fd,
                   const struct dump_wait_check *check)
{
    int notify = sess_notify_fd(m);
    for (;;) {
        struct sess_note note;
        struct pollfd fds[2] = {{.fd = notify, .events = POLLIN},
                                {.fd = wake_fd, .events = POLLIN}};
        double left;
        int rc;
        /* Notes first: the eventfd only says the queue went non-empty. */
        while (sess_poll(m, &note) == 0)
            if ((rc = dump_trigger_note(m, on, &note)) >= 0)
                return rc;
        if (check && check->fn(check->arg, m) == 0)
            return 0;
        left = deadline - dump_now_s();
        if (left <= 0)
            return 3;
        if (check && left > check->every_s)
            left = check->every_s;
        /* A negative fd is ignored by poll: no notify fd means sleeping. */
        rc = poll(fds, 2, left > 3600 ? 3600 * 1000 : (int)(left * 1000) + 1);
        if (rc > 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            return 5;
    }
}

int dump_wait_trigger_or(struct sess_manager *m, enum trigger on, double deadline, int wake_fd)
{
    if (on == ON_NOW)
        return 0;
    if (wake_fd < 0 || sess_notify_fd(m) < 0)
        return dump_wait_trigger(m, on, deadline);
    return dump_wait_loop(m, on, deadline, wake_fd, NULL);
}

/* Events already on their way (modules replayed at attach, stops caused by
 * our interrupt) are handled before the dump is taken: wait until the
 * stream has brought no module for SETTLE_QUIET_MS, counted from when it
 * brought the last one (the note's queue time; or the attach, or the last
 * note the trigger wait saw), never past the deadline. Counted from then,
 * not from here: a module note queued before the stop-all and read only
 * now made a hang found at attach wait 150 ms after the stop-all, on top
 * of the time the stream had been quiet (bench/README.md). A stream that
 * quiet already (a hang watch, a long wait) can only bring what the stop
 * caused, whose answers sess_stop_all has waited for: a short look
 * suffices, until a module arrives after all. */
static void settle(struct sess_manager *m, double deadline)
{
    struct sess_note note;
    struct zd_error err;
    double quiet_from = last_note_s;
    for (;;) {
        double now = dump_now_s(), since_ms = (now - quiet_from) * 1000;
        uint64_t wait_ms = since_ms >= SETTLE_QUIET_MS - SETTLE_SHORT_MS
                               ? SETTLE_SHORT_MS
                               : (uint64_t)(SETTLE_QUIET_MS - since_ms);
        if (now >= deadline || sess_wait(m, wait_ms, &note) != 0)
            return;
        if (note.type != SESS_NOTE_MODULE_LOAD)
            continue;
        if ((double)note.queued_ns / 1e9 > quiet_from)
            quiet_from = (double)note.queued_ns / 1e9;
        if (note.need_ack)
            sess_module_release(m, note.session, note.module_begin, note.module_end, &err);
    }
}

/* For ZESTUB_DUMP_TIMING (cli/dump_hang.c): one dump per process. */
static double stopped_s;

double dump_take_stopped_s(void)
{
    return stopped_s;
}

/* CLOCK_MONOTONIC in nanoseconds: the XPTI table's clock. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --core FILE, its %r %p %h expanded for pid, one name per rank. */
static int core_path(const char *pattern, uint32_t pid, char *path, size_t len)
{
    char err[256];
    if (out_rank_name("--core", pattern, (long)pid, path, len, err, sizeof(err)) != 0) {
        fprintf(stderr, "zestub dump: --core %s\n", err);
        return -1;
    }
    return 0;
}

void dump_remove_old_cores(const struct dump_opts *o, uint32_t pid)
{
    char path[4096], name[4200];
    if (!o->core || core_path(o->core, pid, path, sizeof(path)) != 0)
        return;
    /* Never /dev/null or another non-file (outfile_is_special). */
    if (!outfile_is_special(path))
        (void)unlink(path);
    /* NAME.N of a run with several devices: N counts from 0 with no gap. */
    for (unsigned k = 0; k < 4096; k++) {
        snprintf(name, sizeof(name), "%s.%u", path, k);
        if (outfile_is_special(name) || unlink(name) != 0)
            break;
    }
}

int dump_take(struct dump_out *out, struct sess_manager *m, const struct dump_opts *o, uint32_t pid,
              double deadline)
{
    struct zd_error err;
    char note[512];
    unsigned alive_before = 0, alive_after = 0;
    bool core_failed = false;
    char core[4096];
    struct core_opts co = o->core_opts;
    for (unsigned k = 0; k < sess_count(m); k++)
        alive_before += sess_alive(m, k);
    /* Every thread we dump is stopped once this returns, so a task that
     * was running on its behalf began before stop_ns. */
    (void)sess_stop_all(m, &err);
    uint64_t stop_ns = now_ns();
    stopped_s = dump_now_s();
    settle(m, deadline + 1.0);
    /* Opened now, not at attach: the application creates its table when
     * its runtime starts tracing, which may be after Level Zero. */
    struct sess_xpti *x = sess_xpti_open(pid, note, sizeof(note));
    dump_out_xpti(out, x, note);
    dump_out_faults(out, m);
    /* The cores in the same pass as the records, before the resume: their
     * threads are those written, their registers read once for both. */
    if (o->core && core_path(o->core, pid, core, sizeof(core)) != 0)
        core_failed = true;
    else if (o->core)
        dump_out_add_core(out, core, &co);
    /* Progress on stderr, unless the human dump itself goes there (launch
     * mode without --json): its records are the progress. */
    if (dump_out_collect(out, m, o->regs, x, stop_ns, o->json || !o->program ? stderr : NULL) != 0)
        core_failed = true;
    sess_xpti_close(x);
    /* Counted before the resume: once resumed, an application may end at
     * once (the page-fault example does), and that is no loss to the dump. */
    for (unsigned k = 0; k < sess_count(m); k++)
        alive_after += sess_alive(m, k);
    sess_resume_all(m, &err);
    if (alive_after == alive_before)
        return core_failed ? DUMP_EXIT_CORE : 0;
    /* A device lost (or the application gone) while we dumped: what was
     * written is all there is of it. */
    fprintf(stderr,
            "zestub dump: %u device%s ended during the dump (device lost or the application "
            "exited): their threads are missing or incomplete\n",
            alive_before - alive_after, alive_before - alive_after == 1 ? "" : "s");
    return 3;
}

enum report_format dump_format(const struct dump_opts *o)
{
    if (o->json)
        return REPORT_JSON;
    return o->all_threads ? REPORT_HUMAN_EVERY_THREAD : REPORT_HUMAN;
}

int dump_close(struct dump_out *out, struct sess_manager *m, int rc)
{
    /* A report that could not be written is status 7 whatever else
     * happened: a caller must not take a missing report for a clean run. */
    if (dump_out_close(out, m, rc, true) != 0)
        return DUMP_EXIT_CORE;
    return rc;
}
