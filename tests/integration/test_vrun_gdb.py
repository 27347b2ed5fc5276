#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""GDB's `run` over target extended-remote against zestub --multi and
vadd on gtsim. Debian's stock GDB: `set remote exec-file`, a pending
`break vadd.cl:6` (stock GDB has no symbols for device code, so it stays
pending: doc/stock-gdb.md), `run` starts the program, which runs to its
exit, `monitor exit`; a bad exec-file fails the run and the server goes
on serving. Intel's GDB (when INTELGT_GDB names it): the same `run` hits
the pending breakpoint at vadd.cl:6 and `continue` runs to the exit."""
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

gdb = h.gdb_or_skip()
env = h.small_device(200)
env.pop("ZET_ENABLE_PROGRAM_DEBUGGING", None)  # zestub sets it for the program
vadd = os.path.abspath(os.path.join(h.top, "examples", "vadd"))
t = h.Tap(11)  # the plan: every check this test makes


def run_session(gdb_path, exe, extra_cmds):
    srv = h.Zestub(env, "--multi")
    rc, out = h.gdb_batch(gdb_path, ["set breakpoint pending on",
                                     "target extended-remote :%d" % srv.port,
                                     "set remote exec-file %s" % exe, "break vadd.cl:6", "run"]
                          + extra_cmds + ["monitor exit"], timeout=180)
    return srv, rc, out


with h.guarded(t, "stock GDB run"):
    srv, rc, out = run_session(gdb, vadd, [])
    t.eq(rc, 0, "stock GDB: gdb exits 0")
    t.ok("Breakpoint 1 (vadd.cl:6) pending." in out, "break vadd.cl:6 is pending", out)
    t.ok("internal-error" not in out and "Could not write register" not in out
         and "failed" not in out, "run: no GDB error", out)
    t.ok(re.search(r"\[Inferior 1 \(process \d+\) exited normally\]", out) is not None,
         "run: the program runs to its exit (status 0)", out)
    t.eq(srv.wait(30), 0, "monitor exit ends zestub with 0")
    t.ok(re.search(r"Process \S+vadd created; pid = \d+", srv.stderr()) is not None,
         "zestub says it started the program", srv.stderr())

with h.guarded(t, "stock GDB: a bad exec-file"):
    srv = h.Zestub(env, "--multi")
    rc, out = h.gdb_batch(gdb, ["target extended-remote :%d" % srv.port,
                                "set remote exec-file /nonexistent/prog", "run",
                                "set remote exec-file %s" % vadd, "run", "monitor exit"],
                          timeout=180)
    t.ok('Running "/nonexistent/prog" on the remote target failed' in out,
         "a bad path: GDB says the run failed", out)
    t.ok(re.search(r"\[Inferior 1 \(process \d+\) exited normally\]", out) is not None,
         "the server keeps serving: the next run works", out)
    t.eq(srv.wait(30), 0, "zestub exits 0")

intel = h.find_gdb("INTELGT_GDB")
with h.guarded(t, "Intel's GDB run"):
    if not intel:
        t.skip("Intel's GDB: run hits the pending vadd.cl:6", "INTELGT_GDB is not set")
        t.skip("Intel's GDB: continue runs to the exit", "INTELGT_GDB is not set")
    else:
        srv, rc, out = run_session(intel, vadd, ["info threads", "delete", "continue"])
        t.ok(re.search(r"hit Breakpoint 1, .*vadd\.cl:6", out, re.S) is not None,
             "Intel's GDB: run hits the pending vadd.cl:6", out)
        t.ok(re.search(r"exited (normally|with code)", out) is not None,
             "Intel's GDB: continue runs to the exit", out)
sys.exit(t.done())
