/* SPDX-License-Identifier: MIT */
/* libzestub_xpti.so under a framework loaded the way a SYCL runtime's XPTI
 * proxy loads it: dlopen(XPTI_FRAMEWORK_DISPATCHER, RTLD_LAZY), i.e.
 * RTLD_LOCAL, with nothing in the process exporting the xpti* functions.
 * The subscriber has no DT_NEEDED on a framework (issue 34), so its imports
 * must still find the framework that calls it. This program does not link
 * libxptifw; it plays the runtime in a child (a failed lazy lookup ends a
 * process with status 127) and checks the child's XPTI table. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/lib/tap.h"
#include "xpti/xpti.h"
#include "xpti/xpti_if.h"
#include "xpti/xtab_reader.h"

#define LINE 77

struct fw {
    void (*init)(void);
    void (*fini)(void);
    xpti_stream_id_t (*stream)(const char *);
    xpti_result_t (*initialize)(const char *, uint32_t, uint32_t, const char *);
    struct xpti_tracepoint_if *(*create)(const char *, const char *, uint32_t, uint32_t, void *);
    xpti_result_t (*notify)(xpti_stream_id_t, uint16_t, struct xpti_event *, struct xpti_event *,
                            uint64_t, const void *);
};

static int load(const char *path, struct fw *f)
{
    void *h = dlopen(path, RTLD_LAZY); /* local, as the proxy does */
    if (!h)
        return -1;
    *(void **)&f->init = dlsym(h, "xptiFrameworkInitialize");
    *(void **)&f->fini = dlsym(h, "xptiFrameworkFinalize");
    *(void **)&f->stream = dlsym(h, "xptiRegisterStream");
    *(void **)&f->initialize = dlsym(h, "xptiInitialize");
    *(void **)&f->create = dlsym(h, "xptiCreateTracepoint");
    *(void **)&f->notify = dlsym(h, "xptiNotifySubscribers");
    return f->init && f->fini && f->stream && f->initialize && f->create && f->notify ? 0 : -1;
}

/* The runtime's part; exit status 0: the table has the site, 2: it has
 * not, 3: the framework did not load. */
static int child(const char *path)
{
    struct fw f;
    if (load(path, &f) != 0)
        return 3;
    f.init();
    xpti_stream_id_t s = f.stream("sycl");
    f.initialize("sycl", 1, 0, "sycl 1.0");
    struct xpti_event *ev = xpti_if_tracepoint_event(f.create("local_fn", "local.cpp", LINE, 0, 0));
    if (!ev)
        return 2;
    f.notify(s, XPTI_TP_NODE_CREATE, NULL, ev, ev->instance_id, "node");
    f.notify(s, XPTI_TP_TASK_BEGIN, NULL, ev, ev->instance_id, NULL);
    char err[256];
    struct xtab *t = xtab_open(getpid(), err, sizeof(err));
    struct xtab_site site = {0};
    int found = t && xtab_site_at(t, 0, &site) == 0 && site.line == LINE &&
                strcmp(site.file, "local.cpp") == 0;
    if (t)
        xtab_close(t);
    f.notify(s, XPTI_TP_TASK_END, NULL, ev, ev->instance_id, NULL);
    f.fini();
    return found ? 0 : 2;
}

int main(void)
{
    const char *top = getenv("top_builddir");
    char fw[4096], sub[4096];
    snprintf(fw, sizeof(fw), "%s/.libs/libxptifw.so", top ? top : ".");
    snprintf(sub, sizeof(sub), "%s/.libs/libzestub_xpti.so", top ? top : ".");
    tap_plan(3);
    tap_ok(dlsym(RTLD_DEFAULT, "xptiRegisterCallback") == NULL,
           "no framework in this process's global scope");
    setenv("XPTI_SUBSCRIBERS", sub, 1);
    setenv("XPTI_TRACE_ENABLE", "1", 1);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(child(fw));
    int status = 0;
    waitpid(pid, &status, 0);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    tap_ok(code != 127 && code != 3 && code < 128,
           "the application survives its first notification (status %d; 127 is a symbol lookup "
           "error)",
           code);
    tap_ok(code == 0, "the subscriber recorded the site in the table (status %d)", code);
    return tap_done();
}
