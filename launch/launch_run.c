/* SPDX-License-Identifier: MIT */
/* vRun's programs (launch_run.h): launch.c's machinery per program, a
 * reaper thread per released program (a zombie still looks alive to the
 * driver, which would then never report the exit), kill on vKill and at
 * the end. Called from the server's loop thread only; the reaper threads
 * touch nothing but their own program's status. */
#include "config.h"

#include "launch/launch_run.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "launch/launch.h"

struct run_prog {
    struct launch l;
    pthread_t reaper;
    bool reaping; /* the reaper thread runs (released programs) */
    atomic_bool done;
    int status;
};

struct launch_runner {
    bool stdio_away;
    struct run_prog **progs;
    size_t n, cap;
};

static void *reap(void *arg)
{
    struct run_prog *p = arg;
    int status = 0;
    while (waitpid(p->l.child, &status, 0) < 0 && errno == EINTR)
        ;
    p->status = status;
    atomic_store(&p->done, true);
    return NULL;
}

/* Kills a program (and the process that announced itself, when it is
 * another) and waits for it. */
static void kill_and_reap(struct run_prog *p)
{
    if (!atomic_load(&p->done)) {
        if (p->l.target > 0 && p->l.target != p->l.child)
            kill(p->l.target, SIGKILL);
        kill(p->l.child, SIGKILL);
    }
    launch_release(&p->l); /* closes the handshake: a held program goes on to die */
    if (p->reaping)
        pthread_join(p->reaper, NULL);
    else
        launch_wait_exit(&p->l);
    p->reaping = false;
}

static void forget(struct launch_runner *r, size_t i)
{
    free(r->progs[i]);
    r->progs[i] = r->progs[--r->n];
}

/* Programs that ended on their own: reaped already, joined here. */
static void forget_ended(struct launch_runner *r)
{
    for (size_t i = r->n; i-- > 0;)
        if (r->progs[i]->reaping && atomic_load(&r->progs[i]->done)) {
            pthread_join(r->progs[i]->reaper, NULL);
            forget(r, i);
        }
}

static struct run_prog *find(struct launch_runner *r, uint32_t host_pid, size_t *at)
{
    for (size_t i = 0; i < r->n; i++)
        if ((uint32_t)r->progs[i]->l.target == host_pid) {
            *at = i;
            return r->progs[i];
        }
    return NULL;
}

/* Started, then held: the program's end before its first module, or the
 * timeout, is an error that says which. */
static int wait_held(struct run_prog *p, const char *name, char *err, size_t errlen)
{
    char how[128];
    int held = launch_wait_held_for(&p->l, LAUNCH_RUN_HOLD_TIMEOUT_MS);
    if (held > 0)
        return 0;
    if (held == 0) {
        launch_describe_exit(&p->l, how, sizeof(how));
        snprintf(err, errlen, "%s %s before it created a Level Zero module: nothing to debug", name,
                 how);
    } else {
        kill_and_reap(p);
        snprintf(err, errlen,
                 "%s created no Level Zero module within %d s; it was killed (does it use "
                 "Level Zero?)",
                 name, LAUNCH_RUN_HOLD_TIMEOUT_MS / 1000);
    }
    return -1;
}

int launch_runner_start(struct launch_runner *r, char *const *argv, char *const *env, size_t nenv,
                        const char *cwd, uint32_t *host_pid, char *err, size_t errlen)
{
    struct launch_opts o = {r->stdio_away, env, nenv, cwd};
    struct run_prog *p;
    forget_ended(r);
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4;
        struct run_prog **grown = realloc(r->progs, cap * sizeof(*grown));
        if (!grown)
            return snprintf(err, errlen, "out of memory"), -ENOMEM;
        r->progs = grown;
        r->cap = cap;
    }
    if (!(p = calloc(1, sizeof(*p))))
        return snprintf(err, errlen, "out of memory"), -ENOMEM;
    if (launch_start_opts(&p->l, (char **)argv, &o, err, errlen) != 0 ||
        wait_held(p, argv[0], err, errlen) != 0) {
        launch_release(&p->l); /* closes the handshake of one that ended */
        free(p);
        return -ENOEXEC;
    }
    fprintf(stderr, "Process %s created; pid = %ld\n", argv[0], (long)p->l.child);
    r->progs[r->n++] = p;
    *host_pid = (uint32_t)p->l.target;
    return 0;
}

void launch_runner_release(struct launch_runner *r, uint32_t host_pid, bool attached)
{
    size_t i;
    struct run_prog *p = find(r, host_pid, &i);
    if (!p)
        return;
    if (!attached) { /* nothing would debug it: it was only ever ours */
        kill_and_reap(p);
        forget(r, i);
        return;
    }
    launch_release(&p->l);
    p->reaping = pthread_create(&p->reaper, NULL, reap, p) == 0;
}

int launch_runner_kill(struct launch_runner *r, uint32_t host_pid, char *err, size_t errlen)
{
    size_t i;
    struct run_prog *p = find(r, host_pid, &i);
    if (!p) {
        snprintf(err, errlen, "process %u was not started by this server", (unsigned)host_pid);
        return -ESRCH;
    }
    kill_and_reap(p);
    forget(r, i);
    return 0;
}

/* The device exit comes from the driver; the reaper may be a moment
 * behind it. */
#define STATUS_WAIT_MS 1000

int launch_runner_status(struct launch_runner *r, uint32_t host_pid, int *wstatus)
{
    size_t i;
    struct run_prog *p = find(r, host_pid, &i);
    struct timespec tick = {0, 10 * 1000 * 1000};
    /* Only the program itself: a process it started announced itself
     * instead, and its status is not ours to read. */
    if (!p || !p->reaping || p->l.child != p->l.target)
        return -ENOENT;
    for (int waited = 0; !atomic_load(&p->done) && waited < STATUS_WAIT_MS; waited += 10)
        nanosleep(&tick, NULL);
    if (!atomic_load(&p->done))
        return -EAGAIN;
    *wstatus = p->status;
    return 0;
}

struct launch_runner *launch_runner_new(bool stdio_away)
{
    struct launch_runner *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->stdio_away = stdio_away;
    return r;
}

void launch_runner_free(struct launch_runner *r)
{
    if (!r)
        return;
    while (r->n > 0) {
        kill_and_reap(r->progs[r->n - 1]);
        forget(r, r->n - 1);
    }
    free(r->progs);
    free(r);
}
