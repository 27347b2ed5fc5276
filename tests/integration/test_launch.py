#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Launch mode against examples that start their kernels at once (no pause
argument): zestub starts the program itself, holds it in its first
zeModuleCreate until it has attached, so that an RSP client sees the first
module load (Up1.0;library, held until vAck) before any kernel runs, and
`zestub dump -- pagefault` catches the fault of a program that faults in
its first milliseconds. Exit statuses: the program's, or 5 for a dump.
Signals sent to zestub reach the program; nothing is left stopped."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

t = h.Tap(39)  # the plan: every check this test makes
zestub = os.path.join(h.top, "zestub")
ex = os.path.join(h.top, "examples")
env = h.small_device(200)
env.pop("ZET_ENABLE_PROGRAM_DEBUGGING", None)  # zestub must set it itself
tmp = h.scratch_dir()


def serve_stdio(prog, extra=()):
    """zestub --once - -- PROG over stdio; the program's output goes to
    zestub's stderr (a file)."""
    err = tempfile.TemporaryFile()
    p = subprocess.Popen([zestub, "--once", "--log-level", "info"] + list(extra) + ["-", "--"] +
                         prog, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=err, bufsize=0)
    h._procs.append(p)
    return p, h.Client(p.stdout.fileno(), p.stdin.fileno(), timeout=30), err


def text(f):
    f.flush()
    f.seek(0)
    return f.read().decode(errors="replace")


