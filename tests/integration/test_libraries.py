#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Modules as in-memory libraries against vadd on gtsim (protocol 4): a
load after attach is announced as Up1.0;library before the kernel runs,
listed by qXfer:libraries:read with ack="yes" and readable as an ELF, and
the application stays blocked in zeModuleCreate until vAck; an unload is
announced and leaves the list. A client that never acknowledges is
overruled by --library-ack-timeout; a client without vAck never blocks the
application."""
import os
import re
import select
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

env = h.small_device(200)
t = h.Tap(48)  # the plan: every check this test makes


def start(args=(), client_features=h.INTEL):
    """vadd waiting before its module load, zestub over stdio, attached."""
    app, line = h.start_app(env, args=["--wait-before-load"], stdin=True)
    srv = h.Stdio(env, ["--log-level", "info"] + list(args), keep_stderr=True)
    reply, stop = srv.attach(app.pid, client_features)
    return app, srv, srv.c, line, reply, stop


def app_line(app, timeout):
    """The application's next output line, or None after timeout."""
    r, _, _ = select.select([app.stdout], [], [], timeout)
    return app.stdout.readline().decode() if r else None


def libraries(c):
    return c.xfer("libraries", "")[0].decode()


def finish(app, srv, c, tag):
    """Continue until the application is gone; returns the replies seen."""
    seen = []
    for _ in range(10):
        c.send("vCont;c")
        r = c.recv(timeout=60).decode()
        seen.append(r)
        if r.startswith("W"):
            break
    t.eq(h.wait_exit(app), 0, "%s: the application finishes normally" % tag)
    t.eq(srv.close(), 0, "%s: zestub exits 0" % tag)
    return seen


