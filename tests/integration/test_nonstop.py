#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Non-stop mode against vadd on gtsim: QNonStop:1, an attach that stops
nothing, vCont;t stopping one thread while the others keep running (one
stopped thread's IP stays put while another's advances), %Stop
notifications drained with vStopped, vCtrlC stopping the rest, '?' listing
every stopped thread, and the application's exit as a notification."""
import os
import re
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

env = h.small_device(20)
t = h.Tap(19)  # the plan: every check this test makes


def drain(c, first):
    """The stop replies of one notification round: the %Stop one, then
    vStopped until OK."""
    out = [first[len(b"Stop:"):].decode()] if first.startswith(b"Stop:") else []
    for _ in range(100):
        r = c.req("vStopped")
        if r == "OK":
            return out
        out.append(r)
    return out


def ip_of(c, byname, tid):
    c.req("Hgp1.%x" % tid)
    cr0 = c.req("p%x" % byname["cr0"])
    return int.from_bytes(bytes.fromhex(cr0)[8:12], "little") if cr0[:1] != "x" else None


with h.guarded(t, "non-stop session", lambda: None):
    app, line = h.start_app(env, args=["--print-buffers"], running="buffers:")
    t.ok(line.startswith("device:"), "the application started", line)
    srv = h.Stdio(env, timeout=30.0)
    c = srv.c
    r = c.req(h.FEATURES)
    t.ok("QNonStop+" in r.split(";"), "qSupported announces QNonStop+", r)
    t.eq(c.req("QNonStop:1"), "OK", "QNonStop:1")
    t.eq(c.req("vAttach;%x" % app.pid, timeout=30), "OK", "non-stop vAttach answers OK")
    t.eq(c.req("?"), "OK", "nothing is stopped after a non-stop attach")
    xml = c.xfer("features", "target.xml")[0].decode()
    byname = {m.group(1): int(m.group(2)) for m in
              re.finditer(r'<reg name="([^"]+)"[^>]*regnum="(\d+)"', xml)}

    t.eq(c.req("vCont;t:p1.1"), "OK", "vCont;t:p1.1 -> OK at once")
    stops = drain(c, c.notification(timeout=30))
    t.ok(len(stops) == 1 and re.match(r"T..(.*;)?thread:p1\.1;$", stops[0]) is not None,
         "one %Stop for p1.1 only", stops)
    ip1 = ip_of(c, byname, 1)
    t.eq(c.req("vCont;t:p1.2"), "OK", "vCont;t:p1.2")
    stops = drain(c, c.notification(timeout=30))
    ip2 = ip_of(c, byname, 2)
    t.eq(c.req("vCont;c:p1.2"), "OK", "vCont;c:p1.2 resumes it alone")
    time.sleep(0.6)
    t.eq(c.req("vCont;t:p1.2"), "OK", "vCont;t:p1.2 again")
    stops = drain(c, c.notification(timeout=30))
    ip2b = ip_of(c, byname, 2)
    t.ok(ip1 is not None and ip_of(c, byname, 1) == ip1,
         "p1.1 stayed stopped at the same IP (%s)" % (ip1 and hex(ip1)))
    t.ok(ip2 is not None and ip2b is not None and ip2b > ip2,
         "p1.2 ran meanwhile: IP %s -> %s" % (ip2 and hex(ip2), ip2b and hex(ip2b)))

    t.eq(c.req("vCtrlC"), "OK", "vCtrlC -> OK")
    stops = drain(c, c.notification(timeout=30))
    ids = sorted(int(m.group(1), 16) for m in
                 (re.search(r"thread:p1\.([0-9a-f]+);$", s) or re.match(r"Up1\.([0-9a-f]+)$", s)
                  for s in stops) if m)
    t.ok(1 not in ids and 2 not in ids and len(ids) == 14,
         "vCtrlC stops the 14 threads still running, each with one stop", ids)
    status = [c.req("?")]
    while status[-1] != "OK" and len(status) < 40:
        status.append(c.req("vStopped"))
    t.eq(len(status) - 1, 16, "'?' then vStopped list every stopped thread (16)")

    t.eq(c.req("vCont;c"), "OK", "vCont;c resumes everything")
    end = None
    for _ in range(20):
        n = c.notification(timeout=60).decode()
        rest = drain(c, n.encode())
        if any(x.startswith("W") for x in rest):
            end = [x for x in rest if x.startswith("W")][0]
            break
    t.ok(end is not None and end.startswith("W1;process:1"),
         "the application's exit arrives as a notification", end)
    t.eq(h.wait_exit(app), 0, "the application finishes normally")
    t.eq(srv.close(), 0, "zestub exits 0")
sys.exit(t.done())
