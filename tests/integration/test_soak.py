#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Soak (issue 16): one `zestub --multi` server, many attach/detach
cycles, each against a fresh application and over a fresh connection
(vAttach, qXfer:threads, g, D, hang up; the application then finishes
normally). Afterwards zestub holds the same number of open descriptors as
after the warm-up cycles, and its resident memory is within 10% of what
it was then: nothing leaks per session.

ZESTUB_SOAK_CYCLES sets the number of cycles (default 50 in make check;
the long run by hand is 1000, recorded in tests/integration/README.md);
the baseline is taken after a sixth of them (at least 20)."""
import os
import re
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402
from harness import Client  # noqa: E402

CYCLES = int(os.environ.get("ZESTUB_SOAK_CYCLES", "50"))
WARMUP = max(20, CYCLES // 6)
t = h.Tap(6)  # the plan: every check this test makes
env = h.small_device(200)


def open_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        m = re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M)
    return int(m.group(1)) if m else 0


def sanitized(pid):
    """True when the process runs with AddressSanitizer: its allocator
    keeps freed blocks in a quarantine (256 MiB by default), so resident
    memory grows with every session whether or not anything leaks."""
    with open("/proc/%d/maps" % pid) as f:
        return "libasan" in f.read()


def cycle(port):
    """One session; returns None when it went as it should, else what
    went wrong."""
    app, _ = h.start_app(env, args=["--wait-before-load"], stdin=True)
    c = Client.tcp(port, timeout=30)
    try:
        c.req(h.INTEL)
        stop = c.req("vAttach;%x" % app.pid, timeout=30)
        if not stop[:1] in ("T", "U"):
            return "vAttach: %r" % stop[:60]
        if not c.xfer("threads", "")[0].startswith(b"<?xml"):
            return "qXfer:threads did not answer a thread list"
        c.req("g")
        if c.req("D;1") != "OK":
            return "D;1 failed"
    finally:
        c.close()
    h.release(app)
    status = h.wait_exit(app, 60)
    h._procs.remove(app)
    return None if status == 0 else "the application ended with %r" % status


zs = h.Zestub(env, "--multi", once=False)
srv, port = zs.proc, zs.port

failures = []
base_fds = base_rss = 0
with h.guarded(t, "the soak"):
    started = time.time()
    for i in range(1, CYCLES + 1):
        what = cycle(port)
        if what:
            failures.append("cycle %d: %s" % (i, what))
        if i == WARMUP:
            time.sleep(0.2)  # the server has closed the last connection
            base_fds, base_rss = open_fds(srv.pid), rss_kib(srv.pid)
    time.sleep(0.2)
    fds, rss = open_fds(srv.pid), rss_kib(srv.pid)
    t.diag("%d cycles in %.1f s; after %d: %d fds, %d KiB; at the end: %d fds, %d KiB"
           % (CYCLES, time.time() - started, WARMUP, base_fds, base_rss, fds, rss))
    t.eq(failures, [], "%d attach/detach cycles, each against a fresh application, all clean"
         % CYCLES)
    t.ok(srv.poll() is None, "zestub is still serving after %d sessions" % CYCLES)
    t.eq(fds, base_fds, "open descriptors after %d cycles = after %d" % (CYCLES, WARMUP))
    what = ("resident memory after %d cycles (%d KiB) within 10%% of after %d (%d KiB)"
            % (CYCLES, rss, WARMUP, base_rss))
    if sanitized(srv.pid):
        t.skip(what, "ASan's quarantine holds freed memory; the plain build measures this, "
               "LeakSanitizer checks for leaks in this one")
    else:
        t.ok(base_rss > 0 and rss <= base_rss * 1.10, what)
    srv.terminate()
    t.eq(h.wait_exit(srv, 10), 0, "zestub ends on SIGTERM with status 0")
    log = zs.stderr()
    t.ok("ERROR" not in log and "AddressSanitizer" not in log and "runtime error" not in log,
         "no sanitizer or error report in zestub's stderr", log[-2000:])
sys.exit(t.done())
