/* SPDX-License-Identifier: MIT */
/* zestub dump: attach, wait for a trigger, stop every device, write one
 * record per stopped thread, resume, detach. Bounded in time: a watchdog
 * ends the run at --timeout (plus a short grace for a device that stops
 * answering mid-dump), closing the output so what was collected is usable.
 *
 * Exit status: 0 dump written; 1 could not start (no driver, attach
 * failed); 2 usage; 3 timeout (trigger not seen, or the device stopped
 * answering: partial output); 4 the application exited before the trigger;
 * 6 --on hang: the hang was dumped (dump_hang.c). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/dump.h"
#include "cli/dump_hang.h"
#include "cli/duration.h"
#include "report/dump_out.h"
#include "cli/outpattern.h"
#include "regsets/regs.h"
#include "sessions/sess.h"
#include "sessions/sess_xpti.h"
#include "symbols/symbols.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: zestub dump --attach PID [OPTIONS]\n"
               "       zestub dump [OPTIONS] -- PROGRAM [ARGS...]\n"
               "Options: [--on page-fault|stop|now|hang=DURATION] [--timeout DURATION]\n"
               "         [--json FILE|-] [--registers all|expedited|none] [--all-threads]\n"
               "         [--after-hang resume|kill]\n"
               "         [--core FILE [--core-memory SIZE] [--core-threads all|faulting|N]\n"
               "          [--core-size SIZE|unlimited] [--core-light]]\n"
               "Waits for the trigger (default page-fault), stops every device of PID, writes\n"
               "every stopped thread's state, then resumes and detaches. With PROGRAM, zestub\n"
               "starts it with program debugging on and attaches before its first module\n"
               "(launch mode; not with --on now; no timeout unless given). In FILE, %%r is the\n"
               "job rank (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID), %%p the\n"
               "program's pid, %%h the host name, %%%% a '%%'; in a job of several ranks a FILE\n"
               "without %%r or %%p gets .rRANK before its extension. FILE is written as\n"
               "FILE.partial and renamed to FILE once whole. The human dump groups the threads\n"
               "by where they stopped, one of each in full; --all-threads writes every one\n"
               "(JSON always does).\n"
               "--core FILE also writes a GPU core file of the stopped threads for Intel's GDB\n"
               "(target core FILE; FILE.N per device when there are several; same patterns).\n"
               "  --core-memory SIZE   device memory in the core besides code: the pages\n"
               "                       around each fault, the first thread's SLM, the live\n"
               "                       XPTI allocations (default 64M; 0: none)\n"
               "  --core-threads all|faulting|N   which stopped threads (default all;\n"
               "                       faulting: those that stopped for their own reason)\n"
               "  --core-size SIZE     the whole file at most SIZE (default 2G; unlimited):\n"
               "                       threads beyond it are left out, interrupted ones\n"
               "                       first, then memory; at least one thread is written\n"
               "  --core-light         --core-threads faulting --core-memory 0\n"
               "DURATION (--on hang=, --timeout): 500ms, 10s, 2m, 1h; a plain number is seconds.\n"
               "--on hang=DURATION: the debug API says nothing when a kernel completes, so:\n"
               "with the application's XPTI table, the trigger is the oldest submission in\n"
               "flight (begun, not ended) being older than DURATION; without one, device\n"
               "threads still running DURATION after attach (checked again every DURATION\n"
               "while the device is idle). No timeout unless given. --after-hang: resume the\n"
               "program after the dump (default) or kill it (SIGKILL).\n"
               "Exit: 0 dumped, 1 could not attach, 2 usage, 3 timeout (partial output),\n"
               "      4 the application exited before the trigger, 6 a hang was dumped,\n"
               "      7 a report file (--json, --core) could not be written, 8 (--on hang\n"
               "      without an XPTI table) the driver refused the interrupt: hang not\n"
               "      judged, what could be read dumped. Launch mode: the program's exit\n"
               "      code when nothing was dumped, 5 when it faulted and the dump was\n"
               "      written, 6 when it hung and the dump was written, 1 could not start it,\n"
               "      2 usage, 3 timeout, 7 and 8 as above.\n");
}

static int parse_trigger(const char *v, struct dump_opts *o)
{
    enum trigger *on = &o->on;
    if (!strncmp(v, "hang", 4) && (v[4] == '=' || !v[4])) {
        if (v[4] != '=' || dump_hang_parse(v + 5, &o->hang_s) != 0) {
            fprintf(stderr,
                    "zestub dump: --on hang=DURATION takes a duration above 0 and at most 24 "
                    "h, " CLI_DURATION_SYNTAX ", not '%s'\n",
                    v[4] ? v + 5 : "");
            return 2;
        }
        *on = ON_HANG;
        return 0;
    }
    if (!strcmp(v, "page-fault"))
        *on = ON_PAGE_FAULT;
    else if (!strcmp(v, "stop"))
        *on = ON_STOP;
    else if (!strcmp(v, "now"))
        *on = ON_NOW;
    else {
        fprintf(stderr, "zestub dump: --on takes page-fault, stop, now or hang=DURATION\n");
        return 2;
    }
    return 0;
}

static int parse_regs(const char *v, enum dump_regs *regs)
{
    if (!strcmp(v, "all"))
        *regs = DUMP_REGS_ALL;
    else if (!strcmp(v, "expedited"))
        *regs = DUMP_REGS_EXPEDITED;
    else if (!strcmp(v, "none"))
        *regs = DUMP_REGS_NONE;
    else {
        fprintf(stderr, "zestub dump: --registers takes all, expedited or none\n");
        return 2;
    }
    return 0;
}

static int parse_option(int c, struct dump_opts *o)
{
    char *end;
    switch (c) {
    case 'a': {
        unsigned long v = strtoul(optarg, &end, 10);
        if (*end || v == 0 || v > 0x7fffffffUL) {
            fprintf(stderr, "zestub dump: --attach needs a process id, not '%s'\n", optarg);
            return 2;
        }
        o->pid = (uint32_t)v;
        return 0;
    }
    case 'o':
        return parse_trigger(optarg, o);
    case 'H':
        if (strcmp(optarg, "resume") && strcmp(optarg, "kill")) {
            fprintf(stderr, "zestub dump: --after-hang takes resume or kill\n");
            return 2;
        }
        o->after_hang = optarg[0] == 'k' ? AFTER_HANG_KILL : AFTER_HANG_RESUME;
        o->after_hang_given = true;
        return 0;
    case 't':
        o->timeout_given = true;
        if (cli_parse_duration(optarg, 86400, false, &o->timeout) != 0) {
            fprintf(stderr,
                    "zestub dump: --timeout takes a duration above 0 and at most 24 "
                    "h, " CLI_DURATION_SYNTAX ", not '%s'\n",
                    optarg);
            return 2;
        }
        return 0;
    case 'j':
        o->json = optarg;
        return 0;
    case 'r':
        return parse_regs(optarg, &o->regs);
    case 'c':
        o->core = optarg;
        return 0;
    case 'A':
        o->all_threads = true;
        return 0;
    case 'M':
        if (core_parse_size(optarg, &o->core_opts.mem_limit) != 0) {
            fprintf(stderr, "zestub dump: --core-memory takes a size: 0, 4096, 512K, 64M, 2G\n");
            return 2;
        }
        return 0;
    case 'T':
        if (core_parse_threads(optarg, &o->core_opts) != 0) {
            fprintf(stderr,
                    "zestub dump: --core-threads takes all, faulting or a number of threads\n");
            return 2;
        }
        return 0;
    case 'S':
        if (core_parse_size_limit(optarg, &o->core_opts.size_limit) != 0) {
            fprintf(stderr, "zestub dump: --core-size takes a size of at least 4K (64K, 512M, "
                            "2G) or unlimited\n");
            return 2;
        }
        return 0;
    case 'L':
        o->core_opts.faulting_only = true;
        o->core_opts.mem_limit = 0;
        return 0;
    case 'h':
        usage(stdout);
        exit(0);
    default:
        usage(stderr);
        return 2;
    }
}

static int parse(int argc, char **argv, struct dump_opts *o)
{
    static const struct option longopts[] = {{"attach", required_argument, NULL, 'a'},
                                             {"on", required_argument, NULL, 'o'},
                                             {"timeout", required_argument, NULL, 't'},
                                             {"json", required_argument, NULL, 'j'},
                                             {"registers", required_argument, NULL, 'r'},
                                             {"all-threads", no_argument, NULL, 'A'},
                                             {"core", required_argument, NULL, 'c'},
                                             {"core-memory", required_argument, NULL, 'M'},
                                             {"core-threads", required_argument, NULL, 'T'},
                                             {"core-size", required_argument, NULL, 'S'},
                                             {"core-light", no_argument, NULL, 'L'},
                                             {"after-hang", required_argument, NULL, 'H'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int c;
    memset(o, 0, sizeof(*o));
    o->on = ON_PAGE_FAULT;
    o->timeout = 60;
    o->regs = DUMP_REGS_EXPEDITED;
    o->core_opts.mem_limit = CORE_DEFAULT_MEM_LIMIT;
    o->core_opts.size_limit = CORE_DEFAULT_SIZE_LIMIT;
    optind = 1;
    /* '+': the options end at PROGRAM, whose own options are its own. */
    while ((c = getopt_long(argc, argv, "+a:o:t:j:r:h", longopts, NULL)) != -1)
        if (parse_option(c, o))
            return 2;
    if (optind < argc)
        o->program = argv + optind;
    if ((o->pid == 0) == (o->program == NULL)) {
        if (o->pid)
            fprintf(stderr, "zestub dump: --attach PID or -- PROGRAM, not both\n");
        usage(stderr);
        return 2;
    }
    if (o->core) {
        char check[4096], err[256];
        if (!o->core[0] || !strcmp(o->core, "-")) {
            fprintf(stderr, "zestub dump: --core needs a file name\n");
            return 2;
        }
        if (out_expand(o->core, 0, 0, check, sizeof(check), err, sizeof(err)) != 0) {
            fprintf(stderr, "zestub dump: --core %s\n", err);
            return 2;
        }
        /* One file cannot hold both: the second writer would find the
         * first's partial in use and fail after the trigger. */
        if (o->json && !strcmp(o->json, o->core)) {
            fprintf(stderr, "zestub dump: --json and --core name the same file, %s\n", o->core);
            return 2;
        }
    }
    if (o->after_hang_given && o->on != ON_HANG) {
        fprintf(stderr, "zestub dump: --after-hang needs --on hang=DURATION\n");
        return 2;
    }
    if (o->program && o->on == ON_NOW) {
        fprintf(stderr, "zestub dump: --on now needs --attach (a program just started has "
                        "nothing to dump yet)\n");
        return 2;
    }
    return 0;
}

