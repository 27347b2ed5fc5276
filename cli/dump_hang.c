/* SPDX-License-Identifier: MIT */
/* --on hang=DURATION: the watch (which rule, when it fires) and the
 * duration syntax. The rules are in dump_hang.h and doc/dump-format.md. */
#include "cli/dump_hang.h"
#include "cli/duration.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How often the table is read (and, without one, the clock looked at):
 * a tenth of a second late is nothing next to any sensible DURATION. */
#define HANG_POLL_S 0.1
#define HANG_MAX_S 86400.0
/* Polls in a row that find task records unreadable before the table is
 * taken for damaged (half a second at HANG_POLL_S). */
#define HANG_DAMAGED_POLLS 5
/* How long the dump itself may take once the hang was seen (the watchdog
 * closes the document 2 s later if a device stops answering). */
#define HANG_DUMP_PHASE_S 30.0

int dump_hang_parse(const char *text, double *seconds)
{
    return cli_parse_duration(text, HANG_MAX_S, false, seconds);
}

void dump_hang_init(struct dump_hang *h, uint32_t pid, double limit_s)
{
    memset(h, 0, sizeof(*h));
    h->pid = pid;
    h->limit_s = limit_s;
    h->attached_s = dump_now_s();
    h->next_check = h->attached_s + limit_s;
}

