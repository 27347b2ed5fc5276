#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Debugging kernels gtsim executes (exec=1, Xe-HPC), through zestub over
the protocol, with the module's own DWARF line table (objdump) as ground
truth (issue 32):
- examples/spin's loop runs until the debugger writes 0 to its flag: it
  is still running after a continue; a breakpoint on the loop's body is
  hit on every iteration with the loop counter one higher each time;
  single steps go round the loop visiting the condition's line and the
  body's line once per iteration; after the debugger writes the flag the
  thread leaves the loop; stepping over the last line (range stepping, as
  GDB's `next` does) ends the thread (U); the program then completes and
  says how many rounds its first item made.
- examples/pagefault faults at the store, `oob.cl`'s `p[offset ...] =`
  line: every fault stop (T0b) is at that line, and `zestub dump` names
  the same line and each faulting address.
Skips, saying why, when gtsim cannot execute (no libiga64)."""
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402
from bp_util import line_rows, pc_of, regnums, with_breakpoint_bit  # noqa: E402

env = h.gtsim_env("platform=xehpc,subslices=2,eus=2,threads=4,exec=1")
SPIN_CHECKS, FAULT_CHECKS = 17, 6
t = h.Tap(SPIN_CHECKS + FAULT_CHECKS)
WHILE_LINE = h.line_of("tests/kernels/spin.cl", "while (flag[0]")
BODY_LINE = h.line_of("tests/kernels/spin.cl", "rounds++")
OUT_LINE = h.line_of("tests/kernels/spin.cl", "out[gid] = rounds")
LAST_LINE = OUT_LINE + 1  # the closing brace: the end-of-thread send's line
STORE_LINE = h.line_of("tests/kernels/oob.cl", "p[offset")


def line_at(rows, pc):
    """The line of the last row at or below pc (rows sorted by address)."""
    found = 0
    for addr, line in rows:
        if addr > pc:
            break
        found = line
    return found


def line_start(rows, line):
    """The last run of rows of `line` (a line can also own a row of the
    prologue): its first address and the next row's, the range GDB's
    `next` steps over."""
    found = (0, 0)
    for i, (addr, ln) in enumerate(rows):
        if ln == line and (i == 0 or rows[i - 1][1] != line):
            j = i
            while j < len(rows) and rows[j][1] == line:
                j += 1
            found = (addr, rows[j][0] if j < len(rows) else addr + 0x100)
    return found


def module_rows(c):
    libs = c.xfer("libraries", "")[0].decode()
    m = re.search(r'begin="0x([0-9a-f]+)" end="0x([0-9a-f]+)"', libs)
    rows = line_rows(c, int(m.group(1), 16), int(m.group(2), 16))[0] if m else []
    return sorted(rows)


def counter(c, rn):
    """spin's `rounds` (r2.1 in this build, the value the loop carries)."""
    r2 = bytes.fromhex(c.req("p%x" % rn["r2"]))
    return int.from_bytes(r2[4:8], "little")


def step(c, tid):
    c.send("vCont;s:p1.%x" % tid)
    return c.recv(timeout=30).decode()


def exec_note(first):
    return first if "exec=1 ignored" in first else None


def spin_session():
    app, first = h.start_app(env, "spin", args=["--give-up", "120"], running="spin:")
    if exec_note(first):
        for _ in range(SPIN_CHECKS):
            t.skip("spin under exec=1", exec_note(first).strip())
        app.kill()
        return
    out = first
    while out and not out.startswith("spin:"):
        out = app.stdout.readline().decode(errors="replace")
    m = re.search(r"flag=0x([0-9a-f]+)", out)
    t.ok(m is not None, "spin runs and says where its flag is", out)
    flag = int(m.group(1), 16) if m else 0
    srv = h.Stdio(env, timeout=30.0)
    _, stop = srv.attach(app.pid)
    c = srv.c
    rows = module_rows(c)
    rn = regnums(c)
    t.ok(len(rows) > 4 and line_at(rows, rows[-1][0]) > 0,
         "attached (%s); the module's line table is readable (%d rows)" % (stop[:3], len(rows)))

    # The loop runs until the debugger writes memory.
    c.send("vCont;c")
    time.sleep(0.5)
    t.ok(app.poll() is None, "after a continue and 0.5 s the kernel still runs (it waits for "
         "the debugger)")
    c.interrupt()
    r = c.recv(timeout=30).decode()
    t.ok(r.startswith("T"), "an interrupt stops it", r[:40])

    # A breakpoint on the body: hit on every iteration, the counter +1.
    body, _ = line_start(rows, BODY_LINE)
    insn = bytes.fromhex(c.req("m%x,10" % body))
    t.eq(c.req("M%x,10:%s" % (body, with_breakpoint_bit(insn).hex())), "OK",
         "the breakpoint bit written on the loop body, spin.cl:%d (as Intel's GDB does)" %
         BODY_LINE)
    seen, wrong = {}, []
    for _ in range(6):
        c.send("vCont;c")
        r = c.recv(timeout=30).decode()
        m = re.match(r"T05swbreak:;.*thread:p1\.([0-9a-f]+);$", r)
        tid = int(m.group(1), 16) if m else 0
        if not m or pc_of(c, rn, tid) != body:
            wrong.append(r[:40])
            continue
        seen.setdefault(tid, []).append(counter(c, rn))
    runs = [v for v in seen.values() if len(v) > 1]
    steps = [b - a for v in runs for a, b in zip(v, v[1:])]
    t.ok(not wrong and runs and set(steps) == {1},
         "6 continues: every stop is the breakpoint, each thread's counter one higher at each "
         "hit (%s)" % seen, wrong)
    t.eq(c.req("M%x,10:%s" % (body, insn.hex())), "OK", "the instruction written back")

    # Single steps go round the loop: condition, body, condition, body...
    tid = max(seen, key=lambda k: len(seen[k])) if seen else 1
    lines, replies, at_body = [], [], []
    for _ in range(40):
        r = step(c, tid)
        replies.append(r[:4])
        pc = pc_of(c, rn, tid)
        ln = line_at(rows, pc)
        if not lines or lines[-1] != ln:
            lines.append(ln)
        if pc == body:
            at_body.append(counter(c, rn))
    t.ok(all(x.startswith("T05") for x in replies), "40 single steps, each a stop of the same "
         "thread", replies[-3:])
    t.ok(set(lines) == {WHILE_LINE, BODY_LINE} and lines.count(BODY_LINE) >= 3,
         "the steps visit lines %d and %d in turn, one visit each per iteration" %
         (WHILE_LINE, BODY_LINE), lines)
    t.ok(len(at_body) >= 3 and all(b - a == 1 for a, b in zip(at_body, at_body[1:])),
         "at each arrival on the body the counter is one higher", at_body)

    # The debugger writes the flag; the thread leaves the loop.
    t.eq(c.req("M%x,4:00000000" % flag), "OK", "M writes 0 to the flag")
    ln = 0
    for _ in range(20):
        step(c, tid)
        ln = line_at(rows, pc_of(c, rn, tid))
        if ln == OUT_LINE:
            break
    t.eq(ln, OUT_LINE, "stepping on, the thread leaves the loop for spin.cl:%d" % OUT_LINE)
    for _ in range(20):
        if line_at(rows, pc_of(c, rn, tid)) == LAST_LINE:
            break
        step(c, tid)
    lo, hi = line_start(rows, LAST_LINE)
    pc = pc_of(c, rn, tid)
    t.ok(lo <= pc < hi, "the thread reaches the last line, spin.cl:%d" % LAST_LINE, hex(pc))
    # `next` over the last line: range stepping over it ends the thread.
    c.send("vCont;r%x,%x:p1.%x" % (lo, hi, tid))
    r = c.recv(timeout=30).decode()
    t.eq(r, "Up1.%x" % tid, "range stepping over the last line ends the thread (U)")
    other = []
    for _ in range(20):
        c.send("vCont;c")
        r = c.recv(timeout=60).decode()
        if r.startswith("W"):
            break
        if r != "Up1.0;library":
            other.append(r[:40])
    t.ok(r.startswith("W") and not other, "continued, the other threads end too and the "
         "program exits", (r[:20], other))
    status = h.wait_exit(app)
    text = app.stdout.read().decode(errors="replace")
    m = re.search(r"item 0 made (\d+) rounds", text)
    t.ok(status == 0 and m is not None and int(m.group(1)) > 0,
         "spin exits 0 and its item 0 made rounds", (status, text))
    t.eq(srv.close(), 0, "zestub exits 0")


def fault_session():
    app, first = h.start_app(env, "pagefault", args=["2"])
    if exec_note(first):
        for _ in range(FAULT_CHECKS):
            t.skip("pagefault under exec=1", exec_note(first).strip())
        app.kill()
        return
    srv = h.Stdio(env, timeout=30.0)
    srv.attach(app.pid)
    c = srv.c
    rn = regnums(c)
    faults, lines, rows, other = 0, set(), [], []
    for _ in range(40):
        c.send("vCont;c")
        r = c.recv(timeout=60).decode()
        if r.startswith("W"):
            break
        m = re.match(r"T0b.*thread:p1\.([0-9a-f]+);$", r)
        if m:
            rows = rows or module_rows(c)
            faults += 1
            lines.add(line_at(rows, pc_of(c, rn, int(m.group(1), 16))))
        elif not r.startswith("U"):
            other.append(r[:40])
    t.ok(faults > 0 and not other, "pagefault: %d fault stops (T0b), nothing else" % faults,
         other)
    t.eq(sorted(lines), [STORE_LINE], "every fault stop is at the store, oob.cl:%d" % STORE_LINE)
    t.eq(h.wait_exit(app), 0, "pagefault completes once the faults were reported")
    t.eq(srv.close(), 0, "zestub exits 0")

    path = os.path.join(h.scratch_dir(prefix="zestub-exec."), "dump.json")
    p = subprocess.run([os.path.join(h.top, "zestub"), "dump", "--json", path, "--registers",
                        "none", "--", os.path.join(h.top, "examples", "pagefault")], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
    with open(path) as f:
        doc = json.load(f)
    where = {(th.get("file"), th.get("line")) for th in doc.get("threads", [])}
    t.ok(p.returncode == 5 and where == {("tests/kernels/oob.cl", STORE_LINE)},
         "zestub dump: every thread faulted at oob.cl:%d (status 5)" % STORE_LINE,
         (p.returncode, where))
    addrs = {f.get("address") for f in doc.get("page_faults", [])}
    t.ok(len(addrs) >= 2, "the dump lists each thread's faulting address (%d)" % len(addrs),
         addrs)


with h.guarded(t, "spin"):
    spin_session()
with h.guarded(t, "pagefault"):
    fault_session()
sys.exit(t.done())