def wait_text(f, what, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if what in text(f):
            return True
        time.sleep(0.05)
    return False


with h.guarded(t, "server launch mode"):
    p, c, err = serve_stdio([os.path.join(ex, "vadd")])
    reply = c.req(h.INTEL)
    t.ok("vAck:in-memory-library+" in reply, "qSupported answered", reply)
    stop = c.req("?")
    t.ok(stop[:1] in "TUS", "the launched program is attached and stopped for the client", stop)
    libs = c.xfer("libraries", "")[0].decode()
    t.ok("<in-memory-library" not in libs or 'ack="yes"' in libs,
         "at attach no module is acknowledged yet: the hold came first", libs)
    log = text(err)
    t.ok("Process " in log and "Attached; pid = " in log, "zestub says it started and attached",
         log)
    c.send("vCont;c")
    lib = c.recv(timeout=30).decode()
    t.eq(lib, "Up1.0;library", "the first module load is announced before the kernel runs")
    time.sleep(1.0)
    out = text(err)
    t.ok("module: created" not in out and "launch:" not in out,
         "the program waits in its first zeModuleCreate for vAck", out)
    xml = c.xfer("libraries", "")[0].decode()
    m = re.search(r'begin="0x([0-9a-f]+)" end="0x([0-9a-f]+)" ack="yes"', xml)
    t.ok(m is not None, "the load is listed with ack=\"yes\"", xml)
    if m:
        t.eq(c.req("vAck:in-memory-library:0x%s,0x%s" % (m.group(1), m.group(2))), "OK", "vAck")
    t.ok(wait_text(err, "launch:", 20), "after vAck the program goes on and launches",
         text(err))
    seen = []
    for _ in range(10):
        c.send("vCont;c")
        r = c.recv(timeout=60).decode()
        seen.append(r)
        if r.startswith("W") or r.startswith("X"):
            break
    t.ok(seen and seen[-1].startswith("W"), "the client sees the program's exit", seen)
    c.close()
    p.stdin.close()
    t.eq(h.wait_exit(p, 30), 0, "zestub exits with the program's status (0)")
    t.ok("vadd: PASSED" in text(err), "the program ran to the end", text(err))

with h.guarded(t, "server over TCP: detach, the program runs on"):
    errf = tempfile.TemporaryFile()
    srv = subprocess.Popen([zestub, ":0", "--", os.path.join(ex, "vadd")], env=env,
                           stdout=subprocess.PIPE, stderr=errf)
    h._procs.append(srv)
    port = None
    end = time.time() + 20
    while port is None and time.time() < end:
        m = re.search(r"Listening on port (\d+)", text(errf))
        port = int(m.group(1)) if m else time.sleep(0.05)
    t.ok(port is not None, "zestub COMM -- PROGRAM listens", text(errf))
    c = h.Client.tcp(port, timeout=30)
    c.req(h.INTEL)
    t.ok(c.req("?")[:1] in "TUS", "the client finds the program attached")
    t.ok(c.req("D").startswith("OK"), "detach")
    c.close()
    t.eq(h.wait_exit(srv, 60), 0,
         "without --once or --multi one client is served; zestub then waits for the program "
         "and exits with its status")
    t.ok("vadd: PASSED" in srv.stdout.read().decode(), "the program's stdout is zestub's")

with h.guarded(t, "server: program status"):
    p, c, err = serve_stdio(["sh", "-c", "exit 3"])
    t.eq(h.wait_exit(p, 30), 3,
         "a program that ends before its first module: zestub exits with its status")
    t.ok("before it created a Level Zero module" in text(err), "and says why", text(err))
    p = subprocess.run([zestub, "-", "--attach", "1", "--", "true"], env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t.eq(p.returncode, 2, "--attach and a PROGRAM together: usage error")
    p = subprocess.run([zestub, "-", "--"], env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t.eq(p.returncode, 2, "-- without a PROGRAM: usage error")


def dump(prog, json_arg, extra=(), timeout=60):
    p = subprocess.Popen([zestub, "dump"] + list(extra) + ["--json", json_arg, "--"] + prog,
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    h._procs.append(p)
    out, errb = p.communicate(timeout=timeout)
    return p.returncode, out.decode(errors="replace"), errb.decode(errors="replace")


with h.guarded(t, "dump launch mode"):
    path = os.path.join(tmp, "pf-%p.json")
    rc, out, errs = dump([os.path.join(ex, "pagefault")], path)
    t.eq(rc, 5, "dump of pagefault (no pause): status 5, the program faulted and was dumped")
    # After the dump zestub detaches: threads that had not reached the fault
    # yet may fault afterwards, unobserved, and the program then sees what
    # it would see without zestub (device lost). Either way it runs on.
    t.ok("launching oob" in out and ("a debugger handled the fault" in out or
                                     "the device reported the fault" in out),
         "the program's stdout stays the user's, and it ran on after the dump", out + errs)
    files = [f for f in os.listdir(tmp) if f.startswith("pf-")]
    t.eq(len(files), 1, "one file, %p expanded")
    doc = json.load(open(os.path.join(tmp, files[0]))) if files else {}
    t.ok(files and files[0] == "pf-%d.json" % doc.get("pid"), "%p is the program's pid", files)
    th = doc.get("threads", [])
    t.ok(th and any(x["reason"] == "page-fault" for x in th) and
         all(x["kernel"] == "oob" and x["line"] for x in th),
         "page-fault threads, every dumped thread in oob with a line",
         [(x["reason"], x["kernel"], x["line"]) for x in th])
    t.ok(doc.get("page_faults") and doc.get("status") == 5 and doc.get("complete") is True,
         "the fault is listed, status 5, complete", {k: doc.get(k) for k in ("status",
                                                                             "complete")})
    t.eq(doc.get("program"), {"path": os.path.join(ex, "pagefault"), "exit_code": 0,
                              "signal": None, "dumped": True}, "the program record")

    rc, out, errs = dump([os.path.join(ex, "vadd")], os.path.join(tmp, "clean.json"))
    t.eq(rc, 0, "a program that does not fault: its own status (0)")
    doc = json.load(open(os.path.join(tmp, "clean.json")))
    t.ok(doc.get("threads") == [] and doc.get("page_faults") == [] and
         doc["program"]["dumped"] is False and doc.get("complete") is True,
         "it leaves a small clean-exit record", doc)
    rc, out, errs = dump(["sh", "-c", "exit 7"], os.path.join(tmp, "seven.json"))
    t.eq(rc, 7, "a program's own nonzero status passes through")
    rc, out, errs = dump(["/nonexistent/program"], os.path.join(tmp, "none.json"))
    t.eq(rc, 1, "a program that cannot be run: status 1")
    rc, out, errs = dump(["true"], os.path.join(tmp, "bad%q.json"))
    t.eq(rc, 2, "an unknown %-sequence in --json: usage error")

with h.guarded(t, "launch mode + XPTI table, merged"):
    # sycl_like (our SYCL stand-in) with the XPTI subscriber, as two ranks:
    # the dumps join the allocation, and merge names its sites.
    xenv = dict(env, XPTI_TRACE_ENABLE="1",
                XPTI_SUBSCRIBERS=os.path.join(h.top, ".libs", "libzestub_xpti.so"),
                XPTI_FRAMEWORK_DISPATCHER=os.path.join(h.top, ".libs", "libxptifw.so"))
    paths = []
    for rank in (0, 1):
        path = os.path.join(tmp, "x-%d.json" % rank)
        p = subprocess.run([zestub, "dump", "--json", os.path.join(tmp, "x-%r.json"), "--",
                            os.path.join(ex, "sycl_like")], env=dict(xenv, PMI_RANK=str(rank)),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        t.eq(p.returncode, 5, "rank %d: sycl_like faults and is dumped" % rank)
        paths.append(path)
    m = subprocess.run([zestub, "merge", "--json"] + paths, stdout=subprocess.PIPE)
    merged = json.loads(m.stdout.decode() or "{}")
    pf = [c for c in merged.get("classes", []) if c["reason"] == "page-fault"]
    c = pf[0] if pf else {}
    t.ok(m.returncode == 5 and len(pf) == 1 and c["ranks"]["ranges"] == "0-1" and
         c["kernel"] == "oob" and
         c["fault_class"].startswith("freed allocation from ") and "sycl_like.c:" in
         c["fault_class"], "merge: one class on ranks 0-1, a freed allocation with its site",
         merged.get("classes"))
    alloc = c.get("allocation") or {}
    t.ok(alloc.get("state") == "freed" and (alloc.get("freed_at") or {}).get("line") and
         (c.get("submitted_at") or {}).get("line"),
         "the class carries the allocation (freed at a line) and the submission site", c)

with h.guarded(t, "dump launch mode: signals"):
    # A long kernel (pace 20): SIGTERM to zestub reaches the program, which
    # dies of it; zestub detaches and reports the program's status.
    slow = h.small_device(20)
    p = subprocess.Popen([zestub, "dump", "--json", os.path.join(tmp, "sig.json"), "--",
                          os.path.join(ex, "vadd")], env=slow, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    h._procs.append(p)
    line = p.stdout.readline().decode()
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        rc = None
    t.eq(rc, 128 + signal.SIGTERM, "SIGTERM to zestub: the program gets it, zestub exits 143")
    doc = json.load(open(os.path.join(tmp, "sig.json")))
    t.ok(doc["program"]["signal"] == signal.SIGTERM and doc["complete"] is True,
         "the record says the program was killed by SIGTERM", doc.get("program"))

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(t.done())
