/* SPDX-License-Identifier: MIT */
#include "gdbstub/packet.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rsp_rx_init(struct rsp_rx *rx, size_t cap)
{
    memset(rx, 0, sizeof(*rx));
    /* +1 for the terminating NUL handlers may rely on. */
    rx->buf = malloc(cap + 1);
    if (!rx->buf)
        return -ENOMEM;
    rx->cap = cap;
    rx->buf[0] = 0;
    return 0;
}

void rsp_rx_free(struct rsp_rx *rx)
{
    free(rx->buf);
    rx->buf = NULL;
    rx->cap = 0;
}

static void rx_start(struct rsp_rx *rx, bool notification)
{
    rx->state = RSP_RX_PAYLOAD;
    rx->len = 0;
    rx->sum = 0;
    rx->notification = notification;
    rx->overflow = false;
    rx->bad_rle = false;
    rx->csum_bad_char = false;
}

void rsp_rx_reset(struct rsp_rx *rx)
{
    rx->state = RSP_RX_IDLE;
    rx->len = 0;
}

/* Stores a decoded byte; past the limit the packet is still consumed up to
 * its checksum (so the stream stays in sync) but marked overflowed. */
static void rx_store(struct rsp_rx *rx, uint8_t c)
{
    if (rx->len < rx->cap)
        rx->buf[rx->len++] = c;
    else
        rx->overflow = true;
}

int rsp_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The receive state machine, one byte at a time. It stays one switch over
 * the states (idle, payload, escape, run-length, checksum hi/lo) on
 * purpose: each case is a few lines, and a reader checks a transition
 * against the protocol by reading one case, not by following helpers. */
enum rsp_rx_event rsp_rx_feed(struct rsp_rx *rx, uint8_t c)
{
    int d;

    switch (rx->state) {
    case RSP_RX_IDLE:
        switch (c) {
        case '$':
            rx_start(rx, false);
            return RSP_RX_NONE;
        case '%': /* GDB sends no notifications; one is taken like a packet */
            rx_start(rx, true);
            return RSP_RX_NONE;
        case '+':
            return RSP_RX_ACK;
        case '-':
            return RSP_RX_NACK;
        case 0x03:
            return RSP_RX_INTERRUPT;
        default:
            rx->junk++;
            return RSP_RX_NONE;
        }
    case RSP_RX_PAYLOAD:
        if (c == '#') {
            rx->state = RSP_RX_CSUM_HI;
            return RSP_RX_NONE;
        }
        /* A raw '$' cannot occur inside a packet: the sender gave up on the
         * previous one (or we joined mid-stream), so resynchronise here. A
         * raw '%' can: GDB escapes only # $ } * in binary data (X), and
         * only a stub sends notifications, so '%' here is data. */
        if (c == '$') {
            rx->junk += rx->len + 1;
            rx_start(rx, false);
            return RSP_RX_NONE;
        }
        rx->sum += c;
        if (c == '}')
            rx->state = RSP_RX_ESCAPE;
        else if (c == '*') {
            if (rx->len == 0)
                rx->bad_rle = true;
            rx->state = RSP_RX_RLE;
        } else
            rx_store(rx, c);
        return RSP_RX_NONE;
    case RSP_RX_ESCAPE:
        if (c == '$') {
            rx->junk += rx->len + 1;
            rx_start(rx, false);
            return RSP_RX_NONE;
        }
        if (c == '#') { /* "}#": the escape has nothing to act on */
            rx->bad_rle = true;
            rx->state = RSP_RX_CSUM_HI;
            return RSP_RX_NONE;
        }
        rx->sum += c;
        rx_store(rx, c ^ 0x20);
        rx->state = RSP_RX_PAYLOAD;
        return RSP_RX_NONE;
    case RSP_RX_RLE:
        if (c == '$') {
            rx->junk += rx->len + 1;
            rx_start(rx, false);
            return RSP_RX_NONE;
        }
        if (c == '#') {
            rx->bad_rle = true;
            rx->state = RSP_RX_CSUM_HI;
            return RSP_RX_NONE;
        }
        rx->sum += c;
        /* "X*n": X repeated n - 29 more times; counts below 3 are not
         * printable-safe and never produced by a correct encoder. */
        if (c < 29 + 3 || c > 126)
            rx->bad_rle = true;
        else if (rx->len > 0 && !rx->bad_rle) {
            uint8_t prev = rx->buf[rx->len - 1];
            for (int i = 0; i < c - 29; i++)
                rx_store(rx, prev);
        }
        rx->state = RSP_RX_PAYLOAD;
        return RSP_RX_NONE;
    case RSP_RX_CSUM_HI:
        d = rsp_hex_digit(c);
        if (c == '$') { /* truncated packet: count it as bad */
            rx_start(rx, false);
            return RSP_RX_BAD_CHECKSUM;
        }
        rx->csum_bad_char = d < 0;
        rx->csum = (uint8_t)(d < 0 ? 0 : d << 4);
        rx->state = RSP_RX_CSUM_LO;
        return RSP_RX_NONE;
    case RSP_RX_CSUM_LO:
        d = rsp_hex_digit(c);
        if (c == '$') {
            rx_start(rx, false);
            return RSP_RX_BAD_CHECKSUM;
        }
        rx->state = RSP_RX_IDLE;
        if (d < 0 || rx->csum_bad_char || (uint8_t)(rx->csum | d) != rx->sum)
            return RSP_RX_BAD_CHECKSUM;
        if (rx->overflow)
            return RSP_RX_OVERSIZED;
        if (rx->bad_rle)
            return RSP_RX_MALFORMED;
        rx->buf[rx->len] = 0;
        return RSP_RX_PACKET;
    }
    return RSP_RX_NONE;
}

