#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A dump names source files that exist in the source tree (issue 15, item
9): `zestub dump -- examples/pagefault` on gtsim, every faulting thread's
`file` (the fixtures' DW_AT_comp_dir `tests/kernels/` joined once with
`oob.cl`) is a relative path that exists under the top source directory,
not /proc/self/cwd/oob.cl; the human format prints the same path."""
import json
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

env = h.gtsim_env("platform=xehpc,subslices=2,eus=2,threads=4,pace=200")
zestub = os.path.join(h.top, "zestub")
pagefault = os.path.join(h.top, "examples", "pagefault")
t = h.Tap(5)

with h.guarded(t, "dump of examples/pagefault"):
    path = os.path.join(h.scratch_dir(prefix="zestub-src."), "dump.json")
    p = subprocess.run([zestub, "dump", "--json", path, "--registers", "none", "--", pagefault],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
    t.eq(p.returncode, 5, "the program faulted and the dump was written (status 5)")
    with open(path) as f:
        doc = json.load(f)
    files = {th.get("file") for th in doc.get("threads", [])}
    t.eq(sorted(files), ["tests/kernels/oob.cl"], "every thread names tests/kernels/oob.cl")
    t.ok(all(f and not f.startswith("/proc/") and
             os.path.isfile(os.path.join(h.srcdir, f)) for f in files),
         "that file exists under the source tree (%s)" % h.srcdir, files)
    shutil.rmtree(os.path.dirname(path))

with h.guarded(t, "human format"):
    # In launch mode the human dump goes to stderr (stdout is the program's).
    p = subprocess.run([zestub, "dump", "--registers", "none", "--", pagefault], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=180)
    out = p.stderr.decode(errors="replace")
    t.ok("in oob (tests/kernels/oob.cl:7:" in out, "the human dump prints tests/kernels/oob.cl:7",
         out)
    t.ok("/proc/self/cwd" not in out, "and never /proc/self/cwd", out)
sys.exit(t.done())
