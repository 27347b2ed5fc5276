/* SPDX-License-Identifier: MIT */
/* libzestub_launch.so: preloaded by zestub's launch mode into the program
 * it starts. It interposes the Level Zero loader's zeModuleCreate: the
 * first call (from any thread) tells zestub "ready PID" and waits for "go",
 * which zestub sends once it has attached to every device of the program.
 * By then the program has initialised Level Zero (zestub can attach) and no
 * module exists yet (no kernel can have run), so the module being created
 * is reported to the debugger with NEED_ACK like any later one.
 *
 * Level Zero headers are not included: the wrapper forwards its arguments
 * untouched, so pointers and the 32-bit result are all it needs to know.
 * Without the handshake variables (or when zestub has gone) it is a plain
 * forwarder. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch/launch_proto.h"

typedef int32_t (*module_create_fn)(void *, void *, const void *, void **, void **);

int32_t zeModuleCreate(void *context, void *device, const void *desc, void **module,
                       void **build_log) __attribute__((visibility("default")));

static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static int handshake_done;

/* The inherited socket, or -1 when there is none (or it is not ours). */
static int handshake_fd(void)
{
    const char *v = getenv(LAUNCH_ENV_FD), *ino = getenv(LAUNCH_ENV_INO);
    struct stat st;
    char *end;
    long fd;
    if (!v || !ino)
        return -1;
    fd = strtol(v, &end, 10);
    if (*end || fd < 0 || fd > 65535 || fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
        (unsigned long long)st.st_ino != strtoull(ino, NULL, 10))
        return -1;
    return (int)fd;
}

static void handshake(void)
{
    int fd = handshake_fd();
    char msg[64], c;
    int n;
    if (fd < 0)
        return;
    n = snprintf(msg, sizeof(msg), LAUNCH_MSG_READY " %ld\n", (long)getpid());
    /* MSG_NOSIGNAL: zestub gone (or already served by another process of
     * the tree) must not kill the program with SIGPIPE. */
    if (send(fd, msg, (size_t)n, MSG_NOSIGNAL) == n) {
        ssize_t r;
        do
            r = recv(fd, &c, 1, 0);
        while (r < 0 && errno == EINTR);
    }
    close(fd);
    /* Children started from now on are not held: zestub serves one. */
    unsetenv(LAUNCH_ENV_FD);
    unsetenv(LAUNCH_ENV_INO);
}

int32_t zeModuleCreate(void *context, void *device, const void *desc, void **module,
                       void **build_log)
{
    static module_create_fn next;
    pthread_mutex_lock(&hold_lock);
    if (!handshake_done) {
        handshake();
        handshake_done = 1;
    }
    if (!next)
        next = (module_create_fn)(uintptr_t)dlsym(RTLD_NEXT, "zeModuleCreate");
    pthread_mutex_unlock(&hold_lock);
    if (!next)
        return 0x78000001; /* ZE_RESULT_ERROR_UNINITIALIZED */
    return next(context, device, desc, module, build_log);
}
