#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""zestub under the name Intel's GDB auto-attach runs, with stock GDB:
`target extended-remote | BUILDDIR/libexec/gdbserver-ze --debug --multi
--once -` (the script's command line over stdio, plus a gdbserver debug
option as INTELGT_AUTO_ATTACH_GDBSERVER_ARGS would add), `attach PID` of
vadd on gtsim, a pending `break vadd.cl:6` (stock GDB has no symbols for
device code, so it stays pending: doc/stock-gdb.md) and a `break *ADDR`
at the next instruction, hit after `continue`; detach; the application
exits 0 and the server with GDB. Intel's GDB resolving vadd.cl:6 the same
way: test_gdbserver_ze_intelgt.py."""
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

gdb = h.gdb_or_skip()
env = h.small_device(20)
server = os.path.join(h.top, "libexec", "gdbserver-ze")
t = h.Tap(8)

t.ok(os.path.realpath(server) == os.path.realpath(os.path.join(h.top, "zestub")),
     "the build tree's libexec/gdbserver-ze is zestub", os.path.realpath(server))
# The next instruction's address: 8 bytes when compacted (bit 29), else 16.
plant = ("python pc = int(gdb.parse_and_eval('$pc')); "
         "b = bytes(gdb.selected_inferior().read_memory(pc, 4)); "
         "gdb.execute('break *0x%x' % (pc + (8 if b[3] & 0x20 else 16)))")
with h.guarded(t, "stock GDB through gdbserver-ze"):
    app, line = h.start_app(env, args=["--print-buffers"], running="buffers:")
    # GDB runs the pipe command with its own environment: gtsim's comes
    # from ours, as Intel's GDB passes the user's to the server it starts.
    os.environ.update({k: env[k] for k in ("ZE_ENABLE_ALT_DRIVERS", "GTSIM_CONFIG")})
    rc, out = h.gdb_batch(gdb, ["target extended-remote | %s --debug --multi --once -" % server,
                                "attach %d" % app.pid, "set breakpoint pending on",
                                "break vadd.cl:6", plant, "continue", "info breakpoints",
                                "delete", "detach"], timeout=150)
    t.ok("internal-error" not in out and "Remote communication error" not in out,
         "GDB talks to gdbserver-ze over the pipe without errors", out)
    t.ok("zestub: debug:" in out, "--debug (gdbserver's option) turns on zestub's debug log", out)
    t.ok(re.search(r"Breakpoint 1 \(vadd\.cl:6\) pending", out) is not None,
         "break vadd.cl:6 is accepted as pending", out)
    m = re.search(r"Breakpoint 2 at 0x([0-9a-f]+)", out)
    hit = re.search(r"hit Breakpoint 2, 0x0*([0-9a-f]+) in", out)
    t.ok(m is not None and hit is not None and int(hit.group(1), 16) == int(m.group(1), 16),
         "break *ADDR is hit after continue", out)
    t.ok(re.search(r"\[Inferior 1 \(process %d\) detached\]" % app.pid, out) is not None,
         "detach", out)
    t.eq(h.wait_exit(app), 0, "the application exits 0")
    t.eq(rc, 0, "GDB exits 0 (and with it the --once server)")
sys.exit(t.done())
