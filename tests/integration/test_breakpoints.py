#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Breakpoints and stepping against vadd on gtsim (protocol 5): a
breakpoint bit planted by the client through X (as Intel's GDB does) and
one planted by the server for Z0 (stock GDB) are each hit by every thread
that executes the instruction (once per hardware-thread dispatch: groups x
work-items / SIMD width, the code being straight), each hit reported once
even when threads hit together, and continuing past them works; range stepping (vCont;r) over a source line stops at the next
line's first address, from the module's own DWARF line table (objdump);
stepping an end-of-thread send reports U. Ground truth: the line table, the
work-group count vadd prints, and each thread's cr0/isabase."""
import os
import re
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402
from bp_util import line_rows, load_module, pc_of, regnums, with_breakpoint_bit  # noqa: E402

env = h.small_device(200)
INTEL = h.FEATURES + ";qXfer:libraries:read:in-memory-library+;vAck:in-memory-library+"
STOCK = "qSupported:multiprocess+;swbreak+;vContSupported+;xmlRegisters=i386"
t = h.Tap(24)  # the plan: every check this test makes


def start(features, extra=()):
    app, _ = h.start_app(env, args=["--wait-before-load"] + list(extra), stdin=True)
    srv = h.Stdio(env, timeout=30.0)
    srv.attach(app.pid, features)
    return app, srv, srv.c


def dispatches(app):
    """Hardware-thread dispatches of vadd's launch, from its own report."""
    out = app.stdout.read().decode()
    m = re.search(r"launch: (\d+) work-groups of (\d+) work-items", out)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def run_hits(c, bp, rn, limit=1000):
    """Continues until the application exits; returns the threads that
    stopped at bp (one entry per report) and anything else reported."""
    hits, other = [], []
    while len(hits) + len(other) < limit:
        c.send("vCont;c")
        r = c.recv(timeout=60).decode()
        m = re.match(r"T05(swbreak:;)?.*thread:p1\.([0-9a-f]+);$", r)
        if m and m.group(1) and pc_of(c, rn, int(m.group(2), 16)) == bp:
            hits.append(int(m.group(2), 16))
        elif r.startswith("W"):
            return hits, other, r
        elif r != "Up1.0;library":  # the module's unload at the end
            other.append(r[:40])
    return hits, other, None


with h.guarded(t, "breakpoint session", lambda: None):
    # ---- the client writes the bit (Intel's GDB), then range steps -----------
    app, srv, c = start(INTEL)
    mod = load_module(app, c)
    t.ok(mod is not None, "vadd's module is announced", mod)
    rows, simd = line_rows(c, *mod) if mod else ([], 0)
    t.ok(len(rows) > 4, "the module's line table is readable through memory (%d rows)" % len(rows))
    lines = sorted({a for a, _ in rows})
    # The first address of the second line of the kernel: a statement the
    # whole work-group executes.
    bp = lines[2] if len(lines) > 3 else 0
    nxt = min(a for a in lines if a > bp) if bp else 0
    rn = regnums(c)
    insn = bytes.fromhex(c.req("m%x,10" % bp))
    t.eq(c.req("M%x,10:%s" % (bp, with_breakpoint_bit(insn).hex())), "OK", "X/M plants the breakpoint bit")
    c.req("vAck:in-memory-library:0x%x,0x%x" % mod if mod else "vAck:in-memory-library:0,0")
    c.send("vCont;c")
    r = c.recv(timeout=60).decode()
    m = re.match(r"T05swbreak:;.*thread:p1\.([0-9a-f]+);$", r)
    t.ok(m is not None, "a thread stops at the planted bit with swbreak", r[:60])
    if m:
        tid = int(m.group(1), 16)
        t.eq(pc_of(c, rn, tid), bp, "its PC is the breakpoint address")
        c.send("vCont;r%x,%x:p1.%x" % (bp, nxt, tid))
        r = c.recv(timeout=60).decode()
        t.ok(re.match(r"T05(?!swbreak).*thread:p1\.%x;$" % tid, r) is not None,
             "vCont;r over the line reports the same thread, as a step", r[:60])
        t.eq(pc_of(c, rn, tid), nxt, "range stepping stops at the next line's first address")
        c.send("vCont;r%x,%x:p1.%x" % (nxt, 1 << 63, tid))
        r = c.recv(timeout=60).decode()
        t.eq(r, "Up1.%x" % tid, "range stepping into the end-of-thread send reports U")
        hits, other, end = run_hits(c, bp, rn)
        t.eq(other, [], "nothing else stopped")
        t.ok(end is not None and end.startswith("W1"), "then the application ends", end)
    t.eq(h.wait_exit(app), 0, "X run: the application finishes normally")
    groups, items = dispatches(app)
    want = groups * -(-items // simd) if simd else -1
    if m:
        t.eq(len(hits) + 1, want, "every dispatch hit the X breakpoint once (%d groups x %d "
             "items / SIMD %d, the range-stepped one included)" % (groups, items, simd))
    t.eq(srv.close(), 0, "X run: zestub exits 0 (a sanitizer report would make it fail)")

    # ---- Z0 from a client that cannot write the bit (stock GDB) --------------
    app, srv, c = start(STOCK, ["--print-buffers"])
    h.release(app)
    c.send("vCont;c")
    # No library stop for this client: the module loads, the kernel runs;
    # interrupt once it runs to plant the breakpoint ahead of a thread.
    time.sleep(0.4)
    c.interrupt()
    r = c.recv(timeout=30).decode()
    t.ok(r.startswith("T"), "stock: stopped", r[:40])
    # Stock GDB attached to the host pid sees the device under that pid.
    m = re.search(r"thread:p([0-9a-f]+)\.([0-9a-f]+);", r)
    pid, tid = (m.group(1), m.group(2)) if m else ("1", "1")
    t.eq(int(pid, 16), app.pid, "stock: the device process shows under the host pid")
    c.req("Hgp%s.%s" % (pid, tid))
    rip = c.req("p10")
    pc = int.from_bytes(bytes.fromhex(rip), "little") if rip[:1] != "x" else 0
    # A breakpoint a few instructions ahead of the stopped thread.
    addr = pc
    for _ in range(3):
        ins = bytes.fromhex(c.req("m%x,10" % addr))
        addr += 8 if ins[3] & 0x20 else 16
    # Only at instruction starts in a module's code (issue 16): never in
    # the middle of an instruction, never on data.
    code = c.req("m%x,10" % addr)
    mid = c.req("Z0,%x,1" % (addr + 4))
    t.ok(mid.startswith("E"), "stock: Z0 in the middle of an instruction is refused", mid)
    t.eq(c.req("m%x,10" % addr), code, "stock: the refused Z0 changed no code")
    line = ""
    while line is not None and not line.startswith("buffers:"):
        line = app.stdout.readline().decode(errors="replace") or None
    pat = int(re.search(r"pattern=0x([0-9a-f]+)", line or "pattern=0x0").group(1), 16)
    before = c.req("m%x,10" % pat)
    data = c.req("Z0,%x,1" % pat)
    t.ok(pat and data.startswith("E"), "stock: Z0 on a data buffer is refused", data)
    t.eq(c.req("m%x,10" % pat), before, "stock: the data buffer is unchanged")
    t.eq(c.req("Z0,%x,1" % addr), "OK", "stock: Z0 plants a breakpoint in device code")
    hits = 0
    for _ in range(1000):
        c.send("vCont;c")
        r = c.recv(timeout=60).decode()
        if r.startswith("T05swbreak:;"):
            th = re.search(r"thread:(p[0-9a-f]+\.[0-9a-f]+);", r).group(1)
            c.req("Hg" + th)
            if int.from_bytes(bytes.fromhex(c.req("p10")), "little") == addr:
                hits += 1
        elif r.startswith("W"):
            break
    t.ok(r.startswith("W1"), "stock: the application ends", r[:40])
    t.eq(h.wait_exit(app), 0, "Z0 run: the application finishes normally")
    groups, items = dispatches(app)
    # Dispatches that had passed the address before it was planted do not
    # hit it; every later one does, once.
    t.ok(1 <= hits <= groups * -(-items // 32), "stock: threads stop at the Z0 breakpoint "
         "(%d hits of at most %d dispatches) and continue past it" % (hits, groups * items // 32))
    t.eq(srv.close(), 0, "Z0 run: zestub exits 0 (a sanitizer report would make it fail)")
sys.exit(t.done())