void dump_hang_fini(struct dump_hang *h)
{
    sess_xpti_close(h->x);
    h->x = NULL;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The table's rule: the oldest submission begun and not ended. 0 fired. */
static int check_xpti(struct dump_hang *h)
{
    struct xtab_task oldest;
    unsigned in_flight, unreadable;
    uint64_t now = mono_ns();
    int found = sess_xpti_oldest_running(h->x, &oldest, &in_flight, &unreadable);
    /* A record mid-write is unreadable for microseconds; one that stays so
     * poll after poll is damaged, and the submission it holds may be the
     * hung one: timing the others would miss the hang. */
    h->unreadable_polls = unreadable ? h->unreadable_polls + 1 : 0;
    if (h->unreadable_polls >= HANG_DAMAGED_POLLS) {
        fprintf(stderr,
                "zestub dump: the XPTI table of pid %u has %u task record%s that cannot be read "
                "(damaged, or stuck mid-write): submissions cannot be timed; watching with the "
                "deadline rule instead\n",
                (unsigned)h->pid, unreadable, unreadable == 1 ? "" : "s");
        h->xpti_damaged = true;
        sess_xpti_close(h->x);
        h->x = NULL;
        return -1;
    }
    if (found != 0 || now < oldest.begin_ns || (double)(now - oldest.begin_ns) / 1e9 < h->limit_s)
        return -1;
    h->rule = HANG_RULE_XPTI;
    h->in_flight = in_flight;
    h->running_s = (double)(now - oldest.begin_ns) / 1e9;
    h->task = oldest;
    h->has_task = true;
    h->has_site = sess_xpti_site_of(h->x, oldest.site, &h->site) == 0;
    return 0;
}

/* No table: at each check, is any device thread running? Interrupting is
 * the only way the debug API can tell; the stopped threads stay stopped
 * for the dump. 0 fired. */
static int check_deadline(struct dump_hang *h, struct sess_manager *m)
{
    struct zd_error err;
    double now = dump_now_s();
    if (now < h->next_check)
        return -1;
    if (sess_stop_all(m, &err) > 0) {
        h->rule = HANG_RULE_DEADLINE;
        h->running_s = now - h->attached_s;
        return 0;
    }
    /* Refused (sess_stop_all has retried once): nothing stopped says
     * nothing about the device, and taking it for idle would watch to the
     * timeout and report "no hang". NOT_AVAILABLE means nothing to stop;
     * a lost device ends the watch as the application's end. */
    if (err.code != 0 && err.code != ZD_E_UNAVAILABLE && err.code != ZD_E_LOST) {
        snprintf(h->interrupt_error, sizeof(h->interrupt_error), "%s", err.msg);
        h->rule = HANG_RULE_DEADLINE;
        h->running_s = now - h->attached_s;
        return 0;
    }
    /* Idle: the program is between kernels or not using the device. */
    (void)sess_resume_all(m, &err);
    h->checks++;
    h->next_check = now + h->limit_s;
    return -1;
}

/* The table is looked for at every poll: an application creates it when
 * its runtime starts tracing, which may be well after attach. */
static int check(struct dump_hang *h, struct sess_manager *m)
{
    char note[256];
    if (h->xpti_damaged)
        return check_deadline(h, m);
    if (!h->x)
        h->x = sess_xpti_open(h->pid, note, sizeof(note));
    else
        sess_xpti_new_stop(h->x);
    return h->x ? check_xpti(h) : check_deadline(h, m);
}

static int check_hang(void *arg, struct sess_manager *m)
{
    return check(arg, m);
}

int dump_wait_hang(struct dump_hang *h, struct sess_manager *m, double deadline, int wake_fd)
{
    const struct dump_wait_check c = {check_hang, h, HANG_POLL_S};
    return dump_wait_loop(m, ON_HANG, deadline, wake_fd, &c);
}

/* The report's hang section (doc/dump-format.md, "Hang dumps"). */
static struct report_hang facts(const struct dump_hang *h)
{
    return (struct report_hang){
        .rule = h->rule == HANG_RULE_XPTI ? REPORT_HANG_XPTI : REPORT_HANG_DEADLINE,
        .limit_s = h->limit_s,
        .running_s = h->running_s,
        .in_flight = h->in_flight,
        .checks = h->checks,
        .has_task = h->has_task,
        .has_site = h->has_site,
        .task = h->task,
        .site = h->site,
        .kill_after = h->after == AFTER_HANG_KILL,
    };
}

/* The deadline rule could not look: say so with the driver's words (on
 * stderr and as the document's error) and dump what can be read, under a
 * status of its own, so that a script never takes it for "no hang". */
static int interrupt_refused(struct dump_hang *h, struct dump_out *out, struct sess_manager *m,
                             const struct dump_opts *o, uint32_t pid, double end)
{
    char why[384];
    int rc;
    snprintf(why, sizeof(why), "the driver refused to interrupt the device: %s",
             h->interrupt_error);
    fprintf(stderr,
            "zestub dump: cannot tell whether process %u hangs after %.1f s: %s; dumping what "
            "can be read\n",
            (unsigned)h->pid, h->running_s, why);
    dump_out_fail(out, why);
    rc = dump_take(out, m, o, pid, end);
    return rc == DUMP_EXIT_TIMEOUT || rc == DUMP_EXIT_CORE ? rc : DUMP_EXIT_NO_INTERRUPT;
}

int dump_hang_take(struct dump_hang *h, int rc, struct dump_out *out, struct sess_manager *m,
                   const struct dump_opts *o, uint32_t pid)
{
    double end = dump_now_s() + HANG_DUMP_PHASE_S;
    h->trigger_s = dump_now_s();
    if (rc != 0 && rc != 3)
        return rc;
    dump_watchdog_start(end, out);
    if (h->interrupt_error[0])
        return interrupt_refused(h, out, m, o, pid, end);
    if (rc == 3) {
        fprintf(stderr, "zestub dump: no hang within %g s; dumping the current state\n",
                o->timeout);
        (void)dump_take(out, m, o, pid, end);
        return DUMP_EXIT_TIMEOUT;
    }
    if (h->rule == HANG_RULE_XPTI)
        fprintf(stderr,
                "zestub dump: hang: the oldest submission in flight has been running %.1f s "
                "(limit %g s); dumping\n",
                h->running_s, h->limit_s);
    else
        fprintf(stderr,
                "zestub dump: hang: device threads still running %.1f s after attach (limit %g "
                "s, %s); dumping\n",
                h->running_s, h->limit_s,
                h->xpti_damaged ? "the XPTI table's tasks unreadable" : "no XPTI table");
    {
        struct report_hang f = facts(h);
        dump_out_hang(out, &f);
    }
    rc = dump_take(out, m, o, pid, end);
    /* 3: a device ended during the dump; 7: the report is whole, a core
     * is missing. */
    return rc == DUMP_EXIT_CORE || rc == DUMP_EXIT_TIMEOUT ? rc : DUMP_EXIT_HANG;
}

void dump_hang_timing(const struct dump_hang *h, double written_s)
{
    double stopped = dump_take_stopped_s();
    if (!getenv("ZESTUB_DUMP_TIMING") || !h->trigger_s || !stopped)
        return;
    fprintf(stderr,
            "zestub dump: timing: trigger to all stopped %.6f s, all stopped to report written "
            "%.6f s, trigger to report written %.6f s\n",
            stopped - h->trigger_s, written_s - stopped, written_s - h->trigger_s);
}
