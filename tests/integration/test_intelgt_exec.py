#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Intel's GDB against zestub on a device that executes vadd (gtsim
exec=1, Xe-HPC), when INTELGT_GDB names it (issue 32): at the pending
breakpoint on vadd.cl's store line, `bt` shows the kernel's arguments as
the buffers' real addresses (vadd --print-buffers says where `a` is);
`next` over the last statement line ends the thread (GDB says it became
unavailable, or that the program exited when it ended before the reply);
continued, the program's sums are right (vadd --expect-sum). Driven
through GDB/MI. Skipped when INTELGT_GDB is unset, or, saying why, when
gtsim cannot execute (no libiga64)."""
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

gdb = h.intel_gdb()
env = h.gtsim_env("platform=xehpc,subslices=2,eus=2,threads=4,exec=1")
STORE = h.line_of("tests/kernels/vadd.cl", "c[i] = a[i] + b[i]")
CHECKS = 14
t = h.Tap(CHECKS)


def read_until(app, prefix):
    """The application's next line starting with prefix (None at its end)."""
    while True:
        line = app.stdout.readline().decode(errors="replace")
        if not line or line.startswith(prefix):
            return line or None


app, line = h.start_app(env, args=["--wait-before-load", "--print-buffers", "--expect-sum",
                                   "--items", "64"], stdin=True)
if "exec=1 ignored" in line:
    for _ in range(CHECKS):
        t.skip("Intel's GDB on an executing device", line.strip())
    app.kill()
    sys.exit(t.done())

with h.mi_session(t, "Intel GDB on exec=1", gdb) as s:
    t.ok(line.startswith("device:"), "vadd started on an executing device", line)
    srv = h.Zestub(env, "--multi")
    for setting in ("remotetimeout 20", "mi-async on", "breakpoint pending on"):
        s.command("-gdb-set " + setting)
    cls, res = s.command("-target-select extended-remote :%d" % srv.port)
    t.ok(cls == "connected", "connected", res)
    cls, res = s.command("-target-attach %d" % app.pid, timeout=60)
    t.ok(cls == "done", "attached", res)
    cls, res = s.command("-break-insert -f vadd.cl:%d" % STORE)
    t.ok(cls == "done", "break vadd.cl:%d (pending)" % STORE, res)
    h.release(app)
    mark = len(s.records)
    s.command("-exec-continue")
    hit = s.wait_async("*", "stopped", mark, timeout=90)
    t.ok(hit.get("reason") == "breakpoint-hit" and hit.get("frame", {}).get("line") == str(STORE),
         "the breakpoint is hit at vadd.cl:%d" % STORE, hit)
    buffers = read_until(app, "buffers:") or ""
    m = re.search(r"a=0x([0-9a-f]+)", buffers)
    a = int(m.group(1), 16) if m else None
    t.ok(a is not None, "vadd says where buffer a is", buffers)
    cls, text = s.console("bt")
    shown = re.search(r"vadd \(a=0x([0-9a-f]+), b=0x([0-9a-f]+), c=0x([0-9a-f]+)", text)
    t.ok(shown is not None and int(shown.group(1), 16) == a,
         "bt shows vadd (a=0x%x, ...): the argument's real value" % (a or 0), text[:300])
    t.ok(shown is not None and len({shown.group(1), shown.group(2), shown.group(3)}) == 3,
         "and three distinct buffers b and c", text[:300])
    t.eq(s.command("-break-delete")[0], "done", "delete the breakpoint")
    tid = hit.get("thread-id")
    # Line 6 is the kernel's last statement: its line 7 row (the
    # end-of-thread send) is not a statement start, so `next` steps on
    # through it and the thread ends.
    mark = len(s.records)
    s.command("-exec-next")
    end = s.wait_async("*", "stopped", mark, timeout=60)
    said = "".join(r[2] or "" for r in s.records[mark:] if r[0] == "~")
    # The `next` resumes every thread (all-stop), so the kernel and then
    # the program may end before zestub answers it: it then reports the
    # exit, not the thread's end (gdbstub/README.md: process exit wins),
    # and GDB says the program exited. Both are true; anything else fails.
    ended = end.get("reason") == "exited-normally" or end.get("reason") == "exited"
    if ended:
        t.ok("exited" in said, "next over the last line: the program ended first, GDB says "
             "it exited", said or end)
        t.ok(end.get("exit-code") in (None, "01"), "with the host process's status (01, "
             "Intel's convention when the driver gives none)", end)
    else:
        t.ok(end.get("reason") == "unavailable" and end.get("thread-id") == tid,
             "next over the last line ends the thread: GDB stops, reason unavailable, "
             "thread %s" % tid, end)
        t.ok("became unavailable" in said, "and says so", said)
        mark = len(s.records)
        s.command("-exec-continue")
        s.wait_async("*", "running", mark, timeout=30)
    done = read_until(app, "c = a + b:") or ""
    t.ok("verified (0 wrong)" in done, "continued, vadd's sums are right", done)
    s.detach()
    s.console("monitor exit")
    t.eq(h.wait_exit(app), 0, "the application finishes normally")
    t.eq(s.malformed, [], "every MI line is well formed")
sys.exit(t.done())
