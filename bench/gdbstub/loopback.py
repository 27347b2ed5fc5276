# SPDX-License-Identifier: MIT
"""In-run baselines: what loopback TCP and this Python client cost with no
server work at all, so zestub's figures read as multiples of them.

A tiny server thread answers every framed request ('$...#xx') with a
fixed reply chosen by the request's first letter: `x` a binary reply of
zeros, `X` every byte value in turn (the four escaped ones included), `m`
a hex reply, each of the data size zestub sends, anything else `OK`. The
round trip uses bare sockets; the bulk passes go through the same
FastClient the benchmark reads zestub with, so they are the ceiling this
client reaches. Samples are taken interleaved with zestub's: an idle
machine wakes a sleeping peer on another CPU several times slower than a
busy one, so a baseline taken apart from the measurement would not be
one."""

import socket
import threading
import time

from fastwire import FastClient
from rspclient import escape, frame

clock = time.perf_counter


class _Answerer(threading.Thread):
    def __init__(self, replies):
        super().__init__(daemon=True)
        self.replies = replies
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(2)
        self.port = self.lsock.getsockname()[1]

    def run(self):
        try:
            for _ in range(2):  # the bare socket, then the client
                conn, _ = self.lsock.accept()
                threading.Thread(target=self.serve, args=(conn,), daemon=True).start()
        except OSError:
            pass  # closed before both connected

    def serve(self, conn):
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = bytearray()
        with conn:
            while True:
                try:
                    data = conn.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                buf += data
                while True:
                    end = buf.find(b"#")
                    if end < 0 or len(buf) < end + 3:
                        break
                    start = buf.find(b"$")
                    kind = buf[start + 1:start + 2] if 0 <= start < end else b""
                    del buf[:end + 3]
                    conn.sendall(self.replies.get(bytes(kind), self.replies[b""]))


def _connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class Loopback:
    def __init__(self, reply_bytes):
        data = bytes(reply_bytes)  # zeros, as most of what zestub reads here
        self.reply_bytes = reply_bytes
        pattern = bytes(range(256)) * (reply_bytes // 256)
        self.srv = _Answerer({b"": frame(b"OK"),
                              b"x": frame(escape(b"b" + data)),
                              b"X": frame(escape(b"b" + pattern)),
                              b"m": frame(data.hex().encode())})
        self.srv.start()
        self.sock = _connect(self.srv.port)
        s = _connect(self.srv.port)
        self.client = FastClient(s.fileno(), s.fileno(), s, timeout=10)
        self.client.noack = True
        self.ok_len = len(frame(b"OK"))

    def rtt(self):
        """One request/reply of a small packet each way, in seconds."""
        t0 = clock()
        self.sock.sendall(b"$qC#b4")
        got = 0
        while got < self.ok_len:
            chunk = self.sock.recv(self.ok_len - got)
            if not chunk:
                raise EOFError("loopback peer closed")
            got += len(chunk)
        return clock() - t0

    def bulk(self, total, kind):
        """Seconds for `total` bytes as replies of `kind` ('x', 'X', 'm')."""
        t0 = clock()
        got = 0
        while got < total:
            if kind != "m":
                got += len(self.client.request("%s0,%x" % (kind, self.reply_bytes))) - 1
            else:
                got += len(bytes.fromhex(self.client.req("m0,%x" % self.reply_bytes)))
        return clock() - t0

    def close(self):
        self.client.close()
        self.sock.close()
        self.srv.lsock.close()
