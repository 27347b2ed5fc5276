/* SPDX-License-Identifier: MIT */
/* Fuzz target for the debuggee side of gtsim's debug wire (gtsim/dbg_proto.h):
 * any bytes from a hostile debugger, sent over a real connection to the real
 * endpoint of a gtsim driver living in this process (its sources are
 * compiled in; the driver is set up once with a device buffer and a loaded
 * module, so attach replays a module load and memory requests reach real
 * allocations, the instruction heap and the module's debug zebin), or
 * served directly by the endpoint's connection loop (gtsim_wire_direct.h).
 * An input's first byte says which of its messages bring the debugger's
 * end of an event stream (SCM_RIGHTS), as ATTACH must; the rest is the
 * wire's bytes. What must hold: no crash or memory error (ASan) in the
 * debuggee; it sends only replies on the connection and only events on an
 * event stream, each of bounded length; every whole request up to the
 * first DETACH or oversized header gets exactly one reply; the connection
 * ends when the input ends; every descriptor passed is closed by then;
 * afterwards no session is left behind in the endpoint. Not reached:
 * requests on stopped threads (no kernel runs here, so register reads
 * answer NOT_AVAILABLE), SLM contents.
 *
 * With -DZESTUB_LIBFUZZER this is a libFuzzer target that aborts on a broken
 * promise; otherwise `main` replays the files named on its command line (or
 * the checked-in corpus), then mutations of sound debugger sessions (TAP,
 * one check per promise); `fuzz_gtsim_wire --write-seeds DIR` writes those
 * sessions as a corpus. The attach message carries the simulated hardware's
 * fingerprint: the program sets GTSIM_CONFIG=tiles=2 for itself, so that
 * the checked-in seeds attach. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <ze_ddi.h>

#include "gtsim/dbg_proto.h"
#include "gtsim/dbg_srv_int.h"
#include "gtsim/gtsim.h"
#include "tests/fuzz/gtsim_wire_direct.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The same as ze_ddi.h's getters, defined in gtsim/ddi.c (compiled in). */
ze_result_t ZE_APICALL zeGetGlobalProcAddrTable(ze_api_version_t v, ze_global_dditable_t *t);
ze_result_t ZE_APICALL zeGetDriverProcAddrTable(ze_api_version_t v, ze_driver_dditable_t *t);
ze_result_t ZE_APICALL zeGetDeviceProcAddrTable(ze_api_version_t v, ze_device_dditable_t *t);
ze_result_t ZE_APICALL zeGetContextProcAddrTable(ze_api_version_t v, ze_context_dditable_t *t);
ze_result_t ZE_APICALL zeGetMemProcAddrTable(ze_api_version_t v, ze_mem_dditable_t *t);
ze_result_t ZE_APICALL zeGetModuleProcAddrTable(ze_api_version_t v, ze_module_dditable_t *t);

enum promise {
    P_FRAMES,  /* replies on the connection, events on a stream, bounded, whole */
    P_REPLIES, /* one reply per whole request up to DETACH or an oversized header */
    P_ENDS,    /* the connection ends when the input ends */
    P_FDS,     /* every passed descriptor closed by then, none used after */
    P_CLEAN,   /* no session is left in the endpoint afterwards */
    P_COUNT
};

static const char *const promise_name[P_COUNT] = {
    "the debuggee sends only replies on the connection and only events on an event stream, "
    "of bounded length, whole",
    "every whole request up to DETACH or an oversized header gets exactly one reply",
    "the connection ends when the debugger's input ends",
    "every descriptor the debugger passed is closed by then, and none is used after its close",
    "no session is left in the debuggee's endpoint afterwards",
};

/* An input's first byte: message k of the rest (counted in the walk of its
 * headers, until one is oversized or cut) brings descriptors when bit k % 7
 * is set, two of them when bit 7 is. A sound debugger's is CTL_SOUND: its
 * first message, ATTACH, brings its event stream. */
#define CTL_SOUND 0x01u
#define CTL_TWO 0x80u
#define MAX_PASSES 16

/* What the debuggee holds for the seeds to reach. */
struct world {
    char path[108];
    uint64_t config_id;
    uint8_t *buffer; /* a device allocation of BUFFER_SIZE bytes */
    struct gtsim_module *module;
    ze_context_handle_t context; /* kept: the process's one context */
};
#define BUFFER_SIZE 4096u

static struct world W;
static char runtime_dir[64];

static void remove_runtime_dir(void)
{
    if (runtime_dir[0])
        rmdir(runtime_dir); /* after gtsim's own exit handler removed the socket */
}

static const char *fixture_path(char *buf, size_t len)
{
    const char *top = getenv("top_srcdir");
    snprintf(buf, len, "%s/tests/kernels/fixtures/vadd-xehpc.elf", top && *top ? top : ".");
    return buf;
}

