/* SPDX-License-Identifier: MIT */
/* Launch mode: start the program held (see launch_proto.h), report when it
 * waits for us, release it, reap it. (Passing it the signals meant for it
 * is process-wide state: cli/forward_signals.c.) */
#include "config.h"

#include "launch/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch/launch_proto.h"

extern char **environ;

#ifndef ZESTUB_PKGLIBDIR
#define ZESTUB_PKGLIBDIR "/usr/local/lib/zestub"
#endif
/* pkglibdir relative to bindir: an install made with `make install
 * prefix=DIR` (or moved whole) has the library there, not at the
 * configured path. */
#ifndef ZESTUB_PKGLIBDIR_REL
#define ZESTUB_PKGLIBDIR_REL "../lib/zestub"
#endif

/* The preload library: $ZESTUB_LAUNCH_LIB, else next to the zestub binary
 * in a build tree (libtool keeps it in .libs), else pkglibdir relative to
 * the binary, else the configured install path. */
static int find_hold_lib(char *buf, size_t len)
{
    const char *env = getenv(LAUNCH_ENV_LIB);
    char exe[PATH_MAX - 64]; /* room for the file name after it */
    ssize_t n;
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return access(buf, R_OK);
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        char *slash;
        exe[n] = '\0';
        slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(buf, len, "%s/.libs/libzestub_launch.so", exe);
            if (access(buf, R_OK) == 0)
                return 0;
            snprintf(buf, len, "%s/libzestub_launch.so", exe);
            if (access(buf, R_OK) == 0)
                return 0;
            snprintf(buf, len, "%s/%s/libzestub_launch.so", exe, ZESTUB_PKGLIBDIR_REL);
            if (access(buf, R_OK) == 0)
                return 0;
        }
    }
    snprintf(buf, len, "%s/libzestub_launch.so", ZESTUB_PKGLIBDIR);
    return access(buf, R_OK);
}

static char *env_pair(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s=%s", name, value);
    return s;
}

/* NAME is entry's name ("NAME=..." or "NAME"). */
static bool names(const char *entry, const char *name, size_t len)
{
    return !strncmp(entry, name, len) && (entry[len] == '=' || entry[len] == '\0');
}

/* The edit for NAME in o (the last one wins), or NULL. */
static const char *edit_of(const struct launch_opts *o, const char *name, size_t len)
{
    const char *found = NULL;
    for (size_t i = 0; o && i < o->nenv; i++)
        if (names(o->env[i], name, len))
            found = o->env[i];
    return found;
}

/* LD_PRELOAD as the program would have it without us: the client's
 * setting, else ours. */
static const char *base_preload(const struct launch_opts *o)
{
    const char *e = edit_of(o, "LD_PRELOAD", 10);
    if (e)
        return e[10] == '=' ? e + 11 : NULL;
    return getenv("LD_PRELOAD");
}

/* environ with o's edits and without the names we set, then ours. Built
 * before fork: the child of a threaded process may only make
 * async-signal-safe calls. */
static char **child_environ(const char *lib, int fd, unsigned long long ino,
                            const struct launch_opts *o, size_t *ours_at)
{
    static const char *const ours[] = {"ZET_ENABLE_PROGRAM_DEBUGGING", "LD_PRELOAD", LAUNCH_ENV_FD,
                                       LAUNCH_ENV_INO};
    size_t n = 0, k = 0, nedit = o ? o->nenv : 0;
    const char *old_preload = base_preload(o);
    char num[32], *preload;
    char **envp;
    while (environ[n])
        n++;
    envp = calloc(n + nedit + 5, sizeof(*envp));
    if (!envp)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(environ[i], "=");
        bool skip = edit_of(o, environ[i], len) != NULL;
        for (size_t j = 0; j < sizeof(ours) / sizeof(ours[0]); j++)
            skip |= names(environ[i], ours[j], strlen(ours[j])) && environ[i][len] == '=';
        if (!skip)
            envp[k++] = environ[i];
    }
    for (size_t i = 0; i < nedit; i++) {
        size_t len = strcspn(o->env[i], "=");
        bool ourname = false;
        for (size_t j = 0; j < sizeof(ours) / sizeof(ours[0]); j++)
            ourname |= names(o->env[i], ours[j], strlen(ours[j])) && len == strlen(ours[j]);
        if (o->env[i][len] == '=' && !ourname && edit_of(o, o->env[i], len) == o->env[i])
            envp[k++] = o->env[i];
    }
    preload = malloc(strlen(lib) + (old_preload ? strlen(old_preload) : 0) + 2);
    if (preload)
        sprintf(preload, "%s%s%s", lib, old_preload && *old_preload ? ":" : "",
                old_preload ? old_preload : "");
    *ours_at = k; /* the four entries from here are ours to free */
    envp[k++] = env_pair("LD_PRELOAD", preload ? preload : lib);
    free(preload);
    envp[k++] = env_pair("ZET_ENABLE_PROGRAM_DEBUGGING", "1");
    snprintf(num, sizeof(num), "%d", fd);
    envp[k++] = env_pair(LAUNCH_ENV_FD, num);
    snprintf(num, sizeof(num), "%llu", ino);
    envp[k++] = env_pair(LAUNCH_ENV_INO, num);
    return envp;
}

/* In the child: async-signal-safe calls only. Reports {step, errno} on
 * errpipe when the chdir (step 1) or the exec (step 0) fails. */
