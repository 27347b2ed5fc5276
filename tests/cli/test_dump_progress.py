#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A dump of a 65,536-thread device looks at every thread (with the real
driver's answer to an interrupt, which thread stopped is only known by
asking each), which takes seconds: `zestub dump` says how far it got on
stderr once a second ("N of M threads looked at, K written, S s so far")
and how long it took, while the document itself stays as it was."""
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

THREADS = 65536
t = h.Tap(5)  # the plan: every check this test makes
zestub = os.path.join(h.top, "zestub")
# debug_latency_us (read by zestub's side of gtsim only): 200 us more per
# register read keeps the dump over 2 s, so that progress lines come, now
# that gtsim's round trip is a few microseconds (gtsim/README.md, "Cost
# model").
env = h.gtsim_env("platform=xehpc,slices=64,subslices=8,eus=8,threads=16,pace=1,"
                  "debug_latency_us=200")
# Four readers ahead (the default may change): 65,536 reads of 200 us, four
# at a time, are some 3.3 s.
env["ZESTUB_DUMP_READERS"] = "4"
tmp = h.scratch_dir()
out = os.path.join(tmp, "dump.json")

with h.guarded(t, "a dump of 65,536 threads"):
    app, line = h.start_app(env, args=["--print-buffers"], running="buffers:")
    time.sleep(0.3)  # let gtsim dispatch the threads
    start = time.time()
    d = subprocess.run([zestub, "dump", "--attach", str(app.pid), "--on", "now", "--registers",
                        "none", "--json", out], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    took = time.time() - start
    err = d.stderr.decode(errors="replace")
    doc = json.load(open(out)) if os.path.exists(out) else {}
    t.ok(d.returncode == 0 and doc.get("complete") is True,
         "the dump exits 0 with a whole document", {"rc": d.returncode, "stderr": err[-2000:]})
    ticks = [(int(a), int(b), int(c)) for a, b, c in
             re.findall(r"zestub dump: (\d+) of (\d+) threads looked at, (\d+) written, "
                        r"[0-9.]+ s so far", err)]
    end = re.search(r"zestub dump: (\d+) threads written in [0-9.]+ s", err)
    # The lines come once a second: a dump quicker than 2 s may have none.
    if took < 2.0:
        for name in ("progress lines", "their counts", "the closing line"):
            t.skip(name, "the dump took %.1f s, too quick for a progress line" % took)
    else:
        t.ok(len(ticks) >= 1 and all(m == THREADS for _, m, _ in ticks),
             "at least one progress line, each out of %d threads" % THREADS, err[-2000:])
        t.ok(all(a[0] < b[0] and a[2] <= b[2] for a, b in zip(ticks, ticks[1:])) and
             all(n <= m and w <= n for n, m, w in ticks),
             "the counts only grow and stay within the totals", ticks)
        t.ok(end is not None and int(end.group(1)) == len(doc.get("threads", [])),
             "the closing line gives the number of threads the document holds",
             {"line": end and end.group(0), "threads": len(doc.get("threads", []))})
    t.ok(not any("so far" in str(v) for v in doc.values()),
         "no progress text inside the document")
    app.kill()
    app.wait()

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(t.done())
