/* SPDX-License-Identifier: MIT */
#include "gdbstub/output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gdbstub/server_state.h"

void rsp_trace(struct rsp_server *s, const char *dir, const char *p, size_t n)
{
    FILE *f = s->cfg.trace;
    size_t show = n > 200 ? 200 : n;
    if (!f)
        return;
    fprintf(f, "rsp %s ", dir);
    for (size_t i = 0; i < show; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            fputc(c, f);
        else
            fprintf(f, "\\x%02x", c);
    }
    if (show < n)
        fprintf(f, "...(%zu bytes)", n);
    fputc('\n', f);
    fflush(f);
}

int rsp_send_packet(struct rsp_server *s, const char *payload, size_t len)
{
    struct rsp_buf *f = &s->scratch;
    int rc;

    rsp_trace(s, "->", payload, len);
    rsp_buf_clear(f);
    rsp_frame(f, payload, len, false);
    if (f->oom)
        return -ENOMEM;
    if (!s->noack) {
        rsp_buf_clear(&s->last);
        rsp_buf_put(&s->last, f->data, f->len);
    }
    rc = rsp_conn_write(s->conn, f->data, f->len);
    /* The frame can be megabytes (a full thread list); do not keep it. */
    if (f->cap > 4 * RSP_PACKET_SIZE)
        rsp_buf_free(f);
    return rc;
}

void rsp_console(struct rsp_server *s, const char *text)
{
    size_t n = strlen(text), chunk = RSP_PACKET_SIZE / 2 - 8;
    struct rsp_buf o;

    rsp_buf_init(&o);
    for (size_t off = 0; off < n; off += chunk) {
        size_t k = n - off < chunk ? n - off : chunk;
        rsp_buf_clear(&o);
        rsp_buf_putc(&o, 'O');
        rsp_buf_hex(&o, (const uint8_t *)text + off, k);
        if (!o.oom)
            rsp_send_packet(s, o.data, o.len);
    }
    rsp_buf_free(&o);
}

void rsp_reply_error(struct rsp_server *s, const char *err)
{
    bool text = err && err[0];
    /* Debug level: GDB reads memory that is not there as a matter of
     * course (backtraces, prologue analysis). */
    rsp_logf(&s->cfg.log, RSP_LOG_DEBUG, "error reply: %s", text ? err : "no reason given");
    if (text && s->client_error_message)
        rsp_reply_etext(&s->reply, err);
    else
        rsp_reply_e01(&s->reply);
}
