# SPDX-License-Identifier: MIT
"""A small GDB remote-serial-protocol client for tests (Python 3 stdlib).

Framing, checksums, acks and retransmission, no-ack mode, run-length and
binary-escape decoding, console (O) output, ^C. Used by the tests of
tests/gdbstub (against rsp_mock_server), by harness.py (against zestub)
and by bench/."""

import os
import select
import socket
import time


def checksum(data: bytes) -> int:
    return sum(data) & 0xFF


def escape(data: bytes) -> bytes:
    out = bytearray()
    for b in data:
        if b in b"#$}*":
            out += bytes([0x7D, b ^ 0x20])
        else:
            out.append(b)
    return bytes(out)


def frame(payload: bytes, notification=False) -> bytes:
    return (b"%" if notification else b"$") + payload + b"#%02x" % checksum(payload)


def decode_payload(raw: bytes) -> bytes:
    """Undoes run-length encoding and '}' escapes of a received payload."""
    out = bytearray()
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == 0x7D and i + 1 < len(raw):
            out.append(raw[i + 1] ^ 0x20)
            i += 2
        elif c == 0x2A and i + 1 < len(raw) and out:
            out += bytes([out[-1]]) * (raw[i + 1] - 29)
            i += 2
        else:
            out.append(c)
            i += 1
    return bytes(out)


class RSPError(Exception):
    pass


class Client:
    """One connection. read/write callables carry the bytes."""

    def __init__(self, rfile_fd, wfile_fd, sock=None, timeout=10.0):
        self.rfd = rfile_fd
        self.wfd = wfile_fd
        self.sock = sock
        self.timeout = timeout
        self.buf = bytearray()
        self.notifs = []  # %Stop... payloads received while waiting for replies
        self.noack = False
        self.console = []  # text of O packets
        self.acks = []  # '+'/'-' seen from the server

    @classmethod
    def tcp(cls, port, host="127.0.0.1", timeout=10.0):
        s = socket.create_connection((host, port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(s.fileno(), s.fileno(), s, timeout)

    @classmethod
    def unix(cls, path, timeout=10.0):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        return cls(s.fileno(), s.fileno(), s, timeout)

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None

    # ---- bytes ----
    def write_raw(self, data: bytes):
        view = memoryview(data)
        while view:
            n = os.write(self.wfd, view)
            view = view[n:]

    def _fill(self, timeout):
        r, _, _ = select.select([self.rfd], [], [], timeout)
        if not r:
            return False
        data = os.read(self.rfd, 65536)
        if not data:
            raise EOFError("server closed the connection")
        self.buf += data
        return True

    def read_byte(self, timeout=None):
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while not self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not self._fill(left):
                raise TimeoutError("no data from server")
        b = self.buf[0]
        del self.buf[0]
        return b

    def pending(self, wait=0.2):
        """Bytes that arrive within `wait` seconds (for "no reply" checks)."""
        try:
            self._fill(wait)
        except EOFError:
            pass
        data = bytes(self.buf)
        self.buf.clear()
        return data

    # ---- packets ----
    def read_packet(self, timeout=None, ack=True):
        """Returns (payload, notification). Acks in ack mode; '+'/'-' and
        other bytes between packets are recorded or skipped."""
        while True:
            c = self.read_byte(timeout)
            if c in (0x24, 0x25):
                break
            if c in (0x2B, 0x2D):
                self.acks.append(chr(c))
        notification = c == 0x25
        raw = bytearray()
        while True:
            c = self.read_byte(timeout)
            if c == 0x23:
                break
            raw.append(c)
        cs = bytes([self.read_byte(timeout), self.read_byte(timeout)])
        good = int(cs, 16) == checksum(raw)
        if not self.noack and ack and not notification:
            try:
                self.write_raw(b"+" if good else b"-")
            except (BrokenPipeError, ConnectionResetError):
                # The server may close right after its last reply (monitor
                # exit, --once): the packet is what matters, as for GDB.
                pass
        if not good:
            raise RSPError("bad checksum from server")
        return decode_payload(bytes(raw)), notification

    def send(self, payload, expect_ack=True):
        if isinstance(payload, str):
            payload = payload.encode("latin-1")
        pkt = frame(payload)
        for _ in range(5):
            self.write_raw(pkt)
            if self.noack or not expect_ack:
                return
            while True:
                c = self.read_byte()
                if c == 0x2B:
                    return
                if c == 0x2D:
                    break  # retransmit
        raise RSPError("packet not acknowledged")

    def recv(self, timeout=None):
        """The next reply, with console output (O packets) collected."""
        while True:
            p, notif = self.read_packet(timeout)
            if notif:
                self.notifs.append(p)
                continue
            if p.startswith(b"O") and p != b"OK" and all(
                    chr(x) in "0123456789abcdef" for x in p[1:]):
                self.console.append(bytes.fromhex(p[1:].decode()).decode())
                continue
            return p

    def notification(self, timeout=None):
        """The next notification (non-stop %Stop), waiting for it if none
        arrived yet."""
        while not self.notifs:
            p, notif = self.read_packet(timeout)
            if notif:
                self.notifs.append(p)
            else:
                raise RSPError("a reply while waiting for a notification: %r" % p[:40])
        return self.notifs.pop(0)

    def request(self, payload, timeout=None):
        self.send(payload)
        return self.recv(timeout)

    def req(self, payload, timeout=None):
        return self.request(payload, timeout).decode("latin-1")

    def interrupt(self):
        self.write_raw(b"\x03")

    def start_noack(self):
        r = self.req("QStartNoAckMode")
        if r == "OK":
            self.noack = True
        return r

    def monitor(self, cmd):
        self.console = []
        r = self.req("qRcmd," + cmd.encode().hex())
        return r, "".join(self.console)

    def xfer(self, obj, annex, chunk=0xFFF):
        """Reads a whole qXfer object; returns (bytes, number of packets)."""
        data, off, n = b"", 0, 0
        while True:
            r = self.request("qXfer:%s:read:%s:%x,%x" % (obj, annex, off, chunk))
            n += 1
            if not r or r[:1] not in (b"m", b"l"):
                raise RSPError("qXfer %s %s: %r" % (obj, annex, r[:40]))
            data += r[1:]
            off += len(r) - 1
            if r[:1] == b"l":
                return data, n
