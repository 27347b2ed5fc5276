#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""zestub's GDB server against examples/vadd on gtsim at 8,192 and 65,536
hardware threads: attach + stop-all + the full thread list, ^C to stop
reply, and bulk `x`/`m` reads, beside the loopback round trip and the
client's own bulk ceiling measured in the same run; then the stop/resume
cycle of a breakpoint every dispatch hits (bench/README.md).

Run from a build directory (or pass --builddir); `make bench-gdbstub`
does. --smoke is the tiny run `make check` uses."""

import argparse
import hashlib
import os
import shutil
import signal
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # the source tree is read-only in distcheck
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "lib"))
sys.path.insert(0, HERE)

import breakcycle  # noqa: E402
import loopback  # noqa: E402
from measure import Session, attach_once  # noqa: E402
from report import Table, fmt_ratio, fmt_time, med_min  # noqa: E402
from rig import App, RigError, Where  # noqa: E402

# pace=1: vadd's kernel is 34 instructions, so its threads run for
# about half a minute of unstopped time, far more than the benchmark lets
# them run; every attach and ^C finds them running.
CONFIGS = [
    "platform=xehpc,slices=8,subslices=8,eus=8,threads=16,pace=1",
    "platform=xehpc,slices=64,subslices=8,eus=8,threads=16,pace=1",
]
SMOKE_CONFIG = "platform=xehpc,pace=2"  # gtsim's default 1x4x8x8 = 256 threads
# The breakpoint cycle needs the kernel to end: pace=0 (as fast as gtsim
# goes). vadd's kernel is SIMD 32, so 32 work-items per dispatch: the
# largest size gives every one of the 8,192 threads one dispatch.
BREAK_CONFIG = "platform=xehpc,slices=8,subslices=8,eus=8,threads=16,pace=0"
BREAK_ITEMS = [1024 * 32, 4096 * 32, 8192 * 32]
SMOKE_BREAK_CONFIG = "platform=xehpc,pace=0"
SMOKE_BREAK_ITEMS = [256 * 32]
MIB = 1 << 20
# Bulk passes, each beside its loopback baseline (loopback.py): x of zeros,
# X of every byte value, m of hex. "isa" is the instruction heap from the
# stopped thread's isabase (vadd's code, then zeros), "buf" vadd's 128 KiB
# buffer of every byte value, read round and round.
READ_ORDER = ("loop x", "x isa", "loop X", "x buf", "loop m", "m isa", "m buf")
REPLY_BYTES = 32768  # zestub's largest `x`/`m` data (half its PacketSize)


def thread_count(config):
    """Hardware threads per device, with gtsim's defaults (gtsim/README.md)."""
    shape = {"tiles": 1, "slices": 1, "subslices": 4, "eus": 8, "threads": 8}
    for kv in config.split(","):
        k, _, v = kv.partition("=")
        if k in shape:
            shape[k] = int(v)
    n = 1
    for v in shape.values():
        n *= v
    return n


def options():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--builddir", default=os.environ.get("top_builddir", "."))
    p.add_argument("--config", action="append", help="GTSIM_CONFIG to measure (repeatable)")
    p.add_argument("--attach-reps", type=int, default=5)
    p.add_argument("--ctrlc-reps", type=int, default=10)
    p.add_argument("--run-ms", type=float, default=50, help="running time before each ^C")
    p.add_argument("--mem-mib", type=int, default=16, help="bytes per read pass (<= 64)")
    p.add_argument("--mem-reps", type=int, default=3)
    p.add_argument("--rtt-reps", type=int, default=1000, help="qC/loopback pairs")
    p.add_argument("--break-config", help="GTSIM_CONFIG of the breakpoint cycle")
    p.add_argument("--break-items", type=int, action="append",
                   help="vadd work-items for the breakpoint cycle (repeatable; 32 per dispatch)")
    p.add_argument("--break-reps", type=int, default=3, help="0 skips the breakpoint cycle")
    p.add_argument("--timeout", type=float, default=120, help="seconds per reply")
    p.add_argument("--smoke", action="store_true", help="tiny sizes for make check")
    a = p.parse_args()
    if a.smoke:
        a.config = a.config or [SMOKE_CONFIG]
        a.attach_reps, a.ctrlc_reps, a.mem_mib, a.mem_reps, a.rtt_reps = 2, 3, 1, 1, 100
        a.break_config = a.break_config or SMOKE_BREAK_CONFIG
        a.break_items = a.break_items or SMOKE_BREAK_ITEMS
        a.break_reps = min(a.break_reps, 1)
    a.config = a.config or CONFIGS
    a.break_config = a.break_config or BREAK_CONFIG
    a.break_items = a.break_items or BREAK_ITEMS
    a.mem_mib = max(1, min(a.mem_mib, 64))  # gtsim's instruction heap is 64 MiB
    a.builddir = os.path.abspath(a.builddir)
    return a


