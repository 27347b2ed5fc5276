#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A hang dump at scale: examples/sycl_hang fills a gtsim device with
threads waiting at slm's barrier (barrier_skip=1, gtsim/README.md,
"Hangs"), then `zestub dump --attach PID --on hang=1s` with
ZESTUB_DUMP_TIMING=1 says, for the same run, how long it took from the
trigger to every thread stopped (the stop-all) and from there to the
report on disk. Issue 21's target: the report within 1 s beyond the
stop-all time. Baseline measured in the same run, on the same hung
program: `zestub dump --attach PID --on now --registers none` (attach,
stop, every thread asked where it is, resume), the dump path without the
hang watch. Figures are medians over --reps; nothing is judged."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

# threads -> the device's shape (a subslice holds 256 threads here)
SHAPES = {256: "slices=1,subslices=1,eus=16,threads=16",
          8192: "slices=8,subslices=4,eus=16,threads=16",
          65536: "slices=64,subslices=4,eus=16,threads=16"}
GROUP = 256  # work-items a group: 8 threads at SIMD 32, 7 of them wait
TIMING = re.compile(r"trigger to all stopped ([\d.]+) s, all stopped to report written "
                    r"([\d.]+) s, trigger to report written ([\d.]+) s")


def env_for(builddir, threads, extra=""):
    """extra: more GTSIM_CONFIG items (both processes), e.g. poll_us=0."""
    env = dict(os.environ)
    env["ZE_ENABLE_ALT_DRIVERS"] = os.path.join(builddir, ".libs", "libze_gtsim.so")
    env["ZET_ENABLE_PROGRAM_DEBUGGING"] = "1"
    env["GTSIM_CONFIG"] = "platform=xehpc,%s,barrier_skip=1%s" % (SHAPES[threads],
                                                                 "," + extra if extra else "")
    return env


def start_hung(builddir, env, threads, timeout=120):
    """sycl_hang under the XPTI subscriber, with enough groups to fill the
    device; returns (process, pid) once every thread it can hold waits."""
    libs = os.path.join(builddir, ".libs")
    traced = dict(env, XPTI_TRACE_ENABLE="1",
                  XPTI_SUBSCRIBERS=os.path.join(libs, "libzestub_xpti.so"),
                  XPTI_FRAMEWORK_DISPATCHER=os.path.join(libs, "libxptifw.so"))
    groups = threads // 8 * 2
    app = subprocess.Popen([os.path.join(builddir, "examples", "sycl_hang"), "--give-up",
                            str(timeout), "--groups", str(groups), "--group-size", str(GROUP)],
                           env=traced, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    pid = None
    for line in app.stdout:
        line = line.decode(errors="replace")
        m = re.match(r"sycl_hang: pid (\d+)", line)
        pid = m.group(1) if m else pid
        if line.startswith("submit kernel slm"):
            break
    # Dispatch fills the device within moments of the submission.
    time.sleep(max(1.0, threads / 65536 * 3))
    return app, pid


def run(argv, env):
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    return time.perf_counter() - t0, p.returncode, p.stderr.decode(errors="replace")


def one(builddir, threads, out_dir, fmt, extra=""):
    env = env_for(builddir, threads, extra)
    zestub = os.path.join(builddir, "zestub")
    app, pid = start_hung(builddir, env, threads)
    try:
        _, rc_now, err_now = run([zestub, "dump", "--attach", pid, "--on", "now",
                                  "--registers", "none", "--json", os.devnull], env)
        wall_now, _, _ = run([zestub, "dump", "--attach", pid, "--on", "now", "--registers",
                              "none", "--json", os.devnull], env)
        out = os.path.join(out_dir, "hang.json" if fmt == "json" else "hang.txt")
        argv = [zestub, "dump", "--attach", pid, "--on", "hang=1s"]
        argv += ["--json", out] if fmt == "json" else []
        timed = dict(env, ZESTUB_DUMP_TIMING="1")
        if fmt == "json":
            _, rc, err = run(argv, timed)
        else:
            with open(out, "w") as f:
                p = subprocess.run(argv, env=timed, stdin=subprocess.DEVNULL, stdout=f,
                                   stderr=subprocess.PIPE, timeout=600)
            rc, err = p.returncode, p.stderr.decode(errors="replace")
        m = TIMING.search(err)
        with open(out) as f:
            n = re.search(r'"stopped_threads":(\d+)|^(\d+) stopped threads?$', f.read(), re.M)
        if rc != 6 or not m or rc_now != 0:
            sys.exit("bench_hang: the hang dump failed (status %s, --on now %s):\n%s%s"
                     % (rc, rc_now, err[-1500:], err_now[-500:]))
        return (float(m.group(1)), float(m.group(2)), float(m.group(3)), wall_now,
                int(n.group(1) or n.group(2)) if n else -1)
    finally:
        app.kill()
        app.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--threads", type=int, action="append", choices=sorted(SHAPES))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--format", choices=["human", "json"], action="append")
    ap.add_argument("--gtsim", default="", help="more GTSIM_CONFIG items for both processes "
                    "(poll_us=0: gtsim's streams sleep at once, as before poll_us)")
    a = ap.parse_args()
    out_dir = tempfile.mkdtemp()
    print("threads format   stopped  stop-all s  stop->report s  trigger->report s  "
          "beyond stop-all s  ratio to stop-all  --on now (baseline) s  ratio to --on now")
    for threads in a.threads or [65536]:
        for fmt in a.format or ["human", "json"]:
            rows = [one(a.builddir, threads, out_dir, fmt, a.gtsim) for _ in range(a.reps)]
            stop, after, total, now = (statistics.median(r[i] for r in rows) for i in range(4))
            print("%7d %-7s %8d %11.4f %15.3f %18.3f %18.3f %18.0fx %22.3f %18.2fx"
                  % (threads, fmt, rows[0][4], stop, after, total, total - stop,
                     total / stop if stop else float("inf"), now, total / now))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
