# SPDX-License-Identifier: MIT
"""The three measurements against one running application. Each returns
its samples (seconds) and what it checked; a wrong answer from zestub is
an error, never a figure."""

import hashlib
import re
import time
import xml.etree.ElementTree as ET

from rig import RigError, Server

clock = time.perf_counter


def thread_list_qf(c):
    """qfThreadInfo/qsThreadInfo until 'l'; returns (ids, packets)."""
    ids, n = [], 1
    r = c.req("qfThreadInfo")
    while r.startswith("m"):
        ids += r[1:].split(",")
        r = c.req("qsThreadInfo")
        n += 1
    if r != "l":
        raise RigError("thread list ended with %r" % r[:40])
    return ids, n


def xfer(c, obj, annex, piece):
    """A whole qXfer object in pieces of `piece` bytes; returns (bytes,
    packets). Pieces are joined once at the end: appending to a bytes
    object would copy the document once per packet."""
    parts, off, n = [], 0, 0
    while True:
        r = c.request("qXfer:%s:read:%s:%x,%x" % (obj, annex, off, piece))
        n += 1
        if r[:1] not in (b"m", b"l"):
            raise RigError("qXfer %s %s: %r" % (obj, annex, r[:40]))
        parts.append(r[1:])
        off += len(r) - 1
        if r[:1] == b"l":
            return b"".join(parts), n


def attach_once(where, pid, nthreads, timeout):
    """One cold attach by a fresh zestub: vAttach until the stop reply, then
    the full thread list three ways. Returns a dict of seconds and counts."""
    srv = Server(where, timeout)
    try:
        psize = srv.hello()
        c = srv.client
        t0 = clock()
        stop = c.req("vAttach;%x" % pid, timeout=timeout)
        t1 = clock()
        if not re.match(r"^[TU]", stop):
            raise RigError("vAttach answered %r (%s)" % (stop[:60], srv.stderr()))
        ids, qf_packets = thread_list_qf(c)
        t2 = clock()
        big, big_packets = xfer(c, "threads", "", psize - 5)
        t3 = clock()
        small, small_packets = xfer(c, "threads", "", 0x1000)
        t4 = clock()
        if big != small:
            raise RigError("qXfer:threads differs between piece sizes")
        in_xml = big.count(b"<thread ")
        for what, got in (("qfThreadInfo", len(ids)), ("qXfer:threads", in_xml)):
            if got != nthreads:
                raise RigError("%s listed %d threads, the device has %d" % (what, got, nthreads))
        srv.detach_and_close()
        return {"attach": t1 - t0, "qf": t2 - t1, "xfer": t3 - t2, "xfer4k": t4 - t3,
                "qf_packets": qf_packets, "xfer_packets": big_packets,
                "xfer4k_packets": small_packets, "xml_bytes": len(big), "threads": len(ids),
                "stop": stop[:1]}
    finally:
        srv.kill(grace=0)


def register_numbers(tdesc_xml):
    """name -> regnum by the tdesc rules (regnum= sets, then +1 each)."""
    nums, n = {}, 0
    for reg in ET.fromstring(tdesc_xml).iter("reg"):
        if reg.get("regnum") is not None:
            n = int(reg.get("regnum"))
        nums[reg.get("name")] = n
        n += 1
    return nums


def read_le(c, regnum):
    v = c.req("p%x" % regnum)
    if not re.fullmatch(r"(?:[0-9a-f]{2})+", v):
        raise RigError("p%x answered %r" % (regnum, v[:40]))
    return int.from_bytes(bytes.fromhex(v), "little")


class Session:
    """One attached zestub kept for the interactive measurements."""

    def __init__(self, where, pid, timeout):
        self.timeout = timeout
        self.srv = Server(where, timeout)
        try:
            self.psize = self.srv.hello()
            self.c = self.srv.client
            self.stop = self.c.req("vAttach;%x" % pid, timeout=timeout)
            if not self.stop.startswith("T"):
                raise RigError("vAttach stopped no thread (%r): is the kernel running?"
                               % self.stop[:60])
        except BaseException:
            self.srv.kill(grace=0)
            raise

    def close(self):
        self.srv.detach_and_close()

    def kill(self):
        self.srv.kill(grace=0)

    def round_trips(self, loop, iterations):
        """qC (a reply built from server state alone, no device access)
        alternating with the loopback peer's round trip, so both see the
        same machine. Returns (zestub samples, loopback samples)."""
        ours, base = [], []
        for _ in range(iterations):
            base.append(loop.rtt())
            t0 = clock()
            r = self.c.req("qC")
            ours.append(clock() - t0)
            if not r.startswith("QC"):
                raise RigError("qC answered %r" % r[:40])
        return ours, base

    def ctrl_c(self, reps, run_for):
        """Continue, let the device run for run_for seconds, then ^C: the
        time from the ^C byte to the stop reply. A stop that arrives before
        the ^C (nothing in vadd should cause one) is counted, not timed."""
        out, early = [], 0
        c = self.c
        for _ in range(reps):
            c.send("vCont;c")
            time.sleep(run_for)
            if c.buf or c._fill(0):
                early += 1
                r = c.recv(self.timeout).decode("latin-1")
            else:
                t0 = clock()
                c.interrupt()
                r = c.recv(self.timeout).decode("latin-1")
                out.append(clock() - t0)
            if not re.match(r"^[TU]", r):
                raise RigError("continue/^C ended with %r: did the application exit?" % r[:60])
        return out, early

    def isa_base(self):
        """isabase of the thread the attach stopped at (selected with Hg)."""
        m = re.search(r"thread:p1\.([0-9a-f]+);", self.stop)
        if not m:
            raise RigError("no thread in the stop reply %r" % self.stop[:80])
        if self.c.req("Hgp1.%s" % m.group(1)) != "OK":
            raise RigError("Hg refused")
        tdesc = xfer(self.c, "features", "target.xml", self.psize - 5)[0]
        nums = register_numbers(tdesc)
        if "isabase" not in nums:
            raise RigError("no isabase in target.xml")
        return read_le(self.c, nums["isabase"])

    def bulk_read(self, base, total, binary, span=None):
        """One pass of `total` bytes from base with `x` (binary) or `m`
        (hex), each packet asking for as much as a reply can carry; with
        span, reads wrap around [base, base+span). Returns the seconds, the
        largest reply's data size and the data's digest."""
        c = self.c
        ask = self.psize if binary else self.psize // 2
        span = span or total
        parts, done = [], 0
        t0 = clock()
        while done < total:
            off = done % span
            addr = base + off
            n = min(ask, span - off, total - done)
            r = c.request(("x%x,%x" if binary else "m%x,%x") % (addr, n))
            if binary:
                if r[:1] != b"b" or len(r) < 2:
                    raise RigError("x%x answered %r" % (addr, r[:40]))
                data = r[1:]
            else:
                try:
                    data = bytes.fromhex(r.decode("latin-1"))
                except ValueError:
                    data = b""
                if not data:
                    raise RigError("m%x answered %r" % (addr, r[:40]))
            parts.append(data)
            done += len(data)
        secs = clock() - t0
        return secs, max(len(p) for p in parts), hashlib.sha256(b"".join(parts)).hexdigest()
