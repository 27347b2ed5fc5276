/* SPDX-License-Identifier: MIT */
/* zestub dump: attach, wait for a trigger, stop every device, write one
 * record per stopped thread, resume, detach. Bounded in time: a watchdog
 * ends the run at --timeout (plus a short grace for a device that stops
 * answering mid-dump), closing the output so what was collected is usable.
 *
 * Exit status: 0 dump written; 1 could not start (no driver, attach
 * failed); 2 usage; 3 timeout (trigger not seen, or the device stopped
 * answering: partial output); 4 the application exited before the trigger. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/dump_out.h"
#include "regsets/regs.h"
#include "sessions/sess.h"
#include "sessions/sess_xpti.h"
#include "symbols/symbols.h"

enum trigger { ON_PAGE_FAULT, ON_STOP, ON_NOW };

struct dump_opts {
    uint32_t pid;
    enum trigger on;
    double timeout;
    const char *json; /* NULL: human format on stdout */
    enum dump_regs regs;
};

static const char *trigger_name(enum trigger t)
{
    return t == ON_PAGE_FAULT ? "page-fault" : t == ON_STOP ? "stop" : "now";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: zestub dump --attach PID [--on page-fault|stop|now] [--timeout SECONDS]\n"
               "                   [--json FILE|-] [--registers all|expedited|none]\n"
               "Waits for the trigger (default page-fault), stops every device of PID, writes\n"
               "every stopped thread's state, then resumes and detaches.\n"
               "Exit: 0 dumped, 1 could not attach, 2 usage, 3 timeout (partial output),\n"
               "      4 the application exited before the trigger.\n");
}

