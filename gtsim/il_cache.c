/* SPDX-License-Identifier: MIT */
/* The per-user cache of compiled SPIR-V modules (il_cache.h). */
#include "gtsim/il_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gtsim_il_cache_open(char *why, size_t whylen)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char base[4096];
    struct stat st;
    int bfd, fd;

    /* The XDG base directory rule: a relative XDG_CACHE_HOME is ignored. */
    if (xdg && xdg[0] == '/')
        snprintf(base, sizeof(base), "%s", xdg);
    else if (home && home[0] == '/')
        snprintf(base, sizeof(base), "%s/.cache", home);
    else {
        snprintf(why, whylen, "neither XDG_CACHE_HOME nor HOME is an absolute path");
        return -1;
    }
    if (mkdir(base, 0700) != 0 && errno != EEXIST) {
        snprintf(why, whylen, "cannot create %s: %s", base, strerror(errno));
        return -1;
    }
    bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (bfd < 0) {
        snprintf(why, whylen, "cannot open %s: %s", base, strerror(errno));
        return -1;
    }
    if (mkdirat(bfd, "gtsim", 0700) != 0 && errno != EEXIST) {
        snprintf(why, whylen, "cannot create %s/gtsim: %s", base, strerror(errno));
        close(bfd);
        return -1;
    }
    /* O_NOFOLLOW: a link planted in place of the directory is refused, not
     * followed to wherever its owner wants our files (or theirs read). */
    fd = openat(bfd, "gtsim", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close(bfd);
    if (fd < 0) {
        snprintf(why, whylen, "cannot open %s/gtsim: %s", base,
                 errno == ELOOP || errno == ENOTDIR ? "not a directory" : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || st.st_uid != getuid() || (st.st_mode & 077)) {
        snprintf(why, whylen, "%s/gtsim is not a private directory of this user (mode 0700)", base);
        close(fd);
        return -1;
    }
    return fd;
}

/* Two independent 64-bit hashes: FNV-1a, and a multiply-xorshift one;
 * together 128 bits, so an accidental collision is out of reach. The
 * directory is the user's own, so nobody else can plant a colliding entry. */
void gtsim_il_cache_key(const void *const *parts, const size_t *lens, int n,
                        char key[GTSIM_IL_KEY_LEN])
{
    uint64_t a = 0xcbf29ce484222325ull, b = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < n; i++) {
        const uint8_t *p = parts[i];
        for (size_t j = 0; j < lens[i]; j++) {
            a = (a ^ p[j]) * 0x100000001b3ull;
            b = (b ^ p[j]) * 0xff51afd7ed558ccdull;
            b ^= b >> 29;
        }
        /* The length ends each part, so ("ab","c") and ("a","bc") differ. */
        for (int s = 0; s < 64; s += 8) {
            a = (a ^ (uint8_t)(lens[i] >> s)) * 0x100000001b3ull;
            b = ((b ^ (uint8_t)(lens[i] >> s)) * 0xff51afd7ed558ccdull);
            b ^= b >> 29;
        }
    }
    snprintf(key, GTSIM_IL_KEY_LEN, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
}

void *gtsim_il_read_at(int dirfd, const char *name, bool own_only, size_t *size)
{
    struct stat st;
    uint8_t *buf;
    size_t got = 0;
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (own_only && st.st_uid != getuid()) ||
        !(buf = malloc((size_t)st.st_size + 1))) {
        close(fd);
        return NULL;
    }
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != (size_t)st.st_size) {
        free(buf);
        return NULL;
    }
    buf[got] = 0;
    *size = got;
    return buf;
}

void *gtsim_il_cache_get(int dirfd, const char *key, const char *suffix, size_t *size)
{
    char name[GTSIM_IL_KEY_LEN + 16];
    snprintf(name, sizeof(name), "%s%s", key, suffix);
    return gtsim_il_read_at(dirfd, name, true, size);
}

int gtsim_il_write_at(int dirfd, const char *name, const void *data, size_t size)
{
    const uint8_t *p = data;
    size_t done = 0;
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    while (done < size) {
        ssize_t w = write(fd, p + done, size - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    return close(fd) == 0 && done == size ? 0 : -1;
}

void gtsim_il_cache_put(int dirfd, const char *key, const char *suffix, const void *data,
                        size_t size)
{
    char name[GTSIM_IL_KEY_LEN + 16], tmp[GTSIM_IL_KEY_LEN + 48];

    snprintf(name, sizeof(name), "%s%s", key, suffix);
    snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", name, (long)getpid());
    if (gtsim_il_write_at(dirfd, tmp, data, size) != 0 || renameat(dirfd, tmp, dirfd, name) != 0)
        unlinkat(dirfd, tmp, 0);
}
