#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Debian's stock GDB (no Intel GT architecture) against zestub and a real
application on gtsim: `target remote` with --attach, `target
extended-remote` with `attach PID`, and what such a GDB can do there (the
thread list, each thread's PC, memory at the PC, monitor commands, binary
writes of every byte value (GDB leaves '%' raw in X), detach leaving the
application to finish). Ground truth: the configured topology
for the threads, and the kernel's ELF fixture for the bytes at the PC. What
stock GDB can and cannot do is written down in doc/stock-gdb.md."""
import os
import re
import signal
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

gdb = h.gdb_or_skip()
# 2 x 2 x 4 = 16 hardware threads, slow enough to be caught running.
env = h.small_device(20)
kernel_elf = h.fixture("vadd-xehpc.elf")
t = h.Tap(48)  # the plan: every check this test makes


def thread_rows(out):
    """(gdb number, pid, tid, pc) for every row of `info threads`."""
    return [(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4), 16))
            for m in re.finditer(r"^\*?\s+(\d+)\s+Thread (\d+)\.(\d+)(?: \"[^\"]*\")?\s+0x([0-9a-f]+) in ",
                                 out, re.M)]


def words_at_pc(out):
    """The bytes of an `x/4xw $pc` line (little-endian words)."""
    m = re.search(r"^0x[0-9a-f]+:\s+((?:0x[0-9a-f]{8}\s*){4})$", out, re.M)
    if not m:
        return None
    return b"".join(int(w, 16).to_bytes(4, "little") for w in m.group(1).split())


def common_checks(tag, out, pid_shown):
    t.ok("internal-error" not in out and "Remote 'g' packet" not in out
         and "Truncated register" not in out and "PC register is not available" not in out,
         "%s: no GDB errors about the target" % tag, out)
    rows = thread_rows(out)
    t.eq(len(rows), h.SMALL_THREADS, "%s: info threads lists every hardware thread" % tag)
    t.ok(rows and all(r[1] == pid_shown for r in rows),
         "%s: threads belong to process %d" % (tag, pid_shown), rows[:2])
    t.eq(sorted(r[2] for r in rows), list(range(1, h.SMALL_THREADS + 1)),
         "%s: thread ids 1..%d" % (tag, h.SMALL_THREADS))
    t.ok(rows and all(r[3] != 0 for r in rows), "%s: every thread has a PC" % tag, rows[:2])
    code = words_at_pc(out)
    t.ok(code is not None and code in kernel_elf,
         "%s: the 16 bytes at $pc are code of the vadd kernel (its ELF fixture)" % tag,
         code.hex() if code else out)
    t.ok("The following monitor commands are supported" in out and "exit --" in out,
         "%s: monitor help reaches the server" % tag, out)
    t.ok(re.search(r"\[Inferior 1 \(process \d+\) detached\]", out) is not None,
         "%s: detach" % tag, out)


try:
    # ---- target remote, zestub --attach PID ----------------------------------
    app, line = h.start_app(env, args=["--print-buffers"], running="buffers:")
    t.ok(line.startswith("device:"), "the application started", line)
    srv = h.Zestub(env, "--attach", str(app.pid))
    t.ok(srv.port is not None, "zestub listens", srv.stderr())
    rc, out = h.gdb_batch(gdb, ["target remote :%d" % srv.port, "info threads", "x/4xw $pc",
                                "monitor help", "detach"])
    t.eq(rc, 0, "target remote: gdb exits 0")
    common_checks("target remote", out, 1)
    t.eq(h.wait_exit(app), 0, "target remote: the application finishes after detach")
    t.eq(srv.wait(), 0, "target remote: zestub --once exits 0")
    t.ok("Detached from device" in srv.stderr(), "zestub says it detached", srv.stderr())
    t.ok("zestub: info:" not in srv.stderr() and "zestub: debug:" not in srv.stderr(),
         "default --log-level: no info or debug lines", srv.stderr())

    # ---- target extended-remote, attach PID ------------------------------------
    app, line = h.start_app(env, args=["--print-buffers"], running="buffers:")
    srv = h.Zestub(env, "--multi")
    rc, out = h.gdb_batch(gdb, ["target extended-remote :%d" % srv.port, "attach %d" % app.pid,
                                "info threads", "info inferiors", "x/4xw $pc", "monitor help",
                                "detach", "monitor exit"])
    t.eq(rc, 0, "extended-remote: gdb exits 0")
    # Stock GDB insists that the process it attached to keeps the host pid,
    # so zestub shows the device process under it for such a client.
    common_checks("extended-remote", out, app.pid)
    t.ok(re.search(r"^\*\s+1\s+process %d\s" % app.pid, out, re.M) is not None
         or "[Inferior 1 (process %d) detached]" % app.pid in out,
         "extended-remote: the inferior is the host pid GDB attached to", out)
    t.eq(h.wait_exit(app), 0, "extended-remote: the application finishes after detach")
    t.eq(srv.wait(), 0, "extended-remote: monitor exit ends zestub with 0")

    # ---- continue to the end: the device process exits --------------------------
    app, line = h.start_app(env, args=["--print-buffers"], running="buffers:")
    srv = h.Zestub(env, "--log-level", "debug", "--attach", str(app.pid))
    rc, out = h.gdb_batch(gdb, ["target remote :%d" % srv.port, "continue"])
    t.ok(re.search(r"\[Inferior 1 \(process 1\) exited with code 01\]", out) is not None,
         "continue: GDB sees the device process exit when the application ends", out)
    t.eq(h.wait_exit(app), 0, "continue: the application finishes normally")
    t.eq(srv.wait(), 0, "continue: zestub exits 0")
    log = srv.stderr()
    for want in ("zestub: info: attached to process %d" % app.pid, "zestub: info: client connected",
                 "zestub: debug: resume: continue p1.-1",
                 "zestub: info: device process 1: the application is gone from the device",
                 "zestub: debug: event: exited p1.0", "zestub: info: client gone"):
        t.ok(want in log, "--log-level debug logs '%s'" % want, log)
    # ---- a breakpoint from stock GDB (Z0 in the server) ----------------------
    app, line = h.start_app(env, args=["--print-buffers"], running="buffers:")
    srv = h.Zestub(env, "--attach", str(app.pid))
    # The next instruction's address: Intel GT instructions are 8 bytes when
    # compacted (bit 29), else 16; GDB itself cannot tell.
    plant = ("python pc = int(gdb.parse_and_eval('$pc')); "
             "b = bytes(gdb.selected_inferior().read_memory(pc, 4)); "
             "gdb.execute('break *0x%x' % (pc + (8 if b[3] & 0x20 else 16)))")
    rc, out = h.gdb_batch(gdb, ["target remote :%d" % srv.port, plant, "continue", "p/x $pc",
                                "delete", "continue"])
    m = re.search(r"Breakpoint 1 at 0x([0-9a-f]+)", out)
    hit = re.search(r"hit Breakpoint 1, 0x0*([0-9a-f]+) in", out)
    t.ok(m is not None and hit is not None and int(hit.group(1), 16) == int(m.group(1), 16),
         "stock GDB: break *ADDR (Z0) is hit at that address", out)
    t.ok(re.search(r"exited with code 01", out) is not None,
         "stock GDB: after delete, continue runs to the end", out)
    t.eq(h.wait_exit(app), 0, "breakpoint run: the application finishes normally")
    t.eq(srv.wait(), 0, "breakpoint run: zestub exits 0")

    # ---- binary writes: GDB leaves '%' (0x25) raw inside its X packets --------
    app = h.launch(env, args=["--print-buffers"])
    line = app.stdout.readline().decode(errors="replace")
    while line and not line.startswith("buffers:"):
        line = app.stdout.readline().decode(errors="replace")
    m = re.search(r"pattern=0x([0-9a-f]+)", line)
    t.ok(m is not None, "binary writes: vadd published its pattern buffer", line)
    pat = int(m.group(1), 16) if m else 0
    srv = h.Zestub(env, "--attach", str(app.pid))
    every = "python gdb.selected_inferior().write_memory(0x%x, bytes(range(256)))" % (pat + 0x100)
    back = ("python print('every byte:', bytes(gdb.selected_inferior().read_memory(0x%x, 256))"
            " == bytes(range(256)))" % (pat + 0x100))
    rc, out = h.gdb_batch(gdb, ["target remote :%d" % srv.port, "set {int}0x%x = 0x25252525" % pat,
                                "x/wx 0x%x" % pat, every, back, "detach"])
    t.ok(re.search(r"^0x%x:\s+0x25252525$" % pat, out, re.M) is not None
         and "Ignoring packet error" not in out,
         "stock GDB: set {int}A=0x25252525 (X with raw '%') reads back with x/wx", out)
    t.ok("every byte: True" in out, "stock GDB: every byte value 0..255 written and read back", out)
    t.eq(h.wait_exit(app), 0, "binary writes: the application finishes after detach")
    t.eq(srv.wait(), 0, "binary writes: zestub exits 0")

    # ---- SIGTERM while waiting for a client: exit, leave nothing stopped ----
    app, line = h.start_app(env, args=["--print-buffers"], running="buffers:")
    srv = h.Zestub(env, "--attach", str(app.pid))
    srv.proc.send_signal(signal.SIGTERM)
    t.ok(srv.wait(5) is not None, "SIGTERM while no client is connected ends zestub",
         srv.stderr())
    t.eq(h.wait_exit(app), 0, "... and the application it had stopped finishes normally")

    bad = h.Zestub(env, "--log-level", "loud", "-")
    t.ok(bad.wait() == 2 and "--log-level takes error, warning, info or debug" in bad.stderr(),
         "--log-level with a bad level: exit 2 and a clear message", bad.stderr())
finally:
    h.cleanup()
sys.exit(t.done())