/* --json FILE with its %r %p %h expanded for pid, one name per rank
 * (out_rank_name); NULL stays NULL. */
static int output_name(const char *pattern, long pid, char *buf, size_t len)
{
    char err[256];
    if (!pattern || !strcmp(pattern, "-"))
        return 0;
    if (out_rank_name("--json", pattern, pid, buf, len, err, sizeof(err)) != 0) {
        fprintf(stderr, "zestub dump: --json %s\n", err);
        return 2;
    }
    return 0;
}

/* --on hang in the attach form: watch, dump, then resume or kill. */
static int attach_hang(const struct dump_opts *o, struct zd *zd, struct sess_manager *m,
                       struct dump_out *out)
{
    struct dump_hang h;
    double deadline = o->timeout_given ? dump_now_s() + o->timeout : 1e18;
    int rc;
    dump_hang_init(&h, o->pid, o->hang_s);
    h.after = o->after_hang;
    rc = dump_wait_hang(&h, m, deadline, -1);
    if (rc == 4)
        fprintf(stderr, "zestub dump: the application exited before a hang\n");
    rc = dump_hang_take(&h, rc, out, m, o, o->pid);
    rc = dump_close(out, m, rc);
    dump_hang_timing(&h, dump_now_s());
    dump_detach(zd, m);
    sess_detach_all(m);
    zd_close(zd);
    /* After the detach: the driver has resumed everything by then. */
    if (rc == DUMP_EXIT_HANG && o->after_hang == AFTER_HANG_KILL && kill((pid_t)o->pid, SIGKILL))
        fprintf(stderr, "zestub dump: cannot kill process %u: %s\n", o->pid, strerror(errno));
    dump_hang_fini(&h);
    return rc;
}