static void *slurp_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    long len;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)len)) && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = b ? (size_t)len : 0;
    return b;
}

/* A module from the fixture, or NULL (the seeds then reach less). */
static struct gtsim_module *load_module(ze_context_handle_t ctx, ze_device_handle_t dev)
{
    ze_module_dditable_t mod;
    ze_module_handle_t m = NULL;
    char path[512];
    size_t n;
    void *zebin = slurp_file(fixture_path(path, sizeof(path)), &n);
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .format = ZE_MODULE_FORMAT_NATIVE,
                           .inputSize = n,
                           .pInputModule = zebin};
    if (zebin && zeGetModuleProcAddrTable(ZE_API_VERSION_CURRENT, &mod) == ZE_RESULT_SUCCESS &&
        mod.pfnCreate(ctx, dev, &md, &m, NULL) != ZE_RESULT_SUCCESS)
        m = NULL;
    free(zebin);
    return (struct gtsim_module *)m;
}

/* zeInit with program debugging in a private runtime directory, one device
 * buffer and one module; the endpoint is then ready for connections. */
static int world_init(void)
{
    ze_global_dditable_t glob;
    ze_driver_dditable_t drvt;
    ze_device_dditable_t devt;
    ze_context_dditable_t ctxt;
    ze_mem_dditable_t memt;
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
    uint32_t one = 1;
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_device_mem_alloc_desc_t ad = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    void *buf = NULL;

    snprintf(runtime_dir, sizeof(runtime_dir), "/tmp/zestub-fuzz-wire-XXXXXX");
    if (!mkdtemp(runtime_dir))
        return -1;
    atexit(remove_runtime_dir);
    setenv("GTSIM_RUNTIME_DIR", runtime_dir, 1);
    setenv("ZET_ENABLE_PROGRAM_DEBUGGING", "1", 1);
    setenv("GTSIM_CONFIG", "tiles=2", 1); /* tile sessions too; the seeds' fingerprint */
    if (zeGetGlobalProcAddrTable(ZE_API_VERSION_CURRENT, &glob) ||
        zeGetDriverProcAddrTable(ZE_API_VERSION_CURRENT, &drvt) ||
        zeGetDeviceProcAddrTable(ZE_API_VERSION_CURRENT, &devt) ||
        zeGetContextProcAddrTable(ZE_API_VERSION_CURRENT, &ctxt) ||
        zeGetMemProcAddrTable(ZE_API_VERSION_CURRENT, &memt) || glob.pfnInit(0) ||
        drvt.pfnGet(&one, &drv) || (one = 1, devt.pfnGet(drv, &one, &dev)) ||
        ctxt.pfnCreate(drv, &cd, &ctx) ||
        memt.pfnAllocDevice(ctx, &ad, BUFFER_SIZE, 64, dev, &buf) || !gtsim_srv_the_server)
        return -1;
    W.buffer = buf;
    W.context = ctx;
    memset(W.buffer, 0x5a, BUFFER_SIZE);
    W.module = load_module(ctx, dev);
    W.config_id = gtsim_dbg_config_id(&gtsim_driver_get()->cfg);
    snprintf(W.path, sizeof(W.path), "%s", gtsim_srv_the_server->path);
    return 0;
}

/* Addresses in the debuggee move from run to run (ASLR), so inputs name
 * them symbolically: a memory request whose address has one of these tags
 * in its top 16 bits is sent with the real place plus the low 16 bits. */
enum { TAG_BUFFER = 0xb0f0, TAG_IMAGE = 0xb0f1, TAG_ISA = 0xb0f2 };

static uint64_t symbolic(unsigned tag, uint64_t low)
{
    return (uint64_t)tag << 48 | (low & 0xffff);
}

static uint64_t resolve(uint64_t addr)
{
    uint64_t low = addr & 0xffff;
    switch (addr >> 48) {
    case TAG_BUFFER:
        return (uint64_t)(uintptr_t)W.buffer + low;
    case TAG_IMAGE:
        return W.module ? (uint64_t)(uintptr_t)W.module->debug_image + low : addr;
    case TAG_ISA:
        return W.module ? W.module->load + low : addr;
    default:
        return addr;
    }
}

/* One input, ready to send: the wire's bytes with their symbolic
 * addresses resolved, and the messages that bring descriptors. */
struct session_in {
    uint8_t *wire;
    size_t len;
    struct gtsim_wire_pass passes[MAX_PASSES];
    size_t npasses;
};

