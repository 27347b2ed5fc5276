/* SPDX-License-Identifier: MIT */
/* Memory: m, M, x, X with Intel's "@space" suffix and tagged generic
 * addresses (protocol 8). The context is the Hg thread when it is stopped,
 * otherwise the device's "all" thread, which only reaches the default
 * space. */
#include <stdlib.h>
#include <string.h>

#include "gdbstub/handlers.h"
#include "gdbstub/output.h"
#include "gdbstub/server_state.h"
#include "gdbstub/stopreply.h"
#include "gdbstub/threadid.h"

/* Largest read served at once; the client asks again for the rest. */
#define READ_MAX (RSP_PACKET_SIZE / 2)

#define TAG_SHIFT 61
#define TAG_SLM 2u /* bits 63..61 = 010: a generic pointer into SLM */

/* addr[@space],len — and, with data, the ':' that follows. */
static bool parse_args(const char **p, const char *end, uint64_t *addr, uint32_t *space,
                       uint64_t *len)
{
    uint64_t sp = 0;
    if (!rsp_parse_hex(p, end, addr))
        return false;
    if (*p < end && **p == '@') {
        (*p)++;
        if (!rsp_parse_hex(p, end, &sp) || sp > UINT32_MAX)
            return false;
    }
    if (*p >= end || **p != ',')
        return false;
    (*p)++;
    if (!rsp_parse_hex(p, end, len))
        return false;
    *space = (uint32_t)sp;
    return true;
}

/* The access's context; false with the error reply built (a process that
 * ended says so). */
static bool mem_ref(struct rsp_server *s, uint64_t addr, uint32_t space, struct rsp_mem_ref *ref)
{
    struct rsp_thread_info ti;
    uint32_t pid, tid;

    if (!rsp_resolve_thread(s, s->g, &pid, &tid)) {
        if (!rsp_reply_if_exited(s, s->g.pid))
            rsp_reply_e01(&s->reply);
        return false;
    }
    if (rsp_reply_if_exited(s, pid))
        return false;
    if (space == 0 && (addr >> TAG_SHIFT) == TAG_SLM)
        space = 1;
    /* Canonical form: bits 63..61 become a copy of bits 58..56. */
    addr = (addr & ((UINT64_C(1) << TAG_SHIFT) - 1)) | (((addr >> 56) & 7) << TAG_SHIFT);
    ref->pid = pid;
    ref->space = space;
    ref->addr = addr;
    if (s->target.ops->thread_info(s->target.ctx, pid, tid, &ti) == 0 &&
        ti.state == RSP_THREAD_STOPPED)
        ref->tid = tid;
    else if (space == 0)
        ref->tid = 0;
    else {
        rsp_reply_e01(&s->reply); /* SLM needs a stopped thread */
        return false;
    }
    return true;
}

static enum rsp_hresult do_read(struct rsp_server *s, const char *arg, size_t len, bool binary)
{
    const char *p = arg, *end = arg + len;
    uint64_t addr, n;
    uint32_t space;
    struct rsp_mem_ref ref;
    uint8_t *buf;
    size_t done = 0;
    char e[RSP_ERR_LEN] = "";

    if (!parse_args(&p, end, &addr, &space, &n) || p != end) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    if (!mem_ref(s, addr, space, &ref))
        return RSP_H_REPLY;
    if (n == 0) {
        if (binary)
            rsp_buf_putc(&s->reply, 'b');
        return RSP_H_REPLY;
    }
    if (n > READ_MAX)
        n = READ_MAX;
    buf = malloc(n);
    if (!buf) {
        rsp_reply_error(s, "out of memory");
        return RSP_H_REPLY;
    }
    if (s->target.ops->read_memory(s->target.ctx, &ref, buf, n, &done, e, sizeof(e)) < 0 ||
        done == 0) {
        free(buf);
        rsp_reply_error(s, e);
        return RSP_H_REPLY;
    }
    if (done > n)
        done = n;
    if (binary) {
        rsp_buf_putc(&s->reply, 'b');
        rsp_buf_bin(&s->reply, buf, done);
    } else
        rsp_buf_hex(&s->reply, buf, done);
    free(buf);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_read_mem_hex(struct rsp_server *s, const char *arg, size_t len)
{
    return do_read(s, arg, len, false);
}

enum rsp_hresult rsp_h_read_mem_bin(struct rsp_server *s, const char *arg, size_t len)
{
    return do_read(s, arg, len, true);
}

static enum rsp_hresult do_write(struct rsp_server *s, const char *arg, size_t len, bool binary)
{
    const char *p = arg, *end = arg + len;
    uint64_t addr, n;
    uint32_t space;
    struct rsp_mem_ref ref;
    uint8_t *buf = NULL;
    const uint8_t *data;
    char e[RSP_ERR_LEN] = "";
    int rc;

    if (!parse_args(&p, end, &addr, &space, &n) || p >= end || *p != ':') {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    p++;
    /* The decoder has already undone the binary escapes of X data. */
    if ((binary ? (uint64_t)(end - p) != n : (uint64_t)(end - p) != 2 * n)) {
        rsp_reply_e01(&s->reply);
        return RSP_H_REPLY;
    }
    if (n == 0) { /* GDB probes X support with a zero-length write */
        rsp_reply_ok(&s->reply);
        return RSP_H_REPLY;
    }
    if (!mem_ref(s, addr, space, &ref))
        return RSP_H_REPLY;
    if (binary)
        data = (const uint8_t *)p;
    else {
        buf = malloc(n);
        if (!buf || !rsp_hex_decode(p, n, buf)) {
            free(buf);
            rsp_reply_e01(&s->reply);
            return RSP_H_REPLY;
        }
        data = buf;
    }
    rc = s->target.ops->write_memory(s->target.ctx, &ref, data, n, e, sizeof(e));
    free(buf);
    if (rc < 0)
        rsp_reply_error(s, e);
    else
        rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}

enum rsp_hresult rsp_h_write_mem_hex(struct rsp_server *s, const char *arg, size_t len)
{
    return do_write(s, arg, len, false);
}

enum rsp_hresult rsp_h_write_mem_bin(struct rsp_server *s, const char *arg, size_t len)
{
    return do_write(s, arg, len, true);
}
