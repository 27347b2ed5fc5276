#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The sessions target's monitor commands against vadd on gtsim, checked
against what the remote protocol itself says: `monitor threads` groups
(state, stop reason, source line) whose counts must equal those gathered
with Hg + p cr0/isabase for every thread, with a breakpoint written into
the kernel so that there is more than one reason; `monitor thread` for a
stopped thread, an unavailable one and bad ids (the reason, then OK: GDB shows no protocol error);
`monitor modules` against qXfer:libraries:read; `monitor devices` against
target.xml's <device>. Then 8,192 threads: `monitor threads` stays a
screenful and still adds up."""
import os
import re
import sys
import time
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

SMALL = "platform=xehpc,subslices=2,eus=4,threads=4,pace=20"  # 32 threads
# pace=5: vadd's kernel is 34 instructions, so a thread needs about 7 s of
# running to finish. At pace=20 (1.7 s) the time threads run while zestub
# starts and stops them, plus the second the test lets them run, could end
# the kernel before the ^C on a fast machine.
LARGE = "platform=xehpc,slices=8,subslices=8,eus=8,threads=16,pace=5"  # 8,192
# start() makes 3 checks, finish() 2, check_threads() 7: small() 40 in all,
# large() 18.
t = h.Tap(40 + 18)


def u32(b, i):
    return int.from_bytes(b[4 * i:4 * i + 4], "little")


def reason_of(cr0):
    """The stop reason from cr0 dword 1, checked in protocol 6.1's order."""
    d1 = u32(cr0, 1)
    for bit, name in ((16, "page-fault"), (31, "breakpoint"), (28, "illegal-instruction"),
                      (29, "software-exception")):
        if d1 & (1 << bit):
            return name
    if d1 & ((1 << 26) | (1 << 30)):
        return "interrupt"
    return "no exception bit set"


def start(config):
    """vadd with its kernel running, zestub over stdio, attached as Intel's
    client. Returns (app, srv, client, stop reply)."""
    env = h.gtsim_env(config)
    app, line = h.start_app(env, args=["--print-buffers"])
    t.ok(line.startswith("device:"), "the application started", line)
    buf = app.stdout.readline().decode(errors="replace")
    t.ok(buf.startswith("buffers:"), "its kernel is running", buf)
    srv = h.Stdio(env, timeout=30.0)
    _, stop = srv.attach(app.pid, timeout=60)
    t.ok(stop[:1] in ("T", "U"), "attached", stop[:80])
    return app, srv, srv.c, stop


def finish(c, srv):
    t.eq(c.req("D;1"), "OK", "detach")
    t.eq(srv.close(20), 0, "zestub exits 0")


def tdesc(c):
    root = ET.fromstring(c.xfer("features", "target.xml")[0].decode())
    return [r.get("name") for r in root.iter("reg")], root.find("device")


def thread_ids(c):
    xml = c.xfer("threads", "")[0].decode()
    return {int(m.group(1), 16): m.group(2)
            for m in re.finditer(r'<thread id="p1\.([0-9a-f]+)"[^>]*id_str="([^"]*)"', xml)}


def truth(c, regs, tids):
    """tid -> (state, reason, pc) through Hg and p, as GDB would see it."""
    cr0n, isan = regs.index("cr0"), regs.index("isabase")
    out = {}
    for tid in tids:
        c.req("Hgp1.%x" % tid)
        v = c.req("p%x" % cr0n)
        if re.fullmatch(r"x+", v):
            out[tid] = ("unavailable", None, None)
            continue
        cr0 = bytes.fromhex(v)
        base = int.from_bytes(bytes.fromhex(c.req("p%x" % isan)), "little")
        out[tid] = ("stopped", reason_of(cr0), base + u32(cr0, 2))
    return out


def parse_threads(text):
    """(header match, [(count, rest of line)]) of one device's summary."""
    lines = text.splitlines()
    head = re.match(r"process 1, device 0 \[([0-9a-f:.]+)\] (.*): (\d+) threads: (.*)$", lines[0]) \
        if lines else None
    groups = [(int(m.group(1)), m.group(2)) for m in
              (re.match(r"  (\d+) (.*)$", ln) for ln in lines[1:]) if m]
    return head, groups


def where(c, tid):
    """" at FILE:LINE in KERNEL" for the thread, from `monitor thread`."""
    _, text = c.monitor("thread p1.%x" % tid)
    m = re.search(r"\n  pc 0x[0-9a-f]+ in (\S+) at (?:.*/)?([^/:\s]+):(\d+)", text)
    return (" at %s:%s in %s" % (m.group(2), m.group(3), m.group(1))) if m else None


