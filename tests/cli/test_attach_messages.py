#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Failure messages point at the right fix (issue 15, item 6):
- a process that never loaded Level Zero is said to be one, not "too
  early ... retry" (which would be retried forever), through vAttach and
  `zestub --attach`;
- a driver that refuses an application started with
  ZET_ENABLE_PROGRAM_DEBUGGING=1 (here: another GTSIM_CONFIG) does not ask
  whether that variable was set; `zestub --attach` adds what `zestub
  doctor` finds (the GTSIM_CONFIG to export), and a process started without
  the variable is still told to restart with it;
- a driver named by ZE_ENABLE_ALT_DRIVERS that fails to start (a bad
  GTSIM_CONFIG), is missing, or is named by a relative path is reported as
  that, never followed by "install Intel's GPU compute runtime";
- `zestub dump --attach` of a pid that does not exist says "no such
  process", also on the dump's own closing line, never "timed out";
- a failed `zestub --attach` is reported once, not twice."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

CONFIG = "platform=xehpc,subslices=2,eus=2,threads=4,pace=5"
STOCK = "qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+"
env = h.gtsim_env(CONFIG)
zestub = os.path.join(h.top, "zestub")
t = h.Tap(19)


def run(args, environ=None, timeout=60):
    p = subprocess.run([zestub] + list(args), env=environ or env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def vattach(pid):
    """The vAttach reply of a stock client (E.<text>), without the E."""
    srv = h.Stdio(env)
    srv.c.req(STOCK)
    srv.c.req("!")
    r = srv.c.req("vAttach;%x" % pid, timeout=30)
    srv.close()
    return r[2:] if r.startswith("E.") else r


def reported(err, pid):
    """How many lines of err report the failed attach of pid."""
    return sum(str(pid) in ln and ("fail" in ln or "cannot attach" in ln)
               for ln in err.splitlines())


def missing_pid():
    pid = 0x3FFFFFF0
    while os.path.exists("/proc/%d" % pid):
        pid -= 1
    return pid


with h.guarded(t, "a process without Level Zero"):
    sleeper = subprocess.Popen(["sleep", "300"])
    h._procs.append(sleeper)
    text = vattach(sleeper.pid)
    t.ok("has not loaded Level Zero" in text, "vAttach: says the process has not loaded Level "
         "Zero", text)
    t.ok("too early" not in text and "retry" not in text,
         "vAttach: no 'too early ... retry' for a process that does not use Level Zero", text)
    rc, out, err = run(["--once", ":0", "--attach", str(sleeper.pid)])
    t.ok(rc == 1 and "has not loaded Level Zero" in err and "too early" not in err,
         "zestub --attach: exit 1, has not loaded Level Zero", err)
    t.ok(reported(err, sleeper.pid) == 1, "zestub --attach: the failure is reported once", err)

with h.guarded(t, "a GTSIM_CONFIG mismatch"):
    app, _ = h.start_app(h.gtsim_env(CONFIG + ",tiles=2"), args=["--print-buffers"],
                         running="buffers:")
    text = vattach(app.pid)
    t.ok(text and "ZET_ENABLE_PROGRAM_DEBUGGING=1 set" not in text and
         "ZET_ENABLE_PROGRAM_DEBUGGING=1" in text and "zestub doctor %d" % app.pid in text,
         "vAttach: says the app has ZET_ENABLE_PROGRAM_DEBUGGING=1 and points at zestub doctor",
         text)
    rc, out, err = run(["--once", ":0", "--attach", str(app.pid)])
    t.ok(rc == 1 and "ZET_ENABLE_PROGRAM_DEBUGGING=1 set" not in err and
         "export GTSIM_CONFIG='%s,tiles=2'" % CONFIG in err,
         "zestub --attach: names the GTSIM_CONFIG to export (zestub doctor's check)", err)
    t.eq(h.wait_exit(app), 0, "that application finishes")

with h.guarded(t, "an application without program debugging"):
    plain = subprocess.Popen([os.path.join(h.top, "examples", "vadd"), "--print-buffers"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    h._procs.append(plain)
    plain.stdout.readline()
    plain.stdout.readline()
    text = vattach(plain.pid)
    t.ok("without ZET_ENABLE_PROGRAM_DEBUGGING=1" in text and "restart" in text,
         "vAttach: restart it with ZET_ENABLE_PROGRAM_DEBUGGING=1", text)
    t.eq(h.wait_exit(plain), 0, "that application finishes")

with h.guarded(t, "a driver that does not start"):
    bad = dict(env, GTSIM_CONFIG="platform=bogus")
    for what, args in (("zestub devices", ["devices"]), ("zestub --multi", ["--multi", ":0"]),
                       ("zestub dump", ["dump", "--attach", "1", "--on", "now"])):
        rc, out, err = run(args, bad)
        t.ok(rc == 1 and "install Intel" not in err and "failed to initialise" in err and
             "ZE_ENABLE_ALT_DRIVERS" in err,
             "bad GTSIM_CONFIG, %s: the named driver failed to start, no 'install the "
             "runtime'" % what, err)
    rc, out, _ = run(["doctor"], bad)
    t.ok(rc == 1 and "install Intel" not in out and "GTSIM_CONFIG" in out,
         "bad GTSIM_CONFIG, zestub doctor: points at GTSIM_CONFIG, not at installing", out)
    rc, out, err = run(["devices"], dict(env, ZE_ENABLE_ALT_DRIVERS="/nonexistent/libze_x.so"))
    t.ok(rc == 1 and "does not exist" in err and "install Intel" not in err,
         "ZE_ENABLE_ALT_DRIVERS naming a missing file: says so", err)
    rc, out, err = run(["devices"], dict(env, ZE_ENABLE_ALT_DRIVERS="libze_gtsim.so"))
    t.ok(rc == 1 and "absolute path" in err and "install Intel" not in err,
         "ZE_ENABLE_ALT_DRIVERS with a relative path: asks for an absolute one", err)

with h.guarded(t, "dump of a pid that does not exist"):
    pid = missing_pid()
    rc, out, err = run(["dump", "--attach", str(pid), "--on", "now"])
    t.eq(rc, 1, "dump --attach %d: exit 1" % pid)
    t.ok("timed out" not in out + err and "no such process" in out,
         "dump --attach %d: the dump says no such process, not timed out" % pid, out)
    t.ok("no such process" in err, "dump --attach %d: stderr says no such process" % pid, err)
    rc, out, err = run(["--once", ":0", "--attach", str(pid)])
    t.ok(rc == 1 and reported(err, pid) == 1 and "no such process" in err,
         "zestub --attach %d: reported once, no such process" % pid, err)
sys.exit(t.done())
