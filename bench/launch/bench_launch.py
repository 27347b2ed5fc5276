#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/launch: what running under `zestub dump -- PROGRAM` costs a rank
that never faults. Three ways of running bench/launch/launch_rate, rounds
interleaved so that machine load hits them alike:

  plain    the program alone (the baseline)
  debug    alone with ZET_ENABLE_PROGRAM_DEBUGGING=1 (the driver's part)
  wrapped  zestub dump --json FILE -- program (everything zestub adds)

For each: the kernel launch rate the program measures after its module
exists (launches/s), and the wall time of the whole run (process start to
exit, zestub's attach and record included). Printed as medians and as
ratios against `plain` measured in the same run; nothing is asserted.

usage: bench_launch.py --builddir DIR [--launches N] [--rounds R]"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def run(argv, env):
    t0 = time.monotonic()
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.monotonic() - t0
    m = re.search(r"rate ([0-9.]+)", p.stdout.decode())
    if not m or p.returncode != 0:
        sys.exit("bench_launch: %s failed (status %d): %s" %
                 (" ".join(argv), p.returncode, (p.stdout + p.stderr).decode()[-800:]))
    return float(m.group(1)), wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--launches", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    prog = os.path.join(a.builddir, "bench", "launch", "launch_rate")
    zestub = os.path.join(a.builddir, "zestub")
    env = dict(os.environ)
    env.setdefault("ZE_ENABLE_ALT_DRIVERS", os.path.join(a.builddir, ".libs", "libze_gtsim.so"))
    env.pop("ZET_ENABLE_PROGRAM_DEBUGGING", None)
    debug = dict(env, ZET_ENABLE_PROGRAM_DEBUGGING="1")
    out = os.path.join(tempfile.mkdtemp(), "bench-%p.json")
    ways = [("plain", [prog, str(a.launches)], env),
            ("debug", [prog, str(a.launches)], debug),
            ("wrapped", [zestub, "dump", "--json", out, "--", prog, str(a.launches)], env)]
    res = {w[0]: ([], []) for w in ways}
    for _ in range(a.rounds):
        for name, argv, e in ways:
            rate, wall = run(argv, e)
            res[name][0].append(rate)
            res[name][1].append(wall)
    base_rate = statistics.median(res["plain"][0])
    base_wall = statistics.median(res["plain"][1])
    print("bench/launch: %d launches per run, %d rounds, medians" % (a.launches, a.rounds))
    print("%-8s %14s %8s %12s %8s" % ("way", "launches/s", "ratio", "wall s", "ratio"))
    for name, _, _ in ways:
        rate = statistics.median(res[name][0])
        wall = statistics.median(res[name][1])
        print("%-8s %14.1f %8.3f %12.3f %8.3f" % (name, rate, rate / base_rate, wall,
                                                    wall / base_wall))
    return 0


if __name__ == "__main__":
    sys.exit(main())
