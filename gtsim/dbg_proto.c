/* SPDX-License-Identifier: MIT */
#include "gtsim/dbg_proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gtsim/config.h"

int gtsim_dbg_runtime_dir(uid_t uid, char *buf, size_t len)
{
    /* GTSIM_RUNTIME_DIR lets tests isolate themselves; both processes must
     * agree on it, like they agree on GTSIM_CONFIG. */
    const char *base = getenv("GTSIM_RUNTIME_DIR");
    int n = snprintf(buf, len, "%s/gtsim-%u", base && *base ? base : "/tmp", (unsigned)uid);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int gtsim_dbg_socket_path(pid_t pid, uid_t uid, char *buf, size_t len)
{
    char dir[80];
    int n;
    if (gtsim_dbg_runtime_dir(uid, dir, sizeof(dir)))
        return -ENAMETOOLONG;
    n = snprintf(buf, len, "%s/%d.sock", dir, (int)pid);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -EPIPE;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    uint8_t *b = p;
    while (n) {
        ssize_t r = read(fd, b, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? -errno : -EPIPE;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

int gtsim_dbg_send(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
    struct gtsim_dbg_hdr h = {type, (uint32_t)(alen + blen)};
    int rc;
    if (alen + blen > GTSIM_DBG_MAX_PAYLOAD)
        return -EMSGSIZE;
    rc = write_all(fd, &h, sizeof(h));
    if (!rc && alen)
        rc = write_all(fd, a, alen);
    if (!rc && blen)
        rc = write_all(fd, b, blen);
    return rc;
}

int gtsim_dbg_recv(int fd, struct gtsim_dbg_hdr *hdr, void **payload)
{
    int rc = read_all(fd, hdr, sizeof(*hdr));
    *payload = NULL;
    if (rc)
        return rc;
    if (hdr->len > GTSIM_DBG_MAX_PAYLOAD)
        return -EMSGSIZE;
    /* One spare byte so an empty payload still gives a valid pointer. */
    *payload = malloc(hdr->len + 1);
    if (!*payload)
        return -ENOMEM;
    rc = read_all(fd, *payload, hdr->len);
    if (rc) {
        free(*payload);
        *payload = NULL;
    }
    return rc;
}

uint64_t gtsim_dbg_config_id(const struct gtsim_config *c)
{
    uint64_t v[] = {(uint64_t)c->platform, c->devices, c->tiles,  c->slices,
                    c->subslices,          c->eus,     c->threads};
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        h ^= v[i];
        h *= 1099511628211ull;
    }
    return h;
}
