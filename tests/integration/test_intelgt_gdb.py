#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Intel's GDB (the client zestub is built for) against zestub and a real
application on gtsim, when INTELGT_GDB names it: connect, attach, `info
inferiors`, `info threads`, registers of a stopped thread, `x/4i $pc`,
continue, interrupt, detach. Driven through GDB/MI so that the interrupt
arrives while the target runs. Skipped when INTELGT_GDB is unset (CI does
not have Intel's GDB)."""
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

gdb = h.intel_gdb()
env = h.small_device(5)
t = h.Tap(17)
with h.mi_session(t, "Intel GDB session", gdb) as s:
    app, line = h.start_app(env, args=["--print-buffers"], running="buffers:")
    t.ok(line.startswith("device:"), "the application started", line)
    srv = h.Zestub(env, "--multi")
    for setting in ("remotetimeout 20", "mi-async on"):
        cls, _ = s.command("-gdb-set " + setting)
        t.eq(cls, "done", "-gdb-set " + setting)
    cls, text = s.console("set architecture intelgt")
    t.eq(cls, "done", "Intel's GDB accepts set architecture intelgt (%s)" % " ".join(text.split()))
    s.console("set architecture auto")
    cls, res = s.command("-target-select extended-remote :%d" % srv.port)
    t.ok(cls == "connected", "-target-select extended-remote", res)
    mark = len(s.records)
    cls, res = s.command("-target-attach %d" % app.pid, timeout=60)
    t.ok(cls == "done", "-target-attach PID", res)
    stopped = s.wait_async("*", "stopped", mark)
    t.ok("thread-id" in stopped, "*stopped after attach names a thread", stopped)

    cls, text = s.console("info inferiors")
    t.ok(cls == "done" and re.search(r"device \[[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d\]", text),
         "info inferiors shows the device by PCI slot", text)
    cls, text = s.console("info threads")
    rows = re.findall(r"ZE \d+\.\d+\.\d+\.\d+", text)
    t.eq(len(rows), h.SMALL_THREADS,
         "info threads: every hardware thread with its ZE s.ss.eu.t id")
    cls, text = s.console("info all-registers cr0 isabase r0")
    t.ok(cls == "done" and "cr0" in text and "isabase" in text and "r0" in text,
         "registers of the stopped thread", text[:400])
    cls, text = s.console("x/4i $pc")
    if "libiga64 is missing" in text:  # the GDB's build, not the server
        t.skip("x/4i $pc disassembles four Intel GT instructions",
               "this GDB was built without libiga64")
    else:
        t.ok(cls == "done" and len(re.findall(r"^\s*(=> )?0x[0-9a-f]+", text, re.M)) == 4,
             "x/4i $pc disassembles four Intel GT instructions", text)

    mark = len(s.records)
    cls, _ = s.command("-exec-continue")
    t.eq(cls, "running", "-exec-continue")
    s.wait_async("*", "running", mark, timeout=30)
    cls, _ = s.command("-exec-interrupt")
    t.eq(cls, "done", "-exec-interrupt")
    stopped = s.wait_async("*", "stopped", mark + 1, timeout=30)
    t.ok("thread-id" in stopped, "*stopped after the interrupt", stopped)

    cls, text = s.detach()
    t.eq(cls, "done", "detach (%s)" % " ".join(text.split()))
    s.console("monitor exit")
    t.eq(h.wait_exit(app), 0, "the application finishes after detach")
    t.eq(s.malformed, [], "every MI line is well formed")
sys.exit(t.done())
