/* SPDX-License-Identifier: MIT */
/* One reply to a client that is not served, then the end of its
 * connection (turnaway.h). Blocking for at most RSP_TURN_AWAY_MS: it
 * happens only when someone connects who cannot be served. */
#include "gdbstub/turnaway.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void rsp_turn_away(int fd, const char *why)
{
    char pkt[512];
    size_t n = 0;
    unsigned sum = 0;
    char junk[512];
    long deadline = now_ms() + RSP_TURN_AWAY_MS;

    /* "+" first: GDB reads an acknowledgement of its first packet before
     * the reply, and would take a "$" there for a stale reply it drops. */
    pkt[n++] = '+';
    pkt[n++] = '$';
    for (const char *p = "E."; *p; p++, n++)
        sum += (unsigned char)(pkt[n] = *p);
    /* The protocol's framing bytes cannot appear unescaped: say them as
     * spaces (the text is ours, not the client's). */
    for (const char *p = why; *p && n < sizeof(pkt) - 4; p++, n++) {
        char ch = (*p == '$' || *p == '#' || *p == '}' || *p == '*' || (unsigned char)*p < 0x20)
                      ? ' '
                      : *p;
        sum += (unsigned char)(pkt[n] = ch);
    }
    n += (size_t)snprintf(pkt + n, sizeof(pkt) - n, "#%02x", sum & 0xffu);
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    (void)send(fd, pkt, n, MSG_NOSIGNAL); /* a fresh socket's buffer takes it */
    (void)shutdown(fd, SHUT_WR);
    for (long left; (left = deadline - now_ms()) > 0;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        ssize_t got = read(fd, junk, sizeof(junk));
        if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN))
            break; /* the client closed (or reset): nothing left to lose */
    }
    close(fd);
}