def check_threads(c, regs, ids, tag):
    """`monitor threads` against the truth; returns (truth, output)."""
    t0 = time.monotonic()
    r, text = c.monitor("threads")
    took = time.monotonic() - t0
    t.eq(r, "OK", "%s: monitor threads -> OK" % tag)
    t.diag("monitor threads took %.3f s" % took)
    tr = truth(c, regs, sorted(ids))
    head, groups = parse_threads(text)
    t.ok(head is not None and int(head.group(3)) == len(ids),
         "%s: the header names process 1, device 0 and its %d threads" % (tag, len(ids)), text[:300])
    per_state = {}
    for st, _, _ in tr.values():
        per_state[st] = per_state.get(st, 0) + 1
    want_head = ", ".join("%d %s" % (per_state[s], s) for s in ("stopped", "running",
                                                                 "unavailable") if s in per_state)
    t.eq(head.group(4) if head else None, want_head, "%s: state counts in the header" % tag)
    # The line of each distinct PC once, then the groups the truth implies.
    loc = {pc: None for _, _, pc in tr.values() if pc is not None}
    rep = {pc: tid for tid, (_, _, pc) in sorted(tr.items(), reverse=True) if pc is not None}
    for pc in loc:
        loc[pc] = where(c, rep[pc])
    t.ok(all(loc.values()), "%s: every stopped PC has a kernel and line" % tag, loc)
    want = {}
    for st, reason, pc in tr.values():
        key = "unavailable" if st == "unavailable" else "stopped%s (%s)" % (loc[pc], reason)
        want[key] = want.get(key, 0) + 1
    got = {}
    for n, rest in groups:
        got[rest] = got.get(rest, 0) + n
    t.eq(got, want, "%s: groups and counts equal Hg + p cr0/isabase of every thread" % tag)
    t.ok(len(groups) == len(got), "%s: each group appears once" % tag, groups)
    counts = [n for n, _ in groups]
    t.ok(counts == sorted(counts, reverse=True), "%s: largest groups first" % tag, counts)
    return tr, text


def insn_len(insn):
    return 8 if insn[3] & 0x20 else 16


