#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The human dump groups stopped threads into classes (device, stop
reason, kernel and source line): a count, compact thread ranges and one
representative in full; `--all-threads` gives every thread its record, and
the JSON document always holds every thread. On gtsim: the page-fault
example (up to 4 threads fault on one line; how many have when the dump
is taken varies, so each run is checked against its own "page fault at
...: N threads" line) and vadd with all 65,536 threads running, stopped
with --on now."""
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

t = h.Tap(10)  # the plan: every check this test makes
zestub = os.path.join(h.top, "zestub")
pagefault = os.path.join(h.top, "examples", "pagefault")
env = h.small_device(200)
env.pop("ZET_ENABLE_PROGRAM_DEBUGGING", None)
tmp = h.scratch_dir()
THREAD = re.compile(r"^  thread (\d+\.\d+\.\d+\.\d+) on device \d+: page-fault at pc", re.M)


def faulted(out):
    """N of the dump's "page fault at ... on device 0: N threads" line."""
    m = re.search(r"^page fault at \S+ .*: (\d+) threads?$", out, re.M)
    return int(m.group(1)) if m else -1


def dump(*args):
    p = subprocess.run([zestub, "dump"] + list(args) + ["--", pagefault], env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    return p.returncode, p.stderr.decode(errors="replace")


RECORD = re.compile(r"^  thread \d+\.\d+\.\d+\.\d+ on device \d+: ", re.M)
CLASS = re.compile(r"^class (\d+): (\d+) threads? on device 0: (.*)$", re.M)

with h.guarded(t, "the page-fault example, grouped"):
    rc, out = dump()
    m = re.search(r"^class 1: (\d+) threads? on device 0: page-fault in oob \(\S*oob\.cl:7\)$\n"
                  r"^  threads (.*)$", out, re.M)
    classes = CLASS.findall(out)
    total = re.search(r"^(\d+) stopped threads?$", out, re.M)
    # The threads that had not faulted yet when the dump stopped them are
    # a class of their own (interrupt, same line), after the faulting ones
    # however many there are of each.
    t.ok(rc == 5 and m is not None and total is not None and
         sum(int(n) for _, n, _ in classes) == int(total.group(1)) and
         all(what.startswith("interrupt in oob") for _, _, what in classes[1:]),
         "class 1: the faulting threads by kernel and line; the rest interrupted there",
         out[-3000:])
    listed = m.group(2).split(", ") if m else []
    t.ok(m is not None and len(listed) == int(m.group(1)) == faulted(out) >= 1,
         "the class lists each faulting thread (none consecutive: one per EU)", listed)
    reps = RECORD.findall(out)
    t.ok(len(reps) == len(classes) == out.count("representative:") == out.count(" cr0 ") and
         THREAD.findall(out)[:1] == listed[:1],
         "one representative per class in full (a class's first thread), one register block "
         "each", out[-3000:])

with h.guarded(t, "the page-fault example, --all-threads"):
    rc, out = dump("--all-threads")
    every = THREAD.findall(out)
    total = re.search(r"^(\d+) stopped threads?$", out, re.M)
    t.ok(rc == 5 and len(set(every)) == len(every) == faulted(out) >= 1 and
         total is not None and len(RECORD.findall(out)) == int(total.group(1)) and
         "class 1:" not in out,
         "--all-threads: a record for each stopped thread, no classes", out[-3000:])
    t.eq(out.count(" cr0 "), len(RECORD.findall(out)), "--all-threads: a register block for each")

with h.guarded(t, "the JSON document"):
    path = os.path.join(tmp, "d.json")
    rc, err = dump("--json", path)
    doc = json.load(open(path))
    faults = [th for th in doc["threads"] if th["reason"] == "page-fault"]
    t.ok(rc == 5 and len(faults) >= 1 and all("registers" in th for th in doc["threads"]),
         "JSON: every thread with its registers, whatever the human format does", err)

with h.guarded(t, "65,536 threads running, --on now"):
    big = h.gtsim_env("platform=xehpc,slices=64,subslices=8,eus=8,threads=16,pace=1")
    app, line = h.start_app(big, args=["--print-buffers", "--items", str(65536 * 32)],
                            running="buffers:")
    time.sleep(0.5)
    p = subprocess.run([zestub, "dump", "--attach", str(app.pid), "--on", "now"], env=big,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    out = p.stdout.decode(errors="replace")
    classes = re.findall(r"^class \d+: (\d+) threads? on device 0: (.*)$", out, re.M)
    t.ok(p.returncode == 0 and sum(int(n) for n, _ in classes) == 65536 and
         "65536 stopped threads" in out,
         "every one of the 65,536 stopped threads is in a class", out[-3000:])
    t.ok(len(out.splitlines()) < 40 + 12 * len(classes),
         "the report stays short: %d lines for %d class(es)" % (len(out.splitlines()),
                                                               len(classes)), out[:3000])
    runs = re.findall(r"^  threads (.*)$", out, re.M)
    # With pace=1 a thread stands one instruction further for every second
    # since its dispatch. On a loaded machine the dispatch of 65,536
    # threads can cross a second: the threads of the first wave (slots 0-7
    # of every EU) are then one instruction ahead of the second's, two
    # classes whose lists alternate every 8 threads. That is the device's
    # real state, not a fault of the report: what the report owes is that
    # every list is written as ranges, at most RUNS_SHOWN (24) of them and
    # "... and N more" (the JSON document keeps every thread).
    ID = r"\d+\.\d+\.\d+\.\d+"
    RUN = r"%s(?:-%s)?" % (ID, ID)
    listed = re.compile(r"^%s(?:, %s){0,23}(?:, \.\.\. and \d+ more)?$" % (RUN, RUN))
    t.ok(len(classes) >= 1 and all(listed.match(r) for r in runs) and
         (len(classes) > 1 or runs == ["0.0.0.0-63.7.7.15"]),
         "thread lists are ranges (one class: 0.0.0.0-63.7.7.15)", runs[:5])
    t.eq(out.count("representative:"), len(classes), "one representative per class")
    app.kill()
    app.wait()

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(t.done())
