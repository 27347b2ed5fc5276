/* SPDX-License-Identifier: MIT */
/* End to end: xtab_app runs with XPTI_SUBSCRIBERS=libzestub_xpti.so, and
 * this process, as zestub would, opens the table by the application's pid
 * and finds the kernel's site, its tasks and the allocations. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/lib/tap.h"
#include "tests/xpti/sycl_flow.h"
#include "tests/xpti/xtab_app.h"
#include "xpti/xtab_reader.h"

struct child {
    pid_t pid;
    int in, out;
};

static int spawn(const char *top, struct child *c)
{
    int in[2], out[2];
    char app[4096], sub[4096], disp[4096];
    snprintf(app, sizeof(app), "%s/tests/xpti/xtab_app", top);
    snprintf(sub, sizeof(sub), "XPTI_SUBSCRIBERS=%s/.libs/libzestub_xpti.so", top);
    snprintf(disp, sizeof(disp), "XPTI_FRAMEWORK_DISPATCHER=%s/.libs/libxptifw.so", top);
    if (pipe(in) || pipe(out))
        return -1;
    c->pid = fork();
    if (c->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        putenv(sub);
        putenv(disp);
        putenv((char *)"XPTI_TRACE_ENABLE=1");
        execl(app, app, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    c->in = in[1];
    c->out = out[0];
    return c->pid > 0 ? 0 : -1;
}

/* "ready PID RC": the application's own pid (the libtool wrapper execs it). */
static pid_t wait_ready(struct child *c)
{
    char line[128] = "";
    size_t n = 0;
    while (n < sizeof(line) - 1 && read(c->out, line + n, 1) == 1 && line[n] != '\n')
        n++;
    line[n] = 0;
    int pid = 0, rc = -1;
    if (sscanf(line, "ready %d %d", &pid, &rc) != 2 || rc != 0) {
        tap_diag("child said: %s", line);
        return -1;
    }
    return pid;
}

static void check_table(struct xtab *t)
{
    struct xtab_site s[4];
    struct xtab_task latest;
    int have = 0;
    int n = xtab_find_kernel(t, SYCL_FLOW_KERNEL, s, 4, &latest, &have);
    tap_ok(n == 1 && !strcmp(s[0].file, SYCL_FLOW_FILE) &&
               !strcmp(s[0].function, SYCL_FLOW_FUNCTION) && s[0].line == SYCL_FLOW_LINE &&
               s[0].column == SYCL_FLOW_COLUMN && !strcmp(s[0].device, SYCL_FLOW_DEVICE),
           "kernel " SYCL_FLOW_KERNEL " -> its submission site vadd.cpp:42:7 on gtsim:0");
    tap_ok(have && latest.end_ns == 0 && latest.instance == XTAB_APP_SUBMISSIONS + 1 &&
               latest.queue == XTAB_APP_QUEUE,
           "latest task: the running 4th instance on its queue");
    struct xtab_site u;
    tap_ok(n == 1 && xtab_find_uid(t, s[0].uid, &u) == 0 && u.index == s[0].index,
           "the node's uid names the site");
    size_t ended = 0;
    struct xtab_task task;
    for (size_t i = 0; i < xtab_count(t, XTAB_TASKS); i++)
        ended += xtab_task_at(t, i, &task) == 0 && n == 1 && task.site == s[0].index &&
                 task.end_ns >= task.begin_ns && task.end_ns;
    tap_ok(ended == XTAB_APP_SUBMISSIONS, "the %d finished kernel tasks are recorded (%zu)",
           XTAB_APP_SUBMISSIONS, ended);

    struct xtab_alloc a;
    int found = xtab_find_alloc(t, XTAB_APP_LIVE_PTR + 100, &a) == 0;
    tap_ok(found && a.live && a.size == XTAB_APP_LIVE_SIZE && a.guard == XTAB_APP_GUARD &&
               xtab_site_at(t, a.alloc_site, &u) == 0 && u.line == XTAB_APP_ALLOC_LINE &&
               !strcmp(u.function, XTAB_APP_ALLOC_FUNCTION) && u.kernel[0] == 0,
           "device address -> live allocation made at " XTAB_APP_ALLOC_FUNCTION " line 30");
    found = xtab_find_alloc(t, XTAB_APP_FREED_PTR, &a) == 0;
    tap_ok(found && !a.live && a.free_site == a.alloc_site && a.free_ns >= a.alloc_ns,
           "freed allocation with its release site");
    struct xtab_stats st;
    xtab_stats(t, &st);
    tap_ok(st.bad_records == 0 && st.sites_dropped == 0 && st.task_ends_unmatched == 0 &&
               st.releases_unmatched == 0,
           "no drops, no bad records");
}

int main(void)
{
    tap_plan(10);
    const char *top = getenv("top_builddir");
    struct child c;
    if (!top || spawn(top, &c) != 0)
        tap_bail("cannot start xtab_app (top_builddir unset?)");
    pid_t pid = wait_ready(&c);
    char err[256] = "";
    struct xtab *t = pid > 0 ? xtab_open(pid, err, sizeof(err)) : NULL;
    if (tap_ok(t != NULL, "the table of pid %d opens from another process", (int)pid))
        check_table(t);
    else
        tap_diag("%s", err);
    xtab_close(t);
    close(c.in);
    int status = 0;
    waitpid(c.pid, &status, 0);
    tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the application exits cleanly");
    err[0] = 0;
    tap_ok(pid > 0 && !xtab_open(pid, err, sizeof(err)) && strstr(err, "no XPTI table"),
           "gone with the process: %s", err);
    return tap_done();
}
