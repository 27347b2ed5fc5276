#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Held breakpoint stops at a breakpoint the client deleted are dropped
(protocol 5, as Intel's gdbserver does; issue 22). vadd's threads start
together on the small device, so when the first one reports the breakpoint
bit the client planted (through M, as Intel's GDB does), others have hit it
too and are held for later reports. The client then removes the bit (its
`delete`) and continues: no thread may be reported at the deleted
breakpoint, every thread runs to its end and vadd exits 0. A second run
keeps the breakpoint: the held threads are then each reported, which shows
the first run dropped real stops. Ground truth: each thread's cr0 (the
breakpoint exception bit, cr0.1 bit 31) and PC, and vadd's exit status."""
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402
from bp_util import line_rows, load_module, pc_of, regnums, with_breakpoint_bit  # noqa: E402

env = h.small_device(1000)
HIT_TRIES = 8
INTEL = h.FEATURES + ";qXfer:libraries:read:in-memory-library+;vAck:in-memory-library+"
t = h.Tap(10)  # the plan: every check this test makes


def stopped_at_breakpoint(c, rn, bp, reported):
    """Threads other than the reported one whose cr0 says they stopped at
    a breakpoint, with their PC at bp."""
    found = []
    for tid in range(1, h.SMALL_THREADS + 1):
        if tid == reported or c.req("Hgp1.%x" % tid) != "OK":
            continue
        cr0 = c.req("p%x" % rn["cr0"])
        if not re.fullmatch(r"[0-9a-f]{32}", cr0):
            continue  # idle or ended: no registers
        exc = int.from_bytes(bytes.fromhex(cr0)[4:8], "little")
        if exc & (1 << 31) and pc_of(c, rn, tid) == bp:
            found.append(tid)
    return found


def first_hit(tag):
    """Attaches, plants the bit at a statement every thread executes and
    continues to the first report. Returns (app, srv, c, rn, bp, original
    instruction bytes, reported thread, threads held at bp)."""
    app, _ = h.start_app(env, args=["--wait-before-load"], stdin=True)
    srv = h.Stdio(env, timeout=30.0)
    srv.attach(app.pid, INTEL)
    c = srv.c
    mod = load_module(app, c)
    rows, _ = line_rows(c, *mod) if mod else ([], 0)
    lines = sorted({a for a, _ in rows})
    bp = lines[2] if len(lines) > 3 else 0
    rn = regnums(c)
    insn = bytes.fromhex(c.req("m%x,10" % bp))
    c.req("M%x,10:%s" % (bp, with_breakpoint_bit(insn).hex()))
    c.req("vAck:in-memory-library:0x%x,0x%x" % mod if mod else "vAck:in-memory-library:0,0")
    # Threads start together, but how many reach the bit before the stop
    # of the first one depends on the machine: hits are taken until one
    # comes with others stopped there too (each dispatch wave hits it).
    held, seen = [], []
    for _ in range(HIT_TRIES):
        c.send("vCont;c")
        r = c.recv(timeout=60).decode()
        seen.append(r[:40])
        m = re.match(r"T05swbreak:;.*thread:p1\.([0-9a-f]+);$", r)
        if not m:
            break
        held = stopped_at_breakpoint(c, rn, bp, int(m.group(1), 16))
        if held:
            break
    t.ok(len(held) > 0, "%s: a hit is reported with %d other threads stopped at the breakpoint"
         % (tag, len(held)), seen)
    return app, srv, c, rn, bp, insn, held


def reports_until_exit(c, rn, bp):
    """Continues until the process exit; returns the threads reported at
    bp, anything else reported, and the exit reply."""
    at_bp, other = [], []
    for _ in range(200):
        c.send("vCont;c")
        r = c.recv(timeout=60).decode()
        m = re.match(r"T05.*thread:p1\.([0-9a-f]+);$", r)
        if m and pc_of(c, rn, int(m.group(1), 16)) == bp:
            at_bp.append(int(m.group(1), 16))
        elif r.startswith("W"):
            return at_bp, other, r
        elif r != "Up1.0;library":
            other.append(r[:40])
    return at_bp, other, None


with h.guarded(t, "deleted breakpoint"):
    app, srv, c, rn, bp, insn, held = first_hit("deleted")
    t.eq(c.req("M%x,10:%s" % (bp, insn.hex())), "OK", "deleted: the client removes the bit")
    at_bp, other, end = reports_until_exit(c, rn, bp)
    t.eq(at_bp, [], "deleted: no thread is reported at the deleted breakpoint")
    t.ok(end is not None and end.startswith("W") and other == [],
         "deleted: every thread runs to its end, nothing else reported", (other, end))
    t.eq(h.wait_exit(app), 0, "deleted: vadd exits 0")
    t.eq(srv.close(), 0, "deleted: zestub exits 0")

with h.guarded(t, "kept breakpoint"):
    app, srv, c, rn, bp, insn, held = first_hit("kept")
    at_bp, other, end = reports_until_exit(c, rn, bp)
    t.eq(sorted(at_bp[:len(held)]), held,
         "kept: the threads held at the breakpoint are the next ones reported there")
    t.eq(h.wait_exit(app), 0, "kept: vadd exits 0")
    t.eq(srv.close(), 0, "kept: zestub exits 0")
sys.exit(t.done())
