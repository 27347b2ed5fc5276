#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Our subscriber under Intel's XPTI framework (issue 34). When
INTEL_XPTIFW names Intel's libxptifw.so (built by each of us from the
intel/llvm xptifw sources, outside the repo, as Intel's GDB is for
INTELGT_GDB), examples/sycl_like runs the page-fault demo once on our
framework and once on Intel's (preloaded, and named by
XPTI_FRAMEWORK_DISPATCHER), both with libzestub_xpti.so loaded; each
`zestub dump` must pass tests/cli/check_xpti.py's demo checks against the
example's log, and the two joins must name the same sites, task instance,
allocation and lines (64-bit ids differ: Intel's are addresses). Without
INTEL_XPTIFW every check is skipped with the reason."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tap import Tap  # noqa: E402

top = os.environ.get("top_builddir", ".")
srcdir = os.environ.get("top_srcdir", ".")
intel = os.environ.get("INTEL_XPTIFW", "")
ours = os.path.join(top, ".libs", "libxptifw.so")
sub = os.path.join(top, ".libs", "libzestub_xpti.so")
CHECKS = 14  # check_xpti.py demo
RUN_CHECKS = 3 + CHECKS  # app + dump exit, framework in use, checker ran, its checks
t = Tap(2 * RUN_CHECKS + 1)


def skip_all(why):
    for i in range(t.plan):
        t.skip("interop check %d of %d" % (i + 1, t.plan), why)
    sys.exit(t.done())


if not intel:
    skip_all("INTEL_XPTIFW is not set (path of Intel's libxptifw.so, built outside the repo)")
if not os.path.isfile(intel):
    skip_all("INTEL_XPTIFW=%s is not a file" % intel)


def env_for(fw):
    env = dict(os.environ)
    env.update(ZE_ENABLE_ALT_DRIVERS=env["GTSIM_LIB"], ZET_ENABLE_PROGRAM_DEBUGGING="1",
               XPTI_TRACE_ENABLE="1", XPTI_SUBSCRIBERS=os.path.abspath(sub),
               XPTI_FRAMEWORK_DISPATCHER=os.path.abspath(fw))
    if fw != ours:
        # sycl_like links libxptifw.so; a preloaded framework comes first in
        # the global scope, so the example and the subscriber both bind to it.
        env["LD_PRELOAD"] = os.path.abspath(fw)
    return env


def app_pid(log, deadline=60):
    end = time.time() + deadline
    while time.time() < end:
        with open(log) as fh:
            m = re.search(r"^sycl_like: pid (\d+)$", fh.read(), re.M)
        if m:
            return int(m.group(1))
        time.sleep(0.1)
    return None


def run(label, fw, tmp):
    """One demo run; returns the dump document or None."""
    log, dump = os.path.join(tmp, label + ".out"), os.path.join(tmp, label + ".json")
    with open(log, "w") as out:
        app = subprocess.Popen([os.path.join(top, "examples", "sycl_like"), "2"], env=env_for(fw),
                               stdout=out, stderr=subprocess.STDOUT)
    pid = app_pid(log)
    maps = ""
    if pid:
        try:
            with open("/proc/%d/maps" % pid) as fh:
                maps = fh.read()
        except OSError:
            pass
    zenv = dict(os.environ, ZE_ENABLE_ALT_DRIVERS=os.environ["GTSIM_LIB"])
    d = subprocess.run([os.path.join(top, "zestub"), "dump", "--attach", str(pid or 0), "--on",
                        "page-fault", "--timeout", "30", "--registers", "none", "--json", dump],
                       env=zenv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    rc = d.returncode
    try:
        app_rc = app.wait(timeout=60)
    except subprocess.TimeoutExpired:
        app.kill()
        app_rc = app.wait()
    t.ok(pid and rc == 0 and app_rc == 0, "%s: dump exits 0, the application finishes" % label,
         "dump rc %s, application rc %s\n%s" % (rc, app_rc, d.stdout.decode(errors="replace")))
    t.ok(os.path.realpath(fw) in maps, "%s: %s is mapped in the application" % (label, fw))
    res = subprocess.run([sys.executable, os.path.join(srcdir, "tests", "cli", "check_xpti.py"),
                          "demo", dump, log, label + ": "], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, timeout=60)
    lines = res.stdout.decode(errors="replace").splitlines()
    results = [ln for ln in lines if ln.startswith(("ok - ", "not ok - "))]
    for ln in results[:CHECKS]:
        t.ok(ln.startswith("ok - "), ln.split(" - ", 1)[1])
    for i in range(len(results), CHECKS):
        t.ok(False, "%s: check_xpti check %d never ran" % (label, i + 1))
    t.ok(res.returncode == 0 and len(results) == CHECKS, "%s: the checker ran its %d checks"
         % (label, CHECKS), "\n".join(lines[-20:]))
    try:
        with open(dump) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def join_of(doc):
    """What the join names, without the 64-bit ids (framework-specific)."""
    if not doc:
        return None
    where = ("file", "line", "function")
    faults = []
    for f in doc.get("page_faults", []):
        a = f.get("allocation") or {}
        faults.append({"size": a.get("size"), "offset": a.get("offset"), "state": a.get("state"),
                       "allocated_at": [(a.get("allocated_at") or {}).get(k) for k in where],
                       "freed_at": [(a.get("freed_at") or {}).get(k) for k in where]})
    threads = sorted({(th.get("kernel"),) + tuple((th.get("submitted_at") or {}).get(k) for k in
                      where + ("instance", "attribution"))
                      for th in doc.get("threads", []) if th.get("reason") == "page-fault"})
    return {"faults": faults, "threads": threads}


with tempfile.TemporaryDirectory() as tmp:
    a = join_of(run("ours", ours, tmp))
    b = join_of(run("intel", intel, tmp))
    t.ok(a is not None and a == b, "Intel's framework gives the same join as ours",
         "ours  %s\nintel %s" % (json.dumps(a), json.dumps(b)))
sys.exit(t.done())
