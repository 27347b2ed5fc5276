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
INTEL_XPTIFW those checks are skipped with the reason.

The reverse direction: when INTEL_XPTI_COLLECTOR names Intel's
basic_collector (xptifw/samples/basic_collector, built outside the repo;
by default libbasic_collector.so beside INTEL_XPTIFW), sycl_like runs the
demo on OUR framework with that collector loaded before our subscriber.
The application must survive it (a collector reading metadata through
xptiQueryMetadata's std::unordered_map crashed on an empty map before
issue 34), the collector must have been initialised ("Registered all
callbacks") and called back (its "name=... event_id=" records), and our
join must be the same as without it. Skipped without the collector."""
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
collector = os.environ.get("INTEL_XPTI_COLLECTOR", "")
if not collector and intel:
    collector = os.path.join(os.path.dirname(intel), "libbasic_collector.so")
ours = os.path.join(top, ".libs", "libxptifw.so")
sub = os.path.join(top, ".libs", "libzestub_xpti.so")
CHECKS = 14  # check_xpti.py demo
RUN_CHECKS = 3 + CHECKS  # app + dump exit, framework in use, checker ran, its checks
FORWARD = RUN_CHECKS + 1  # Intel's framework run, the joins equal
REVERSE = RUN_CHECKS + 3  # the run with Intel's collector, it was set up and called, joins equal
t = Tap(RUN_CHECKS + FORWARD + REVERSE)


def skip(n, what, why):
    for i in range(n):
        t.skip("%s check %d of %d" % (what, i + 1, n), why)


why_fw = None
if not intel:
    why_fw = "INTEL_XPTIFW is not set (path of Intel's libxptifw.so, built outside the repo)"
elif not os.path.isfile(intel):
    why_fw = "INTEL_XPTIFW=%s is not a file" % intel
why_col = None
if not collector:
    why_col = ("neither INTEL_XPTI_COLLECTOR nor INTEL_XPTIFW is set (Intel's basic_collector, "
               "built outside the repo)")
elif not os.path.isfile(collector):
    why_col = "Intel's collector %s is not a file (set INTEL_XPTI_COLLECTOR)" % collector
if why_fw and why_col:
    skip(t.plan, "interop", why_fw)
    sys.exit(t.done())


def env_for(fw, extra_subscriber=None):
    env = dict(os.environ)
    subs = os.path.abspath(sub)
    if extra_subscriber:
        # Intel's collector first: its callbacks run before ours, as a
        # profiler listed ahead of zestub would.
        subs = os.path.abspath(extra_subscriber) + "," + subs
    env.update(ZE_ENABLE_ALT_DRIVERS=env["GTSIM_LIB"], ZET_ENABLE_PROGRAM_DEBUGGING="1",
               XPTI_TRACE_ENABLE="1", XPTI_SUBSCRIBERS=subs,
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


def run(label, fw, tmp, extra_subscriber=None):
    """One demo run; returns the dump document (or None) and the log's text."""
    log, dump = os.path.join(tmp, label + ".out"), os.path.join(tmp, label + ".json")
    with open(log, "w") as out:
        app = subprocess.Popen([os.path.join(top, "examples", "sycl_like"), "2"],
                               env=env_for(fw, extra_subscriber),
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
    with open(log, errors="replace") as fh:
        text = fh.read()
    try:
        with open(dump) as fh:
            return json.load(fh), text
    except (OSError, ValueError):
        return None, text


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
    a = join_of(run("ours", ours, tmp)[0])
    if why_fw:
        skip(FORWARD, "Intel's framework", why_fw)
    else:
        b = join_of(run("intel", intel, tmp)[0])
        t.ok(a is not None and a == b, "Intel's framework gives the same join as ours",
             "ours  %s\nintel %s" % (json.dumps(a), json.dumps(b)))
    if why_col:
        skip(REVERSE, "Intel's collector", why_col)
    else:
        doc, text = run("ours+collector", ours, tmp, collector)
        # basic_collector prints this once per stream it is initialised for,
        # then one record per notification it receives.
        t.ok("Registered all callbacks" in text, "Intel's collector was initialised on our framework",
             text[-2000:])
        t.ok(re.search(r"name=\S.*event_id=", text) is not None,
             "Intel's collector received notifications from our framework", text[-2000:])
        c = join_of(doc)
        t.ok(a is not None and a == c, "with Intel's collector loaded, our join is unchanged",
             "alone %s\nwith  %s" % (json.dumps(a), json.dumps(c)))
sys.exit(t.done())
