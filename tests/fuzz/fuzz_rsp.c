/* SPDX-License-Identifier: MIT */
/* Fuzz target for the RSP server: any bytes from a client, served by the
 * real server (its poll loop, receive state machine, acks, dispatch, every
 * handler) over a connection that lives in memory (see the wrapped system
 * calls below) against the mock target of tests/gdbstub. What must hold:
 * no crash or memory error (ASan), the connection ends (the input's end is a
 * disconnect), every byte the server sends is an ack or a well-formed
 * frame with the right checksum, and the target was told the client is
 * gone (no device left attached, so no thread left stopped).
 *
 * With -DZESTUB_LIBFUZZER this is a libFuzzer target; otherwise `main`
 * replays the files named on its command line, then mutations of sound
 * sessions (TAP output, for `make check`); `fuzz_rsp --write-seeds DIR`
 * writes those sessions as a corpus. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gdbstub/server.h"
#include "gdbstub/transport.h"
#include "tests/gdbstub/mock_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Larger inputs add nothing the state machine has not seen. Not named
 * MAX_INPUT: <limits.h> has that (255), and a system header included after
 * this line redefines it without a warning. */
#define MAX_SESSION_BYTES (64 * 1024)

/* The connection's bytes never reach the kernel. Issue 16 measured 336
 * inputs/s with a socketpair; memory files made it 2.4-7x faster, and
 * what was left was mostly system calls: on this machine each costs
 * several microseconds, and a session made about 60 (a write per ack and
 * per reply, a poll and a read per round, the descriptors' setup). The
 * program is linked with -Wl,--wrap for the calls the transport makes
 * (read, write, poll, fcntl, getsockopt, close): on the connection's two
 * descriptors they are served from memory, on any other they go to the
 * real call. The descriptors are real (two memory files, made once and
 * never closed) so that no other file gets their numbers. */
ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __real_write(int fd, const void *buf, size_t n);
int __real_poll(struct pollfd *p, nfds_t n, int timeout);
int __real_fcntl(int fd, int cmd, ...);
int __real_getsockopt(int fd, int level, int name, void *val, socklen_t *len);
int __real_close(int fd);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
int __wrap_poll(struct pollfd *p, nfds_t n, int timeout);
int __wrap_fcntl(int fd, int cmd, ...);
int __wrap_getsockopt(int fd, int level, int name, void *val, socklen_t *len);
int __wrap_close(int fd);

static struct {
    int in_fd, out_fd;
    const uint8_t *in; /* the client's bytes; their end is the client leaving */
    size_t in_len, in_off;
    uint8_t *out; /* what the server sent, kept for the checks */
    size_t out_len, out_cap;
    unsigned writes;
    bool out_full; /* the output could not grow: the check says so */
} vc = {.in_fd = -1, .out_fd = -1};

static bool virtual_fd(int fd)
{
    return fd >= 0 && (fd == vc.in_fd || fd == vc.out_fd);
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
    if (!virtual_fd(fd))
        return __real_read(fd, buf, n);
    if (fd != vc.in_fd) {
        errno = EBADF;
        return -1;
    }
    if (n > vc.in_len - vc.in_off)
        n = vc.in_len - vc.in_off;
    memcpy(buf, vc.in + vc.in_off, n);
    vc.in_off += n;
    return (ssize_t)n;
}

/* Every third write finds the client's window full (EAGAIN) and the others
 * take at most 4 KiB, as from a client that reads slowly: the server's
 * output queue, its congestion limit and its wait for POLLOUT are taken
 * by every input, not only the bytes' meaning. */
ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
    if (!virtual_fd(fd))
        return __real_write(fd, buf, n);
    if (fd != vc.out_fd) {
        errno = EBADF;
        return -1;
    }
    if (vc.writes++ % 3 == 2) {
        errno = EAGAIN;
        return -1;
    }
    if (n > 4096)
        n = 4096;
    if (vc.out_len + n > vc.out_cap) {
        size_t cap = vc.out_cap ? vc.out_cap : 1 << 16;
        while (cap < vc.out_len + n)
            cap *= 2;
        uint8_t *b = realloc(vc.out, cap);
        if (!b) {
            vc.out_full = true;
            errno = ENOSPC;
            return -1;
        }
        vc.out = b;
        vc.out_cap = cap;
    }
    memcpy(vc.out + vc.out_len, buf, n);
    vc.out_len += n;
    return (ssize_t)n;
}

