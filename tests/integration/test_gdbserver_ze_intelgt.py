#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Intel's GDB (INTELGT_GDB; skipped when unset) doing by hand what its
auto-attach script does, with zestub as its gdbserver-ze: `target
extended-remote | BUILDDIR/libexec/gdbserver-ze --multi --once -`, `attach
PID` of vadd on gtsim (held before its module load), a pending `break
vadd.cl:6` resolved when the module arrives and hit after `continue`,
detach; the application exits 0. The script itself refuses to start on a
machine whose /sys/class/drm/card*/device/{enable_eudebug,
prelim_enable_eu_debug} does not read 1, which gtsim cannot satisfy."""
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

gdb = h.intel_gdb()
env = h.small_device(50)
server = os.path.join(h.top, "libexec", "gdbserver-ze")
# GDB starts the server with its own environment, as the script does.
os.environ.update({k: env[k] for k in ("ZE_ENABLE_ALT_DRIVERS", "GTSIM_CONFIG")})
t = h.Tap(10)
with h.mi_session(t, "Intel's GDB through gdbserver-ze", gdb) as s:
    app, line = h.start_app(env, args=["--wait-before-load"], stdin=True)
    t.ok(line.startswith("device:"), "the application started", line)
    for setting in ("remotetimeout 20", "mi-async on", "breakpoint pending on"):
        t.eq(s.command("-gdb-set " + setting)[0], "done", "-gdb-set " + setting)
    cls, text = s.console("target extended-remote | %s --multi --once -" % server)
    t.eq(cls, "done", "target extended-remote | gdbserver-ze --multi --once -")
    cls, res = s.command("-target-attach %d" % app.pid, timeout=60)
    t.ok(cls == "done", "attach PID", res)
    cls, res = s.command("-break-insert -f vadd.cl:6")
    t.ok(cls == "done" and res.get("bkpt", {}).get("pending") is not None,
         "break vadd.cl:6 is pending before the module exists", res)
    h.release(app)
    mark = len(s.records)
    t.eq(s.command("-exec-continue")[0], "running", "continue")
    hit = s.wait_async("*", "stopped", mark, timeout=90)
    t.ok(hit.get("reason") == "breakpoint-hit" and hit.get("frame", {}).get("line") == "6",
         "the breakpoint is resolved and hit at vadd.cl:6", hit)
    s.command("-break-delete")
    s.detach()
    t.eq(h.wait_exit(app), 0, "the application exits 0")
sys.exit(t.done())
