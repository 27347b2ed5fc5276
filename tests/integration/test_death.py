#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The death matrix (issue 16): at each point of a scripted session, kill
(a) the client (its connection closes, as when GDB dies), (b) zestub
(SIGKILL) or (c) the application (SIGKILL), and check what must follow:
after (a) the application finishes normally (exit 0) and the same --multi
server takes a new client that attaches to a fresh application; after (b)
the application finishes normally (the driver detaches a debugger that is
gone and its stopped threads run on); after (c) the client is told the
process exited (W/X, or a Stop:W notification in non-stop) and the server
goes on serving. An application that finishes normally had no thread left
stopped and no event left unacknowledged behind the dead party.

Points: after attach (every thread stopped), during a single step, during
a range step, while a module load waits for vAck, in the middle of a
packet, during a large x read, non-stop with one thread stopped."""
import os
import re
import signal
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

POINTS = ("after attach", "single step", "range step", "load waits for vAck", "mid-packet",
          "large x read", "non-stop, one thread stopped")
VICTIMS = ("client", "zestub", "application")
# Points where a request is still unanswered when the victim dies.
IN_FLIGHT = ("single step", "range step", "large x read")
CHECKS_PER_CELL = 3
t = h.Tap(len(POINTS) * len(VICTIMS) * CHECKS_PER_CELL)  # the plan: every check this test makes
env = h.small_device(100)


def first_thread(stop):
    m = re.search(r"thread:p1\.([0-9a-f]+);", stop)
    return int(m.group(1), 16) if m else 1


def module_range(c):
    xml = c.xfer("libraries", "")[0].decode()
    m = re.search(r'begin="0x([0-9a-f]+)" end="0x([0-9a-f]+)"', xml)
    return (int(m.group(1), 16), int(m.group(2), 16)) if m else None


def until_stopped(c, stop):
    """The kernel is submitted when vadd prints its buffers, but the device
    may not run it yet on a loaded machine: the attach then stops nothing
    (U). Let it go and stop it again, until a thread is stopped (T) or 30 s
    have passed; returns the last stop reply."""
    deadline = time.time() + 30
    while stop.startswith("U") and time.time() < deadline:
        c.send("vCont;c")
        time.sleep(0.2)
        c.interrupt()
        stop = c.recv(timeout=30).decode("latin-1")
    return stop


def reach(point, srv):
    """Starts an application, attaches and brings the session to point.
    Returns (app, client, reached, what): `what` describes the state for
    a failed check."""
    waits = point in ("load waits for vAck", "large x read")
    if waits:
        app, _ = h.start_app(env, args=["--wait-before-load"], stdin=True)
    else:
        app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    c = srv.client()
    c.req(h.INTEL)
    if point == "non-stop, one thread stopped":
        ok = c.req("QNonStop:1") == "OK" and c.req("vAttach;%x" % app.pid) == "OK"
        ok = ok and c.req("vCont;t:p1.1") == "OK"
        n = c.notification(timeout=30)
        ok = ok and n.startswith(b"Stop:T") and c.req("vStopped") == "OK"
        return app, c, ok, n
    stop = c.req("vAttach;%x" % app.pid, timeout=30)
    if not waits:
        stop = until_stopped(c, stop)
    # Before its module loads the application runs nothing: U, not T.
    if not stop.startswith("U" if waits else "T"):
        return app, c, False, stop
    tid = first_thread(stop)
    if point == "after attach":
        return app, c, True, stop
    if point == "single step":
        c.send("vCont;s:p1.%x" % tid)
        return app, c, True, stop
    if point == "range step":
        c.send("vCont;r0,ffffffffffffff:p1.%x" % tid)
        return app, c, True, stop
    if point == "mid-packet":
        c.write_raw(b"$m1000,4")
        return app, c, True, stop
    # Both remaining points stop at the module load, which waits for vAck.
    h.release(app)
    load = c.req("vCont;c", timeout=30)
    rng = module_range(c)
    if "library" not in load or not rng:
        return app, c, False, (load, rng)
    if point == "large x read":
        c.send("x%x,%x" % (rng[0], min(rng[1] - rng[0], 0x3fff)))
    return app, c, True, load


def after_client_death(srv, app, tag):
    t.eq(h.wait_exit(app, 60), 0, "%s: the application finishes normally" % tag)
    fresh, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    c = srv.client()
    c.req(h.INTEL)
    stop = c.req("vAttach;%x" % fresh.pid, timeout=30)
    ok = stop.startswith("T") and c.req("D;1") == "OK"
    c.close()
    t.ok(ok and h.wait_exit(fresh, 60) == 0,
         "%s: the same server takes a new client, which attaches and detaches" % tag, stop)


def after_zestub_death(srv, app, tag):
    t.eq(h.wait_exit(srv.proc, 10), -signal.SIGKILL, "%s: zestub is gone" % tag)
    t.eq(h.wait_exit(app, 60), 0, "%s: the application finishes normally" % tag)


def after_app_death(srv, app, c, point, tag):
    t.eq(h.wait_exit(app, 30), -signal.SIGKILL, "%s: the application is gone" % tag)
    if point == "non-stop, one thread stopped":
        n = c.notification(timeout=30).decode()
        ok = n.startswith("Stop:W") or n.startswith("Stop:X")
        got = n
    else:
        if point == "mid-packet":
            c.write_raw(b"#00")  # the cut packet ends with a bad checksum
            c.pending(0.5)
        # Whatever was in flight is answered first: a step by the exit
        # (the process exited before it ended), a read by its data or an
        # error. Then a resume is answered with the exit, if not told yet.
        got = [c.recv(timeout=60).decode("latin-1")[:40]] if point in IN_FLIGHT else []
        ok = bool(got) and got[0][:1] in "WX"
        deadline = time.time() + 60
        while not ok and time.time() < deadline:
            r = c.req("vCont;c", timeout=60)
            got.append(r[:40])
            ok = r.startswith("W") or r.startswith("X")
    t.ok(ok and c.req("qC") is not None and srv.proc.poll() is None,
         "%s: the client is told the process exited, and the server goes on" % tag, got)


def cell(point, victim):
    tag = "%s, kill the %s" % (point, victim)
    srv = h.Zestub(env, "--multi", once=False)
    app, c, reached, what = reach(point, srv)
    t.ok(reached, "%s: the session reaches the point" % tag, what)
    if victim == "client":
        c.close()
        after_client_death(srv, app, tag)
    elif victim == "zestub":
        srv.proc.send_signal(signal.SIGKILL)
        after_zestub_death(srv, app, tag)
    else:
        app.send_signal(signal.SIGKILL)
        after_app_death(srv, app, c, point, tag)
    c.close()


for point in POINTS:
    for victim in VICTIMS:
        with h.guarded(t, "%s, kill the %s" % (point, victim)):
            cell(point, victim)
sys.exit(t.done())
