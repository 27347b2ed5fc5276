# SPDX-License-Identifier: MIT
"""tests/lib/rspclient.Client with a packet reader fast enough to measure
a server with.

The test client walks replies byte by byte in Python (a clock read and a
list operation per byte), which costs tens of microseconds per kilobyte:
a 32 KiB `x` reply would then measure Python, not zestub. This reader
finds the frame with bytes.find and undoes escapes with bytes.split, so
the client's share of a bulk read stays far below the server's; the
loopback bulk baseline (loopback.py) measures that share."""

import time
import zlib

from rspclient import Client, RSPError, decode_payload

_INV = pow(65521 % 255, -1, 255)


def fast_checksum(raw: bytes) -> int:
    """sum(raw) & 0xff without a Python step per byte (sum() alone costs
    more than zestub's whole reply). adler32 gives the byte sum S modulo
    65521, int.from_bytes S modulo 255 (256 = 1 mod 255); the two fix S
    below 65521 * 255, which bounds the sum of 65,000 bytes."""
    if len(raw) > 65000:
        return sum(fast_checksum(raw[i:i + 65000]) for i in range(0, len(raw), 65000)) & 0xFF
    a = ((zlib.adler32(raw) & 0xFFFF) - 1) % 65521
    b = int.from_bytes(raw, "little") % 255
    return (a + 65521 * (((b - a) * _INV) % 255)) & 0xFF


def fast_decode(raw: bytes) -> bytes:
    """decode_payload for the common cases at C speed. A '}' in a payload
    is always an escape introducer (a literal '}' travels escaped, and no
    escaped byte equals '}'), so splitting on it is exact. Run-length
    encoded payloads ('*') go to the reference decoder."""
    if b"*" in raw:
        return decode_payload(raw)
    if b"}" not in raw:
        return raw
    parts = raw.split(b"}")
    out = bytearray(parts[0])
    for p in parts[1:]:
        if p:
            out.append(p[0] ^ 0x20)
            out += p[1:]
    return bytes(out)


class FastClient(Client):
    def read_packet(self, timeout=None, ack=True):
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            start = self._frame_start()
            if start >= 0:
                end = self.buf.find(b"#", start)
                if end >= 0 and len(self.buf) >= end + 3:
                    break
            left = deadline - time.monotonic()
            if left <= 0 or not self._fill(left):
                raise TimeoutError("no data from server")
        notification = self.buf[start] == 0x25
        raw = bytes(self.buf[start + 1:end])
        cs = bytes(self.buf[end + 1:end + 3])
        del self.buf[:end + 3]
        try:
            good = int(cs, 16) == fast_checksum(raw)
        except ValueError:
            good = False
        if not self.noack and ack and not notification:
            try:
                self.write_raw(b"+" if good else b"-")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server may close right after its last reply
        if not good:
            raise RSPError("bad checksum from server")
        return fast_decode(raw), notification

    def _frame_start(self):
        """Index of the first '$' or '%'; acks before it are recorded and
        dropped, as the reference reader does."""
        d = self.buf.find(b"$")
        p = self.buf.find(b"%")
        start = d if p < 0 or (0 <= d < p) else p
        lead = self.buf if start < 0 else self.buf[:start]
        for c in lead:
            if c in (0x2B, 0x2D):
                self.acks.append(chr(c))
        if start > 0:
            del self.buf[:start]
            return 0
        if start < 0:
            self.buf.clear()
        return start
