#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""zestub dump --on hang=DURATION on gtsim (doc/dump-format.md, "Hang
dumps"): examples/sycl_hang launches slm, whose barrier the last thread of
each work-group never reaches (GTSIM_CONFIG barrier_skip=1), so the other
threads wait at the barrier's sync for ever. In launch and attach mode,
with the application's XPTI table (rule "xpti": the oldest submission in
flight is older than DURATION) and without it (rule "deadline"): the exit
status 6, the report's hang section and JSON fields, the core (--core), the waiting threads
at the barrier's PC and source line, the program resumed (it runs on, is
still hung, a second dump finds it so) or killed with --after-hang kill;
a program that does not hang, or an idle device, is not dumped; bad --on hang= values are
usage errors."""
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

t = h.Tap(31)  # the plan: every check this test makes
zestub = os.path.join(h.top, "zestub")
app = os.path.join(h.top, "examples", "sycl_hang")
libs = os.path.join(h.top, ".libs")
hung = h.gtsim_env("platform=xehpc,barrier_skip=1")
hung["ZET_ENABLE_PROGRAM_DEBUGGING"] = "1"
fine = dict(hung, GTSIM_CONFIG="platform=xehpc")
TRACED = {"XPTI_TRACE_ENABLE": "1",
          "XPTI_SUBSCRIBERS": os.path.join(libs, "libzestub_xpti.so"),
          "XPTI_FRAMEWORK_DISPATCHER": os.path.join(libs, "libxptifw.so")}
tmp = h.scratch_dir()


BARRIER_LINE = h.line_of("tests/kernels/slm.cl", "barrier(")
SUBMIT_LINE = h.line_of("examples/sycl_hang.c", 'rt_submit(&q, kernel, "slm"')


def run(args, env, timeout=120):
    p = subprocess.run([zestub, "dump"] + args, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def at_barrier(doc):
    """Every thread of the dump waits at slm's barrier: one PC, the
    barrier's line, stopped by the dump's interrupt."""
    th = doc.get("threads", [])
    return (len(th) >= 1 and len({x["pc"] for x in th}) == 1 and
            all(x["kernel"] == "slm" and x["file"] == "tests/kernels/slm.cl" and
                x["line"] == BARRIER_LINE and x["reason"] == "interrupt" for x in th))


# ---- usage -----------------------------------------------------------------
for bad in ["hang", "hang=", "hang=0", "hang=-1s", "hang=10x", "hang=abc", "hang=25h", "hang=nan"]:
    rc, _, err = run(["--attach", "1", "--on", bad], fine)
    t.ok(rc == 2 and "hang=DURATION" in err, "--on %s: usage error, status 2" % bad, err)
good = [run(["--attach", "999999999", "--on", "hang=" + v], fine)[0]
        for v in ["500ms", "10s", "2m", "1.5", "1h"]]
t.eq(good, [1] * 5, "500ms, 10s, 2m, 1.5 and 1h are durations (no such process: status 1)")
rc, _, err = run(["--attach", "1", "--after-hang", "kill"], fine)
t.ok(rc == 2 and "--after-hang needs --on hang" in err, "--after-hang without a hang watch", err)
rc, _, err = run(["--attach", "1", "--on", "hang=1s", "--after-hang", "pause"], fine)
t.ok(rc == 2 and "--after-hang takes resume or kill" in err, "--after-hang pause refused", err)

# ---- launch mode, XPTI table, --after-hang kill ----------------------------
with h.guarded(t, "launch mode with the XPTI table"):
    out = os.path.join(tmp, "launch.json")
    core = os.path.join(tmp, "hang.core")
    rc, _, err = run(["--on", "hang=1s", "--after-hang", "kill", "--json", out, "--core", core,
                      "--", app, "--give-up", "60"], dict(hung, **TRACED))
    doc = json.load(open(out))
    hg = doc.get("hang") or {}
    t.ok(rc == 6 and doc["status"] == 6 and doc["complete"] and doc["trigger"] == "hang",
         "launch, table: status 6, trigger hang", err)
    t.ok(hg.get("rule") == "xpti" and hg.get("limit_s") == 1 and hg.get("running_s") >= 1 and
         hg.get("in_flight") == 1 and hg.get("after") == "kill",
         "launch, table: rule xpti, the oldest submission older than the limit", hg)
    old = hg.get("oldest") or {}
    t.ok(old.get("kernel") == "slm" and old.get("file", "").endswith("examples/sycl_hang.c") and
         old.get("line") == SUBMIT_LINE and old.get("function") == "run" and
         old.get("instance") == 1 and old.get("queue") == "0x1",
         "launch, table: the oldest submission's site is sycl_hang.c:%d" % SUBMIT_LINE, old)
    t.ok(at_barrier(doc), "launch, table: the threads wait at slm.cl:%d" % BARRIER_LINE,
         doc.get("threads", [])[:2])
    t.ok(all((x.get("submitted_at") or {}).get("attribution") == "unique" and
             x["submitted_at"]["line"] == SUBMIT_LINE for x in doc["threads"]),
         "launch, table: each thread's submission is the hung task", doc["threads"][:1])
    t.ok(doc["program"]["signal"] == 9 and doc["program"]["dumped"] and
         "it hung, the dump was written" in err,
         "launch, table: --after-hang kill killed the program", doc["program"])
    with open(core, "rb") as f:
        head = f.read(20)
    t.ok(head[:4] == b"\x7fELF" and head[16] == 4,
         "launch, table: --core wrote an ELF core of the hung threads", head)

# ---- launch mode, no table, human format, resumed ---------------------------
with h.guarded(t, "launch mode without a table"):
    rc, _, err = run(["--on", "hang=1s", "--", app, "--give-up", "10"], hung)
    t.eq(rc, 6, "launch, no table: status 6")
    t.ok(re.search(r"^hang \(rule: deadline, no XPTI table\): device threads still running "
                   r"[\d.]+ s after zestub attached", err, re.M) is not None,
         "launch, no table: the report says the deadline rule fired", err[-2000:])
    t.ok(re.search(r"^class 1: \d+ threads? on device 0: interrupt in slm "
                   r"\(tests/kernels/slm\.cl:%d\)$" % BARRIER_LINE, err, re.M) is not None and
         "class 2:" not in err,
         "launch, no table: one class, at the barrier's line", err[-2000:])
    # Resumed, the program runs on, still hung, until its own give-up.
    t.ok("after the dump the program is resumed" in err and
         "sycl_hang exited with status 3; it hung" in err,
         "launch, no table: resumed, the program ran on to its own end", err[-600:])

# ---- launch mode, no hang ----------------------------------------------------
with h.guarded(t, "launch mode, a kernel that completes"):
    rc, _, err = run(["--on", "hang=5s", "--", app, "--give-up", "60"], dict(fine, **TRACED))
    t.ok(rc == 0 and "without a hang: nothing dumped" in err and "hang (rule" not in err,
         "a kernel that completes is not a hang: the program's status, nothing dumped", err)

# ---- attach mode, XPTI table, resumed ----------------------------------------
with h.guarded(t, "attach mode with the XPTI table"):
    a, first = h.start_app(dict(hung, **TRACED), "sycl_hang", ["--give-up", "120"],
                           running="submit kernel slm")
    pid = re.search(r"pid (\d+)", first).group(1)
    rc, out, err = run(["--attach", pid, "--on", "hang=1s", "--json", "-"], hung)
    doc = json.loads(out)
    t.ok(rc == 6 and doc["hang"]["rule"] == "xpti" and doc["hang"]["after"] == "resume" and
         doc["hang"]["oldest"]["line"] == SUBMIT_LINE,
         "attach, table: status 6, rule xpti, the submission site", err)
    t.ok(at_barrier(doc), "attach, table: the threads wait at the barrier",
         doc.get("threads", [])[:2])
    t.ok(a.poll() is None, "attach, table: the program was resumed and runs on")
    rc, out2, err = run(["--attach", pid, "--on", "hang=1s", "--json", "-"], hung)
    doc2 = json.loads(out2)
    t.ok(rc == 6 and at_barrier(doc2) and doc2["hang"]["running_s"] > doc["hang"]["running_s"] and
         [x["thread"] for x in doc2["threads"]] == [x["thread"] for x in doc["threads"]],
         "attach, table: a second watch finds the same threads waiting, none left stopped",
         err)

# ---- attach mode, no table, --after-hang kill --------------------------------
with h.guarded(t, "attach mode without a table"):
    a, first = h.start_app(hung, "sycl_hang", ["--give-up", "120"], running="submit kernel slm")
    pid = re.search(r"pid (\d+)", first).group(1)
    rc, out, err = run(["--attach", pid, "--on", "hang=1s", "--after-hang", "kill", "--json",
                        "-"], hung)
    doc = json.loads(out)
    t.ok(rc == 6 and doc["hang"]["rule"] == "deadline" and doc["hang"]["oldest"] is None and
         doc["hang"]["in_flight"] is None and doc["xpti"]["table"] is False and at_barrier(doc),
         "attach, no table: status 6, rule deadline, the threads at the barrier", err)
    t.eq(h.wait_exit(a, 30), -9, "attach, no table: --after-hang kill killed the program")

# ---- attach mode, no table, an idle device -----------------------------------
with h.guarded(t, "an idle device"):
    # vadd --wait-before-load has started Level Zero and waits on stdin
    # before its module: nothing runs on the device.
    a, first = h.start_app(fine, "vadd", ["--wait-before-load"], stdin=True)
    rc, out, err = run(["--attach", str(a.pid), "--on", "hang=1s", "--timeout", "3.5", "--json",
                        "-"], fine)
    doc = json.loads(out)
    t.ok(rc == 3 and "hang" not in doc and doc["threads"] == [] and
         doc["stats"]["zet_calls"]["interrupt"] >= 2 and "no hang within 3.5 s" in err and
         a.poll() is None,
         "attach, no table, idle device: checked, resumed, no hang; --timeout ends the watch",
         (err, doc.get("stats")))

# ---- --timeout before the hang ---------------------------------------------
with h.guarded(t, "timeout"):
    rc, _, err = run(["--on", "hang=60s", "--timeout", "1", "--", app, "--give-up", "30"], hung)
    t.ok(rc == 3 and "no hang within 1 s" in err, "--timeout before the hang: status 3", err)

h.cleanup()
sys.exit(t.done())
