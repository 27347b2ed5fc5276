/* SPDX-License-Identifier: MIT */
/* What /proc says about a debuggee: whether it exists, whether the Level
 * Zero loader is in its memory map, and the environment it was started
 * with (what the driver read). The attach sentences use it to tell "not a
 * Level Zero process" and "started without program debugging" from the
 * driver's bare result; zestub doctor shows the same facts as checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zetdebug/zd.h"

#define MAPS_MAX (4u << 20)
#define ENVIRON_MAX (1u << 20)

/* Up to cap-1 bytes of a /proc file, NUL-terminated: its length or -errno. */
static long slurp(uint32_t pid, const char *what, char *buf, size_t cap)
{
    char path[64];
    FILE *f;
    size_t n = 0, got;

    snprintf(path, sizeof(path), "/proc/%u/%s", (unsigned)pid, what);
    f = fopen(path, "r");
    if (!f)
        return -errno;
    while (n < cap - 1 && (got = fread(buf + n, 1, cap - 1 - n, f)) > 0)
        n += got;
    fclose(f);
    buf[n] = '\0';
    return (long)n;
}

/* A zombie: its map reads empty, and it has ended, not "not loaded Level
 * Zero". The state is the field after the ")" that closes its name. */
static bool ended(uint32_t pid)
{
    char stat[1024];
    const char *close;
    if (slurp(pid, "stat", stat, sizeof(stat)) <= 0 || !(close = strrchr(stat, ')')))
        return false;
    return close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X');
}

int zd_proc_probe(uint32_t pid, struct zd_proc *p)
{
    char *maps = malloc(MAPS_MAX);
    long n;

    memset(p, 0, sizeof(*p));
    if (!maps) {
        p->exists = true; /* not known: assume the worst that is still fixable */
        p->maps_errno = ENOMEM;
        return -ENOMEM;
    }
    n = slurp(pid, "maps", maps, MAPS_MAX);
    p->exists = n != -ENOENT && n != -ESRCH;
    p->exited = p->exists && ended(pid);
    if (n < 0) {
        p->maps_errno = (int)-n;
    } else {
        /* The loader every Level Zero program goes through, linked or
         * dlopen()ed: libze_loader.so.1. */
        p->level_zero = strstr(maps, "/libze_loader.so") != NULL;
    }
    free(maps);
    return p->maps_errno ? -p->maps_errno : 0;
}

int zd_proc_getenv(uint32_t pid, const char *name, char *val, size_t len)
{
    char *env = malloc(ENVIRON_MAX);
    size_t k = strlen(name);
    long n;
    int found = 0;

    if (!env)
        return -ENOMEM;
    n = slurp(pid, "environ", env, ENVIRON_MAX);
    if (n < 0) {
        free(env);
        return (int)n;
    }
    for (long i = 0; i < n; i += (long)strlen(env + i) + 1) {
        if (strncmp(env + i, name, k) == 0 && env[i + k] == '=') {
            snprintf(val, len, "%s", env + i + k + 1);
            found = 1;
            break;
        }
    }
    free(env);
    return found;
}