/* The input is always readable (its end reads as 0 bytes) and the output
 * always writable; other descriptors (the mock target's event pipe) are
 * polled for real, without waiting when a virtual one is ready. */
int __wrap_poll(struct pollfd *p, nfds_t n, int timeout)
{
    struct pollfd real[8];
    nfds_t where[8], nreal = 0;
    int ready = 0;
    for (nfds_t i = 0; i < n; i++) {
        if (!virtual_fd(p[i].fd)) {
            if (nreal == sizeof(real) / sizeof(real[0])) {
                errno = EINVAL;
                return -1;
            }
            where[nreal] = i;
            real[nreal++] = p[i];
            continue;
        }
        short can = p[i].fd == vc.in_fd ? POLLIN : POLLOUT;
        p[i].revents = p[i].events & can;
        ready += p[i].revents != 0;
    }
    if (nreal == n)
        return __real_poll(p, n, timeout);
    if (nreal) {
        int r = __real_poll(real, nreal, ready ? 0 : timeout);
        if (r < 0)
            return r;
        for (nfds_t k = 0; k < nreal; k++)
            p[where[k]].revents = real[k].revents;
        ready += r;
    }
    return ready;
}

int __wrap_fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (!virtual_fd(fd))
        return __real_fcntl(fd, cmd, arg);
    if (cmd == F_GETFL)
        return O_RDWR | O_NONBLOCK;
    if (cmd == F_SETFL)
        return 0;
    errno = EINVAL;
    return -1;
}

int __wrap_getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
    if (!virtual_fd(fd))
        return __real_getsockopt(fd, level, name, val, len);
    errno = ENOTSOCK;
    return -1;
}

/* The connection closes its descriptors at its end: those stay open for
 * the next input. */
int __wrap_close(int fd)
{
    return virtual_fd(fd) ? 0 : __real_close(fd);
}

/* Two memory files, made once and never closed: the connection's
 * descriptors (only their numbers are used). */
static int memfiles(void)
{
    if (vc.in_fd < 0)
        vc.in_fd = memfd_create("fuzz_rsp-in", MFD_CLOEXEC);
    if (vc.out_fd < 0)
        vc.out_fd = memfd_create("fuzz_rsp-out", MFD_CLOEXEC);
    return vc.in_fd >= 0 && vc.out_fd >= 0 ? 0 : -1;
}

