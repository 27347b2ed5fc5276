#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""zestub doctor names the right fix for each way a first session fails:
no driver, no such pid, a process without Level Zero, an application
started without ZET_ENABLE_PROGRAM_DEBUGGING=1, a device already attached,
a GTSIM_CONFIG mismatch; and says ok (exit 0, --json "ok":true, the trial
attach detached again) when attach would work, after which the
application still finishes."""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

CONFIG = "platform=xehpc,subslices=2,eus=2,threads=4,pace=5"
env = h.gtsim_env(CONFIG)
t = h.Tap(12)


def doctor(args, environ=None):
    p = subprocess.run([os.path.join(h.top, "zestub"), "doctor"] + list(args),
                       env=environ or env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=60)
    return p.returncode, p.stdout.decode(errors="replace")


def failed(out, check, words):
    """The FAIL line of check and its fix mention every word."""
    lines = out.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("FAIL  %s:" % check):
            fix = lines[i + 1] if i + 1 < len(lines) else ""
            return fix.strip().startswith("fix:") and all(w in ln + fix for w in words)
    return False


with h.guarded(t, "doctor"):
    bare = {k: v for k, v in os.environ.items() if k not in ("ZE_ENABLE_ALT_DRIVERS",
                                                              "GTSIM_CONFIG")}
    rc, out = doctor([], bare)
    if "RTLD_DEEPBIND" in out and "sanitizer" in out:
        # Intel's driver (intel-opencl-icd ships libze_intel_gpu) dlopens
        # libdxcore with RTLD_DEEPBIND in zeInit, which the sanitizer runtime
        # refuses by aborting: the plain build checks this case against it.
        t.skip("no driver: FAIL, install the runtime or point ZE_ENABLE_ALT_DRIVERS at gtsim",
               "Intel's Level Zero driver aborts a sanitized zestub (RTLD_DEEPBIND)")
    else:
        t.ok(rc == 1 and failed(out, "driver", ["ZE_ENABLE_ALT_DRIVERS", "compute runtime"]),
             "no driver: FAIL, install the runtime or point ZE_ENABLE_ALT_DRIVERS at gtsim", out)

    rc, out = doctor([])
    t.ok(rc == 0 and "ok    driver:" in out and "ok    device:" in out,
         "gtsim without a pid: driver and device ok, exit 0", out)

    missing = 0x3FFFFFF0
    while os.path.exists("/proc/%d" % missing):
        missing -= 1
    rc, out = doctor([str(missing)])
    t.ok(rc == 1 and failed(out, "process", ["no process %d" % missing, "pgrep"]),
         "no such pid: FAIL, check the PID", out)

    sleeper = subprocess.Popen(["sleep", "300"])
    h._procs.append(sleeper)
    rc, out = doctor([str(sleeper.pid)])
    t.ok(rc == 1 and failed(out, "level-zero", ["has not loaded Level Zero"]),
         "not a Level Zero process: FAIL, says so (no retry advice)", out)
    sleeper.kill()

    plain = subprocess.Popen([os.path.join(h.top, "examples", "vadd"), "--print-buffers"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    h._procs.append(plain)
    plain.stdout.readline()
    plain.stdout.readline()
    rc, out = doctor([str(plain.pid)])
    t.ok(rc == 1 and failed(out, "program-debugging", ["ZET_ENABLE_PROGRAM_DEBUGGING=1",
                                                       "restart"]),
         "debugging not enabled in the app: FAIL, restart it with ZET_ENABLE_PROGRAM_DEBUGGING=1",
         out)
    t.eq(h.wait_exit(plain), 0, "that application finishes")

    app, _ = h.start_app(h.gtsim_env(CONFIG + ",tiles=2"), args=["--print-buffers"],
                         running="buffers:")
    rc, out = doctor([str(app.pid)])
    t.ok(rc == 1 and failed(out, "gtsim-config", ["export GTSIM_CONFIG=", "tiles=2"]),
         "gtsim config mismatch: FAIL, export the application's GTSIM_CONFIG", out)
    t.eq(h.wait_exit(app), 0, "that application finishes")

    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    rc, out = doctor(["--json", str(app.pid)])
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {}
    checks = {c.get("check"): c.get("result") for c in doc.get("checks", [])}
    t.ok(rc == 0 and doc.get("ok") is True and checks.get("attach") == "ok" and
         all(v == "ok" for v in checks.values()), "a debuggable application: every check ok, "
         "exit 0, --json", out)
    srv = h.Zestub(env, "--attach", str(app.pid))
    t.ok(srv.port is not None, "zestub attached to it", srv.stderr())
    rc, out = doctor([str(app.pid)])
    t.ok(rc == 1 and failed(out, "attach", ["already attached", "detach or end it"]),
         "already attached: FAIL, detach or end the other debugger", out)
    srv.proc.terminate()
    t.eq(h.wait_exit(app), 0, "the application finishes (the trial attach let it go)")
sys.exit(t.done())