static int parse(int argc, char **argv, struct dump_opts *o)
{
    static const struct option longopts[] = {{"attach", required_argument, NULL, 'a'},
                                             {"on", required_argument, NULL, 'o'},
                                             {"timeout", required_argument, NULL, 't'},
                                             {"json", required_argument, NULL, 'j'},
                                             {"registers", required_argument, NULL, 'r'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int c;
    char *end;
    o->pid = 0;
    o->on = ON_PAGE_FAULT;
    o->timeout = 60;
    o->json = NULL;
    o->regs = DUMP_REGS_EXPEDITED;
    optind = 1;
    while ((c = getopt_long(argc, argv, "a:o:t:j:r:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': {
            unsigned long v = strtoul(optarg, &end, 10);
            if (*end || v == 0 || v > 0x7fffffffUL) {
                fprintf(stderr, "zestub dump: --attach needs a process id, not '%s'\n", optarg);
                return 2;
            }
            o->pid = (uint32_t)v;
            break;
        }
        case 'o':
            if (!strcmp(optarg, "page-fault"))
                o->on = ON_PAGE_FAULT;
            else if (!strcmp(optarg, "stop"))
                o->on = ON_STOP;
            else if (!strcmp(optarg, "now"))
                o->on = ON_NOW;
            else {
                fprintf(stderr, "zestub dump: --on takes page-fault, stop or now\n");
                return 2;
            }
            break;
        case 't':
            o->timeout = strtod(optarg, &end);
            if (*end || !(o->timeout > 0) || o->timeout > 86400) {
                fprintf(stderr, "zestub dump: --timeout takes seconds (0 < t <= 86400)\n");
                return 2;
            }
            break;
        case 'j':
            o->json = optarg;
            break;
        case 'r':
            if (!strcmp(optarg, "all"))
                o->regs = DUMP_REGS_ALL;
            else if (!strcmp(optarg, "expedited"))
                o->regs = DUMP_REGS_EXPEDITED;
            else if (!strcmp(optarg, "none"))
                o->regs = DUMP_REGS_NONE;
            else {
                fprintf(stderr, "zestub dump: --registers takes all, expedited or none\n");
                return 2;
            }
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc || o->pid == 0) {
        usage(stderr);
        return 2;
    }
    return 0;
}

/* ---- watchdog ----------------------------------------------------------- */

struct watchdog {
    pthread_t tid;
    double deadline;
    struct dump_out *out;
};

static void *watchdog_main(void *arg)
{
    struct watchdog *w = arg;
    /* The main loop honours the deadline itself; this only fires when a
     * device call hangs past it. */
    double grace = w->deadline + 2.0;
    while (now_s() < grace) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "zestub dump: the device stopped answering; writing what was collected\n");
    dump_out_abort(w->out, 3);
    _exit(3);
}

/* ---- phases --------------------------------------------------------------- */

static int attach_with_retry(struct zd *zd, const struct dump_opts *o, double deadline,
                             struct sess_manager **m)
{
    struct sess_options so;
    struct zd_error err;
    sess_options_from_env(&so);
    for (;;) {
        int rc = sess_attach(zd, o->pid, &so, m, &err);
        if (rc == 0) {
            if (err.msg[0])
                fprintf(stderr, "zestub dump: some devices were not attached:\n%s\n", err.msg);
            return 0;
        }
        /* "Too early": the application has not initialised Level Zero yet. */
        if (rc == ZD_E_TOO_EARLY && now_s() < deadline) {
            struct timespec ts = {0, 100000000};
            nanosleep(&ts, NULL);
            continue;
        }
        fprintf(stderr, "zestub dump: cannot attach to process %u:\n%s\n", o->pid, err.msg);
        return rc == ZD_E_TOO_EARLY ? 3 : 1;
    }
}

/* Waits for the trigger; releases module loads meanwhile. 0 triggered,
 * 3 timeout, 4 application gone. */
static int wait_trigger(struct sess_manager *m, const struct dump_opts *o, double deadline)
{
    unsigned n = sess_count(m);
    if (o->on == ON_NOW)
        return 0;
    for (;;) {
        struct sess_note note;
        double left = deadline - now_s();
        struct zd_error err;
        unsigned alive = 0;
        if (left <= 0)
            return 3;
        if (sess_wait(m, (uint64_t)(left * 1000) + 1, &note) != 0)
            continue;
        switch (note.type) {
        case SESS_NOTE_MODULE_LOAD:
            /* Symbols are loaded by sessions/ already: let the app go on. */
            if (note.need_ack)
                sess_module_release(m, note.session, note.module_begin, note.module_end, &err);
            break;
        case SESS_NOTE_PAGE_FAULT:
            if (o->on == ON_PAGE_FAULT)
                return 0;
            break;
        case SESS_NOTE_STOPPED:
            if (o->on == ON_STOP)
                return 0;
            if (note.thread != UINT32_MAX &&
                sess_thread_reason(m, note.session, note.thread) == REGS_STOP_PAGE_FAULT)
                return 0;
            break;
        case SESS_NOTE_DETACHED:
            for (unsigned k = 0; k < n; k++)
                alive += sess_alive(m, k);
            if (!alive)
                return 4;
            break;
        default:
            break;
        }
    }
}

/* Events already on their way (modules replayed at attach, stops caused by
 * our interrupt) are handled before the dump is taken: wait until the
 * stream has been quiet for a moment, never past the deadline. */
static void settle(struct sess_manager *m, double deadline)
{
    struct sess_note note;
    struct zd_error err;
    while (now_s() < deadline && sess_wait(m, 150, &note) == 0)
        if (note.type == SESS_NOTE_MODULE_LOAD && note.need_ack)
            sess_module_release(m, note.session, note.module_begin, note.module_end, &err);
}

/* CLOCK_MONOTONIC in nanoseconds: the XPTI table's clock. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int cli_dump(int argc, char **argv)
{
    struct dump_opts o;
    struct zd *zd = NULL;
    struct sess_manager *m = NULL;
    struct zd_error err;
    struct dump_out *out;
    struct watchdog wd;
    double deadline;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    deadline = now_s() + o.timeout;

    if (zd_open(&zd, &err) != 0) {
        fprintf(stderr, "zestub dump: %s\n", err.msg);
        return 1;
    }
    out = dump_out_open(o.json, o.pid, trigger_name(o.on), zd);
    if (!out) {
        fprintf(stderr, "zestub dump: cannot write %s: %s\n", o.json, strerror(errno));
        zd_close(zd);
        return 1;
    }
    wd.deadline = deadline;
    wd.out = out;
    if (pthread_create(&wd.tid, NULL, watchdog_main, &wd) == 0)
        pthread_detach(wd.tid);

    rc = attach_with_retry(zd, &o, deadline, &m);
    if (rc) {
        dump_out_close(out, NULL, rc, false);
        zd_close(zd);
        return rc;
    }
    dump_out_devices(out, m);
    rc = wait_trigger(m, &o, deadline);
    if (rc == 0 || rc == 3) {
        /* On timeout too: show where the threads are, it is what a user
         * with a hung job wants to see. */
        int stopped = sess_stop_all(m, &err);
        /* Every thread we dump was stopped by now, so a task that was
         * running on its behalf began before this instant. */
        uint64_t stop_ns = now_ns();
        char note[512];
        settle(m, deadline + 1.0);
        if (rc == 3)
            fprintf(stderr, "zestub dump: no %s within %.0f s; dumping the current state\n",
                    trigger_name(o.on), o.timeout);
        /* Opened now, not at attach: the application creates its table when
         * its runtime starts tracing, which may be after Level Zero. */
        struct sess_xpti *x = sess_xpti_open(o.pid, note, sizeof(note));
        dump_out_xpti(out, x, note);
        dump_out_faults(out, m);
        dump_out_collect(out, m, o.regs, x, stop_ns);
        sess_xpti_close(x);
        (void)stopped;
        sess_resume_all(m, &err);
    } else if (rc == 4) {
        fprintf(stderr, "zestub dump: the application exited before a %s\n", trigger_name(o.on));
    }
    dump_out_close(out, m, rc, true);
    sess_detach_all(m);
    zd_close(zd);
    return rc;
}