static void exec_child(char **argv, char **envp, int fd, int errpipe, const struct launch_opts *o)
{
    int e[2] = {0, 0};
    sigset_t none;
    /* zestub ignores SIGPIPE and its threads may block signals: the
     * program starts with the dispositions and mask a shell would give it. */
    signal(SIGPIPE, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    fcntl(fd, F_SETFD, 0);
    if (o->cwd && chdir(o->cwd) != 0) {
        e[0] = 1;
        e[1] = errno;
        if (write(errpipe, e, sizeof(e)) < 0) {
            /* the parent sees a closed pipe without a message */
        }
        _exit(127);
    }
    if (o->stdio_away) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        dup2(2, 1);
    }
    execvpe(argv[0], argv, envp);
    e[1] = errno;
    if (write(errpipe, e, sizeof(e)) < 0) {
        /* the parent sees a closed pipe without a message */
    }
    _exit(127);
}

int launch_start(struct launch *l, char **argv, bool stdio_away, char *err, size_t errlen)
{
    struct launch_opts o = {.stdio_away = stdio_away};
    return launch_start_opts(l, argv, &o, err, errlen);
}

int launch_start_opts(struct launch *l, char **argv, const struct launch_opts *o, char *err,
                      size_t errlen)
{
    char lib[PATH_MAX];
    int sv[2], ep[2], e[2] = {0, 0};
    struct stat st;
    char **envp;
    size_t ours_at = 0;
    memset(l, 0, sizeof(*l));
    l->fd = -1;
    if (find_hold_lib(lib, sizeof(lib)) != 0 || strpbrk(lib, " :")) {
        snprintf(err, errlen,
                 "cannot use the launch library '%s' (set %s to the path of "
                 "libzestub_launch.so; no spaces or colons)",
                 lib, LAUNCH_ENV_LIB);
        return -1;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(ep, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "socketpair/pipe: %s", strerror(errno));
        return -1;
    }
    fstat(sv[1], &st);
    envp = child_environ(lib, sv[1], (unsigned long long)st.st_ino, o, &ours_at);
    l->child = envp ? fork() : -1;
    if (l->child == 0)
        exec_child(argv, envp, sv[1], ep[1], o);
    e[1] = errno;
    close(sv[1]);
    close(ep[1]);
    if (l->child > 0 && read(ep[0], e, sizeof(e)) == (ssize_t)sizeof(e)) {
        waitpid(l->child, NULL, 0);
        l->child = -1;
    }
    close(ep[0]);
    for (size_t i = 0; envp && i < 4; i++)
        free(envp[ours_at + i]);
    free(envp);
    if (l->child < 0) {
        if (e[0] == 1)
            snprintf(err, errlen, "cannot run %s in %s: %s", argv[0], o->cwd, strerror(e[1]));
        else
            snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(e[1]));
        close(sv[0]);
        return -1;
    }
    l->fd = sv[0];
    return 0;
}

int launch_wait_held(struct launch *l)
{
    return launch_wait_held_for(l, -1);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int launch_wait_held_for(struct launch *l, int timeout_ms)
{
    char buf[64];
    size_t got = 0;
    long long until = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    for (;;) {
        if (until >= 0 && now_ms() >= until)
            return -1;
        struct pollfd p = {.fd = l->fd, .events = POLLIN};
        int r = poll(&p, 1, 200);
        if (r > 0) {
            ssize_t n = read(l->fd, buf + got, sizeof(buf) - 1 - got);
            if (n > 0) {
                got += (size_t)n;
                buf[got] = '\0';
                if (strchr(buf, '\n')) {
                    long pid = 0;
                    if (sscanf(buf, LAUNCH_MSG_READY " %ld", &pid) == 1 && pid > 0) {
                        l->target = (pid_t)pid;
                        return 1;
                    }
                    got = 0;
                }
                continue;
            }
            if (n == 0) { /* every holder of the other end is gone */
                launch_wait_exit(l);
                return 0;
            }
        }
        if (launch_poll_exit(l))
            return 0;
    }
}

void launch_release(struct launch *l)
{
    if (l->fd < 0)
        return;
    if (send(l->fd, LAUNCH_MSG_GO, strlen(LAUNCH_MSG_GO), MSG_NOSIGNAL) < 0) {
        /* the program is gone: nothing waits */
    }
    close(l->fd);
    l->fd = -1;
}

bool launch_poll_exit(struct launch *l)
{
    if (!l->exited && l->child > 0 && waitpid(l->child, &l->status, WNOHANG) == l->child)
        l->exited = true;
    return l->exited;
}

void launch_wait_exit(struct launch *l)
{
    while (!l->exited && l->child > 0) {
        if (waitpid(l->child, &l->status, 0) == l->child)
            l->exited = true;
        else if (errno != EINTR)
            break;
    }
}

int launch_exit_code(const struct launch *l)
{
    if (!l->exited)
        return 1;
    if (WIFSIGNALED(l->status))
        return 128 + WTERMSIG(l->status);
    return WEXITSTATUS(l->status);
}

void launch_describe_exit(const struct launch *l, char *buf, size_t len)
{
    if (!l->exited)
        snprintf(buf, len, "has not exited");
    else if (WIFSIGNALED(l->status))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(l->status),
                 strsignal(WTERMSIG(l->status)));
    else
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(l->status));
}
