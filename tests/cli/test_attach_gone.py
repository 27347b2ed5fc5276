#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`zestub dump --attach` to processes that cannot be attached for reasons
the driver's bare answer hides (issue 31, item 10):

- a process that has ended but is not reaped yet (a zombie: its memory map
  reads empty) is "exited", not "has not loaded Level Zero";
- a Level Zero process whose debugger endpoint never answers (the driver
  says 'not ready' for ever) gets a note after 5 s that zestub is still
  trying and until when, and at the deadline a reason that no longer
  claims "too early", with status 3 and the reason in the JSON document.

The endpoint is made unavailable the way a test can on the simulator:
its per-process socket is removed once the application is up."""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

t = h.Tap(8)  # the plan
zestub = os.path.join(h.top, "zestub")
app = os.path.join(h.top, "examples", "sycl_hang")
tmp = h.scratch_dir()
env = h.gtsim_env("platform=xehpc,barrier_skip=1")
env["ZET_ENABLE_PROGRAM_DEBUGGING"] = "1"
env["GTSIM_RUNTIME_DIR"] = tmp


def dump(pid, *extra, timeout=60):
    p = subprocess.run([zestub, "dump", "--attach", str(pid), "--on", "now"] + list(extra),
                       env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


# ---- a zombie -------------------------------------------------------------
child = os.fork()
if child == 0:
    os._exit(0)
state = ""
for _ in range(100):  # until it has ended (its state is Z)
    with open("/proc/%d/stat" % child) as f:
        state = f.read().rsplit(")", 1)[1].split()[0]
    if state == "Z":
        break
    time.sleep(0.05)
rc, out, err = dump(child, "--timeout", "5")
t.ok(state == "Z", "the child is a zombie (state %s)" % state)
t.ok(rc == 1 and "has exited" in err, "a zombie: exit 1, 'has exited' (exit %s)" % rc, err)
t.ok("has not loaded Level Zero" not in err + out,
     "a zombie is not said to lack Level Zero", err)
os.waitpid(child, 0)

# ---- an endpoint that never answers ----------------------------------------
proc = subprocess.Popen([app], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        universal_newlines=True)
sock = os.path.join(tmp, "gtsim-%d" % os.getuid(), "%d.sock" % proc.pid)
for _ in range(200):
    if os.path.exists(sock):
        break
    time.sleep(0.05)
up = os.path.exists(sock)
if up:
    os.unlink(sock)
out_json = os.path.join(tmp, "r.json")
try:
    start = time.time()
    rc, out, err = dump(proc.pid, "--timeout", "7", "--json", out_json)
    took = time.time() - start
finally:
    proc.kill()
    proc.wait()
t.ok(up, "the application came up and its endpoint was removed")
t.ok(rc == 3, "status 3, could not attach (exit %s after %.1f s)" % (rc, took), err)
t.ok("not ready for a debugger after 5 s" in err and "--timeout" in err,
     "a note after 5 s says zestub is still trying, until the deadline", err)
t.ok("still answered 'not ready' after" in err and "too early" not in err,
     "the reason at the deadline no longer says 'too early'", err)
try:
    with open(out_json) as f:
        doc = json.load(f)
    failure = doc.get("error") or ""
except (OSError, ValueError) as e:
    doc, failure = None, "no document: %s" % e
t.ok(doc is not None and doc.get("status") == 3 and "not ready" in failure,
     "the JSON document says status 3 and why", failure)
sys.exit(t.done())