/* Walks the messages of in->wire: resolves addresses, finds the passes. */
static void walk_messages(struct session_in *in, unsigned ctl)
{
    size_t off = 0, k = 0;
    struct gtsim_dbg_hdr h;
    struct gtsim_dbg_mem_req r;
    in->npasses = 0;
    while (in->len - off >= sizeof(h)) {
        memcpy(&h, in->wire + off, sizeof(h));
        if ((h.type == GTSIM_DBG_READ_MEM || h.type == GTSIM_DBG_WRITE_MEM) && h.len >= sizeof(r) &&
            in->len - off - sizeof(h) >= sizeof(r)) {
            memcpy(&r, in->wire + off + sizeof(h), sizeof(r));
            r.address = resolve(r.address);
            memcpy(in->wire + off + sizeof(h), &r, sizeof(r));
        }
        if (h.len > GTSIM_DBG_MAX_PAYLOAD || in->len - off - sizeof(h) < h.len)
            break;
        if ((ctl >> (k++ % 7)) & 1 && in->npasses < MAX_PASSES)
            in->passes[in->npasses++] = (struct gtsim_wire_pass){
                .at = off, .end = off + sizeof(h) + h.len, .count = ctl & CTL_TWO ? 2 : 1};
        off += sizeof(h) + h.len;
    }
}

/* in from an input (its first byte the control byte); false without memory. */
static bool prepare(const uint8_t *d, size_t n, struct session_in *in)
{
    in->len = n ? n - 1 : 0;
    in->wire = malloc(in->len ? in->len : 1);
    if (!in->wire)
        return false;
    memcpy(in->wire, d + (n > 0), in->len);
    walk_messages(in, n ? d[0] : 0);
    return true;
}

/* Requests the debuggee must answer: whole messages up to and including
 * the first DETACH, stopping at an oversized header or a partial message. */
static size_t requests_in(const uint8_t *d, size_t n)
{
    size_t count = 0, off = 0;
    struct gtsim_dbg_hdr h;
    while (n - off >= sizeof(h)) {
        memcpy(&h, d + off, sizeof(h));
        if (h.len > GTSIM_DBG_MAX_PAYLOAD || n - off - sizeof(h) < h.len)
            break;
        count++;
        off += sizeof(h) + h.len;
        if (h.type == GTSIM_DBG_DETACH)
            break;
    }
    return count;
}

static unsigned last_successes; /* replies that say SUCCESS */

/* Walks what the debuggee sent on one stream: replies if replies, else
 * events (and LOST). Counts them; -1 if anything else or malformed. */
static long messages_in(const uint8_t *d, size_t n, bool replies, uint32_t *first_result)
{
    size_t off = 0;
    long count = 0;
    struct gtsim_dbg_hdr h;
    while (off < n) {
        if (n - off < sizeof(h))
            return -1;
        memcpy(&h, d + off, sizeof(h));
        off += sizeof(h);
        if (h.len > GTSIM_DBG_MAX_PAYLOAD || n - off < h.len)
            return -1;
        if (replies && h.type == GTSIM_DBG_REPLY && h.len >= sizeof(struct gtsim_dbg_reply)) {
            uint32_t result;
            memcpy(&result, d + off, sizeof(result));
            if (count == 0 && first_result)
                *first_result = result;
            last_successes += result == ZE_RESULT_SUCCESS;
        } else if (replies || !((h.type == GTSIM_DBG_EVENT && h.len == sizeof(zet_debug_event_t)) ||
                                (h.type == GTSIM_DBG_LOST && h.len == 0))) {
            return -1;
        }
        count++;
        off += h.len;
    }
    return count;
}

/* What one session did, both paths alike. */
struct outcome {
    bool ended;      /* the connection ended */
    bool fds_closed; /* every passed descriptor closed, none used after */
    const uint8_t *out;
    size_t out_len;
    long events; /* on the event streams; -1 if one was malformed */
};

static bool sessions_left(void)
{
    struct gtsim_dbg_server *srv = gtsim_srv_the_server;
    bool left;
    pthread_mutex_lock(&srv->lock);
    left = srv->sessions != NULL;
    pthread_mutex_unlock(&srv->lock);
    return left;
}

/* The debugger's side of a real connection: ours[k] is our end of the k-th
 * event stream, peer[k] the end the feeder passes with its message and then
 * closes, as a sound debugger does. */
struct real_conn {
    int fd;
    const struct session_in *in;
    int ours[2 * MAX_PASSES], peer[2 * MAX_PASSES];
    size_t nstreams;
};

struct bytes {
    uint8_t *b;
    size_t len, cap;
};

/* What the debuggee sent on a real connection and its event streams. */
static struct bytes conn_out, stream_out[2 * MAX_PASSES];

