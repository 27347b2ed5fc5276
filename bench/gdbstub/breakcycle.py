# SPDX-License-Identifier: MIT
"""The stop/resume cycle of a breakpoint every hardware thread hits: the
"condition always false" pattern of Intel's debugger performance tests,
where the debugger stops at each hit, finds the condition false and
continues, so the run costs one stop and one resume per hit.

One run: vadd --wait-before-load --items N under zestub with Intel's
in-memory-library features; at the module's load stop the client reads
the module ELF through memory, takes a line-table address early in the
kernel (objdump --dwarf=decodedline, as tests/integration/test_breakpoints.py
does) and sets the breakpoint bit of that instruction with M, as Intel's
GDB does; then, from the vAck that lets the module creation return, it
reads each stop reply (the registers GDB would test arrive expedited in
it) and answers vCont;c, until the W reply. The baseline is the same run
with no bit planted. zestub runs with --log-level debug into a file, so
each report can be told apart: "pX.Y stopped" is a fresh device event,
"pX.Y was held: reported instead of a resume" a thread the stop-all of an
earlier report caught at the breakpoint."""

import os
import re
import statistics
import subprocess
import tempfile
import time

from measure import xfer
from report import fmt_time
from rig import QSUPPORTED, RigError, Server

clock = time.perf_counter

# Intel's GDB says it can take modules from memory: the server then stops
# at each module load and holds it until vAck, the moment a debugger plants
# breakpoints in a kernel before it first runs.
FEATURES = QSUPPORTED + ";qXfer:libraries:read:in-memory-library+;vAck:in-memory-library+"
FRESH = re.compile(r"zestub: debug: p\d+\.[0-9a-f]+ stopped$")
HELD = re.compile(r"zestub: debug: p\d+\.[0-9a-f]+ was held: reported instead of a resume$")


