#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 35, the server's lifetime, decided as gdbserver's habits are:
- `zestub PORT --attach PID` (plain target remote) serves one client: when
  it detaches, or leaves, no device is attached any more and zestub exits
  0, saying so (it used to listen on, and a new client was told only "the
  target is not running");
- --multi keeps serving after a client detached and left;
- a second client while one is served is told why in its first reply
  (GDB prints "Remote failure reply: E.zestub is already serving another
  client ...") and closed, the server warns, and the first client is
  served on (a second GDB used to wait silently)."""
import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "tests", "lib"))
import harness as h  # noqa: E402

t = h.Tap(13)  # the plan: every check this test makes
env = h.small_device(5)


def second_client(port):
    """Connects, sends qSupported as GDB does, returns all it reads until
    the server closes (or 5 s)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(h.frame(h.FEATURES.encode()))
    got, deadline = b"", time.time() + 5
    try:
        while time.time() < deadline:
            b = s.recv(4096)
            if not b:
                break
            got += b
    except OSError:
        pass
    s.close()
    return got.decode(errors="replace")


with h.guarded(t, "plain target remote: one client, then zestub ends"):
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    srv = h.Zestub(env, "--attach", str(app.pid), once=False)
    t.ok(srv.listening, "zestub --attach PID listens")
    c = srv.client()
    c.req(h.INTEL)
    t.ok(c.req("?").startswith("T"), "the first client is served (? is a stop)")
    got = second_client(srv.port)
    t.ok(re.match(r"^\+\$E\.zestub is already serving another client.*#[0-9a-f]{2}$", got)
         is not None, "a second client reads an error reply saying why, then the end", got)
    t.ok("turned away a second client" in srv.stderr(), "and the server warns about it",
         srv.stderr()[-400:])
    t.ok(c.req("?").startswith("T"), "the first client is still served")
    t.eq(c.req("D;1"), "OK", "the first client detaches")
    c.close()
    t.eq(srv.wait(20), 0, "with no device left zestub exits 0")
    t.ok("no device left to debug" in srv.stderr(), "saying why", srv.stderr()[-400:])

with h.guarded(t, "plain target remote: a client that just leaves"):
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    srv = h.Zestub(env, "--attach", str(app.pid), once=False)
    c = srv.client()
    c.req(h.INTEL)
    c.close()  # GDB killed, or `disconnect`: the devices are let go
    t.eq(srv.wait(20), 0, "a client leaving without a word also ends it (exit 0)")
    t.ok(app.wait(120) == 0, "and the application runs on to its end")

with h.guarded(t, "--multi keeps serving"):
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    srv = h.Zestub(env, "--multi", once=False)
    c = srv.client()
    c.req(h.INTEL)
    c.req("vAttach;%x" % app.pid, timeout=60)
    c.req("D;1")
    c.close()
    time.sleep(0.5)
    t.ok(srv.proc.poll() is None, "after the client detached and left, zestub --multi listens on")
    c = srv.client()
    t.ok("PacketSize" in c.req(h.INTEL), "and serves the next client")
    c.close()
    srv.proc.terminate()
    t.ok(srv.wait(20) is not None, "zestub --multi ends on SIGTERM")

sys.exit(t.done())