def progress(text):
    print("# " + text, file=sys.stderr, flush=True)


def measure_attach(a, where, app, n):
    runs = []
    for i in range(a.attach_reps):
        progress("attach %d/%d" % (i + 1, a.attach_reps))
        runs.append(attach_once(where, app.pid, n, a.timeout))
    return runs


def measure_session(a, where, app):
    """Round trips, ^C and bulk reads in one attached session, each beside
    its loopback baseline. Returns a dict of samples."""
    out = {}
    loop = loopback.Loopback(REPLY_BYTES)
    s = Session(where, app.pid, a.timeout)
    try:
        progress("round trips x %d" % a.rtt_reps)
        out["qc"], out["rtt"] = s.round_trips(loop, a.rtt_reps)
        progress("^C x %d" % a.ctrlc_reps)
        out["ctrlc"], out["early"] = s.ctrl_c(a.ctrlc_reps, a.run_ms / 1000.0)
        where_at = {"isa": (s.isa_base(), None), "buf": (app.pattern, app.pattern_bytes)}
        total = a.mem_mib * MIB
        digests = {k: set() for k in ("isa", "buf")}
        for i in range(a.mem_reps):
            progress("bulk reads %d/%d, %d MiB each" % (i + 1, a.mem_reps, a.mem_mib))
            for key in READ_ORDER:
                if key.startswith("loop "):
                    out.setdefault(key, []).append(loop.bulk(total, key[5:]))
                    continue
                base, span = where_at[key[2:]]
                secs, largest, d = s.bulk_read(base, total, key[0] == "x", span)
                out.setdefault(key, []).append(secs)
                out["largest"] = largest
                digests[key[2:]].add(d)
        # x and m must agree, and the buffer must hold what vadd wrote.
        want = hashlib.sha256(bytes(range(256)) * (total // 256)).hexdigest()
        out["bad data"] = [k for k, d in digests.items() if len(d) != 1]
        if digests["buf"] != {want}:
            out["bad data"].append("buf")
        s.close()
    except BaseException:
        s.kill()
        raise
    finally:
        loop.close()
    return out


def tabulate(a, table, n, runs, ses, summary):
    rtt = None
    if ses:
        rtt = med_min(ses["rtt"])[0]
        table.time_row("loopback RTT (Python echo)", ses["rtt"], rtt,
                       "baseline, interleaved with the qC samples")
        qc = table.time_row("qC round trip (zestub)", ses["qc"], rtt,
                            "cheapest request: no device access")
    if runs:
        r0 = runs[0]
        table.time_row("vAttach -> stop reply", [r["attach"] for r in runs], rtt,
                       "stop-all; reply %s" % "/".join(sorted({r["stop"] for r in runs})))
        table.time_row("attach + qfThreadInfo list", [r["attach"] + r["qf"] for r in runs], rtt,
                       "%d threads of %d, %d packets" % (r0["threads"], n, r0["qf_packets"]))
        table.time_row("attach + qXfer:threads list", [r["attach"] + r["xfer"] for r in runs],
                       rtt, "%d KiB XML, %d packets" % (r0["xml_bytes"] // 1024,
                                                        r0["xfer_packets"]))
        table.time_row("  list alone: qfThreadInfo", [r["qf"] for r in runs], rtt)
        table.time_row("  list alone: qXfer, 64 KiB pieces", [r["xfer"] for r in runs], rtt)
        table.time_row("  list alone: qXfer, 4 KiB pieces", [r["xfer4k"] for r in runs], rtt,
                       "%d packets" % r0["xfer4k_packets"])
    if not ses:
        return
    if ses["ctrlc"]:
        med = table.time_row("Ctrl-C -> stop reply", ses["ctrlc"], rtt,
                             "after %g ms running%s" % (a.run_ms, "; %d stopped early"
                                                         % ses["early"] if ses["early"] else ""))
        summary.append("Ctrl-C to stop: %s = %s loopback RTT (%s) = %s zestub qC" % (
            fmt_time(med), fmt_ratio(med / rtt), fmt_time(rtt), fmt_ratio(med / qc)))
    else:
        table.error_row("Ctrl-C -> stop reply", "every continue stopped before the ^C")
    total = a.mem_mib * MIB
    rows = (("loop x", "loopback, binary replies, zeros", "x"),
            ("x isa", "x read, isabase (code, zeros)", "x"),
            ("loop X", "loopback, binary, every byte", "X"),
            ("x buf", "x read, device buffer", "X"),
            ("loop m", "loopback, hex replies", "m"),
            ("m isa", "m read, isabase (code, zeros)", "m"),
            ("m buf", "m read, device buffer", "m"))
    for key, name, base in rows:
        ceiling = total / med_min(ses["loop " + base])[0]
        if key.startswith("loop "):
            note = "baseline: this client, no server work"
        else:
            note = "%d MiB, %d KiB per reply" % (a.mem_mib, ses["largest"] // 1024)
            if key.endswith("buf"):
                note += ", vadd's 128 KiB buffer of every byte value"
        table.rate_row(name, ses[key], total, ceiling, note)
    for k in ses["bad data"]:
        table.error_row("data read", "x and m disagree or the buffer is wrong (%s)" % k)


def run_config(a, config, rundir):
    n = thread_count(config)
    table = Table("%s threads (GTSIM_CONFIG=%s)" % (format(n, ","), config))
    summary, runs, ses = [], None, None
    progress("starting vadd: %s" % config)
    t0 = time.monotonic()
    where = Where(a.builddir, config, rundir)
    try:
        app = App(where)
    except RigError as e:
        table.error_row("application", str(e))
        return table, summary
    try:
        try:
            runs = measure_attach(a, where, app, n)
        except RigError as e:
            table.error_row("attach + thread list", str(e))
        try:
            ses = measure_session(a, where, app)
        except RigError as e:
            table.error_row("attached session", str(e))
        tabulate(a, table, n, runs, ses, summary)
        if app.proc.poll() is not None:
            table.error_row("application", "vadd ended (exit %s) while measured"
                            % app.proc.returncode)
    finally:
        app.kill()  # detached above (or zestub killed): it is not stopped
    summary.append("wall time for this configuration: %.1f s" % (time.monotonic() - t0))
    return table, summary


def run_break(a, rundir):
    """The breakpoint cycle (breakcycle.py) on its own device, beside the
    loopback round trip taken between its runs."""
    config = a.break_config
    n = thread_count(config)
    table = Table("breakpoint cycle: %s threads (GTSIM_CONFIG=%s)" % (format(n, ","), config))
    summary = []
    t0 = time.monotonic()
    where = Where(a.builddir, config, rundir)
    loop = loopback.Loopback(64)
    try:
        runs, rtt = breakcycle.measure(where, a.break_items, a.break_reps, a.timeout, loop,
                                       max(a.rtt_reps // 10, 10), progress)
        rtt_med = table.time_row("loopback RTT (Python echo)", rtt, None,
                                 "baseline, taken before each run")
        breakcycle.tabulate(table, summary, runs, rtt_med)
    except RigError as e:
        table.error_row("breakpoint cycle", str(e))
    finally:
        loop.close()
    summary.append("wall time for the breakpoint cycle: %.1f s" % (time.monotonic() - t0))
    return table, summary


def main():
    a = options()
    # A SIGTERM (make interrupted, a test timeout) unwinds like ^C, so the
    # finally blocks kill zestub and the application.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print("zestub GDB-server benchmark (bench/gdbstub): examples/vadd on gtsim, zestub over "
          "loopback TCP, no-ack mode, Intel qSupported")
    print("best = minimum time (maximum MB/s); vs baseline = median / loopback RTT median, or "
          "MB/s as a share of the loopback median at the same reply size")
    failed = False
    rundir = tempfile.mkdtemp(prefix="zestub-bench-")
    try:
        for config in a.config:
            table, summary = run_config(a, config, rundir)
            print()
            print(table.render())
            for line in summary:
                print("  " + line)
            sys.stdout.flush()
            failed |= any(r[5].startswith("ERROR") for r in table.rows)
        if a.break_reps > 0:
            table, summary = run_break(a, rundir)
            print()
            print(table.render())
            for line in summary:
                print("  " + line)
            sys.stdout.flush()
            failed |= any(r[5].startswith("ERROR") for r in table.rows)
    finally:
        shutil.rmtree(rundir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
