/* SPDX-License-Identifier: MIT */
/* Finding a process's table: the writer's memfd shows in /proc/PID/fd as a
 * link to "/memfd:zestub-xpti (deleted)". A forked child inherits that
 * descriptor, so the header's pid must also be the process asked about. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "xpti/xtab_int.h"

static bool is_table_link(int dirfd, const char *name)
{
    char target[256];
    ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);
    if (n <= 0)
        return false;
    target[n] = 0;
    static const char want[] = "/memfd:" XTAB_MEMFD_NAME;
    return strncmp(target, want, sizeof(want) - 1) == 0 &&
           (target[sizeof(want) - 1] == 0 || target[sizeof(want) - 1] == ' ');
}

/* The first candidate that opens and names `pid`; the last reason otherwise. */
static struct xtab *try_candidates(DIR *d, pid_t pid, char *why, size_t whylen, int *candidates)
{
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !is_table_link(dirfd(d), e->d_name))
            continue;
        (*candidates)++;
        /* O_NONBLOCK: a link that is not what it claims must not block us. */
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0) {
            xtab_unusable(why, whylen, "cannot open /proc/%d/fd/%s: %s", (int)pid, e->d_name,
                          strerror(errno));
            continue;
        }
        struct xtab *t = xtab_open_fd(fd, why, whylen);
        close(fd); /* the mapping stays valid */
        if (t && t->g.pid != pid) {
            xtab_unusable(why, whylen, "fd %s is the table of pid %d (inherited)", e->d_name,
                          (int)t->g.pid);
            xtab_close(t);
            continue;
        }
        if (t)
            return t;
    }
    return NULL;
}

struct xtab *xtab_open(pid_t pid, char *err, size_t errlen)
{
    char path[64], why[512] = "";
    snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
    DIR *d = pid > 0 ? opendir(path) : NULL;
    if (!d) {
        if (pid <= 0 || errno == ENOENT) {
            if (err && errlen)
                snprintf(err, errlen, "no XPTI table for pid %d (no such process)", (int)pid);
        } else
            xtab_unusable(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    int candidates = 0;
    struct xtab *t = try_candidates(d, pid, why, sizeof(why), &candidates);
    closedir(d);
    if (!t && err && errlen) {
        if (!candidates)
            snprintf(err, errlen, "no XPTI table for pid %d (application not instrumented)",
                     (int)pid);
        else
            snprintf(err, errlen, "%s", why);
    }
    return t;
}