def small():
    app, srv, c, stop = start(SMALL)
    regs, dev = tdesc(c)
    ids = thread_ids(c)
    t.eq(len(ids), 32, "32 threads in qXfer:threads")

    # A breakpoint three instructions into the kernel, where attach left
    # every thread at the entry: continuing stops some there, stop-all the
    # rest elsewhere.
    first = re.search(r"thread:p1\.([0-9a-f]+);", stop)
    tr = truth(c, regs, [int(first.group(1), 16)]) if first else {}
    pc = next(iter(tr.values()))[2] if tr else None
    t.ok(pc is not None, "a stopped thread's PC", stop[:80])
    if pc is not None:
        a = pc
        for _ in range(2):
            a += insn_len(bytes.fromhex(c.req("m%x,10" % a)))
        orig = bytes.fromhex(c.req("m%x,10" % a))
        patched = bytearray(orig)
        if insn_len(orig) == 8:
            patched[0] |= 0x80
        else:
            patched[3] |= 0x40
        t.eq(c.req("M%x,10:%s" % (a, patched.hex())), "OK", "breakpoint bit written")
        c.send("vCont;c")
        st = c.recv(timeout=60).decode("latin-1")
        t.ok(st.startswith("T05") and "swbreak" in st, "continue stops at the breakpoint",
             st[:80])
        t.eq(c.req("M%x,10:%s" % (a, orig.hex())), "OK", "breakpoint bit cleared")
        # More than one group: p1.2 runs on alone until ^C (interrupt),
        # p1.3 steps twice (a step ends with the breakpoint bit).
        c.send("vCont;c:p1.2")
        time.sleep(0.3)
        c.interrupt()
        st = c.recv(timeout=60).decode("latin-1")
        t.ok(st.startswith("T02") and "thread:p1.2;" in st, "p1.2 alone, then ^C (SIGINT)",
             st[:80])
        for _ in range(2):
            st = c.req("vCont;s:p1.3", timeout=60)
        t.ok(st.startswith("T05") and "thread:p1.3;" in st, "p1.3 stepped twice", st[:80])

    tr, text = check_threads(c, regs, ids, "32 threads")
    t.diag("monitor threads:\n" + text)
    t.ok(" (breakpoint)" in text, "a group stopped at the breakpoint", text)
    r, text_all = c.monitor("threads all")
    t.eq((r, text_all), ("OK", text), "monitor threads all: the same when nothing is capped")
    r, text = c.monitor("threads now")
    t.ok(r == "OK" and "usage: monitor threads [all]" in text, "threads with junk -> usage, OK",
         (r, text))

    # ---- monitor thread ----------------------------------------------------
    tid = next((k for k, v in sorted(tr.items()) if v[1] == "breakpoint"), None)
    if tid is None:
        tid = next(k for k, v in sorted(tr.items()) if v[0] == "stopped")
    st, reason, tpc = tr[tid]
    r, text = c.monitor("thread p1.%x" % tid)
    t.diag("monitor thread p1.%x:\n%s" % (tid, text))
    t.eq(r, "OK", "monitor thread p1.%x -> OK" % tid)
    t.ok(text.startswith("p1.%x (Thread 1.%d, %s) of process 1, device 0 [" % (tid, tid, ids[tid]))
         and ": stopped (%s)\n" % reason in text,
         "its names (hex, decimal, id_str), state and reason", text)
    t.ok(("\n  pc 0x%x in vadd at " % tpc) in text and re.search(r"vadd\.cl:[3-7]\b", text),
         "its PC as RSP reads it, kernel vadd, a line of vadd.cl", text)
    r2, text2 = c.monitor("thread 1.%d" % tid)
    t.eq((r2, text2), (r, text), "the decimal form 1.%d names the same thread" % tid)
    r, text = c.monitor("thread p1.99")
    t.ok(r == "OK" and text.startswith("no thread p1.99: process 1, device 0 [")
         and text.endswith("has threads p1.1..p1.20\n"), "a tid past the end -> why, OK",
         (r, text))
    r, text = c.monitor("thread 2.1")
    t.ok(r == "OK" and "no thread 2.1: the processes are 1..1" in text, "no process 2 -> OK",
         (r, text))
    for bad in ("thread", "thread p1", "thread 1.-1", "thread p1.1x"):
        r, text = c.monitor(bad)
        t.ok(r == "OK" and text.startswith("usage: monitor thread"), "'%s' -> usage, OK" % bad,
             (r, text))

    # ---- monitor modules ---------------------------------------------------
    libs = c.xfer("libraries", "")[0].decode()
    lm = re.search(r'begin="0x([0-9a-f]+)" end="0x([0-9a-f]+)"[^>]*><segment address="0x'
                   r'([0-9a-f]+)"', libs)
    r, text = c.monitor("modules")
    t.diag("monitor modules:\n" + text)
    mm = re.search(r"^  ELF 0x([0-9a-f]+)-0x([0-9a-f]+), code at 0x([0-9a-f]+), ([^;\n]+)"
                   r"; 1 kernel: vadd$", text, re.M)
    t.ok(r == "OK" and text.startswith("process 1, device 0 [") and ": 1 module\n" in text,
         "monitor modules: process 1, device 0, one module", text)
    t.ok(lm is not None and mm is not None and
         [int(x, 16) for x in mm.groups()[:3]] == [int(x, 16) for x in lm.groups()],
         "its ELF range and load address equal qXfer:libraries:read's, kernel vadd", (libs, text))
    t.ok(mm is not None and mm.group(4) == "no acknowledgement needed",
         "loaded before attach: no acknowledgement needed", text)

    # ---- monitor devices ---------------------------------------------------
    r, text = c.monitor("devices")
    t.diag("monitor devices:\n" + text)
    t.eq(r, "OK", "monitor devices -> OK")
    if dev is not None:
        t.ok(text.startswith("process 1, device 0 [%s] %s\n" % (dev.get("pci-slot"), dev.get("name"))),
             "the PCI slot and name of target.xml's <device>", (dev.attrib, text))
        t.ok(("id 8086:%s" % dev.get("target-id")[2:]) in text and
             (" = %s threads\n" % dev.get("total-threads")) in text,
             "device id and thread count of <device>", (dev.attrib, text))
    t.ok(re.search(r"^  threads 1\.1\.\.1\.32 \(p1\.1\.\.p1\.20 in the protocol\): \d+ stopped", text, re.M),
         "its threads, decimal as GDB numbers them, then hex, and their states", text)

    # ---- help --------------------------------------------------------------
    r, text = c.monitor("help")
    t.ok(r == "OK" and all(("\n  %s " % w) in text for w in ("threads", "thread", "modules",
                                                              "devices")),
         "monitor help lists the target's commands after the server's", text)
    finish(c, srv)


def large():
    app, srv, c, stop = start(LARGE)
    regs, dev = tdesc(c)
    ids = thread_ids(c)
    t.eq(len(ids), 8192, "8,192 threads in qXfer:threads")
    # Let the kernel move, so that threads are at different places.
    c.send("vCont;c")
    time.sleep(1.0)
    c.interrupt()
    st = c.recv(timeout=60).decode("latin-1")
    t.ok(st.startswith("T"), "^C stops everything", st[:80])
    tr, text = check_threads(c, regs, ids, "8,192 threads")
    t.diag("monitor threads:\n" + text)
    lines = text.splitlines()
    t.ok(len(lines) <= 20, "8,192 threads in %d lines (at most 20)" % len(lines), text)
    t.eq(sum(n for n, _ in parse_threads(text)[1]), 8192, "the groups add up to 8,192")
    tid = next((k for k, v in sorted(tr.items()) if v[0] == "unavailable"), None)
    if t.ok(tid is not None, "an unavailable thread exists"):
        r, text = c.monitor("thread p1.%x" % tid)
        t.ok(r == "OK" and text == "p1.%x (Thread 1.%d, %s) of process 1, device 0 [%s] %s: unavailable "
             "(idle or running other work: no registers)\n" %
             (tid, tid, ids[tid], dev.get("pci-slot"), dev.get("name")),
             "monitor thread of an unavailable thread: no PC, no reason", text)
    finish(c, srv)


for what, session in (("32", small), ("8,192", large)):
    with h.guarded(t, "the %s-thread session ran to its end" % what):
        session()
sys.exit(t.done())
