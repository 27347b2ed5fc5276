#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Process exit always wins (issue 22), with Debian's stock GDB: the
application ends while GDB has it stopped (killed with SIGKILL from GDB's
`shell`, after attach or at a breakpoint with other threads held), GDB
waits until zestub has seen the end (`monitor devices`), and then
`continue` ends with "[Inferior 1 (process N) exited with code 01]" (the
driver gives no exit status) and `detach` detaches without an error.
Skipped without gdb."""
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

gdb = h.gdb_or_skip()
env = h.small_device(20)
t = h.Tap(14)  # the plan: every check this test makes

# Until zestub says the application has exited (at most 10 s).
WAIT_EXIT = ("python exec(\"import time\\nfor i in range(100):\\n"
             " if 'has exited' in gdb.execute('monitor devices', to_string=True): break\\n"
             " time.sleep(0.1)\")")
# A breakpoint on the next instruction, as test_stock_gdb.py plants it.
PLANT = ("python pc = int(gdb.parse_and_eval('$pc')); "
         "b = bytes(gdb.selected_inferior().read_memory(pc, 4)); "
         "gdb.execute('break *0x%x' % (pc + (8 if b[3] & 0x20 else 16)))")


def no_errors(tag, out):
    t.ok("E01" not in out and "Can't detach" not in out and "internal-error" not in out
         and "Could not" not in out, "%s: no error from the target" % tag, out)


def running_app():
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    return app


with h.guarded(t, "continue after the end"):
    tag = "target remote, continue"
    app = running_app()
    srv = h.Zestub(env, "--attach", str(app.pid))
    rc, out = h.gdb_batch(gdb, ["target remote :%d" % srv.port, "shell kill -9 %d" % app.pid,
                                WAIT_EXIT, "continue"])
    t.eq(rc, 0, "%s: gdb exits 0" % tag)
    t.ok(re.search(r"\[Inferior 1 \(process 1\) exited with code 01\]", out) is not None,
         "%s: continue ends with the exit of the inferior" % tag, out)
    no_errors(tag, out)
    t.eq(h.wait_exit(app), -9, "%s: the application was killed" % tag)
    t.eq(srv.wait(), 0, "%s: zestub --once exits 0" % tag)

with h.guarded(t, "detach after the end"):
    tag = "target remote, detach"
    app = running_app()
    srv = h.Zestub(env, "--attach", str(app.pid))
    rc, out = h.gdb_batch(gdb, ["target remote :%d" % srv.port, "shell kill -9 %d" % app.pid,
                                WAIT_EXIT, "detach"])
    t.eq(rc, 0, "%s: gdb exits 0" % tag)
    t.ok(re.search(r"\[Inferior 1 \(process 1\) detached\]", out) is not None,
         "%s: detach succeeds" % tag, out)
    no_errors(tag, out)
    t.eq(srv.wait(), 0, "%s: zestub --once exits 0" % tag)

with h.guarded(t, "the end at a breakpoint"):
    tag = "extended-remote, breakpoint"
    app = running_app()
    srv = h.Zestub(env, "--multi")
    rc, out = h.gdb_batch(gdb, ["target extended-remote :%d" % srv.port, "attach %d" % app.pid,
                                PLANT, "continue", "shell kill -9 %d" % app.pid, WAIT_EXIT,
                                "continue", "info inferiors", "monitor exit"])
    t.eq(rc, 0, "%s: gdb exits 0" % tag)
    t.ok(re.search(r"hit Breakpoint 1, ", out) is not None, "%s: the breakpoint is hit" % tag,
         out)
    t.ok(re.search(r"\[Inferior 1 \(process %d\) exited with code 01\]" % app.pid, out)
         is not None, "%s: continue ends with the exit of the inferior" % tag, out)
    no_errors(tag, out)
    t.eq(srv.wait(), 0, "%s: monitor exit ends zestub with 0" % tag)

sys.exit(t.done())
