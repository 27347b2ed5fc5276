#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A client that pipelines requests and does not read its replies: the
server stops reading its input while the output queued for it is above a
bound, so its resident memory stays bounded; once the client reads, every
reply arrives intact and in order. Over TCP (3,000 `m` requests of 0x8000
bytes, 196 MB of replies) and over stdio (separate input and output
descriptors, the same requests)."""
import os
import select
import socket
import sys
import threading
import time

sys.dont_write_bytecode = True  # the source tree may be read-only (distcheck)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mock_server import Server  # noqa: E402
from rspclient import checksum, frame  # noqa: E402
from tap import Tap  # noqa: E402

MB = 1 << 20
GROWTH_LIMIT = 64 * MB
CHUNK = 0x8000  # bytes per m request: 0x10000 hex digits, the PacketSize
t = Tap(19)  # the plan: every check this test makes


def status_kb(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def offset(k):
    """Request k reads at 0x10000 + offset(k): neighbours differ, so a reply
    out of order shows."""
    return (k * 11) % 0x8000


_expected = {}


def expected(off):
    """The mock's device 1 memory: byte i of 0x10000.. is i ^ 1."""
    key = off % 256
    if key not in _expected:
        _expected[key] = bytes(((off + i) ^ 1) & 0xFF for i in range(CHUNK)).hex().encode()
    return _expected[key]


def requests(n):
    return b"".join(frame(b"m%x,%x" % (0x10000 + offset(k), CHUNK)) for k in range(n))


def write_all(fd, data):
    """In a thread: the server may stop reading before all is written."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def watch_growth(pid, base_kb, seconds):
    """The largest resident size above base_kb while the server sits on a
    client that does not read (stops early once past the limit)."""
    deadline = time.monotonic() + seconds
    worst = 0
    while time.monotonic() < deadline:
        worst = max(worst, status_kb(pid, "VmHWM") - base_kb, status_kb(pid, "VmRSS") - base_kb)
        if worst * 1024 > GROWTH_LIMIT:
            break
        time.sleep(0.05)
    return worst * 1024


def read_replies(rfd, n, timeout):
    """Reads n '$...#hh' replies from the raw stream (no acks: no-ack mode)
    and checks each against what request k asked for; returns (good, what
    went wrong)."""
    buf = bytearray()
    k = 0
    deadline = time.monotonic() + timeout
    while k < n:
        start = buf.find(b"$")
        end = buf.find(b"#", start + 1) if start >= 0 else -1
        if start < 0 or end < 0 or len(buf) < end + 3:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([rfd], [], [], left)[0]:
                return k, "timed out after %d replies" % k
            chunk = os.read(rfd, 1 << 20)
            if not chunk:
                return k, "the server closed the connection after %d replies" % k
            buf += chunk
            continue
        if start != 0:
            return k, "bytes outside a frame before reply %d: %r" % (k, bytes(buf[:start][:40]))
        payload = bytes(buf[1:end])
        if int(buf[end + 1:end + 3], 16) != checksum(payload):
            return k, "bad checksum on reply %d" % k
        if payload != expected(offset(k)):
            return k, "reply %d is not the memory it asked for: %r" % (k, payload[:40])
        del buf[:end + 3]
        k += 1
    return k, None


def session(tag, srv, c, rfd, wfd, n):
    t.eq(c.req("qSupported:swbreak+;multi-address-space+")[:10], "PacketSize",
         "%s: qSupported" % tag)
    t.eq(c.req("Hgp1.1"), "OK", "%s: Hg p1.1" % tag)
    t.eq(c.req("m10000,4"), "01000302", "%s: the mock's memory" % tag)
    t.eq(c.start_noack(), "OK", "%s: no-ack mode" % tag)
    base = status_kb(srv.proc.pid, "VmRSS")
    writer = threading.Thread(target=write_all, args=(wfd, requests(n)), daemon=True)
    writer.start()
    grew = watch_growth(srv.proc.pid, base, 3.0)
    t.ok(grew < GROWTH_LIMIT, "%s: %d pipelined m,%x requests nobody reads: the server grew "
         "%.1f MB (limit %d MB)" % (tag, n, CHUNK, grew / MB, GROWTH_LIMIT // MB))
    got, why = read_replies(rfd, n, 120)
    t.ok(why is None, "%s: then every reply arrives intact and in order (%d of %d)"
         % (tag, got, n), why)
    writer.join(10)
    t.ok(not writer.is_alive(), "%s: the server read every request" % tag)
    t.eq(c.req("m10000,4"), "01000302", "%s: the connection still serves" % tag)


srv = Server("--attach", "0x1234", comm=":0")
c = srv.connect()
c.sock.settimeout(None)
session("tcp", srv, c, c.rfd, c.wfd, 3000)
c.sock.shutdown(socket.SHUT_RDWR)
c.close()

stdio = Server("--attach", "0x1234", comm="-")
c = stdio.connect()
session("stdio", stdio, c, c.rfd, c.wfd, 3000)
stdio.proc.stdin.close()
t.ok(stdio.wait(10) is not None, "stdio: the server ends with its input")

for s in (srv, stdio):
    s.proc.terminate()
    s.wait()
    clean, err = s.sanitizer_clean()
    t.ok(clean, "no sanitizer report", err)
    s.stop()
sys.exit(t.done())
