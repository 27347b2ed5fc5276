/* SPDX-License-Identifier: MIT */
#include "gtsim/dbg_stale.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The pid of a name "PID.sock", or 0 when the name is anything else. */
static pid_t socket_pid(const char *name)
{
    char *end;
    long pid;

    if (name[0] < '1' || name[0] > '9')
        return 0;
    errno = 0;
    pid = strtol(name, &end, 10);
    if (errno || pid <= 0 || (pid_t)pid != pid || strcmp(end, ".sock") != 0)
        return 0;
    return (pid_t)pid;
}

/* Only sockets of this user: the directory is private (0700), but what
 * another user put there before it was (root, say) is not ours to judge. */
static bool ours(int dfd, const char *name, struct stat *st)
{
    return fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st->st_mode) &&
           st->st_uid == getuid();
}

void gtsim_dbg_remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        pid_t pid = socket_pid(e->d_name);
        struct stat before, now;

        if (pid == 0 || pid == getpid() || !ours(dirfd(d), e->d_name, &before))
            continue;
        /* ESRCH only: EPERM means the pid lives (under another user). */
        if (kill(pid, 0) == 0 || errno != ESRCH)
            continue;
        /* The same file still: a new process that got the pid meanwhile
         * replaces the socket (its own unlink and bind) and keeps its own. */
        if (ours(dirfd(d), e->d_name, &now) && now.st_ino == before.st_ino &&
            now.st_dev == before.st_dev)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}