int cli_dump(int argc, char **argv)
{
    struct dump_opts o;
    struct zd *zd = NULL;
    struct sess_manager *m = NULL;
    struct zd_error err;
    struct dump_out *out;
    char path[4096], why[512];
    double deadline;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    if (o.program)
        return cli_dump_launch(&o);
    if ((rc = output_name(o.json, o.pid, path, sizeof(path))) != 0)
        return rc;
    if (o.json && strcmp(o.json, "-"))
        o.json = path;
    deadline = dump_now_s() + o.timeout;
    dump_remove_old_cores(&o, o.pid);

    if (zd_open(&zd, &err) != 0) {
        fprintf(stderr, "zestub dump: %s\n", err.msg);
        return 1;
    }
    out = dump_out_open(o.json, dump_format(&o), o.pid, dump_trigger_name(o.on), zd, why,
                        sizeof(why));
    if (!out) {
        /* Nothing attached yet: status 7, the report file, not 1 (attach). */
        fprintf(stderr, "zestub dump: cannot write %s: %s; nothing was dumped\n", o.json, why);
        zd_close(zd);
        return DUMP_EXIT_CORE;
    }
    /* A hang watch has no timeout unless given; its dump starts its own. */
    if (o.on != ON_HANG || o.timeout_given)
        dump_watchdog_start(deadline, out);
    rc = dump_attach(zd, o.pid, deadline, &m, out);
    if (rc) {
        dump_out_close(out, NULL, rc, false);
        zd_close(zd);
        return rc;
    }
    dump_out_devices(out, m);
    if (o.on == ON_HANG)
        return attach_hang(&o, zd, m, out);
    rc = dump_wait_trigger(m, o.on, deadline);
    if (rc == 0 || rc == 3) {
        /* On timeout too: show where the threads are, it is what a user
         * with a hung job wants to see. */
        if (rc == 3)
            fprintf(stderr, "zestub dump: no %s within %.0f s; dumping the current state\n",
                    dump_trigger_name(o.on), o.timeout);
        int taken = dump_take(out, m, &o, o.pid, deadline);
        /* 3: partial, a device ended during the dump; 7: no core. */
        if (taken != 0 && rc == 0)
            rc = taken;
    } else if (rc == 4) {
        fprintf(stderr, "zestub dump: the application exited before a %s\n",
                dump_trigger_name(o.on));
    }
    rc = dump_close(out, m, rc);
    dump_detach(zd, m);
    sess_detach_all(m);
    zd_close(zd);
    return rc;
}