def start_app(where, items):
    env = dict(where.env(), ZET_ENABLE_PROGRAM_DEBUGGING="1")
    app = subprocess.Popen(
        [os.path.join(where.builddir, "examples", "vadd"), "--wait-before-load",
         "--items", str(items)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)
    first = app.stdout.readline().decode(errors="replace")
    if not first.startswith("device:"):
        kill_app(app)
        raise RigError("vadd did not start: %r" % first)
    return app


def kill_app(app):
    if app.poll() is None:
        app.kill()
    app.wait()
    for f in (app.stdin, app.stdout):
        try:
            f.close()
        except OSError:
            pass  # a pipe the dead process left broken


def line_address(c, begin, end):
    """An early statement of the kernel from the module's own DWARF line
    table: the third distinct address, the first statement every work-item
    executes after the prologue (test_breakpoints.py's choice). Returns it
    and the kernel's SIMD width from its zeinfo."""
    parts, off = [], 0
    while begin + off < end:
        r = c.request("x%x,%x" % (begin + off, min(0x4000, end - begin - off)))
        if r[:1] != b"b" or len(r) == 1:
            break
        parts.append(r[1:])
        off += len(r) - 1
    data = b"".join(parts)
    with tempfile.NamedTemporaryFile(suffix=".elf") as f:
        f.write(data)
        f.flush()
        out = subprocess.run(["objdump", "--dwarf=decodedline", f.name], capture_output=True,
                             text=True).stdout
    lines = sorted({int(m.group(1), 0) for m in
                    re.finditer(r"^\S+\.cl\s+\d+\s+(0x[0-9a-f]+|\d+)", out, re.M)})
    simd = re.search(rb"simd_size:\s*(\d+)", data)
    if len(lines) < 4 or not simd:
        raise RigError("no line table or SIMD width in the module (%d rows)" % len(lines))
    return lines[2], int(simd.group(1))


def plant(c, addr):
    """Sets the breakpoint control bit: bit 7 of a compacted instruction
    (compaction is bit 29), bit 30 of a native one (gtsim/README.md)."""
    insn = bytearray(bytes.fromhex(c.req("m%x,10" % addr)))
    if insn[3] & 0x20:
        insn[0] |= 0x80
    else:
        insn[3] |= 0x40
    if c.req("M%x,10:%s" % (addr, bytes(insn).hex())) != "OK":
        raise RigError("M refused to plant the breakpoint bit")


def one_run(where, items, timeout, with_bp, logdir):
    """One application run under zestub; returns a dict: seconds from the
    vAck to the W reply, the breakpoint reports (each with its latency
    from vCont;c to the reply and its kind from zestub's log), anything
    else reported, and vadd's dispatch count."""
    app = start_app(where, items)
    log = os.path.join(logdir, "zestub-%s-%d.log" % ("bp" if with_bp else "base", items))
    srv = None
    try:
        srv = Server(where, timeout, args=("--log-level", "debug"), log_path=log)
        c = srv.client
        srv.hello(FEATURES)
        stop = c.req("vAttach;%x" % app.pid, timeout=timeout)
        if not re.match(r"^[TUS]", stop):
            raise RigError("vAttach answered %r (%s)" % (stop[:60], srv.stderr()))
        app.stdin.write(b"go\n")
        app.stdin.flush()
        c.send("vCont;c")
        r = c.recv(timeout).decode("latin-1")
        if r != "Up1.0;library":
            raise RigError("expected the module's load stop, got %r" % r[:60])
        m = re.search(r'begin="0x([0-9a-f]+)" end="0x([0-9a-f]+)"',
                      xfer(c, "libraries", "", 0x1000)[0].decode())
        if not m:
            raise RigError("no in-memory library in qXfer:libraries")
        begin, end = int(m.group(1), 16), int(m.group(2), 16)
        addr, simd = line_address(c, begin, end)
        if with_bp:
            plant(c, addr)
        hits, other, errors, lat, last, unloaded = 0, [], [], [], None, False
        t0 = clock()
        if c.req("vAck:in-memory-library:0x%x,0x%x" % (begin, end)) != "OK":
            raise RigError("vAck refused")
        while True:
            t1 = clock()
            c.send("vCont;c")
            r = c.recv(timeout).decode("latin-1")
            if r.startswith("W"):
                break
            if r.startswith("T"):
                lat.append(clock() - t1)
            elif lat and last is None:
                # The continue after the last report: it resumes every
                # stopped thread, then the kernel ends and vadd destroys
                # its module (the unload stop).
                last = clock() - t1
            if r.startswith("T05swbreak:;"):
                hits += 1
            elif r.startswith("E") and unloaded:
                # zestub answers a continue after vadd is gone with the
                # failed resume, not W: a user would continue again.
                errors.append(r[:70])
            elif r == "Up1.0;library":  # the module's unload at the end
                unloaded = True
            else:
                other.append(r[:40])
            if len(other) > 20 or len(errors) > 20:
                raise RigError("unexpected stops: %r" % other[:3])
        secs = clock() - t0
        if not r.startswith("W1"):  # vadd's device process is p1
            raise RigError("the run ended with %r" % r[:40])
        out, _ = app.communicate(timeout=timeout)
        g = re.search(r"launch: (\d+) work-groups of (\d+) work-items",
                      out.decode(errors="replace"))
        if app.returncode != 0 or not g:
            raise RigError("vadd failed (exit %s)" % app.returncode)
        dispatches = int(g.group(1)) * -(-int(g.group(2)) // simd)
        srv.kill()
        # Every T report comes from one of the two log lines, in order (the
        # library reports from neither), so the i-th line is the kind of
        # the i-th latency.
        kinds = [("fresh" if FRESH.match(x) else "held") for x in srv.log_lines()
                 if FRESH.match(x) or HELD.match(x)]
        return {"secs": secs, "hits": hits, "other": other, "dispatches": dispatches,
                "latencies": lat, "kinds": kinds, "last": last,
                "errors": errors}
    finally:
        if srv:
            srv.kill(grace=0)
        kill_app(app)


def measure(where, sizes, reps, timeout, loop, rtt_reps, progress):
    """Per size (vadd's --items): `reps` runs with the breakpoint and as
    many without, alternated so both see the same machine, each after
    rtt_reps loopback round trips. Returns {items: [(base, bp), ...]} and
    the RTT samples."""
    out, rtt = {}, []
    with tempfile.TemporaryDirectory(prefix="zestub-breakcycle-") as logdir:
        for items in sizes:
            for i in range(reps):
                pair = []
                for with_bp in (False, True):
                    progress("breakpoint cycle: %d items, %s, %d/%d" % (
                        items, "breakpoint" if with_bp else "no breakpoint", i + 1, reps))
                    rtt += [loop.rtt() for _ in range(rtt_reps)]
                    pair.append(one_run(where, items, timeout, with_bp, logdir))
                out.setdefault(items, []).append(tuple(pair))
    return out, rtt


def tabulate(table, summary, runs, rtt_med):
    """Rows per size: the run without and with the breakpoint, the cost per
    reported hit and per dispatch, and the two kinds of report."""
    for items, pairs in runs.items():
        d = pairs[0][1]["dispatches"]
        base = [b["secs"] for b, _ in pairs]
        bps = [p for _, p in pairs]
        hits = [p["hits"] for p in bps]
        fresh = [x for p in bps for x, k in zip(p["latencies"], p["kinds"]) if k == "fresh"]
        held = [x for p in bps for x, k in zip(p["latencies"], p["kinds"]) if k == "held"]
        paired = all(len(p["kinds"]) == len(p["latencies"]) for p in bps)
        tag = "%s dispatches" % format(d, ",")
        table.time_row("no breakpoint: vAck -> W (%s)" % tag, base, rtt_med,
                       "vadd --items %d, attached, vCont;c to the exit" % items)
        missed = [d - h for h in hits if h < d]
        table.time_row("breakpoint: vAck -> W (%s)" % tag, [p["secs"] for p in bps], rtt_med,
                       "hits reported per run: %s of %d%s" % (
                           "/".join(str(h) for h in hits), d,
                           "; MISSED hits in %d of %d runs (zestub, bench/README.md)"
                           % (len(missed), len(bps)) if missed else ""))
        table.time_row("  per reported hit", [p["secs"] / max(p["hits"], 1) for p in bps],
                       rtt_med, "whole run / breakpoint reports")
        mb = statistics.median(base)
        table.time_row("  per dispatch, above no breakpoint",
                       [(p["secs"] - mb) / d for p in bps], rtt_med,
                       "(run - median run without) / %d dispatches" % d)
        if paired and fresh:
            table.time_row("  fresh stop: vCont;c -> T", fresh, rtt_med,
                           "%d reports: a device event, then stop-all" % len(fresh))
        if paired and held:
            table.time_row("  held stop: vCont;c -> T", held, rtt_med,
                           "%d reports: caught by an earlier stop-all" % len(held))
        ends = [p["last"] for p in bps if p["last"] is not None]
        if ends:
            table.time_row("  after the last report: vCont;c -> unload", ends, rtt_med,
                           "resumes every stopped thread; the kernel ends")
        if not paired:
            table.error_row("  fresh / held", "zestub's log does not pair with the reports")
        errs = [e for p in bps for e in p["errors"]]
        if errs:
            table.note_row("  continue after the exit",
                           "zestub answered %d continue(s) with %r, then W (bench/README.md)"
                           % (len(errs), errs[0]))
        others = [o for p in bps for o in p["other"]]
        if others:
            table.error_row("  other stops", "%d, e.g. %r" % (len(others), others[0]))
        med = statistics.median(p["secs"] for p in bps)
        summary.append("breakpoint cycle, %s: %s per reported hit, %s per dispatch above the "
                       "run without (%s)" % (tag, fmt_time(med / max(statistics.median(hits), 1)),
                                             fmt_time((med - mb) / d), fmt_time(mb)))
        if missed:
            summary.append("zestub MISSED breakpoint hits, %s: %s of %d not reported"
                           % (tag, "/".join(str(m) for m in missed), d))
