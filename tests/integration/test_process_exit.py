#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Process exit always wins (issue 22), raw RSP against vadd on gtsim:
whatever the client was doing when the application ended (stopped at a
module-unload stop, at a module load that waits for vAck, at a stop with a
step to come), the next resume or '?' is answered W1;process:1 (the driver
gives no exit status: 1 = the host process exited), packets naming the
process afterwards get an error saying it exited, D;1 succeeds, and zestub
goes on serving. The races are made deterministic from here: the test waits
for the application's end (it is let exit once its module-unload stop has
been reported, vadd --wait-before-exit, or is killed with SIGKILL while
blocked in zeModuleCreate or while its kernel is stopped) and for zestub to
have seen it (`monitor devices`). Without --wait-before-exit the exit could
overtake the unload stop, and then W1;process:1 is the right first answer."""
import os
import re
import signal
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

env = h.small_device(200)
t = h.Tap(79)  # the plan: every check this test makes
# Intel's client, reading error texts (GDB 14 and later announce it).
INTEL_TEXT = h.INTEL + ";error-message+"


def start(features=h.INTEL, args=("--wait-before-load",), running=None):
    waits = "--wait-before-load" in args or "--wait-before-exit" in args
    app, _ = h.start_app(env, args=list(args), stdin=waits, running=running)
    srv = h.Stdio(env, ["--log-level", "debug"], keep_stderr=True)
    _, stop = srv.attach(app.pid, features)
    return app, srv, srv.c, stop


def resume(c, packet="vCont;c:p1.-1", timeout=60):
    c.send(packet)
    return c.recv(timeout=timeout).decode()


def module_range(c):
    xml = c.xfer("libraries", "")[0].decode()
    m = re.search(r'begin="0x([0-9a-f]+)" end="0x([0-9a-f]+)"', xml)
    return (int(m.group(1), 16), int(m.group(2), 16)) if m else None


def to_unload_stop(app, c, tag):
    """Load (vAck'ed), then the kernel runs; returns the reply to the
    resume after the load: the unload stop."""
    h.release(app)
    t.eq(resume(c), "Up1.0;library", "%s: the load stops" % tag)
    rng = module_range(c)
    t.ok(rng is not None, "%s: the module is listed" % tag)
    if rng:
        t.eq(c.req("vAck:in-memory-library:%x,%x" % rng), "OK", "%s: vAck" % tag)
    return resume(c)


def seen_exit(c, app, tag, status=0, timeout=20):
    """Waits for the application's end (its exit status) and for zestub
    to know of it."""
    t.eq(h.wait_exit(app), status, "%s: the application has ended" % tag)
    deadline = time.time() + timeout
    _, text = c.monitor("devices")
    while "the application has exited" not in text and time.time() < deadline:
        time.sleep(0.1)
        _, text = c.monitor("devices")
    t.ok("the application has exited" in text,
         "%s: monitor devices says the application has exited" % tag, text)


def g_unavailable(c, tag, what):
    """A thread of a process that ended, still listed because its exit is
    not reported yet: its registers read as unavailable ("xx", protocol
    1.3), not as an error. Intel's GDB reads the thread of a stop it is
    still showing, and an error there ends the display ("Could not read
    registers") where "unavailable" lets it show the stop."""
    r = c.req("g")
    t.ok(len(r) > 0 and set(r) == {"x"},
         "%s: %s: every register unavailable (x only, %d characters)" % (tag, what, len(r)),
         r[:80])
    r = c.req("e")
    t.ok(r.endswith(";") and "xx" in r and not r.startswith("E"),
         "%s: e too: the expedited registers, unavailable" % tag, r[:80])


def after_exit(c, srv, tag, text):
    """What every case checks once the exit was reported."""
    for pkt in ("Hgp1.1", "g", "m1000,4", "vCont;c:p1.-1"):
        r = c.req(pkt) if not pkt.startswith("vCont") else resume(c, pkt)
        if text:
            t.eq(r, "E.process 1 has exited", "%s: %s names an exited process" % (tag, pkt))
        else:
            t.ok(r.startswith("E"), "%s: %s names an exited process: an error" % (tag, pkt), r)
    t.eq(c.req("D;1"), "OK", "%s: D;1 of the exited process succeeds" % tag)
    t.eq(c.req("qfThreadInfo"), "l", "%s: no thread is left" % tag)
    t.eq(c.req("?"), "W00", "%s: zestub goes on serving: '?' says nothing is attached" % tag)
    t.eq(srv.close(), 0, "%s: zestub exits 0" % tag)


UNLOAD_ARGS = ("--wait-before-load", "--wait-before-exit")

with h.guarded(t, "exit right after a module unload, resumed", lambda: None):
    app, srv, c, _ = start(INTEL_TEXT, args=UNLOAD_ARGS)
    tag = "unload, vCont"
    t.eq(to_unload_stop(app, c, tag), "Up1.0;library", "%s: the unload stops" % tag)
    h.release(app)
    seen_exit(c, app, tag)
    g_unavailable(c, tag, "g before the report")
    t.eq(c.req("Hgp1.1"), "OK", "%s: its threads are listed until the exit is reported" % tag)
    t.eq(resume(c), "W1;process:1", "%s: the next vCont;c:p1.-1 gets W1;process:1" % tag)
    after_exit(c, srv, tag, True)

with h.guarded(t, "exit right after a module unload, '?'", lambda: None):
    app, srv, c, _ = start(args=UNLOAD_ARGS)
    tag = "unload, ?"
    t.eq(to_unload_stop(app, c, tag), "Up1.0;library", "%s: the unload stops" % tag)
    h.release(app)
    seen_exit(c, app, tag)
    t.eq(c.req("?"), "W1;process:1", "%s: '?' gets W1;process:1" % tag)
    after_exit(c, srv, tag, False)

with h.guarded(t, "killed while a load waits for vAck", lambda: None):
    app, srv, c, _ = start(INTEL_TEXT)
    tag = "load waits"
    h.release(app)
    t.eq(resume(c), "Up1.0;library", "%s: the load stops" % tag)
    rng = module_range(c)
    app.send_signal(signal.SIGKILL)
    seen_exit(c, app, tag, -signal.SIGKILL)
    if rng:
        t.eq(c.req("vAck:in-memory-library:%x,%x" % rng), "OK",
             "%s: a vAck after the end is harmless" % tag)
    t.eq(resume(c), "W1;process:1", "%s: the next vCont;c:p1.-1 gets W1;process:1" % tag)
    after_exit(c, srv, tag, True)

with h.guarded(t, "killed while stopped, then a step", lambda: None):
    slow = h.small_device(5)
    app, _ = h.start_app(slow, args=["--print-buffers"], running="buffers:")
    srv = h.Stdio(slow, ["--log-level", "debug"], keep_stderr=True)
    _, stop = srv.attach(app.pid, INTEL_TEXT)
    c = srv.c
    tag = "step"
    m = re.match(r"T05.*thread:p1\.([0-9a-f]+);", stop)
    t.ok(m is not None, "%s: the attach stops a running thread" % tag, stop)
    app.send_signal(signal.SIGKILL)
    seen_exit(c, app, tag, -signal.SIGKILL)
    th = m.group(1) if m else "1"
    t.eq(resume(c, "vCont;s:p1.%s;c:p1.-1" % th), "W1;process:1",
         "%s: a step of a thread of the ended process gets W1;process:1" % tag)
    after_exit(c, srv, tag, True)

with h.guarded(t, "two tiles, killed while stopped", lambda: None):
    tiles = h.gtsim_env("platform=xehpc,tiles=2,subslices=2,eus=2,threads=4,pace=5")
    app, _ = h.start_app(tiles, args=["--print-buffers"], running="buffers:")
    srv = h.Stdio(tiles, ["--log-level", "debug"], keep_stderr=True)
    _, stop = srv.attach(app.pid, INTEL_TEXT)
    c = srv.c
    tag = "two tiles"
    t.ok(stop.startswith("T") and "thread:p2." in stop, "%s: attach stops p2" % tag, stop)
    app.send_signal(signal.SIGKILL)
    seen_exit(c, app, tag, -signal.SIGKILL)
    t.eq(resume(c, "vCont;c"), "W1;process:1", "%s: the first resume gets p1's exit" % tag)
    t.eq(c.req("Hgp2.1"), "OK", "%s: p2's threads are listed until its exit is reported" % tag)
    g_unavailable(c, tag, "g of p2 before its report")
    t.eq(resume(c, "vCont;c"), "W1;process:2", "%s: the next resume gets p2's exit" % tag)
    t.eq(c.req("D;1"), "OK", "%s: D;1 succeeds" % tag)
    t.eq(c.req("D;2"), "OK", "%s: D;2 succeeds" % tag)
    t.eq(srv.close(), 0, "%s: zestub exits 0" % tag)

with h.guarded(t, "non-stop, one thread stopped, killed", lambda: None):
    slow = h.small_device(5)
    app, _ = h.start_app(slow, args=["--print-buffers"], running="buffers:")
    srv = h.Stdio(slow, ["--log-level", "debug"], keep_stderr=True)
    c = srv.c
    tag = "non-stop"
    c.req(INTEL_TEXT)
    t.eq(c.req("QNonStop:1"), "OK", "%s: QNonStop:1" % tag)
    t.eq(c.req("vAttach;%x" % app.pid, timeout=30), "OK", "%s: vAttach" % tag)
    t.eq(c.req("vCont;t:p1.1"), "OK", "%s: vCont;t:p1.1" % tag)
    first = c.notification(timeout=30)
    t.eq(c.req("vStopped"), "OK", "%s: one stop (%r)" % (tag, first))
    app.send_signal(signal.SIGKILL)
    t.eq(h.wait_exit(app), -signal.SIGKILL, "%s: the application has ended" % tag)
    n = c.notification(timeout=30).decode()
    t.eq(n, "Stop:W1;process:1", "%s: the exit arrives as a notification at once" % tag)
    t.eq(c.req("vStopped"), "OK", "%s: nothing else is queued" % tag)
    t.eq(c.req("Hgp1.1"), "E.process 1 has exited", "%s: Hgp1.1 afterwards: the error" % tag)
    t.eq(c.req("D;1"), "OK", "%s: D;1 succeeds" % tag)
    t.eq(srv.close(), 0, "%s: zestub exits 0" % tag)

sys.exit(t.done())
