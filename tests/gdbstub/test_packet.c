/* SPDX-License-Identifier: MIT */
/* The RSP codec on its own: the receive state machine over a byte stream
 * holding every kind of input (acks, ^C, junk, escapes, run-length, bad
 * checksums, oversized and restarted packets, notifications), fed whole and
 * split at every one and every pair of boundaries; the encoders; dispatch
 * lookup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/dispatch.h"
#include "gdbstub/packet.h"
#include "tests/lib/tap.h"

#define CAP 64 /* a small limit so that "oversized" is cheap to build */

struct ev {
    enum rsp_rx_event e;
    char payload[CAP + 1];
    size_t len;
    int notification;
};

struct log {
    struct ev ev[64];
    size_t n;
};

static void feed(struct rsp_rx *rx, const uint8_t *p, size_t n, struct log *l)
{
    for (size_t i = 0; i < n; i++) {
        enum rsp_rx_event e = rsp_rx_feed(rx, p[i]);
        if (e == RSP_RX_NONE || l->n == 64)
            continue;
        l->ev[l->n].e = e;
        l->ev[l->n].len = 0;
        if (e == RSP_RX_PACKET) {
            memcpy(l->ev[l->n].payload, rx->buf, rx->len + 1);
            l->ev[l->n].len = rx->len;
            l->ev[l->n].notification = rx->notification;
        }
        l->n++;
    }
}

static int same(const struct log *a, const struct log *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->ev[i].e != b->ev[i].e || a->ev[i].len != b->ev[i].len ||
            memcmp(a->ev[i].payload, b->ev[i].payload, a->ev[i].len) != 0 ||
            a->ev[i].notification != b->ev[i].notification)
            return 0;
    return 1;
}

/* Appends a framed packet with a correct (or deliberately wrong) checksum. */
static size_t put(uint8_t *out, size_t o, const char *raw, size_t n, int bad)
{
    uint8_t sum = rsp_checksum(raw, n);
    o += (size_t)sprintf((char *)out + o, "$");
    memcpy(out + o, raw, n);
    o += n;
    o += (size_t)sprintf((char *)out + o, "#%02x", (unsigned)(uint8_t)(sum + (bad ? 1 : 0)));
    return o;
}

