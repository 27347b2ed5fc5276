#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""zestub merge at job scale (issue 36): N copies of one hang dump, each
with its own rank, merged by `zestub merge --json` (output to /dev/null),
pinned to one core. Reports the wall time and the child's peak RSS
(getrusage of the merge process, ru_maxrss) for each N, and with
--baseline PATH the same for another zestub (the build before a change)
in the same run, with the ratios. Issue 36's goal: 10,000 hang-size dumps
(324 KB, 252 threads each) in < 30 s with peak RSS < 512 MB.

The dump: --dump FILE, or one made here on gtsim (examples/sycl_hang on a
256-thread device with barrier_skip=1, `zestub dump --on hang=1s --json`:
about 324 KB, 252 threads waiting at slm's barrier), or --synthetic
THREADS (a hand-made dump, no device: for the smoke run). Nothing is
judged; the figures go to bench/README.md."""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

SHAPE = "slices=1,subslices=1,eus=16,threads=16"  # 256 threads
RANK = re.compile(rb'"rank":(null|-?\d+)')


def real_dump(builddir, out):
    """A hang dump of sycl_hang on gtsim, written to out."""
    libs = os.path.join(builddir, ".libs")
    env = dict(os.environ, ZE_ENABLE_ALT_DRIVERS=os.path.join(libs, "libze_gtsim.so"),
               GTSIM_CONFIG="platform=xehpc,%s,barrier_skip=1" % SHAPE,
               ZET_ENABLE_PROGRAM_DEBUGGING="1", XPTI_TRACE_ENABLE="1",
               XPTI_SUBSCRIBERS=os.path.join(libs, "libzestub_xpti.so"),
               XPTI_FRAMEWORK_DISPATCHER=os.path.join(libs, "libxptifw.so"))
    argv = [os.path.join(builddir, "zestub"), "dump", "--on", "hang=1s", "--json", out, "--",
            os.path.join(builddir, "examples", "sycl_hang"), "--groups", "64", "--group-size",
            "256", "--give-up", "60"]
    subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=300)
    if not os.path.exists(out):
        sys.exit("bench_merge: no hang dump made (%s)" % " ".join(argv))


def synthetic_dump(threads, out):
    """A small hang dump with the fields merge reads, no device needed."""
    th = [{"session": 0, "device": 0, "thread": "0.0.%d.%d" % (i // 8, i % 8),
           "state": "stopped", "reason": "interrupt", "pc": "0x1000", "kernel": "slm",
           "function": "slm", "file": "slm.cl", "line": 16, "column": 1,
           "submitted_at": {"file": "app.c", "line": 62, "function": "run"},
           "registers": {"cr0": "0x0", "ip": "0x1000"}} for i in range(threads)]
    doc = {"schema": "zestub-dump", "version": 1, "pid": 1, "trigger": "hang", "rank": None,
           "host": "h", "devices": [], "hang": {"rule": "xpti", "limit_s": 1.0,
                                                "running_s": 1.5, "oldest": None},
           "xpti": {"table": True}, "page_faults": [], "threads": th, "stats": {},
           "status": 6, "complete": True}
    with open(out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


def make_ranks(dump, n, where):
    """n copies of dump as dump-R.json, R = 0..n-1 (its "rank" set)."""
    with open(dump, "rb") as f:
        text = f.read()
    m = RANK.search(text)
    if not m:
        sys.exit("bench_merge: %s has no \"rank\" field" % dump)
    head, tail = text[:m.start()], text[m.end():]
    paths = []
    for r in range(n):
        p = os.path.join(where, "dump-%d.json" % r)
        if not os.path.exists(p):
            with open(p, "wb") as f:
                f.write(head + b'"rank":%d' % r + tail)
        paths.append(p)
    return paths


def one_core():
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def merge(zestub, paths):
    """(wall s, peak RSS MiB, exit status) of zestub merge --json paths."""
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen([zestub, "merge", "--json"] + paths, stdout=null,
                             stderr=subprocess.DEVNULL, preexec_fn=one_core)
        _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - t0, ru.ru_maxrss / 1024.0, p.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--sizes", default="1000,5000,10000", help="rank counts, comma-separated")
    ap.add_argument("--baseline", help="another zestub to measure in the same run")
    ap.add_argument("--baseline-max", type=int, default=2000,
                    help="largest N for the baseline (the unstreamed merge holds ~6.8x the "
                    "input: 2,000 hang dumps need ~4.4 GB)")
    ap.add_argument("--dump", help="the dump to copy (default: one made on gtsim)")
    ap.add_argument("--synthetic", type=int, metavar="THREADS",
                    help="a hand-made dump of THREADS threads instead")
    ap.add_argument("--workdir", help="where the copies go (default: a temporary directory, "
                    "removed at the end)")
    a = ap.parse_args()
    work = a.workdir or tempfile.mkdtemp(prefix="bench-merge-")
    os.makedirs(work, exist_ok=True)
    try:
        dump = a.dump or os.path.join(work, "source.json")
        if not a.dump and not os.path.exists(dump):
            (synthetic_dump(a.synthetic, dump) if a.synthetic else real_dump(a.builddir, dump))
        with open(dump, "rb") as f:
            nthreads = len(json.loads(f.read()).get("threads", []))
        print("dump: %d bytes, %d threads" % (os.path.getsize(dump), nthreads))
        print("%6s %-9s %9s %12s %6s %11s %10s" % ("ranks", "zestub", "wall s", "peak RSS MiB",
                                                   "status", "time ratio", "RSS ratio"))
        zestub = os.path.join(a.builddir, "zestub")
        for n in [int(x) for x in a.sizes.split(",")]:
            paths = make_ranks(dump, n, work)
            new = merge(zestub, paths)
            print("%6d %-9s %9.2f %12.1f %6d" % (n, "this", new[0], new[1], new[2]))
            if a.baseline and n <= a.baseline_max:
                old = merge(a.baseline, paths)
                print("%6d %-9s %9.2f %12.1f %6d %10.2fx %9.1fx" % (
                    n, "baseline", old[0], old[1], old[2], old[0] / new[0], old[1] / new[1]))
            sys.stdout.flush()
    finally:
        if not a.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()
