/* SPDX-License-Identifier: MIT */
/* The table's home: an anonymous memfd. It vanishes with the process (no
 * stale files, no name another user could squat), is reachable only through
 * /proc/PID/fd (ptrace read access, which a debugger has anyway), and is
 * sealed against shrinking so a reader's mapping can never fault. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "xpti/xtab_writer.h"

static int fail(char *err, size_t errlen, const char *what, int e)
{
    snprintf(err, errlen, "%s: %s", what, strerror(e));
    return -e;
}

int xtab_w_create_memfd(struct xtab_w *w, const struct xtab_caps *caps, char *err, size_t errlen)
{
    size_t size = xtab_w_size(caps);
    if (!size)
        return fail(err, errlen, "table capacities", EINVAL);
    int fd = memfd_create(XTAB_MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return fail(err, errlen, "memfd_create", errno);
    if (ftruncate(fd, (off_t)size) != 0) {
        int e = errno;
        close(fd);
        return fail(err, errlen, "ftruncate", e);
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        int e = errno;
        close(fd);
        return fail(err, errlen, "sealing the table", e);
    }
    void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mem == MAP_FAILED) {
        int e = errno;
        close(fd);
        return fail(err, errlen, "mmap", e);
    }
    int rc = xtab_w_init(w, mem, size, caps);
    if (rc) {
        munmap(mem, size);
        close(fd);
        return fail(err, errlen, "table layout", -rc);
    }
    w->fd = fd;
    return 0;
}
