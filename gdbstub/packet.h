/* SPDX-License-Identifier: MIT */
/* RSP packet codec: the receive state machine (framing, escapes, run-length,
 * checksums, out-of-band bytes), the growable reply buffer with its hex and
 * binary encoders, and framing of outgoing packets. No I/O, no target. */
#ifndef ZESTUB_GDBSTUB_PACKET_H
#define ZESTUB_GDBSTUB_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest packet payload we accept (announced as PacketSize). A `g` reply
 * for 256 x 512-bit GRF is 32768 hex digits; with every other register set
 * of a PVC-class thread it is 34696 (gdbserver-ze's 0x87a7 leaves 31 bytes
 * to spare). 0x10000 leaves room for larger ARF sets and makes bulk memory
 * transfers twice as long per round trip. */
#define RSP_PACKET_SIZE 0x10000

/* The receive states, one per position in "$payload#hh". */
enum rsp_rx_state {
    RSP_RX_IDLE = 0, /* between packets: acks, ^C, junk */
    RSP_RX_PAYLOAD,  /* after '$' or '%' */
    RSP_RX_ESCAPE,   /* after '}': next byte ^ 0x20 */
    RSP_RX_RLE,      /* after '*': next byte is the repeat count + 29 */
    RSP_RX_CSUM_HI,  /* after '#' */
    RSP_RX_CSUM_LO,
};

/* What one byte completed. */
enum rsp_rx_event {
    RSP_RX_NONE = 0,     /* nothing yet */
    RSP_RX_PACKET,       /* a packet with a good checksum: rsp_rx.buf/len */
    RSP_RX_BAD_CHECKSUM, /* dropped: the sender should retransmit ('-') */
    RSP_RX_OVERSIZED,    /* checksum good but longer than the limit: dropped */
    RSP_RX_MALFORMED,    /* checksum good but the run-length encoding is not */
    RSP_RX_ACK,          /* '+' between packets */
    RSP_RX_NACK,         /* '-' between packets */
    RSP_RX_INTERRUPT,    /* 0x03 between packets */
};

struct rsp_rx {
    enum rsp_rx_state state;
    uint8_t *buf; /* decoded payload, NUL-terminated when complete */
    size_t len, cap;
    uint8_t sum;        /* running checksum of the raw bytes */
    uint8_t csum;       /* the received checksum's high nibble */
    bool notification;  /* the packet started with '%' */
    bool overflow;      /* decoded length went past cap */
    bool bad_rle;       /* '*' with nothing to repeat or a bad count */
    bool csum_bad_char; /* a non-hex checksum digit */
    uint64_t junk;      /* bytes ignored between packets (diagnostics) */
};

/* cap: the largest payload accepted (RSP_PACKET_SIZE). -ENOMEM or 0. */
int rsp_rx_init(struct rsp_rx *rx, size_t cap);
void rsp_rx_free(struct rsp_rx *rx);
/* Back to IDLE, dropping any partial packet. */
void rsp_rx_reset(struct rsp_rx *rx);
/* Feeds one byte. After RSP_RX_PACKET the payload stays valid until the
 * next call. */
enum rsp_rx_event rsp_rx_feed(struct rsp_rx *rx, uint8_t byte);

/* A growable byte buffer for replies. Allocation failures are sticky
 * (oom), so builders need not check every append. */
struct rsp_buf {
    char *data;
    size_t len, cap;
    bool oom;
};

void rsp_buf_init(struct rsp_buf *b);
void rsp_buf_free(struct rsp_buf *b);
void rsp_buf_clear(struct rsp_buf *b);
/* Ensures room for n more bytes; false when out of memory. */
bool rsp_buf_reserve(struct rsp_buf *b, size_t n);
void rsp_buf_put(struct rsp_buf *b, const void *data, size_t n);
void rsp_buf_putc(struct rsp_buf *b, char c);
void rsp_buf_puts(struct rsp_buf *b, const char *s);
void rsp_buf_printf(struct rsp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A number in base 10 or 16 (lowercase, no leading zeros): what
 * rsp_buf_printf("%llu" / "%llx") writes, without its cost on lists that
 * put tens of thousands of numbers in a row. */
void rsp_buf_num(struct rsp_buf *b, unsigned long long v, unsigned base);
/* Lowercase hex of bytes, two digits each. */
void rsp_buf_hex(struct rsp_buf *b, const uint8_t *data, size_t n);
/* Binary data with '#', '$', '}' and '*' escaped as '}' (c ^ 0x20). */
void rsp_buf_bin(struct rsp_buf *b, const uint8_t *data, size_t n);
/* Characters that must not appear raw in a text reply replaced by '?'. */
void rsp_buf_text(struct rsp_buf *b, const char *s);
/* Removes the first n bytes (the written part of an output queue). */
void rsp_buf_consume(struct rsp_buf *b, size_t n);

/* Reply builders (the whole payload). */
void rsp_reply_ok(struct rsp_buf *b);
void rsp_reply_empty(struct rsp_buf *b);
void rsp_reply_e01(struct rsp_buf *b);
/* "E.<text>": an ordinary failure with a message. */
void rsp_reply_etext(struct rsp_buf *b, const char *text);
/* "E02<text>": Intel's GDB aborts on E>=02, so only attach failures use it. */
void rsp_reply_e02(struct rsp_buf *b, const char *text);

/* Appends "$payload#hh" (or "%payload#hh"); the payload must already be
 * escaped where it carries binary data. */
void rsp_frame(struct rsp_buf *out, const char *payload, size_t len, bool notification);
uint8_t rsp_checksum(const void *data, size_t n);

/* ---- parsing helpers (payloads are length-delimited, not C strings) --- */
int rsp_hex_digit(int c); /* -1 when not hex */
/* Reads hex digits from *p (at most 16), advancing it; false when none. */
bool rsp_parse_hex(const char **p, const char *end, uint64_t *out);
/* Decodes 2n hex digits into n bytes; false on a bad digit. */
bool rsp_hex_decode(const char *hex, size_t n, uint8_t *out);
/* Undoes '}' escaping in place; returns the new length. For payloads that
 * bypassed the decoder (tests); the receive machine already unescapes. */
size_t rsp_unescape(uint8_t *data, size_t n);

#endif
