#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scratch_dir: a test's scratch folder is gone when the test ends, whether
it ends normally or by an uncaught exception, and stays (named) with
ZESTUB_KEEP_SCRATCH=1."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from tap import Tap  # noqa: E402

t = Tap(4)
CHILD = ("import sys; sys.path.insert(0, %r); from scratch import scratch_dir; "
         "d = scratch_dir(); open(d + '/f', 'w').write('x'); print(d, flush=True); %s")


def run(tail, keep=False):
    env = dict(os.environ)
    env.pop("ZESTUB_KEEP_SCRATCH", None)
    if keep:
        env["ZESTUB_KEEP_SCRATCH"] = "1"
    p = subprocess.run([sys.executable, "-c", CHILD % (here, tail)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    lines = p.stdout.decode().split("\n")
    return p.returncode, lines[0].strip(), "\n".join(lines[1:])


rc, d, rest = run("import os; assert os.path.isfile(d + '/f')")
t.ok(rc == 0 and d.startswith("/") and not os.path.exists(d),
     "a normal end removes the folder and what is in it", "rc %d, %s" % (rc, d))
rc, d, rest = run("raise RuntimeError('boom')")
t.ok(rc != 0 and d and not os.path.exists(d), "an uncaught exception removes it too",
     "rc %d, %s" % (rc, d))
rc, d, rest = run("pass", keep=True)
t.ok(rc == 0 and os.path.isfile(os.path.join(d, "f")), "ZESTUB_KEEP_SCRATCH=1 keeps it", d)
t.ok(("# kept scratch folder %s" % d) in rest, "and names it as a TAP comment", rest)
if d.startswith("/") and os.path.isdir(d):
    subprocess.run(["rm", "-rf", d])
sys.exit(t.done())