/* ---- reply buffer ----------------------------------------------------- */

void rsp_buf_init(struct rsp_buf *b)
{
    memset(b, 0, sizeof(*b));
}

void rsp_buf_free(struct rsp_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

void rsp_buf_clear(struct rsp_buf *b)
{
    b->len = 0;
    b->oom = false;
    if (b->data)
        b->data[0] = 0;
}

bool rsp_buf_reserve(struct rsp_buf *b, size_t n)
{
    size_t need, cap;
    char *p;

    if (b->oom)
        return false;
    need = b->len + n + 1; /* keep a NUL after the data for debugging/printing */
    if (need <= b->cap)
        return true;
    cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    p = realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void rsp_buf_put(struct rsp_buf *b, const void *data, size_t n)
{
    if (!rsp_buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = 0;
}

void rsp_buf_putc(struct rsp_buf *b, char c)
{
    rsp_buf_put(b, &c, 1);
}

void rsp_buf_puts(struct rsp_buf *b, const char *s)
{
    rsp_buf_put(b, s, strlen(s));
}

void rsp_buf_num(struct rsp_buf *b, unsigned long long v, unsigned base)
{
    char digits[24];
    size_t i = sizeof(digits);
    do {
        digits[--i] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    rsp_buf_put(b, digits + i, sizeof(digits) - i);
}

void rsp_buf_printf(struct rsp_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !rsp_buf_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static const char hexdig[] = "0123456789abcdef";

void rsp_buf_hex(struct rsp_buf *b, const uint8_t *data, size_t n)
{
    char *p;

    if (!rsp_buf_reserve(b, 2 * n))
        return;
    p = b->data + b->len;
    for (size_t i = 0; i < n; i++) {
        *p++ = hexdig[data[i] >> 4];
        *p++ = hexdig[data[i] & 15];
    }
    b->len += 2 * n;
    b->data[b->len] = 0;
}

static bool needs_escape(uint8_t c)
{
    return c == '#' || c == '$' || c == '}' || c == '*';
}

void rsp_buf_bin(struct rsp_buf *b, const uint8_t *data, size_t n)
{
    char *p;
    size_t i = 0;

    if (!rsp_buf_reserve(b, 2 * n)) /* worst case: every byte escaped */
        return;
    p = b->data + b->len;
    /* Runs without a byte to escape are copied whole: text (a thread list
     * of megabytes) has almost none. */
    while (i < n) {
        size_t run = i;
        while (run < n && !needs_escape(data[run]))
            run++;
        memcpy(p, data + i, run - i);
        p += run - i;
        if (run == n)
            break;
        *p++ = '}';
        *p++ = (char)(data[run] ^ 0x20);
        i = run + 1;
    }
    b->len = (size_t)(p - b->data);
    b->data[b->len] = 0;
}

void rsp_buf_text(struct rsp_buf *b, const char *s)
{
    for (; *s; s++) {
        uint8_t c = (uint8_t)*s;
        /* '*' would read as run-length, '#'/'$'/'}' as framing; control
         * characters would end up in the user's terminal. */
        rsp_buf_putc(b, needs_escape(c) || c < 0x20 || c > 0x7e ? '?' : (char)c);
    }
}

void rsp_buf_consume(struct rsp_buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        if (b->data)
            b->data[0] = 0;
        return;
    }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
    b->data[b->len] = 0;
}

void rsp_reply_ok(struct rsp_buf *b)
{
    rsp_buf_clear(b);
    rsp_buf_puts(b, "OK");
}

void rsp_reply_empty(struct rsp_buf *b)
{
    rsp_buf_clear(b);
}

void rsp_reply_e01(struct rsp_buf *b)
{
    rsp_buf_clear(b);
    rsp_buf_puts(b, "E01");
}

void rsp_reply_etext(struct rsp_buf *b, const char *text)
{
    rsp_buf_clear(b);
    rsp_buf_puts(b, "E.");
    rsp_buf_text(b, text);
}

void rsp_reply_e02(struct rsp_buf *b, const char *text)
{
    rsp_buf_clear(b);
    rsp_buf_puts(b, "E02");
    /* Newlines separate the per-device lines; GDB prints the text as is,
     * so keep them, but nothing that breaks framing. */
    for (; *text; text++) {
        uint8_t c = (uint8_t)*text;
        rsp_buf_putc(b, c == '\n' ? '\n' : needs_escape(c) || c < 0x20 || c > 0x7e ? '?' : (char)c);
    }
}

uint8_t rsp_checksum(const void *data, size_t n)
{
    const uint8_t *p = data;
    uint8_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += p[i];
    return sum;
}

void rsp_frame(struct rsp_buf *out, const char *payload, size_t len, bool notification)
{
    uint8_t sum = rsp_checksum(payload, len);
    char tail[3] = {'#', hexdig[sum >> 4], hexdig[sum & 15]};

    if (!rsp_buf_reserve(out, len + 4))
        return;
    rsp_buf_putc(out, notification ? '%' : '$');
    rsp_buf_put(out, payload, len);
    rsp_buf_put(out, tail, 3);
}

bool rsp_parse_hex(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    int n = 0, d;

    while (s < end && (d = rsp_hex_digit((unsigned char)*s)) >= 0) {
        if (n == 16)
            return false; /* more than 64 bits */
        v = v << 4 | (uint64_t)d;
        s++;
        n++;
    }
    if (n == 0)
        return false;
    *p = s;
    *out = v;
    return true;
}

bool rsp_hex_decode(const char *hex, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int hi = rsp_hex_digit((unsigned char)hex[2 * i]);
        int lo = rsp_hex_digit((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

size_t rsp_unescape(uint8_t *data, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (data[i] == '}' && i + 1 < n)
            data[o++] = data[++i] ^ 0x20;
        else
            data[o++] = data[i];
    }
    return o;
}
