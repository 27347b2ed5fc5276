#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Intel's GDB, source-level, against zestub and vadd on gtsim, when
INTELGT_GDB names it: a breakpoint on vadd.cl:6 set before the module
exists (pending), resolved when zestub announces the module as an in-memory
library, hit, info threads, next (range stepping in the server), continue,
detach. Driven through GDB/MI. Skipped when INTELGT_GDB is unset."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

gdb = h.intel_gdb()
env = h.small_device(50)
t = h.Tap(16)
with h.mi_session(t, "Intel GDB session", gdb) as s:
    app, line = h.start_app(env, args=["--wait-before-load"], stdin=True)
    t.ok(line.startswith("device:"), "the application started")
    srv = h.Zestub(env, "--multi")
    for setting in ("remotetimeout 20", "mi-async on", "breakpoint pending on"):
        t.eq(s.command("-gdb-set " + setting)[0], "done", "-gdb-set " + setting)
    cls, res = s.command("-target-select extended-remote :%d" % srv.port)
    t.ok(cls == "connected", "connected", res)
    cls, res = s.command("-target-attach %d" % app.pid, timeout=60)
    t.ok(cls == "done", "attached", res)
    cls, res = s.command("-break-insert -f vadd.cl:6")
    t.ok(cls == "done" and res.get("bkpt", {}).get("pending") is not None,
         "break vadd.cl:6 is pending before the module exists", res)
    h.release(app)
    mark = len(s.records)
    t.eq(s.command("-exec-continue")[0], "running", "continue")
    hit = s.wait_async("*", "stopped", mark, timeout=90)
    t.ok(hit.get("reason") == "breakpoint-hit" and hit.get("frame", {}).get("line") == "6",
         "the breakpoint is hit at vadd.cl:6 once the module is loaded", hit)
    cls, text = s.console("info threads")
    t.ok(cls == "done" and "vadd" in text and "ZE " in text, "info threads", text[:300])
    mark = len(s.records)
    t.eq(s.command("-exec-next")[0], "running", "next")
    nxt = s.wait_async("*", "stopped", mark, timeout=60)
    stepped = nxt.get("reason") == "end-stepping-range" and nxt.get("frame", {}).get("line") != "6"
    # Other threads run during next (scheduler-locking off) and may hit the
    # breakpoint first: GDB then reports that instead.
    t.ok(stepped or nxt.get("reason") == "breakpoint-hit",
         "next leaves line 6 (or another thread hits the breakpoint)", nxt)
    t.eq(s.command("-break-delete")[0], "done", "delete the breakpoint")
    mark = len(s.records)
    t.eq(s.command("-exec-continue")[0], "running", "continue to the end")
    s.wait_async("*", "running", mark, timeout=30)
    s.detach()
    s.console("monitor exit")
    t.eq(h.wait_exit(app), 0, "the application finishes normally")
    t.eq(s.malformed, [], "every MI line is well formed")
sys.exit(t.done())
