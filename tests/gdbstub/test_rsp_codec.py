#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Framing against the mock server: acks, retransmission, bad checksums,
run-length, escapes, oversized and malformed packets, junk, ^C, unknown
packets, no-ack mode. After every abuse the server must still answer."""
import os
import sys

sys.dont_write_bytecode = True  # the source tree may be read-only (distcheck)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mock_server import Server  # noqa: E402
from rspclient import checksum, escape, frame  # noqa: E402
from tap import Tap  # noqa: E402

PACKET_SIZE = 0x10000

t = Tap(49)  # the plan: every check this test makes
srv = Server("--attach", "0x1234", comm=":0")
c = srv.connect()


def alive(what):
    t.eq(c.req("qAttached:1"), "1", "still serving after " + what)


t.eq(c.req("qAttached"), "1", "plain request, acked")
# The server's '+' for the request was taken by send(), so none is left
# over for read_packet to record, and our '+' stopped any retransmission.
t.eq(c.acks, [], "acks consumed")
t.eq(c.pending(0.2), b"", "no stray ack or retransmission after the reply")

# A bad checksum is answered '-' and nothing else; the resend works.
c.write_raw(b"$qAttached#00")
t.eq(c.read_byte(), ord("-"), "bad checksum -> '-'")
t.eq(c.pending(0.2), b"", "no reply to a packet with a bad checksum")
alive("bad checksum")

# Non-hex checksum digits.
c.write_raw(b"$qAttached#zz")
t.eq(c.read_byte(), ord("-"), "non-hex checksum -> '-'")
alive("non-hex checksum")

# Our '-' makes the server retransmit its last reply.
c.send("qAttached:2")
p, _ = c.read_packet(ack=False)
c.write_raw(b"-")
p2, _ = c.read_packet(ack=False)
c.write_raw(b"+")
t.ok(p == b"1" and p2 == b"1", "'-' from the client -> the reply is sent again")

# Run-length encoded request: "m10000,4" as "m10* ,4" ('0' four times).
raw = b"m10* ,4"
c.write_raw(b"$" + raw + b"#%02x" % checksum(raw))
t.eq(c.read_byte(), ord("+"), "run-length packet acked")
# Hg is p2.1 (the attach stop); device 2's memory holds (offset ^ 2).
t.eq(c.recv(), b"02030001", "run-length packet decoded (m10000,4)")
# '*' with nothing before it: malformed, answered, stream in sync.
raw = b"* m"
c.write_raw(b"$" + raw + b"#%02x" % checksum(raw))
t.eq(c.read_byte(), ord("+"), "malformed run-length: acked (checksum was right)")
t.eq(c.recv(), b"E.malformed packet", "malformed run-length -> E.malformed packet")
alive("malformed run-length")

# Binary escapes: write bytes that need escaping with X, read them with x.
data = bytes([0x23, 0x24, 0x7D, 0x2A, 0x00, 0x03, 0xFF, 0x41])
t.eq(c.req(b"X10100,8:" + escape(data)), "OK", "X with escaped #$}* bytes")
r = c.request("x10100,8")
t.eq(r, b"b" + data, "x returns the same bytes (unescaped by the client)")
t.eq(c.req("m10100,8"), data.hex(), "m agrees, lowercase hex")

# Oversized: longer than PacketSize, checksum fine -> error, then in sync.
big = b"X10000,0:" + b"A" * (PACKET_SIZE + 100)
c.write_raw(frame(big))
t.eq(c.read_byte(), ord("+"), "oversized packet acked")
t.eq(c.recv(), b"E.packet too long", "oversized packet -> E.packet too long")
alive("an oversized packet")
# Exactly at the limit is fine (an M of 0x7ff8 bytes).
n = (PACKET_SIZE - 20) // 2
pkt = ("M10000,%x:" % n).encode() + b"ab" * n
t.ok(len(pkt) <= PACKET_SIZE, "limit-sized packet fits (%d)" % len(pkt))
t.eq(c.req(pkt), "OK", "a packet just under PacketSize is served")

# Junk between packets and a '$' restarting a packet.
c.write_raw(b"garbage\r\n")
alive("junk between packets")
c.write_raw(b"$qAtt")
t.eq(c.req("qAttached"), "1", "'$' inside a packet restarts it")

# ^C while stopped: ignored, no reply.
c.interrupt()
t.eq(c.pending(0.2), b"", "^C while stopped: no reply")
alive("^C while stopped")

# Unknown packets -> empty reply.
for pkt in ("qFooBar", "vMustReplyEmpty", "qCRC:0,0", "Z1,10000,1", "qC1", "vCont",
            "qXfer:siginfo:read::0,100", "bc", "gx"):
    t.eq(c.req(pkt), "", "unknown packet %s -> empty reply" % pkt)
t.eq(c.req(""), "", "empty packet -> empty reply")

# Splitting a packet over many writes.
for b in frame(b"qAttached"):
    c.write_raw(bytes([b]))
t.eq(c.read_byte(), ord("+"), "byte-by-byte packet acked")
t.eq(c.recv(), b"1", "byte-by-byte packet answered")

# Two packets in one write.
c.write_raw(frame(b"qAttached") + frame(b"qAttached:2"))
c.acks = []
got = [c.recv(), c.recv()]
t.eq(c.acks, ["+", "+"], "both acked")
t.eq(got, [b"1", b"1"], "two packets in one write, two replies")

# No-ack mode.
t.eq(c.start_noack(), "OK", "QStartNoAckMode -> OK")
c.write_raw(b"+")  # GDB's last ack
c.write_raw(frame(b"qAttached"))
r = c.pending(0.3)
t.ok(r.startswith(b"$1#") and b"+" not in r, "no-ack: reply without '+'", r)
c.write_raw(b"$qAttached#00")
t.eq(c.pending(0.2), b"", "no-ack: bad checksum dropped silently")
t.eq(c.req("qAttached"), "1", "no-ack: still serving")
t.eq(c.req(b"X10200,4:" + escape(b"}}##")), "OK", "no-ack: escaped X")
t.eq(c.request("x10200,4"), b"b}}##", "no-ack: x")

c.close()
t.ok(srv.wait() is None, "server keeps listening after the client left (no --once)")
t.ok("client gone" in srv.stderr(), "client_gone called on disconnect", srv.stderr())
srv.proc.terminate()
srv.wait()
clean, err = srv.sanitizer_clean()
t.ok(clean, "no sanitizer report", err)
srv.stop()
sys.exit(t.done())