static int hexval(uint8_t c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The server's byte stream: '+', '-', and $...#hh / %...#hh frames with
 * lowercase checksums that match. NULL when sound, else what is wrong. */
static const char *check_output(const uint8_t *b, size_t n, size_t *frames)
{
    size_t i = 0;
    *frames = 0;
    while (i < n) {
        if (b[i] == '+' || b[i] == '-') {
            i++;
            continue;
        }
        if (b[i] != '$' && b[i] != '%')
            return "a byte outside any frame";
        uint8_t sum = 0;
        size_t j = i + 1;
        while (j < n && b[j] != '#')
            sum = (uint8_t)(sum + b[j++]);
        if (j + 2 >= n)
            return "a frame cut short";
        int hi = hexval(b[j + 1]), lo = hexval(b[j + 2]);
        if (hi < 0 || lo < 0)
            return "a checksum that is not lowercase hex";
        if ((uint8_t)(hi << 4 | lo) != sum)
            return "a wrong checksum";
        (*frames)++;
        i = j + 3;
    }
    return NULL;
}

/* One mock target for the whole run, reset before every session (making
 * one, half a megabyte of devices, cost more than serving a session, and
 * under ASan its fresh pages were a good part of it). The server is reused
 * by REUSE sessions in a row, as a --multi server serves one client after
 * another, and replaced after a client made it exit (a real one would be
 * gone): an input's path can depend on what the few before it left in the
 * server, never on more than REUSE - 1, and never on the mock's state. */
#define REUSE 64
static struct mock_target *shared_mock;
static struct rsp_server *shared_server;
static struct rsp_target shared_target;
static unsigned uses;

static struct rsp_server *server(struct mock_target **m, char *err, size_t errlen)
{
    static const struct rsp_server_config cfg = {.multi = true, .wake_fd = -1};
    if (!shared_mock) {
        shared_mock = mock_target_new();
        shared_target = (struct rsp_target){.ops = mock_target_ops(), .ctx = shared_mock};
    }
    *m = shared_mock;
    if (!shared_mock)
        return NULL;
    mock_target_reset(shared_mock);
    if (!shared_server || uses++ % REUSE == 0) {
        rsp_server_free(shared_server);
        if (rsp_server_new(&shared_target, &cfg, &shared_server, err, errlen) < 0)
            shared_server = NULL;
    }
    return shared_server;
}

/* Serves one client whose bytes are data; returns NULL or what failed.
 * *frames: how many frames the server sent. */
static const char *serve_once(const uint8_t *data, size_t size, size_t *frames)
{
    static char why[RSP_ERR_LEN + 64];
    char err[RSP_ERR_LEN];
    struct mock_target *m;
    struct rsp_server *s = server(&m, err, sizeof(err));
    struct rsp_conn c;
    const char *bad = NULL;

    *frames = 0;
    if (size > MAX_SESSION_BYTES)
        size = MAX_SESSION_BYTES;
    if (!s || memfiles() != 0)
        return "no server, mock target or memory files";
    /* The whole input is there from the start and then ends: the end of
     * the input is the client going away. */
    vc.in = data;
    vc.in_len = size;
    vc.in_off = 0;
    vc.out_len = 0;
    vc.writes = 0;
    vc.out_full = false;
    if (rsp_conn_open_fds(&c, vc.in_fd, vc.out_fd, err, sizeof(err)) < 0) {
        bad = "connection setup";
    } else {
        enum rsp_end e = rsp_server_run(s, &c, err, sizeof(err));
        if (e != RSP_END_DISCONNECT && e != RSP_END_EXIT) {
            snprintf(why, sizeof(why), "the connection ended with %d (%s)", (int)e, err);
            bad = why;
        }
        if (e == RSP_END_EXIT)
            uses = 0; /* a client asked the server to exit: the next gets a new one */
        rsp_conn_drain(&c, 1000);
        rsp_conn_close(&c);
    }
    if (!bad && vc.out_full)
        bad = "the output cannot be kept";
    if (!bad && (bad = check_output(vc.out, vc.out_len, frames)) != NULL) {
        snprintf(why, sizeof(why), "output: %s", bad);
        bad = why;
    }
    if (!bad && mock_target_attached_count(m) != 0)
        bad = "a device is still attached after the client left";
    return bad;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t frames;
    const char *bad = serve_once(data, size, &frames);
    if (bad) {
        fprintf(stderr, "fuzz_rsp: %s\n", bad);
        abort();
    }
    return 0;
}

#ifndef ZESTUB_LIBFUZZER
#include "tests/fuzz/plain.h"

#define MUTATIONS 3000

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t next_random(void)
{
    return fuzz_xorshift(&rng);
}

/* Sound client sessions: Intel's GDB and stock GDB dialects, ack and
 * no-ack, all-stop and non-stop. "\x03" is sent raw, between packets. */
static const char *const intel_session[] = {
    "qSupported:multiprocess+;swbreak+;vContSupported+;multi-address-space+;unavailable+;"
    "qXfer:libraries:read:in-memory-library+;vAck:in-memory-library+",
    "!",
    "vAttach;40",
    "qC",
    "?",
    "qAttached:1",
    "qfThreadInfo",
    "qsThreadInfo",
    "qXfer:features:read:target.xml:0,fff",
    "qXfer:features:read:target-id-2.xml:0,3ff",
    "qXfer:threads:read::0,fff",
    "qDeltaThreadList",
    "qXfer:threads:read::0,fff",
    "qXfer:libraries:read::0,fff",
    "qXfer:exec-file:read:1:0,fff",
    "Hgp1.2",
    "g",
    "e",
    "p0",
    "p1000",
    "P0=0102030405060708",
    "Hgp2.1",
    "g",
    "m10000,40",
    "m10000@1,10",
    "M10000,4:01020304",
    "x10000,100",
    "X10000,4:}\x03}\x04}\x0a}\x5d",
    "m0,10",
    "Tp1.3",
    "Tp9.1",
    "vCont?",
    "vCont;s:p1.2",
    "vCont;r10000,10020:p1.2",
    "qRcmd,68656c70",
    "qRcmd,6d6f636b206e657874207377627265616b20312032",
    "vCont;c",
    "\x03",
    "vCont;c:p1.1;t",
    "vCtrlC",
    "Z0,10000,4",
    "z0,10000,4",
    "vAck:in-memory-library:10000,10100",
    "QThreadEvents:1",
    "D;1",
    "D;2",
    "vAttach;40",
    "k",
    "vKill;1",
    "D",
    NULL};
static const char *const stock_session[] = {"QStartNoAckMode",
                                            "qSupported:multiprocess+;swbreak+;xmlRegisters=i386",
                                            "!",
                                            "vAttach;41",
                                            "qXfer:features:read:target.xml:0,fff",
                                            "Hg0",
                                            "g",
                                            "Hgp29.1",
                                            "p10",
                                            "qfThreadInfo",
                                            "qsThreadInfo",
                                            "m10000,10",
                                            "Z0,10004,4",
                                            "qRcmd,6d6f636b206e657874206c6962726172792031",
                                            "vCont;c",
                                            "qXfer:libraries:read::0,fff",
                                            "vCont;c",
                                            "\x03",
                                            "z0,10004,4",
                                            "QNonStop:1",
                                            "vCont;t:p1.1",
                                            "vStopped",
                                            "vStopped",
                                            "?",
                                            "vStopped",
                                            "vCont;c:p1.1",
                                            "vCtrlC",
                                            "vStopped",
                                            "QNonStop:0",
                                            "c",
                                            "s",
                                            "C05",
                                            "S05",
                                            "qRcmd,6578697421",
                                            "D;1",
                                            "qRcmd,65786974",
                                            NULL};

/* The frames of a session, with checksums (and the acks GDB would send
 * before each, which the server sees as stray acks). */
static uint8_t *build(const char *const *pkts, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    bool acks = strcmp(pkts[0], "QStartNoAckMode") != 0;
    if (!b)
        return NULL;
    for (size_t i = 0; pkts[i]; i++) {
        const char *p = pkts[i];
        size_t plen = strlen(p);
        if (n + plen + 8 > cap)
            break;
        if (strcmp(p, "\x03") == 0) {
            b[n++] = 0x03;
            continue;
        }
        if (acks && i > 0)
            b[n++] = '+';
        n += (size_t)sprintf((char *)b + n, "$%s#%02x", p, rsp_checksum(p, plen));
    }
    *len = n;
    return b;
}

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    static uint8_t buf[MAX_SESSION_BYTES];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    size_t frames;
    return serve_once(buf, n, &frames) ? -1 : 0;
}