int main(void)
{
    tap_plan(43);
    static uint8_t stream[2048];
    size_t n = 0;
    struct rsp_rx rx;
    struct log whole, split;
    char big[CAP + 10];

    if (rsp_rx_init(&rx, CAP) < 0)
        tap_bail("out of memory");

    /* The stream and, in comments, what each piece must produce. */
    stream[n++] = '+';                                   /* ACK */
    stream[n++] = '-';                                   /* NACK */
    stream[n++] = 0x03;                                  /* INTERRUPT */
    memcpy(stream + n, "junk\r\n", 6), n += 6;           /* nothing */
    n = put(stream, n, "qSupported", 10, 0);             /* PACKET qSupported */
    n = put(stream, n, "X0,4:}\x03}\x04}]}\x0a", 13, 0); /* PACKET X0,4:#$}* */
    n = put(stream, n, "m10* ,4", 7, 0);                 /* PACKET m10000,4 (run-length) */
    n = put(stream, n, "qAttached", 9, 1);               /* BAD_CHECKSUM */
    stream[n++] = 0x03;                                  /* INTERRUPT */
    memset(big, 'A', sizeof(big));
    n = put(stream, n, big, sizeof(big), 0);       /* OVERSIZED */
    n = put(stream, n, "* x", 3, 0);               /* MALFORMED (nothing to repeat) */
    memcpy(stream + n, "$qAb", 4), n += 4;         /* abandoned: restarted by the next '$' */
    n = put(stream, n, "g", 1, 0);                 /* PACKET g */
    memcpy(stream + n, "%Stop:T05#", 10), n += 10; /* notification */
    {
        uint8_t s = rsp_checksum("Stop:T05", 8);
        n += (size_t)sprintf((char *)stream + n, "%02x", s); /* PACKET (notification) */
    }
    memcpy(stream + n, "$g#g7", 5), n += 5; /* BAD_CHECKSUM (non-hex digit) */
    n = put(stream, n, "", 0, 0);           /* PACKET "" */
    n = put(stream, n, "a*\"", 3, 0);       /* PACKET "aaaaaa": '"' = 34 = 5 more */

    memset(&whole, 0, sizeof(whole));
    feed(&rx, stream, n, &whole);
    {
        static const enum rsp_rx_event want[] = {
            RSP_RX_ACK,          RSP_RX_NACK,      RSP_RX_INTERRUPT,    RSP_RX_PACKET,
            RSP_RX_PACKET,       RSP_RX_PACKET,    RSP_RX_BAD_CHECKSUM, RSP_RX_INTERRUPT,
            RSP_RX_OVERSIZED,    RSP_RX_MALFORMED, RSP_RX_PACKET,       RSP_RX_PACKET,
            RSP_RX_BAD_CHECKSUM, RSP_RX_PACKET,    RSP_RX_PACKET,
        };
        size_t nw = sizeof(want) / sizeof(want[0]);
        int good = whole.n == nw;
        for (size_t i = 0; good && i < nw; i++)
            good = whole.ev[i].e == want[i];
        tap_ok(good, "event sequence of the whole stream (%zu events)", whole.n);
        if (!good)
            for (size_t i = 0; i < whole.n; i++)
                tap_diag("event %zu: %d", i, (int)whole.ev[i].e);
    }
    tap_ok(whole.n > 3 && strcmp(whole.ev[3].payload, "qSupported") == 0, "plain packet");
    tap_ok(whole.n > 4 && whole.ev[4].len == 9 && memcmp(whole.ev[4].payload, "X0,4:#$}*", 9) == 0,
           "escapes undone: X0,4:#$}*");
    tap_ok(whole.n > 5 && strcmp(whole.ev[5].payload, "m10000,4") == 0, "run-length expanded");
    tap_ok(whole.n > 10 && strcmp(whole.ev[10].payload, "g") == 0,
           "a '$' inside a packet restarts it");
    tap_ok(whole.n > 11 && whole.ev[11].notification &&
               strcmp(whole.ev[11].payload, "Stop:T05") == 0,
           "notification framing");
    tap_ok(whole.n > 13 && whole.ev[13].len == 0, "empty packet");
    tap_ok(whole.n > 14 && strcmp(whole.ev[14].payload, "aaaaaa") == 0, "run-length count 34-29");
    tap_ok(rx.state == RSP_RX_IDLE, "idle at the end");

    /* Every split point, then every pair: the machine keeps its state
     * across calls, so chunking must not matter. */
    {
        int bad1 = 0, bad2 = 0;
        for (size_t i = 0; i <= n; i++) {
            rsp_rx_reset(&rx);
            memset(&split, 0, sizeof(split));
            feed(&rx, stream, i, &split);
            feed(&rx, stream + i, n - i, &split);
            bad1 += !same(&whole, &split);
        }
        for (size_t i = 0; i <= n; i += 1)
            for (size_t j = i; j <= n; j += 3) {
                rsp_rx_reset(&rx);
                memset(&split, 0, sizeof(split));
                feed(&rx, stream, i, &split);
                feed(&rx, stream + i, j - i, &split);
                feed(&rx, stream + j, n - j, &split);
                bad2 += !same(&whole, &split);
            }
        tap_ok(bad1 == 0, "split at each of %zu boundaries: same events (%d differ)", n + 1, bad1);
        tap_ok(bad2 == 0, "split in three at many boundary pairs: same events (%d differ)", bad2);
    }

    /* A packet of exactly CAP bytes fits; CAP+1 does not. */
    {
        char exact[CAP + 1];
        uint8_t s[CAP + 16];
        size_t k;
        struct log l;
        memset(exact, 'b', sizeof(exact));
        rsp_rx_reset(&rx);
        memset(&l, 0, sizeof(l));
        k = put(s, 0, exact, CAP, 0);
        feed(&rx, s, k, &l);
        tap_ok(l.n == 1 && l.ev[0].e == RSP_RX_PACKET && l.ev[0].len == CAP,
               "a packet of exactly the limit is accepted");
        memset(&l, 0, sizeof(l));
        k = put(s, 0, exact, CAP + 1, 0);
        feed(&rx, s, k, &l);
        tap_ok(l.n == 1 && l.ev[0].e == RSP_RX_OVERSIZED, "one byte more is oversized");
        memset(&l, 0, sizeof(l));
        k = put(s, 0, "a*~", 3, 0); /* run-length past the limit */
        feed(&rx, s, k, &l);
        tap_ok(l.n == 1 && l.ev[0].e == RSP_RX_OVERSIZED, "run-length beyond the limit: oversized");
        memset(&l, 0, sizeof(l));
        k = put(s, 0, "a*\x1f", 3, 0); /* count below 3 */
        feed(&rx, s, k, &l);
        tap_ok(l.n == 1 && l.ev[0].e == RSP_RX_MALFORMED, "run-length count < 3: malformed");
        memset(&l, 0, sizeof(l));
        feed(&rx, (const uint8_t *)"$ab}#", 5, &l);
        k = (size_t)sprintf((char *)s, "%02x", rsp_checksum("ab}", 3));
        feed(&rx, s, k, &l);
        tap_ok(l.n == 1 && l.ev[0].e == RSP_RX_MALFORMED, "escape before '#': malformed");
        memset(&l, 0, sizeof(l));
        feed(&rx, (const uint8_t *)"$ab#1$g#67", 10, &l);
        tap_ok(l.n == 2 && l.ev[0].e == RSP_RX_BAD_CHECKSUM && l.ev[1].e == RSP_RX_PACKET,
               "truncated checksum then a new packet");
        memset(&l, 0, sizeof(l));
        feed(&rx, (const uint8_t *)"$g#67\x03", 6, &l);
        tap_ok(l.n == 2 && l.ev[1].e == RSP_RX_INTERRUPT, "^C right after a packet");
        memset(&l, 0, sizeof(l));
        feed(&rx, (const uint8_t *)"$X\x03#", 4, &l);
        k = (size_t)sprintf((char *)s, "%02x", rsp_checksum("X\x03", 2));
        feed(&rx, s, k, &l);
        tap_ok(l.n == 1 && l.ev[0].e == RSP_RX_PACKET && l.ev[0].payload[1] == 3,
               "0x03 inside a packet is data, not an interrupt");
        /* GDB escapes only # $ } * in binary data: its `set {int}A=0x25252525`
         * sends "X...,4:%%%%" with every '%' raw. Only a stub sends
         * notifications, so inside a packet '%' is data. */
        memset(&l, 0, sizeof(l));
        k = put(s, 0, "X0,4:%%%%", 9, 0);
        feed(&rx, s, k, &l);
        tap_ok(l.n == 1 && l.ev[0].e == RSP_RX_PACKET && l.ev[0].len == 9 &&
                   memcmp(l.ev[0].payload, "X0,4:%%%%", 9) == 0 && !l.ev[0].notification,
               "raw '%%' bytes inside a packet are data (GDB does not escape them)");
        memset(&l, 0, sizeof(l));
        k = put(s, 0, "X0,3:}%%*%", 10, 0); /* escaped '%', a '%' then '*%': 8 more */
        feed(&rx, s, k, &l);
        tap_ok(l.n == 1 && l.ev[0].e == RSP_RX_PACKET && l.ev[0].len == 15 &&
                   memcmp(l.ev[0].payload, "X0,3:\x05%%%%%%%%%", 15) == 0,
               "'%%' after an escape or as a run-length count is data too");
        memset(&l, 0, sizeof(l));
        feed(&rx, (const uint8_t *)"$ab#%", 5, &l);
        feed(&rx, (const uint8_t *)"1$g#67", 6, &l);
        tap_ok(l.n == 2 && l.ev[0].e == RSP_RX_BAD_CHECKSUM && l.ev[1].e == RSP_RX_PACKET &&
                   !l.ev[1].notification,
               "'%%' in a checksum is a bad digit, not a new packet");
    }

    /* encoders */
    {
        struct rsp_buf b;
        static const uint8_t bin[] = {'#', '$', '}', '*', 0, 'a'};
        uint8_t dec[16];
        const char *p, *h = "1f,zz";
        uint64_t v;

        rsp_buf_init(&b);
        rsp_buf_hex(&b, (const uint8_t *)"\xab\x01\xff", 3);
        tap_ok(strcmp(b.data, "ab01ff") == 0, "hex is lowercase");
        rsp_buf_clear(&b);
        rsp_buf_bin(&b, bin, sizeof(bin));
        tap_ok(b.len == 10 && memcmp(b.data, "}\x03}\x04}]}\x0a\0a", 10) == 0,
               "binary escaping of # $ } *");
        memcpy(dec, b.data, b.len);
        tap_ok(rsp_unescape(dec, b.len) == sizeof(bin) && memcmp(dec, bin, sizeof(bin)) == 0,
               "unescape round trip");
        rsp_buf_clear(&b);
        rsp_frame(&b, "OK", 2, false);
        tap_ok(strcmp(b.data, "$OK#9a") == 0, "frame $OK#9a");
        rsp_buf_clear(&b);
        rsp_frame(&b, "Stop:T05", 8, true);
        tap_ok(b.data[0] == '%', "notification frame starts with %%");
        rsp_reply_etext(&b, "bad $thing# at *x}\n");
        tap_ok(strcmp(b.data, "E.bad ?thing? at ?x??") == 0, "E.text sanitised: %s", b.data);
        rsp_reply_e02(&b, "Failed.\nDevice 1 [x] : attempting to attach too early");
        tap_ok(strncmp(b.data, "E02Failed.\nDevice 1", 19) == 0, "E02 keeps newlines");
        rsp_reply_e01(&b);
        tap_ok(strcmp(b.data, "E01") == 0, "E01");
        rsp_reply_ok(&b);
        tap_ok(strcmp(b.data, "OK") == 0, "OK");
        rsp_reply_empty(&b);
        tap_ok(b.len == 0, "empty reply");
        rsp_buf_free(&b);

        p = h;
        tap_ok(rsp_parse_hex(&p, h + 5, &v) && v == 0x1f && *p == ',', "parse hex");
        p = h + 3;
        tap_ok(!rsp_parse_hex(&p, h + 5, &v) && p == h + 3, "parse hex rejects non-hex");
        p = "11111111111111111";
        tap_ok(!rsp_parse_hex(&p, p + 17, &v), "parse hex rejects more than 64 bits");
        tap_ok(rsp_hex_decode("00ff", 2, dec) && dec[1] == 0xff && !rsp_hex_decode("0g", 1, dec),
               "hex decode");
    }

    /* dispatch lookup: longest prefix, exact entries */
    {
        const struct rsp_dispatch_entry *e;
        e = rsp_dispatch_lookup("qXfer:features:read:target.xml:0,10", 34);
        tap_ok(e && strcmp(e->handler_name, "rsp_h_xfer_features") == 0, "qXfer:features");
        e = rsp_dispatch_lookup("vCont?", 6);
        tap_ok(e && strcmp(e->handler_name, "rsp_h_vcont_query") == 0, "vCont? vs vCont;");
        e = rsp_dispatch_lookup("vCont;c", 7);
        tap_ok(e && strcmp(e->handler_name, "rsp_h_vcont") == 0, "vCont;");
        tap_ok(rsp_dispatch_lookup("qCRC:0,1", 8) == NULL, "qC is exact: qCRC is unknown");
        tap_ok(rsp_dispatch_lookup("vContX", 6) == NULL, "vContX is unknown");
        e = rsp_dispatch_lookup("D;1", 3);
        tap_ok(e && strcmp(e->handler_name, "rsp_h_detach") == 0, "D;1");
        tap_ok(rsp_dispatch_lookup("gg", 2) == NULL, "g is exact");
    }
    rsp_rx_free(&rx);
    return tap_done() ? 1 : 0;
}
