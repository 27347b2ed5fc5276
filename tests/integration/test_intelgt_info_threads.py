#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Intel's GDB's first `info threads` at a few hundred busy threads must
not read every register of every thread (issue 36). For each thread Intel's
GDB selects it (`Hg`) and reads the registers its frame needs; whatever of
those `e` leaves out it fetches with `g` (remote.c, fetch_registers), which
at 8,192 threads made zestub's first `info threads` 2.5x slower than
Intel's own server. Here zestub logs every packet (--debug-rsp), GDB
brackets its first `info threads` with two `maint packet` markers, and the
packets between them are counted per thread: no `g` (nor `p`) may be among
them, and about one `e` per thread. Skipped when INTELGT_GDB is unset (CI
does not have Intel's GDB; with stock GDB, which has no intelgt
architecture and reads with `g`, checks 3 and 7 fail)."""
import collections
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

gdb = h.intel_gdb()
# 256 hardware threads, every one with work (vadd's Xe-HPC kernel is SIMD
# 32) and at pace 1 still running when GDB attaches.
NTHREADS = 256
env = h.gtsim_env("platform=xehpc,subslices=4,eus=8,threads=8,pace=1")
BEGIN, END = "qZestubInfoThreadsBegin", "qZestubInfoThreadsEnd"
t = h.Tap(8)
with h.guarded(t, "Intel's GDB info threads"):
    app, line = h.start_app(env, args=["--print-buffers", "--items", str(NTHREADS * 32)],
                            running="buffers:")
    t.ok(line.startswith("device:"), "the application started", line)
    srv = h.Zestub(env, "--multi", "--debug-rsp")
    t.ok(srv.listening, "zestub listens", srv.stderr()[-400:])
    rc, out = h.gdb_batch(gdb, ["target extended-remote :%d" % srv.port,
                                "attach %d" % app.pid,
                                "maint packet " + BEGIN,
                                "info threads",
                                "maint packet " + END,
                                "detach",
                                "monitor exit"], timeout=300)
    rows = re.findall(r"ZE \d+\.\d+\.\d+\.\d+", out)
    t.ok(len(rows) == NTHREADS, "info threads lists every hardware thread by its ZE id (%d of "
         "%d)" % (len(rows), NTHREADS), out[-1500:])
    t.eq(h.wait_exit(app), 0, "the application finishes after detach")
    srv.wait()

    # The packets GDB sent between the markers: its first info threads.
    sent = [m.group(1) for m in re.finditer(r"^rsp <- (.*)$", srv.stderr(), re.M)]
    marks = [i for i, p in enumerate(sent) if p in (BEGIN, END)]
    t.ok(len(marks) == 2, "both markers are in zestub's packet log", sent[-20:])
    walk = sent[marks[0] + 1:marks[1]] if len(marks) == 2 else []
    kinds = collections.Counter(
        p[:2] if p.startswith("Hg") else re.split(r"[:;,]", p)[0] if p[:1] in "qQv" else p[:1]
        for p in walk)
    t.diag("first info threads, %d threads: %d packets, %s" % (
        NTHREADS, len(walk), ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))
    t.ok(kinds["Hg"] >= NTHREADS - 1, "GDB selects each thread (%d Hg)" % kinds["Hg"])
    t.ok(walk and kinds["g"] == 0 and kinds["p"] == 0,
         "no g and no p among the packets of the first info threads (%d g, %d p)"
         % (kinds["g"], kinds["p"]))
    # The registers of a thread's frame in one e each, as with Intel's
    # gdbserver (memory reads are the client's own business and not
    # counted here).
    regs = kinds["e"] + kinds["g"] + kinds["p"]
    t.ok(walk and regs <= 1.1 * NTHREADS,
         "about one register packet per thread (%d for %d threads)" % (regs, NTHREADS))
sys.exit(t.done())
