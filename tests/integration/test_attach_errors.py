#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A failed attach leaves every client usable. Intel's GDB (it announces
multi-address-space+ / unavailable+) reads the failure as E02<text>; stock
GDB 13 takes anything but Enn or E.<text> for success and then dies on an
internal error (inferior_thread: current_thread_ != nullptr), so every
other client gets E.<text>. Checked with raw clients for a process that
does not use Level Zero (sleep) and one that does not exist, then with
stock GDB's `attach` of the sleep process (skipped without gdb)."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

# What GDB 13 sends (no Intel GT extensions).
STOCK = ("qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;"
         "vfork-events+;exec-events+;vContSupported+;QThreadEvents+;no-resumed+;"
         "memory-tagging+")
env = h.small_device(20)
t = h.Tap(19)  # the plan: every check this test makes

sleeper = subprocess.Popen(["sleep", "300"])
h._procs.append(sleeper)
missing = 0x7FFFFFF0
while os.path.exists("/proc/%d" % missing):
    missing -= 1

for client, features, prefix in (("stock GDB", STOCK, "E."), ("Intel's GDB", h.INTEL, "E02")):
    for what, pid in (("a process without Level Zero", sleeper.pid),
                      ("a process that does not exist", missing)):
        with h.guarded(t, "%s, %s" % (client, what)):
            srv = h.Stdio(env)
            c = srv.c
            c.req(features)
            t.eq(c.req("!"), "OK", "%s: extended mode" % client)
            r = c.req("vAttach;%x" % pid, timeout=30)
            t.ok(r.startswith(prefix) and len(r) > len(prefix) + 3,
                 "%s, %s: vAttach fails with %s<text>" % (client, what, prefix), r)
            t.eq(c.req("?"), "W00", "%s, %s: nothing is attached afterwards" % (client, what))
            t.eq(srv.close(), 0, "%s, %s: zestub ends cleanly" % (client, what))

gdb = h.find_gdb()
if not gdb:
    for what in ("does not crash GDB", "reports an error", "leaves GDB usable"):
        t.skip("stock GDB: attach of a process without Level Zero %s" % what,
               "gdb is not installed")
else:
    with h.guarded(t, "stock GDB attach"):
        sleeper = subprocess.Popen(["sleep", "300"])
        h._procs.append(sleeper)
        srv = h.Zestub(env, "--multi")
        rc, out = h.gdb_batch(gdb, ["target extended-remote 127.0.0.1:%d" % srv.port,
                                    "attach %d" % sleeper.pid, "info inferiors",
                                    "monitor help"])
        t.ok("internal-error" not in out and "Assertion" not in out,
             "stock GDB: attach of a process without Level Zero does not crash GDB", out)
        t.ok("failed" in out.lower() or "error" in out.lower(),
             "stock GDB: the attach reports an error", out)
        t.ok("Num  Description" in out and "help" in out.split("info inferiors")[-1],
             "stock GDB stays usable: info inferiors and monitor help answer", out)
sys.exit(t.done())
