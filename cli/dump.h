/* SPDX-License-Identifier: MIT */
/* zestub dump's phases, shared by the attach form (dump.c) and launch mode
 * (dump_launch.c). */
#ifndef ZESTUB_CLI_DUMP_H
#define ZESTUB_CLI_DUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "report/core_out.h"
#include "report/dump_out.h"

enum trigger { ON_PAGE_FAULT, ON_STOP, ON_NOW, ON_HANG };

/* --after-hang: what becomes of the program once a hang was dumped. */
enum after_hang { AFTER_HANG_RESUME, AFTER_HANG_KILL };

/* Exit statuses (doc/dump-format.md). */
enum {
    DUMP_EXIT_OK = 0,
    DUMP_EXIT_START = 1,
    DUMP_EXIT_USAGE = 2,
    DUMP_EXIT_TIMEOUT = 3,
    DUMP_EXIT_GONE = 4,
    DUMP_EXIT_DUMPED = 5,                  /* launch mode: the program faulted, dump written */
    DUMP_EXIT_HANG = DUMP_OUT_STATUS_HANG, /* --on hang: the hang was dumped (both modes) */
    DUMP_EXIT_CORE =
        DUMP_OUT_STATUS_CORE, /* a report file (a --core file, the dump) was not written */
    /* --on hang, deadline rule: the driver refused the interrupt, the
     * hang could not be judged (what could be read was dumped) */
    DUMP_EXIT_NO_INTERRUPT = 8,
};

struct dump_opts {
    uint32_t pid;
    enum trigger on;
    double timeout;
    bool timeout_given;
    const char *json;           /* NULL: human format; may hold %r %p %h */
    const char *core;           /* --core FILE (doc/core-format.md); may hold %r %p %h */
    struct core_opts core_opts; /* --core-memory, --core-threads, --core-light */
    enum dump_regs regs;
    char **program;   /* launch mode: argv after "--", NULL otherwise */
    bool all_threads; /* human format: every thread, not classes */
    double hang_s;    /* --on hang=DURATION, in seconds */
    enum after_hang after_hang;
    bool after_hang_given;
};

const char *dump_trigger_name(enum trigger t);
double dump_now_s(void);
/* Ends the process with status 3 when the run is still going at
 * deadline + 2 s (a device that stopped answering), closing out first. */
void dump_watchdog_start(double deadline, struct dump_out *out);
/* Attaches to every device of pid, retrying while it is too early (until
 * deadline) or has not loaded Level Zero (briefly: it may have just
 * started). 0, or the exit status with the reason on stderr and in out. */
int dump_attach(struct zd *zd, uint32_t pid, double deadline, struct sess_manager **m,
                struct dump_out *out);
/* One note while waiting for a trigger: 0 triggered, 4 every session
 * gone, -1 wait on (module loads are released). */
int dump_trigger_note(struct sess_manager *m, enum trigger on, const struct sess_note *note);
/* Waits for the trigger; releases module loads meanwhile. 0 triggered,
 * 3 timeout, 4 application gone. */
int dump_wait_trigger(struct sess_manager *m, enum trigger on, double deadline);
/* Detaches every live device, saying on stderr which one the driver would
 * not let go of (its threads may still be stopped); the manager stays.
 * Returns once every device is detached (the driver has resumed its
 * threads), handed-off detaches included. */
void dump_detach(struct zd *zd, struct sess_manager *m);
/* The same, and 5 as soon as WAKE_FD is readable (launch mode: the
 * program ended), so that nothing waits for a polling slice. */
int dump_wait_trigger_or(struct sess_manager *m, enum trigger on, double deadline, int wake_fd);
/* A condition looked at between notes, at least every every_s: fn
 * returns 0 when it holds (the wait then ends with 0). */
struct dump_wait_check {
    int (*fn)(void *arg, struct sess_manager *m);
    void *arg;
    double every_s;
};
/* The loop of both: notes (the trigger), check (when not NULL), the
 * deadline (3) and WAKE_FD readable (5; negative: not watched). */
int dump_wait_loop(struct sess_manager *m, enum trigger on, double deadline, int wake_fd,
                   const struct dump_wait_check *check);
/* Stops every device, writes every stopped thread, resumes them. 0; 3
 * when a device ended during the dump (partial output, said on stderr);
 * DUMP_EXIT_CORE when a --core file could not be written. */
int dump_take(struct dump_out *out, struct sess_manager *m, const struct dump_opts *o, uint32_t pid,
              double deadline);
/* Removes the cores an earlier run left under --core's name for pid (NAME
 * and NAME.0, NAME.1, ...), so that a core found after this run is its
 * own. */
void dump_remove_old_cores(const struct dump_opts *o, uint32_t pid);
/* dump_now_s() when the last dump_take had every device stopped. */
double dump_take_stopped_s(void);
/* The document's format the options ask for. */
enum report_format dump_format(const struct dump_opts *o);
/* Closes the document (complete) with status rc; DUMP_EXIT_CORE when it
 * could not be written, rc otherwise. */
int dump_close(struct dump_out *out, struct sess_manager *m, int rc);
/* Launch mode: zestub dump [OPTIONS] -- PROGRAM [ARGS...]. */
int cli_dump_launch(const struct dump_opts *o);

#endif