static int write_seeds(const char *dir)
{
    const char *const *sessions[] = {intel_session, stock_session};
    int rc = 0;
    for (int i = 0; i < 2; i++) {
        size_t len;
        char path[4096];
        uint8_t *b = build(sessions[i], &len);
        snprintf(path, sizeof(path), "%s/session%d", dir, i);
        FILE *f = b ? fopen(path, "wb") : NULL;
        if (!f || fwrite(b, 1, len, f) != len)
            rc = 1;
        if (f && fclose(f) != 0)
            rc = 1;
        free(b);
    }
    return rc;
}

/* Bytes that mean something to the receive state machine. */
static uint8_t special(void)
{
    static const uint8_t s[] = {'$', '#', '}', '*', '%', '+', '-', 0x03, ':', ';', ',', '0'};
    return s[next_random() % sizeof(s)];
}

static void mutate(uint8_t *b, size_t *len, size_t cap)
{
    int edits = 1 + (int)(next_random() % 8);
    for (int k = 0; k < edits && *len; k++) {
        size_t at = next_random() % *len;
        switch (next_random() % 5) {
        case 0: /* a random byte */
            b[at] = (uint8_t)next_random();
            break;
        case 1: /* a framing byte */
            b[at] = special();
            break;
        case 2: /* a byte deleted */
            memmove(b + at, b + at + 1, *len - at - 1);
            (*len)--;
            break;
        case 3: /* a run duplicated (long packets, repeated commands) */
            if (*len < cap / 2) {
                size_t run = 1 + next_random() % 64;
                run = run > *len - at ? *len - at : run;
                size_t times = 1 + next_random() % 4;
                for (size_t r = 0; r < times && *len + run <= cap; r++) {
                    memmove(b + at + run, b + at, *len - at);
                    *len += run;
                }
            }
            break;
        default: /* cut short */
            *len = at;
            break;
        }
    }
}

