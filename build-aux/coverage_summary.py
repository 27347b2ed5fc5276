#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Line and branch coverage per top-level folder, from gcovr's JSON
summary, against the targets of issue 20 (90% of lines and 75% of
branches for zetdebug/, sessions/, symbols/, gdbstub/ and target/; the
other folders are shown for information). Exit 1 when a folder with a
target is below it.

usage: coverage_summary.py SUMMARY.json SRCDIR FOLDER..."""
import json
import os
import sys

TARGETS = {"zetdebug", "sessions", "symbols", "gdbstub", "target"}
LINE_TARGET, BRANCH_TARGET = 90.0, 75.0


def pct(covered, total):
    return 100.0 * covered / total if total else 100.0


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        summary = json.load(f)
    srcdir = os.path.realpath(argv[2])
    folders = {name: [0, 0, 0, 0] for name in argv[3:]}
    for entry in summary.get("files", []):
        path = entry["filename"]
        if os.path.isabs(path):
            path = os.path.relpath(os.path.realpath(path), srcdir)
        top = path.split(os.sep, 1)[0]
        if top in folders:
            acc = folders[top]
            acc[0] += entry.get("line_covered", 0)
            acc[1] += entry.get("line_total", 0)
            acc[2] += entry.get("branch_covered", 0)
            acc[3] += entry.get("branch_total", 0)
    low = []
    print("%-10s %16s %18s  target" % ("folder", "lines", "branches"))
    for name, (lc, lt, bc, bt) in folders.items():
        lp, bp = pct(lc, lt), pct(bc, bt)
        goal = ""
        if lt == 0:
            goal = "NO DATA (not built with --enable-coverage, or no test ran it)"
            if name in TARGETS:
                low.append(name)
        elif name in TARGETS:
            ok = lp >= LINE_TARGET and bp >= BRANCH_TARGET
            goal = "%.0f%% / %.0f%%: %s" % (LINE_TARGET, BRANCH_TARGET, "met" if ok else "BELOW")
            if not ok:
                low.append(name)
        print("%-10s %6.1f%% (%5d/%5d) %6.1f%% (%5d/%5d)  %s" % (name, lp, lc, lt, bp, bc, bt,
                                                                  goal))
    if low:
        print("below target: %s" % ", ".join(low))
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