static bool send_raw(int fd, const uint8_t *b, size_t n)
{
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false; /* the debuggee hung up (after DETACH or a refusal) */
        b += w;
        n -= (size_t)w;
    }
    return true;
}

/* A message that brings descriptors: they go with its first bytes. */
static bool send_passing(int fd, const uint8_t *b, size_t n, const int *fds, unsigned count)
{
    union {
        struct cmsghdr c;
        char buf[CMSG_SPACE(2 * sizeof(int))];
    } ctl;
    struct iovec iov = {(void *)b, n};
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = ctl.buf,
                       .msg_controllen = CMSG_SPACE(count * sizeof(int))};
    ssize_t w;
    memset(&ctl, 0, sizeof(ctl));
    ctl.c.cmsg_level = SOL_SOCKET;
    ctl.c.cmsg_type = SCM_RIGHTS;
    ctl.c.cmsg_len = CMSG_LEN(count * sizeof(int));
    memcpy(CMSG_DATA(&ctl.c), fds, count * sizeof(int));
    do
        w = sendmsg(fd, &m, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    return w > 0 && send_raw(fd, b + w, n - (size_t)w);
}

/* Writes the debugger's bytes, then half-closes: the end of the input. */
static void *feed_main(void *arg)
{
    struct real_conn *c = arg;
    const struct session_in *in = c->in;
    size_t off = 0, k = 0;
    bool ok = true;
    for (size_t i = 0; i < in->npasses; i++) {
        const struct gtsim_wire_pass *p = &in->passes[i];
        ok = ok && send_raw(c->fd, in->wire + off, p->at - off);
        ok = ok && send_passing(c->fd, in->wire + p->at, p->end - p->at, &c->peer[k], p->count);
        /* The debuggee holds its copies now, or never will. */
        for (unsigned j = 0; j < p->count; j++, k++)
            close(c->peer[k]);
        off = p->end;
    }
    if (ok)
        send_raw(c->fd, in->wire + off, in->len - off);
    shutdown(c->fd, SHUT_WR);
    return NULL;
}

/* One read into o: bytes read, 0 at the end, -1 past any sane exchange or
 * on an error. */
static ssize_t read_some(int fd, struct bytes *o)
{
    ssize_t n;
    if (o->len + 65536 > o->cap) {
        uint8_t *b = o->len + 65536 > (size_t)64 << 20 ? NULL : realloc(o->b, o->len + 65536);
        if (!b)
            return -1;
        o->b = b;
        o->cap = o->len + 65536;
    }
    n = read(fd, o->b + o->len, 65536);
    /* libFuzzer's timeout timer interrupts calls in any thread. */
    if (n < 0 && errno == EINTR)
        return 1;
    /* The debuggee closing with some of our input unread (after a DETACH
     * or a refused header) resets the connection: an end too. */
    if (n < 0)
        return errno == ECONNRESET ? 0 : -1;
    o->len += (size_t)n;
    return n;
}

/* Reads the connection and every event stream until each ends; false if
 * one does not within 10 s. *conn_ended: the connection did. */
static bool drain(struct real_conn *c, bool *conn_ended)
{
    struct pollfd p[1 + 2 * MAX_PASSES];
    size_t n = 1 + c->nstreams, open = n;
    *conn_ended = false;
    for (size_t i = 0; i < n; i++) {
        p[i] = (struct pollfd){.fd = i ? c->ours[i - 1] : c->fd, .events = POLLIN};
        (i ? &stream_out[i - 1] : &conn_out)->len = 0;
    }
    while (open) {
        int r = poll(p, n, 10000);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        for (size_t i = 0; i < n; i++) {
            ssize_t got;
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            if ((got = read_some(p[i].fd, i ? &stream_out[i - 1] : &conn_out)) < 0)
                return false;
            if (got == 0) {
                p[i].fd = -1;
                open--;
                *conn_ended |= i == 0;
            }
        }
    }
    return true;
}

/* The event streams the input's passes bring, made before it is sent. */
static void open_streams(struct real_conn *c)
{
    c->nstreams = 0;
    for (size_t i = 0; i < c->in->npasses; i++)
        for (unsigned j = 0; j < c->in->passes[i].count; j++) {
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
                fprintf(stderr, "fuzz_gtsim_wire: socketpair: %s\n", strerror(errno));
                abort();
            }
            c->ours[c->nstreams] = sv[0];
            c->peer[c->nstreams++] = sv[1];
        }
}

/* The debugger's bytes over a real connection to the endpoint (its accept
 * thread, the peer check, a connection thread). */