with h.guarded(t, "libraries session", lambda: None):
    # ---- Intel's client: announce, list, read, hold until vAck --------------
    app, srv, c, line, reply, stop = start()
    t.ok(line.startswith("device:"), "the application started", line)
    for f in ("qXfer:libraries:read+", "qXfer:libraries:read:in-memory-library+",
              "vAck:in-memory-library+"):
        t.ok(f in reply.split(";"), "qSupported announces %s to Intel's client" % f, reply)
    t.ok(stop.startswith("T") or stop.startswith("U"), "attached", stop)
    before = libraries(c)
    t.ok("<in-memory-library" not in before and 'version="1.0"' in before,
         "no module before the load: an empty list, version 1.0", before)
    h.release(app)
    c.send("vCont;c")
    lib = c.recv(timeout=30).decode()
    t.eq(lib, "Up1.0;library", "the load is announced as Up1.0;library")
    xml = libraries(c)
    m = re.search(r'<in-memory-library begin="0x([0-9a-f]+)" end="0x([0-9a-f]+)" ack="yes">'
                  r'<segment address="0x([0-9a-f]+)"/></in-memory-library>', xml)
    t.ok(m is not None and 'version="1.2"' in xml,
         "qXfer:libraries:read lists it with ack=\"yes\", version 1.2", xml)
    if m:
        begin, end = int(m.group(1), 16), int(m.group(2), 16)
        t.ok(end > begin and int(m.group(3), 16) != 0, "begin < end, a load address", xml)
        t.eq(c.req("m%x,4" % begin), "7f454c46", "the module reads as an ELF at begin")
        t.eq(app_line(app, 1.5), None, "the application stays blocked in zeModuleCreate")
        t.ok(c.req("vAck:in-memory-library:zz").startswith("E."), "vAck with junk -> E.text")
        t.eq(c.req("vAck:in-memory-library:0x%x,0x%x" % (begin, end)), "OK", "vAck -> OK")
        got = app_line(app, 20)
        t.eq(got, "module: created\n", "after vAck the module creation returns")
        after = libraries(c)
        t.ok(('begin="0x%x"' % begin) in after and 'ack="yes"' not in after,
             "the acknowledged module stays listed without ack", after)
        t.eq(c.req("vAck:in-memory-library:%x,%x" % (begin, end)), "OK",
             "a second vAck (nothing waits any more) is harmless")
    seen = finish(app, srv, c, "vAck")
    t.ok("Up1.0;library" in seen, "the unload is announced as a library change", seen)
    t.ok(seen and seen[-1].startswith("W1;process:1"), "then W1 when the application exits",
         seen)

    # ---- a client that announces vAck and never sends it -------------------
    app, srv, c, line, reply, stop = start(["--library-ack-timeout", "1"])
    h.release(app)
    c.send("vCont;c")
    t.eq(c.recv(timeout=30).decode(), "Up1.0;library", "timeout run: the load is announced")
    t0 = time.time()
    got = app_line(app, 20)
    waited = time.time() - t0
    t.ok(got == "module: created\n" and waited >= 0.5,
         "without vAck the module is let go after the timeout (%.1f s)" % waited, got)
    log = srv.stderr()
    t.ok("no vAck for module" in log and "acknowledging it so that the application goes on" in log,
         "the timeout is logged", log)
    finish(app, srv, c, "timeout")

    # ---- ^C while no kernel runs: still a stop reply, never a hang -----------
    app, srv, c, line, reply, stop = start(
        client_features="qSupported:multiprocess+;swbreak+;multi-address-space+;unavailable+")
    c.send("vCont;c")
    time.sleep(0.3)
    c.interrupt()
    try:
        r = c.recv(timeout=15).decode()
    except Exception as e:  # a hang is the bug this checks
        r = repr(e)
    t.ok(re.fullmatch(r"Up1\.[0-9a-f]+|T[0-9a-f]{2}.*", r) is not None,
         "^C with the device idle is answered (U: nothing could be stopped)", r)
    h.release(app)
    finish(app, srv, c, "idle ^C")

    # ---- modules loaded before the attach: in the very first lists ----------
    # The driver replays them as events right after the attach; the attach
    # reply must not come before they are known, or GDB (which reads the
    # library list once, and is never told of a replayed module) misses
    # them and its first thread list has no names.
    slow = h.small_device(5)  # kernel: 7 s
    for rnd in range(3):
        app, _ = h.start_app(slow, args=["--print-buffers"], running="buffers:")
        srv = h.Stdio(slow)
        c = srv.c
        _, stop = srv.attach(app.pid)
        libs = libraries(c)
        threads = c.xfer("threads", "")[0].decode()
        t.ok(stop[:1] in "TU" and len(re.findall(r"<in-memory-library ", libs)) == 1 and
             'ack="yes"' not in libs,
             "attach %d: the module loaded before it is in the first library list, without ack"
             % rnd, libs)
        t.ok(re.search(r' name="vadd @ vadd\.cl:\d+"', threads) is not None,
             "attach %d: the first thread list names stopped threads after their kernel line"
             % rnd, threads[:400])
        t.eq(c.req("D;1"), "OK", "attach %d: detach" % rnd)
        t.eq(srv.close(), 0, "attach %d: zestub exits 0" % rnd)
        t.eq(h.wait_exit(app), 0, "attach %d: the application finishes normally" % rnd)

    # ---- a client without vAck (stock GDB): never blocked, never told ---------
    app, srv, c, line, reply, stop = start(
        client_features="qSupported:multiprocess+;swbreak+;vContSupported+")
    t.ok("libraries" not in reply and "vAck" not in reply,
         "no libraries or vAck announced to a client that cannot read them", reply)
    h.release(app)
    c.send("vCont;c")
    got = app_line(app, 20)
    t.eq(got, "module: created\n", "no vAck: the load is acknowledged at once")
    end = c.recv(timeout=60).decode()
    t.ok(end.startswith("W1"), "no library stop for such a client, only the exit", end)
    t.eq(h.wait_exit(app), 0, "no vAck: the application finishes normally")
    t.eq(srv.close(), 0, "no vAck: zestub exits 0")
sys.exit(t.done())