int main(int argc, char **argv)
{
    const char *const *sessions[] = {intel_session, stock_session};
    int n = 0, failed = 0;
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
        return write_seeds(argv[2]);
    /* one check per file replayed, per sound session, and the mutations */
    printf("1..%d\n", argc - 1 + 2 + 1);
    for (int i = 1; i < argc; i++)
        printf("%s %d - replayed %s\n", replay_file(argv[i]) == 0 ? "ok" : "not ok", ++n, argv[i]);
    for (int s = 0; s < 2; s++) {
        size_t len, frames = 0, want = s ? 28 : 44;
        uint8_t *b = build(sessions[s], &len);
        const char *bad = b ? serve_once(b, len, &frames) : "out of memory";
        /* About one reply per packet (a resume answers later or never). */
        if (!bad && frames < want)
            bad = "fewer replies than packets";
        printf("%s %d - the sound %s session is served, %zu replies%s%s\n", bad ? "not ok" : "ok",
               ++n, s ? "stock-GDB" : "Intel-GDB", frames, bad ? ": " : "", bad ? bad : "");
        free(b);
    }
    /* The mock target says "client gone" on stderr once per connection. */
    fflush(stderr);
    FILE *quiet = freopen("/dev/null", "w", stderr);
    uint8_t *buf = malloc(MAX_SESSION_BYTES);
    int served = 0; /* a loop cut short must not pass as MUTATIONS sessions */
    for (int i = 0; buf && i < MUTATIONS; i++) {
        size_t len;
        uint8_t *good = build(sessions[i % 2], &len);
        if (!good)
            break;
        memcpy(buf, good, len);
        free(good);
        mutate(buf, &len, MAX_SESSION_BYTES);
        size_t frames;
        const char *bad = serve_once(buf, len, &frames);
        served++;
        if (bad && failed++ < 5) {
            printf("# mutation %d: %s; input:", i, bad);
            for (size_t k = 0; k < len && k < 512; k++)
                printf(buf[k] >= 0x20 && buf[k] < 0x7f ? "%c" : "\\x%02x", buf[k]);
            printf("\n");
        }
    }
    (void)quiet;
    int ok = served == MUTATIONS && !failed;
    printf("%s %d - %d of %d mutated sessions served: no crash, sound output, devices released "
           "(%d failed)\n",
           ok ? "ok" : "not ok", ++n, served, MUTATIONS, failed);
    free(buf);
    return ok ? 0 : 1;
}
#endif