static void serve_connected(const struct session_in *in, struct outcome *o)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    struct real_conn c = {.in = in};
    pthread_t feeder;
    bool all_ended;

    open_streams(&c);
    memcpy(sa.sun_path, W.path, sizeof(W.path));
    c.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c.fd < 0 || connect(c.fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        pthread_create(&feeder, NULL, feed_main, &c) != 0) {
        fprintf(stderr, "fuzz_gtsim_wire: cannot connect to %s: %s\n", W.path, strerror(errno));
        abort();
    }
    all_ended = drain(&c, &o->ended);
    if (!o->ended)
        shutdown(c.fd, SHUT_RDWR); /* unblocks the feeder */
    pthread_join(feeder, NULL);
    close(c.fd);
    /* An event stream ends when the debuggee closed every copy of its end
     * it was given (the kernel closes those it never read). */
    o->fds_closed = all_ended || !o->ended;
    o->events = 0;
    for (size_t i = 0; i < c.nstreams; i++) {
        long e = messages_in(stream_out[i].b, stream_out[i].len, false, NULL);
        o->events = e < 0 || o->events < 0 ? -1 : o->events + e;
        close(c.ours[i]);
    }
    o->out = conn_out.b;
    o->out_len = conn_out.len;
}

static void serve_direct(const struct session_in *in, struct outcome *o)
{
    struct gtsim_wire_result r;
    o->ended = gtsim_wire_direct_session(in->wire, in->len, in->passes, in->npasses, &r) == 0;
    o->fds_closed = !r.left_open && !r.misused;
    o->out = r.out;
    o->out_len = r.out_len;
    o->events = messages_in(r.events, r.events_len, false, NULL);
}

/* How a session reaches the debuggee: over a real connection, or served
 * by the endpoint's connection loop in this thread (gtsim_wire_direct.h). */
enum path { VIA_SOCKET, VIA_DIRECT };

/* What the last session did, for the driver's checks. */
static uint32_t last_first_result;
static long last_replies, last_events;
static size_t last_out_len;
static bool last_bare_refused; /* its first message, an ATTACH without descriptor, was refused */

/* The first message is an ATTACH that brings no descriptor. */
static bool bare_attach(const struct session_in *in)
{
    struct gtsim_dbg_hdr h;
    if (in->len < sizeof(h))
        return false;
    memcpy(&h, in->wire, sizeof(h));
    return h.type == GTSIM_DBG_ATTACH && h.len == sizeof(struct gtsim_dbg_attach) &&
           in->len >= sizeof(h) + h.len && (!in->npasses || in->passes[0].at != 0);
}

/* One debugger session of these bytes; returns the promises it broke. */
static unsigned check_session_via(const uint8_t *input, size_t size, enum path via)
{
    struct session_in in;
    struct outcome o = {0};
    unsigned bad = 0;

    if (!W.path[0] && world_init() != 0) {
        fprintf(stderr, "fuzz_gtsim_wire: cannot set up the gtsim debuggee\n");
        abort();
    }
    if (!prepare(input, size, &in))
        return 0;
    if (via == VIA_SOCKET)
        serve_connected(&in, &o);
    else
        serve_direct(&in, &o);
    last_first_result = UINT32_MAX;
    last_successes = 0;
    last_replies = messages_in(o.out, o.out_len, true, &last_first_result);
    last_events = o.events;
    last_out_len = o.out_len;
    last_bare_refused =
        bare_attach(&in) && last_first_result == (uint32_t)ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (!o.ended)
        bad |= 1u << P_ENDS;
    if (!o.fds_closed)
        bad |= 1u << P_FDS;
    if (last_replies < 0 || o.events < 0)
        bad |= 1u << P_FRAMES;
    if (last_replies >= 0 && (size_t)last_replies != requests_in(in.wire, in.len))
        bad |= 1u << P_REPLIES;
    /* The session's thread unlinks it before closing the connection, so by
     * the end of stream it is gone. */
    if (o.ended && sessions_left())
        bad |= 1u << P_CLEAN;
    free(in.wire);
    return bad;
}

/* libFuzzer: one input in SOCKET_EVERY (chosen by its bytes, so a rerun of
 * an input takes the same path) goes over a real connection. */
#define SOCKET_EVERY 128

static enum path path_of(const uint8_t *d, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ d[i]) * 16777619u;
    return h % SOCKET_EVERY == 0 ? VIA_SOCKET : VIA_DIRECT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned bad = check_session_via(data, size, path_of(data, size));
    for (int p = 0; p < P_COUNT; p++)
        if (bad & (1u << p)) {
            fprintf(stderr,
                    "fuzz_gtsim_wire: broken promise: %s (%zu bytes in, %ld replies in %zu "
                    "bytes, %ld events)\n",
                    promise_name[p], size, last_replies, last_out_len, last_events);
            abort();
        }
    return 0;
}
#ifndef ZESTUB_LIBFUZZER
#include <dirent.h>

#include "tests/tap.h"

