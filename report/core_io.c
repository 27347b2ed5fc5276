/* SPDX-License-Identifier: MIT */
/* The core writer's buffered output (report/core_io.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "report/core_io.h"

void core_io_flush(struct core_io *o)
{
    size_t done = 0;
    while (!o->err && done < o->len) {
        ssize_t n = pwrite(o->fd, o->buf + done, o->len - done, (off_t)(o->off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            o->err = n < 0 ? errno : EIO;
            break;
        }
        done += (size_t)n;
    }
    o->off += o->len;
    o->len = 0;
}

void core_io_put(struct core_io *o, const void *p, size_t n)
{
    const uint8_t *s = p;
    while (n) {
        size_t room = sizeof(o->buf) - o->len, k = n < room ? n : room;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
        if (o->len == sizeof(o->buf))
            core_io_flush(o);
    }
}

void core_io_zeros(struct core_io *o, size_t n)
{
    static const uint8_t zero[256];
    while (n) {
        size_t k = n < sizeof(zero) ? n : sizeof(zero);
        core_io_put(o, zero, k);
        n -= k;
    }
}

void core_io_skip(struct core_io *o, uint64_t n)
{
    core_io_flush(o);
    o->off += n;
}

uint64_t core_io_pos(const struct core_io *o)
{
    return o->off + o->len;
}

void core_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void core_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static size_t align4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

size_t core_note_size(const char *name, size_t desc)
{
    return 12 + align4(strlen(name) + 1) + align4(desc);
}

void core_note_begin(struct core_io *o, const char *name, uint32_t type, size_t desc)
{
    uint8_t h[12];
    size_t nl = strlen(name) + 1;
    core_put_u32(h, (uint32_t)nl);
    core_put_u32(h + 4, (uint32_t)desc);
    core_put_u32(h + 8, type);
    core_io_put(o, h, sizeof(h));
    core_io_put(o, name, nl);
    core_io_zeros(o, align4(nl) - nl);
}

void core_note_end(struct core_io *o, size_t desc)
{
    core_io_zeros(o, align4(desc) - desc);
}