/* Bounded so that `make check` under ASan stays well under a minute. */
#define MUTATIONS 5000
#define SEEDS 3

/* Every session of the plain program takes both paths: the real
 * connection as before, and the direct one libFuzzer mostly takes. */
static unsigned check_session(const uint8_t *input, size_t size)
{
    return check_session_via(input, size, VIA_DIRECT) | check_session_via(input, size, VIA_SOCKET);
}

struct msgbuf {
    uint8_t *b;
    size_t n, cap;
};

/* Starts m with its control byte (the first byte of every input). */
static void start(struct msgbuf *m, uint8_t ctl)
{
    if (!m->cap && !(m->b = malloc(m->cap = 256)))
        tap_bail("out of memory");
    m->b[0] = ctl;
    m->n = 1;
}

static void add(struct msgbuf *m, uint32_t type, const void *body, size_t len, const void *data,
                size_t dlen)
{
    struct gtsim_dbg_hdr h = {type, (uint32_t)(len + dlen)};
    size_t need = m->n + sizeof(h) + len + dlen;
    if (need > m->cap) {
        m->cap = need * 2;
        m->b = realloc(m->b, m->cap);
        if (!m->b)
            tap_bail("out of memory");
    }
    memcpy(m->b + m->n, &h, sizeof(h));
    if (len)
        memcpy(m->b + m->n + sizeof(h), body, len);
    if (dlen)
        memcpy(m->b + m->n + sizeof(h) + len, data, dlen);
    m->n = need;
}

static const ze_device_thread_t all_threads = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};

static void add_attach(struct msgbuf *m, int32_t tile)
{
    struct gtsim_dbg_attach a = {.ordinal = 0, .tile = tile, .config_id = W.config_id};
    add(m, GTSIM_DBG_ATTACH, &a, sizeof(a), NULL, 0);
}

static void add_mem(struct msgbuf *m, uint32_t type, uint64_t addr, uint64_t size, uint32_t space)
{
    static uint8_t data[256];
    struct gtsim_dbg_mem_req r = {
        .thread = all_threads, .space = space, .address = addr, .size = size};
    memset(data, 0xa5, sizeof(data));
    add(m, type, &r, sizeof(r), data, type == GTSIM_DBG_WRITE_MEM && size <= 256 ? size : 0);
}

/* Sound sessions: 0 memory and the module's image, 1 run control,
 * registers and an acknowledgement, 2 a tile session. */
static void make_seed(int which, struct msgbuf *m)
{
    uint64_t buf = symbolic(TAG_BUFFER, 0), img = symbolic(TAG_IMAGE, 0);
    struct gtsim_dbg_thread_req t = {.thread = all_threads};
    struct gtsim_dbg_reg_req rr = {.thread = {0, 0, 0, 0}, .type = 1, .start = 0, .count = 1};
    zet_debug_event_t ev = {.type = ZET_DEBUG_EVENT_TYPE_MODULE_LOAD};
    start(m, CTL_SOUND);
    add_attach(m, which == 2 ? 0 : -1);
    if (which == 0) {
        add_mem(m, GTSIM_DBG_READ_MEM, buf, 64, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT);
        add_mem(m, GTSIM_DBG_WRITE_MEM, buf + 64, 16, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT);
        add_mem(m, GTSIM_DBG_READ_MEM, img, 64, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT);
        add_mem(m, GTSIM_DBG_READ_MEM, symbolic(TAG_ISA, 0), 32,
                ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT);
        add_mem(m, GTSIM_DBG_READ_MEM, 1ull << 28, 16, ZET_DEBUG_MEMORY_SPACE_TYPE_SLM);
    } else {
        add(m, GTSIM_DBG_INTERRUPT, &t, sizeof(t), NULL, 0);
        add(m, GTSIM_DBG_RESUME, &t, sizeof(t), NULL, 0);
        add(m, GTSIM_DBG_READ_REGS, &rr, sizeof(rr), NULL, 0);
        add(m, GTSIM_DBG_WRITE_REGS, &rr, sizeof(rr), "\1\2\3\4", 4);
        ev.info.module.moduleBegin = W.module ? (uint64_t)(uintptr_t)W.module->debug_image : 0;
        add(m, GTSIM_DBG_ACK, &ev, sizeof(ev), NULL, 0);
    }
    add(m, GTSIM_DBG_DETACH, NULL, 0, NULL, 0);
}

static int write_seeds(const char *dir)
{
    struct msgbuf m = {0};
    int ok = world_init() == 0;
    for (int i = 0; ok && i < SEEDS; i++) {
        char path[1024];
        FILE *f = NULL;
        make_seed(i, &m);
        if (snprintf(path, sizeof(path), "%s/session-%d", dir, i) < (int)sizeof(path))
            f = fopen(path, "wb");
        ok = f && fwrite(m.b, 1, m.n, f) == m.n;
        if (f)
            ok &= fclose(f) == 0;
    }
    free(m.b);
    return ok ? 0 : 1;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A value a hostile debugger would try in a length, type, address or id. */
static uint64_t hostile(void)
{
    static const uint64_t v[] = {0,
                                 1,
                                 UINT32_MAX,
                                 UINT64_MAX,
                                 GTSIM_DBG_MAX_PAYLOAD,
                                 GTSIM_DBG_MAX_PAYLOAD + 1,
                                 GTSIM_DBG_MAX_XFER,
                                 1ull << 28,
                                 0x7fffffff,
                                 GTSIM_DBG_DETACH,
                                 GTSIM_DBG_WRITE_MEM};
    return next_random() % 4 ? v[next_random() % (sizeof(v) / sizeof(v[0]))] : next_random();
}

/* One mutation of a sound session into out; returns its length. */
static size_t mutate(uint8_t *out, size_t cap, const struct msgbuf *s)
{
    size_t n = s->n < cap ? s->n : cap;
    memcpy(out, s->b, n);
    /* Which messages bring descriptors: none, two at once, or with others. */
    if (n && next_random() % 8 == 0)
        out[0] = (uint8_t)next_random();
    int edits = 1 + (int)(next_random() % 6);
    for (int k = 0; k < edits && n; k++) {
        size_t at = next_random() % n;
        uint64_t v = hostile();
        size_t w = (size_t)1 << (next_random() % 4);
        switch (next_random() % 4) {
        case 0:
            out[at] ^= (uint8_t)(1u << (next_random() % 8));
            break;
        case 1: /* a field overwritten, aligned as the structs are */
            at &= ~(w - 1);
            if (at + w <= n)
                memcpy(out + at, &v, w);
            break;
        case 2: /* a run duplicated: requests repeated, or split in two */
            if (n < cap) {
                size_t len = 1 + next_random() % 64;
                len = len > cap - n ? cap - n : len;
                len = len > n - at ? n - at : len;
                memmove(out + at + len, out + at, n - at);
                n += len;
            }
            break;
        default: /* a cut */
            n = at;
            break;
        }
    }
    return n;
}

static unsigned replay_path(const char *path, int *readable)
{
    size_t n = 0;
    uint8_t *b = slurp_file(path, &n);
    FILE *f = b ? NULL : fopen(path, "rb");
    unsigned bad;
    *readable = b || f;
    if (f)
        fclose(f);
    if (!*readable)
        return 0;
    bad = check_session(b ? b : (const uint8_t *)"", n);
    free(b);
    return bad;
}

static void replay_corpus(void)
{
    const char *top = getenv("top_srcdir");
    char dir[512], path[1024];
    struct dirent *de;
    unsigned files = 0, bad = 0;
    snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/gtsim_wire", top ? top : ".");
    DIR *d = opendir(dir);
    while (d && (de = readdir(d)) != NULL) {
        int readable;
        unsigned broke;
        if (de->d_name[0] == '.' ||
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
            continue;
        broke = replay_path(path, &readable);
        files++;
        if (!readable || broke) {
            bad++;
            tap_diag("%s: %s (mask %#x)", path, readable ? "broke a promise" : "unreadable", broke);
        }
    }
    if (d)
        closedir(d);
    tap_ok(files >= SEEDS && bad == 0, "the %u files of %s keep every promise (%u do not)", files,
           dir, bad);
}

/* After everything, a sound debugger still attaches, gets the module's
 * load on its event stream, reads back what a hostile one may have written
 * (the buffer holds 0x5a or 0xa5 bytes), and detaches. */
static int still_serves(void)
{
    struct msgbuf m = {0};
    start(&m, CTL_SOUND);
    add_attach(&m, -1);
    add_mem(&m, GTSIM_DBG_READ_MEM, symbolic(TAG_BUFFER, 0), 16,
            ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT);
    add(&m, GTSIM_DBG_DETACH, NULL, 0, NULL, 0);
    unsigned bad = check_session(m.b, m.n);
    free(m.b);
    return bad == 0 && last_replies == 3 && last_first_result == ZE_RESULT_SUCCESS &&
           last_events >= 1;
}

/* The sound sessions: each attaches, gets the module's load on its event
 * stream, reaches memory and keeps every promise. Returns the longest. */
static size_t check_seeds(struct msgbuf *seeds)
{
    unsigned seed_bad = 0, attached = 0;
    size_t cap = 0;
    for (int i = 0; i < SEEDS; i++) {
        make_seed(i, &seeds[i]);
        unsigned bad = check_session(seeds[i].b, seeds[i].n);
        seed_bad |= bad;
        /* Seed 0's attach, four memory requests (buffer, image, ISA) and
         * detach succeed; the others' attach and detach. */
        attached += last_first_result == ZE_RESULT_SUCCESS && last_successes >= (i ? 2u : 6u) &&
                    last_events >= 1;
        if (bad || last_first_result != ZE_RESULT_SUCCESS)
            tap_diag("seed %d: broken promises %#x, attach answered %#x, %u successes, %ld "
                     "events",
                     i, bad, last_first_result, last_successes, last_events);
        cap = seeds[i].n > cap ? seeds[i].n : cap;
    }
    tap_ok(W.module && seed_bad == 0 && attached == SEEDS,
           "%d sound sessions attach, get the module's load as an event, reach memory (module "
           "loaded: %s), keep every promise",
           SEEDS, W.module ? "yes" : "no");
    return cap;
}

/* Seed 0 with its ATTACH bringing no descriptor is refused and served on
 * (its other requests answered, as for any debugger not attached); with
 * two descriptors it attaches, and the one not kept is closed. */
static void check_descriptors(const struct msgbuf *seed0)
{
    uint8_t *b = malloc(seed0->n);
    unsigned bad_bare, bad_two;
    bool bare_refused, two_attach;
    if (!b)
        tap_bail("out of memory");
    memcpy(b, seed0->b, seed0->n);
    b[0] = 0;
    bad_bare = check_session(b, seed0->n);
    bare_refused = last_bare_refused && last_successes == 1 && last_events == 0;
    b[0] = CTL_SOUND | CTL_TWO;
    bad_two = check_session(b, seed0->n);
    two_attach = last_first_result == ZE_RESULT_SUCCESS && last_events >= 1;
    free(b);
    tap_ok(!bad_bare && bare_refused && !bad_two && two_attach,
           "an ATTACH without an event descriptor is refused (INVALID_ARGUMENT) and the session "
           "served on (%s, broken promises %#x); with two it attaches and closes the other "
           "(%s, %#x)",
           bare_refused ? "yes" : "no", bad_bare, two_attach ? "yes" : "no", bad_two);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
        return write_seeds(argv[2]);
    /* Plan: one check per replayed file (or one for the checked-in corpus),
     * the seeds, descriptors, one per promise, attaches reached, refusals
     * reached, and still serving. */
    tap_plan((argc > 1 ? argc - 1 : 1) + 2 + P_COUNT + 3);
    if (world_init() != 0)
        tap_bail("cannot set up the gtsim debuggee in this process");
    for (int i = 1; i < argc; i++) {
        int readable;
        unsigned bad = replay_path(argv[i], &readable);
        tap_ok(readable && bad == 0, "replayed %s (broken promises: mask %#x)", argv[i], bad);
    }
    if (argc == 1)
        replay_corpus();
    struct msgbuf seeds[SEEDS] = {{0}};
    size_t cap = check_seeds(seeds) + 4096;
    check_descriptors(&seeds[0]);
    uint8_t *b = malloc(cap);
    unsigned violations[P_COUNT] = {0}, hostile_attached = 0, bare_refused = 0;
    for (int i = 0; b && i < MUTATIONS; i++) {
        const struct msgbuf *s = &seeds[next_random() % SEEDS];
        size_t n = mutate(b, cap, s);
        unsigned bad = check_session(b, n);
        hostile_attached += last_first_result == ZE_RESULT_SUCCESS;
        bare_refused += last_bare_refused;
        for (int p = 0; p < P_COUNT; p++)
            if ((bad >> p) & 1 && violations[p]++ == 0)
                tap_diag("mutation %d (%zu bytes) broke: %s", i, n, promise_name[p]);
    }
    for (int p = 0; p < P_COUNT; p++)
        tap_ok(b && violations[p] == 0, "%s (%u of %d sessions broke it)", promise_name[p],
               violations[p], MUTATIONS);
    tap_ok(hostile_attached > 0 && hostile_attached < MUTATIONS,
           "some mutated sessions attach, some do not (%u of %d attach)", hostile_attached,
           MUTATIONS);
    tap_ok(bare_refused > 0,
           "some mutated sessions begin with an ATTACH without a descriptor, refused (%u of %d)",
           bare_refused, MUTATIONS);
    tap_ok(still_serves(), "afterwards a sound debugger attaches, reads and detaches");
    for (int i = 0; i < SEEDS; i++)
        free(seeds[i].b);
    free(b);
    free(conn_out.b);
    for (int i = 0; i < 2 * MAX_PASSES; i++)
        free(stream_out[i].b);
    return tap_failed_ ? 1 : 0;
}
#endif
