#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The fault matrix (issue 20): each zetDebug call zestub makes fails on
purpose (gtsim's GTSIM_FAULTS, set in zestub's environment only, so the
application's device is healthy) with an ioctl error or a lost device,
and a raw RSP client checks what must follow: an error naming the failure
(or, for a lost device, the end of the device process, W1, as
target/README.md documents), zestub serving on, the application finishing
with exit 0 (no thread left stopped, no module load left blocked), and
zestub ending with status 0 and no sanitizer report. Then zestub dump
under a fault, and the device lost in the middle of a stop-all, a step, a
dump and at a kernel launch. tests/faults/README.md has the matrix with
each cell's expected outcome."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

EM = h.FEATURES + ";error-message+"  # error replies carry their text
env = h.small_device(100)
CELLS = []  # (name, faults, body, options)


def cell(name, faults, wait_load=False, checks=3):
    def register(fn):
        CELLS.append((name, faults, fn, wait_load, checks))
        return fn
    return register


COMMON = 2  # the application finishes; zestub ends cleanly
t = None  # the Tap, made once the cells are known


def start(faults, wait_load, app_faults=None):
    """The application (its buffer address, when it prints one) and zestub
    over stdio with GTSIM_FAULTS, after qSupported."""
    aenv = dict(env, GTSIM_FAULTS=app_faults) if app_faults else env
    app = h.launch(aenv, args=["--wait-before-load"] if wait_load else ["--print-buffers"],
                   stdin=wait_load)
    addr = None
    line = app.stdout.readline().decode(errors="replace")
    while not wait_load and line and not line.startswith("buffers:"):
        line = app.stdout.readline().decode(errors="replace")
    m = re.search(r"a=0x([0-9a-f]+)", line)
    if m:
        addr = int(m.group(1), 16)
    srv = h.Stdio(dict(env, GTSIM_FAULTS=faults), keep_stderr=True, timeout=30)
    srv.c.req(EM)
    return app, srv, addr


def names(reply, *words):
    return reply.startswith("E") and all(w in reply for w in words)


def stopped(reply):
    return reply.startswith("T") or reply.startswith("S")


def run_cell(name, faults, fn, wait_load, checks):
    app = srv = None
    first = t.n

    def check(cond, desc, detail=None):
        t.ok(cond, "%s: %s" % (name, desc), detail)

    try:
        app, srv, addr = start(faults, wait_load)
        fn(srv.c, app, srv, addr, check)
        rc = srv.close(20)
        err = srv.stderr()
        ok_app = h.wait_exit(app, 60) == 0
        t.ok(ok_app, "%s: the application finishes (exit 0): nothing left stopped" % name,
             app.stdout.read().decode(errors="replace")[-400:] if app.stdout else None)
        t.ok(rc == 0 and "Sanitizer" not in err and "runtime error" not in err,
             "%s: zestub ends with status 0, no sanitizer report" % name, "rc %r\n%s" % (rc, err))
    except Exception as e:  # the rest of the cell's checks fail, the plan holds
        ran = t.n - first
        for i in range(checks + COMMON - ran):
            t.ok(False, "%s: check %d: %r" % (name, ran + i + 1, e),
                 srv.stderr()[-800:] if srv else None)
    finally:
        h.cleanup()


def attach(c, app):
    return c.req("vAttach;%x" % app.pid, timeout=30)


def ended(c):
    """'?' until it reports the device process's end (W1): the DETACHED
    event of a lost device arrives on the reader thread, so the reply
    after the failing call may still be the last stop. Up to 10 s."""
    deadline = time.time() + 10
    r = c.req("?")
    while not r.startswith("W") and time.time() < deadline:
        time.sleep(0.1)
        r = c.req("?")
    return r


def stderr_says(srv, *words, timeout=5):
    """srv.stderr() once it holds every one of words, or as it is after
    timeout s. A detach may be handed to the device's event reader, which
    makes it (and logs the driver's refusal) up to one read slice after
    the D was answered."""
    deadline = time.time() + timeout
    err = srv.stderr()
    while not all(w in err for w in words) and time.time() < deadline:
        time.sleep(0.05)
        err = srv.stderr()
    return err


def lost_device_ended(c, srv, check):
    """A lost device's two checks: the client is told the device process
    ended (W1) and zestub's stderr names the lost device."""
    r = ended(c)
    check(r.startswith("W1;process:1"), "the lost device ends the device process: W1", r)
    check("device lost" in srv.stderr(), "stderr names the lost device", srv.stderr())


# ---- attach -----------------------------------------------------------------
@cell("attach / error", "attach:first=1")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(names(r, "ERROR_UNKNOWN"), "vAttach -> E naming ZE_RESULT_ERROR_UNKNOWN", r)
    r = attach(c, app)
    check(stopped(r), "a second vAttach succeeds: zestub kept serving", r)
    check(c.req("D;1") == "OK", "D;1 -> OK")


@cell("attach / lost", "attach:first=1:device_lost")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(names(r, "ERROR_DEVICE_LOST"), "vAttach -> E naming ZE_RESULT_ERROR_DEVICE_LOST", r)
    r = attach(c, app)
    check(stopped(r), "a second vAttach succeeds: zestub kept serving", r)
    check(c.req("D;1") == "OK", "D;1 -> OK")


# ---- read event ---------------------------------------------------------------
@cell("read_event / error", "read_event:every=2")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(stopped(r), "vAttach stops the threads although every 2nd event read fails", r)
    r = c.req("vCont;c", timeout=60)
    check(r.startswith("W1;process:1"), "continue runs to the process exit: W1", r)
    check(h.wait_exit(app, 10) == 0,
          "W came with the application's real end, not from a failed read", r)


@cell("read_event / lost", "read_event:after=1:device_lost")
def _(c, app, srv, addr, check):
    attach(c, app)
    r = ended(c)
    check(r.startswith("W1;process:1"), "the lost device ends the device process: W1", r)
    r = c.req("vCont;c")
    check(r.startswith("E."), "a resume afterwards is an error, not a hang", r)
    check("device lost" in srv.stderr(), "stderr names the lost device", srv.stderr())


@cell("read_event / error always", "read_event:after=1", checks=4)
def _(c, app, srv, addr, check):
    attach(c, app)
    r = c.req("vCont;c", timeout=60)
    check(names(r, "cannot be read", "ERROR_UNKNOWN", "runs on"),
          "vCont;c -> E with the driver's words: the events cannot be read (not W: the "
          "application did not end)", r)
    check(h.wait_exit(app, 60) == 0,
          "the application finishes while zestub still serves: it was detached, not left "
          "stopped", srv.stderr()[-600:])
    err = srv.stderr()
    check("warning" in err and "cannot be read" in err and "ERROR_UNKNOWN" in err,
          "stderr warns that the events cannot be read, with the driver's words", err[-600:])
    r = c.req("D;1")
    check(r == "OK" or r.startswith("E"), "D;1 afterwards is answered", r)


# ---- acknowledge --------------------------------------------------------------
@cell("ack / error once", "ack:first=1", wait_load=True)
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(r.startswith("U"), "vAttach before the module exists -> U", r)
    h.release(app)
    r = c.req("vCont;c", timeout=60)
    check(r.startswith("W1;process:1"), "the failed acknowledgement is retried: the load goes on, W1",
          r)
    check("acknowledging" not in srv.stderr(), "no warning: the retry succeeded", srv.stderr())


@cell("ack / error always", "ack", wait_load=True)
def _(c, app, srv, addr, check):
    attach(c, app)
    h.release(app)
    c.send("vCont;c")
    deadline = time.time() + 20
    while time.time() < deadline and "acknowledging module" not in srv.stderr():
        time.sleep(0.1)
    err = srv.stderr()
    check("acknowledging module" in err and "ERROR_UNKNOWN" in err,
          "stderr names the failed acknowledgement and ZE_RESULT_ERROR_UNKNOWN", err)
    c.interrupt()
    r = c.recv(timeout=30).decode("latin-1")
    check(len(r) > 0, "^C is answered while the load is held", r)
    check(c.req("D;1") == "OK", "D;1 -> OK: the detach releases the load")


@cell("ack / lost", "ack:device_lost", wait_load=True)
def _(c, app, srv, addr, check):
    attach(c, app)
    h.release(app)
    r = c.req("vCont;c", timeout=60)
    check(r.startswith("W1;process:1"), "the lost device ends the device process: W1", r)
    r = c.req("?")
    check(r.startswith("W") or r.startswith("E") or r == "OK", "? afterwards is answered", r)
    check("device lost" in srv.stderr(), "stderr names the lost device", srv.stderr())


# ---- interrupt ----------------------------------------------------------------
@cell("interrupt / error once", "interrupt:first=1")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(stopped(r), "the attach's stop-all retries the failed interrupt: threads stopped", r)
    r = c.req("vCont;c", timeout=60)
    check(r.startswith("W1;process:1"), "continue runs to the exit: W1", r)
    r = c.req("D;1")
    check(r == "OK", "D;1 of the ended process -> OK", r)


@cell("interrupt / error always", "interrupt:every=1")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(r[:1] in ("T", "U"), "vAttach answers though nothing could be stopped", r)
    err = srv.stderr()
    check("could not stop the device" in err and "ZE_RESULT" in err and "within 2 s" not in err,
          "stderr names the refused interrupt, not a timeout", err[-600:])
    r = c.req("D;1")
    check(r == "OK", "D;1 -> OK", r)


@cell("interrupt / refused at ^C", "interrupt:after=1", checks=4)
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(stopped(r), "vAttach stops the threads (its interrupt is the first, allowed)", r)
    c.send("vCont;c")
    time.sleep(0.2)
    c.interrupt()
    r = c.recv(timeout=10).decode("latin-1")
    check(names(r, "interrupt", "ERROR_UNKNOWN"),
          "^C is answered at once: E with the driver's words (no stop will come)", r)
    err = srv.stderr()
    check("warning" in err and "refused the interrupt" in err and "ERROR_UNKNOWN" in err,
          "stderr warns that the device refused the interrupt, with the driver's words",
          err[-600:])
    r = c.req("vCont;c", timeout=60)
    check(r.startswith("W1;process:1"), "the threads ran on: a continue runs to the exit: W1", r)


@cell("interrupt / lost", "interrupt:device_lost")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(not r.startswith("E") or "lost" in r, "vAttach answers (or names the loss)", r)
    r = ended(c)
    check(r.startswith("W1;process:1") or names(r, "lost"),
          "the lost device ends the device process: W1", r)
    check("device lost" in srv.stderr(), "stderr names the lost device", srv.stderr())


# ---- resume -------------------------------------------------------------------
@cell("resume / error once", "resume:first=1")
def _(c, app, srv, addr, check):
    attach(c, app)
    r = c.req("vCont;c")
    check(names(r, "resum", "ERROR_UNKNOWN"), "vCont;c -> E naming the resume and the result", r)
    r = c.req("vCont;c", timeout=60)
    check(r.startswith("W1;process:1"), "a second continue works: W1", r)
    check("resume failed" in srv.stderr(), "stderr says the resume failed", srv.stderr())


@cell("resume / error once (in a step)", "resume:first=1")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    m = re.search(r"thread:p1\.([0-9a-f]+);", r)
    tid = m.group(1) if m else "1"
    r = c.req("vCont;s:p1.%s" % tid)
    check(names(r, "resuming thread", "ERROR_UNKNOWN"), "vCont;s -> E naming the thread's resume", r)
    r = c.req("vCont;s:p1.%s" % tid, timeout=20)
    check(stopped(r), "the step again: it stops (the thread was not left marked running)", r)
    r = c.req("vCont;c", timeout=60)
    check(r.startswith("W1;process:1"), "continue runs to the exit: W1", r)


@cell("resume / error always", "resume")
def _(c, app, srv, addr, check):
    attach(c, app)
    r = c.req("vCont;c")
    check(names(r, "ERROR_UNKNOWN"), "vCont;c -> E naming ZE_RESULT_ERROR_UNKNOWN", r)
    r = c.req("vCont;c", timeout=20)
    check(names(r, "ERROR_UNKNOWN"), "a second continue fails the same way, promptly", r)
    check(c.req("D;1") == "OK", "D;1 -> OK: the detach lets the threads go")


@cell("resume / lost (in a continue)", "resume:device_lost")
def _(c, app, srv, addr, check):
    attach(c, app)
    r = c.req("vCont;c", timeout=30)
    check(r.startswith("W1;process:1"), "the lost device ends the device process: W1", r)
    r = c.req("vCont;c")
    check(r.startswith("E."), "a resume afterwards -> E.", r)
    check("device lost" in srv.stderr(), "stderr names the lost device", srv.stderr())


@cell("resume / lost (in a step)", "resume:device_lost")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    m = re.search(r"thread:p1\.([0-9a-f]+);", r)
    r = c.req("vCont;s:p1.%s" % (m.group(1) if m else "1"), timeout=30)
    check(r.startswith("W1;process:1"), "the step ends with the device process: W1", r)
    r = c.req("?")
    check(r.startswith("W") or r.startswith("E") or r == "OK", "? afterwards is answered", r)
    check("device lost" in srv.stderr(), "stderr names the lost device", srv.stderr())


# ---- memory -------------------------------------------------------------------
@cell("read_memory / error", "read_memory:every=1")
def _(c, app, srv, addr, check):
    attach(c, app)
    r = c.req("m%x,8" % addr)
    check(names(r, "ERROR_UNKNOWN"), "m -> E naming ZE_RESULT_ERROR_UNKNOWN", r)
    r = c.req("g")
    check(re.match(r"^[0-9a-f]+$", r) is not None, "registers still read: zestub kept serving", r[:80])
    check(c.req("D;1") == "OK", "D;1 -> OK")


@cell("read_memory / lost", "read_memory:device_lost")
def _(c, app, srv, addr, check):
    attach(c, app)
    r = c.req("m%x,8" % addr)
    check(r.startswith("E."), "m -> E.", r)
    lost_device_ended(c, srv, check)


@cell("write_memory / error", "write_memory")
def _(c, app, srv, addr, check):
    attach(c, app)
    r = c.req("M%x,4:01020304" % addr)
    check(names(r, "ERROR_UNKNOWN"), "M -> E naming ZE_RESULT_ERROR_UNKNOWN", r)
    r = c.req("m%x,4" % addr)
    check(re.match(r"^[0-9a-f]{8}$", r) is not None and r != "01020304",
          "memory still reads, unchanged", r)
    check(c.req("D;1") == "OK", "D;1 -> OK")


@cell("write_memory / lost", "write_memory:device_lost")
def _(c, app, srv, addr, check):
    attach(c, app)
    r = c.req("M%x,4:01020304" % addr)
    check(r.startswith("E."), "M -> E.", r)
    lost_device_ended(c, srv, check)


# ---- registers ----------------------------------------------------------------
@cell("read_registers / error", "read_registers:p=0.5:seed=7")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(stopped(r) or r.startswith("U"), "vAttach answers although register reads fail", r)
    replies = [c.req("p0") for _ in range(8)]
    good = [x for x in replies if re.match(r"^[0-9a-f]+$", x)]
    bad = [x for x in replies if x not in good]
    check(all(re.match(r"^(x+|E\..*ERROR_UNKNOWN.*)$", x) for x in bad) and good,
          "each p0 is the value, or unavailable/E naming the failure; some succeed", replies)
    check(c.req("D;1") == "OK", "D;1 -> OK")


@cell("read_registers / lost (in a stop-all)", "read_registers:after=3:device_lost")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(not r.startswith("E") or "lost" in r or "exited" in r,
          "vAttach answers (its stop-all probes threads when the device is lost)", r)
    lost_device_ended(c, srv, check)


@cell("write_memory / error in a Z0", "write_memory")
def _(c, app, srv, addr, check):
    # As stock GDB (x86 host registers): the client zestub plants Z0 for.
    c.req("qSupported:multiprocess+;swbreak+;vContSupported+;xmlRegisters=i386;error-message+")
    stop = attach(c, app)
    m = re.search(r"thread:p([0-9a-f]+)\.([0-9a-f]+);", stop)
    c.req("Hgp%s.%s" % (m.group(1), m.group(2)))
    pc = int.from_bytes(bytes.fromhex(c.req("p10")), "little")
    before = c.req("m%x,10" % pc)
    r = c.req("Z0,%x,1" % pc)
    check(names(r, "ERROR_UNKNOWN"), "Z0 at the PC -> E naming the driver's failure", r)
    check(c.req("m%x,10" % pc) == before and c.req("z0,%x,1" % pc) in ("OK", ""),
          "the code reads back unchanged; z0 is answered", before)
    check(c.req("D;%s" % m.group(1)) == "OK", "D -> OK")


@cell("write_registers / error", "write_registers")
def _(c, app, srv, addr, check):
    attach(c, app)
    v = c.req("p0")
    r = c.req("P0=%s" % v)
    check(names(r, "ERROR_UNKNOWN"), "P -> E naming ZE_RESULT_ERROR_UNKNOWN", r)
    r = c.req("p0")
    check(r == v, "the register still reads, unchanged", (v[:40], r[:40]))
    check(c.req("D;1") == "OK", "D;1 -> OK")


@cell("write_registers / lost", "write_registers:device_lost")
def _(c, app, srv, addr, check):
    attach(c, app)
    v = c.req("p0")
    r = c.req("P0=%s" % v)
    check(r.startswith("E."), "P -> E.", r)
    lost_device_ended(c, srv, check)


# ---- monitor dump and monitor core: the client sees only their answer ---------
def monitor_json(c, cmd):
    r, text = c.monitor(cmd)
    try:
        return json.loads(text)
    except ValueError:
        return {"unparsed": text[-400:]}


@cell("monitor dump / read_registers error", "read_registers:after=6")
def _(c, app, srv, addr, check):
    attach(c, app)
    r, text = c.monitor("dump --registers all")
    check("could not all be read" in text and "ERROR_UNKNOWN" in text,
          "the human answer's closing lines name the threads without registers and why",
          text[-600:])
    doc = monitor_json(c, "dump --json --registers all")
    rf = doc.get("register_failures") or {}
    check(rf.get("threads", 0) >= 1 and "ERROR_UNKNOWN" in rf.get("last_error", "") and
          "lost_devices" not in doc, "the JSON answer has register_failures, no lost device",
          str(doc)[-600:])
    check(c.req("D;1") == "OK", "D;1 -> OK")


@cell("monitor dump / lost", "read_registers:after=20:device_lost")
def _(c, app, srv, addr, check):
    attach(c, app)
    r, text = c.monitor("dump --registers all")
    check("its debug session was lost" in text and "ERROR_DEVICE_LOST" in text,
          "the human answer names the lost device and the unread registers", text[-600:])
    doc = monitor_json(c, "dump --json --registers all")
    check(doc.get("lost_devices") == [0] and doc.get("complete") is True,
          "the JSON answer: lost_devices [0], still complete", str(doc)[-600:])
    r = ended(c)
    check(r.startswith("W1;process:1"), "the lost device ends the device process: W1", r)


@cell("monitor core / read_registers error", "read_registers:after=6", checks=2)
def _(c, app, srv, addr, check):
    attach(c, app)
    core = os.path.join(h.scratch_dir(), "m.core")
    r, text = c.monitor("core --memory 0 " + core)
    check("unreadable registers (written as zeros)" in text and os.path.exists(core),
          "monitor core writes the core and its answer says which registers are zeros", text)
    check(c.req("D;1") == "OK", "D;1 -> OK")


@cell("monitor core / lost", "read_registers:after=20:device_lost", checks=2)
def _(c, app, srv, addr, check):
    attach(c, app)
    core = os.path.join(h.scratch_dir(), "m.core")
    r, text = c.monitor("core --memory 0 " + core)
    check("unreadable registers (written as zeros)" in text,
          "monitor core's answer says which registers are zeros", text)
    r = ended(c)
    check(r.startswith("W1;process:1"), "the lost device ends the device process: W1", r)


# ---- detach -------------------------------------------------------------------
@cell("detach / error", "detach", checks=4)
def _(c, app, srv, addr, check):
    attach(c, app)
    r = c.req("D;1")
    check(r == "OK", "D;1 -> OK: the driver ends the session whatever it returns", r)
    err = stderr_says(srv, "Detached from device")
    check("Detached from device" in err, "stderr says the device was detached", err)
    err = stderr_says(srv, "refused to detach", "may still be stopped")
    check("refused to detach" in err and "may still be stopped" in err,
          "stderr also says the driver refused, and what that can mean", err)
    r = attach(c, app)
    check(stopped(r), "a new vAttach works: nothing of the old session is left", r)


@cell("detach / lost", "detach:device_lost")
def _(c, app, srv, addr, check):
    attach(c, app)
    r = c.req("D;1")
    check(r == "OK", "D;1 -> OK (a lost device is detached)", r)
    err = stderr_says(srv, "device lost")
    check("device lost" in err, "stderr names the lost device", err)
    r = c.req("?")
    check(len(r) > 0, "? afterwards is answered", r)


@cell("time / lost (during a slow stop-all)", "interrupt:delay_ms=600,time:ms=250:device_lost")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(not r.startswith("E") or "lost" in r or "exited" in r,
          "vAttach answers (the device is lost while its interrupt is on its way)", r)
    lost_device_ended(c, srv, check)


# ---- slow calls ---------------------------------------------------------------
@cell("delays", "read_memory:delay_ms=200,resume:delay_ms=200,read_event:delay_ms=50")
def _(c, app, srv, addr, check):
    r = attach(c, app)
    check(stopped(r), "vAttach works with slow event reads", r)
    r = c.req("m%x,4" % addr)
    check(re.match(r"^[0-9a-f]{8}$", r) is not None, "a slow memory read returns its data", r)
    r = c.req("vCont;c", timeout=60)
    check(r.startswith("W1;process:1"), "a slow resume, then the exit: W1", r)


def dump_cell(name, faults, want_status, want_complete, stderr_words):
    """zestub dump --on now under a fault: the status, a document with
    what could be collected, and stderr saying what is missing."""
    def body():
        app = h.launch(env, args=["--print-buffers"])
        line = app.stdout.readline()
        while line and not line.startswith(b"buffers:"):
            line = app.stdout.readline()
        out = tempfile.NamedTemporaryFile(suffix=".json", delete=False)
        out.close()
        p = subprocess.run([os.path.join(h.top, "zestub"), "dump", "--attach", str(app.pid),
                            "--on", "now", "--timeout", "20", "--json", out.name],
                           env=dict(env, GTSIM_FAULTS=faults), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        err = p.stderr.decode(errors="replace")
        try:
            with open(out.name) as f:
                doc = json.load(f)
        except ValueError as e:
            doc = {"error": repr(e)}
        os.unlink(out.name)
        t.ok(p.returncode == want_status and doc.get("status") == want_status,
             "%s: status %d" % (name, want_status), "rc %d, doc %s\n%s" % (
                 p.returncode, doc.get("status"), err))
        t.ok(doc.get("complete") is want_complete and len(doc.get("threads", [])) > 0,
             "%s: the document is written (complete: %s) with the threads it could read" % (
                 name, want_complete), json.dumps(doc)[:300])
        t.ok(all(w in err for w in stderr_words), "%s: stderr says what is missing" % name, err)
        t.ok(h.wait_exit(app, 60) == 0, "%s: the application finishes (exit 0)" % name)
    return body


DUMPS = [
    dump_cell("dump / read_registers error", "read_registers", 0, True,
              ["could not all be read", "ERROR_UNKNOWN"]),
    dump_cell("dump / lost (in the dump)", "read_registers:after=6:device_lost", 3, False,
              ["ended during the dump", "DEVICE_LOST"]),
    dump_cell("dump / detach error", "detach", 0, True,
              ["detaching from device", "failed, its threads may still be stopped",
               "ERROR_UNKNOWN"]),
]
DUMP_CHECKS = 4


def hang_cell():
    """zestub dump --on hang (the deadline rule: no XPTI table) of a hung
    sycl_hang whose interrupt the driver refuses: not "no hang", but its
    own status, the driver's words on stderr and in the document."""
    name = "dump --on hang / interrupt refused"
    hung = h.gtsim_env("platform=xehpc,subslices=2,eus=2,threads=4,barrier_skip=1")
    hung["ZET_ENABLE_PROGRAM_DEBUGGING"] = "1"
    a, _ = h.start_app(hung, "sycl_hang", ["--give-up", "60"], running="submit kernel slm")
    t0 = time.time()
    p = subprocess.run([os.path.join(h.top, "zestub"), "dump", "--attach", str(a.pid), "--on",
                        "hang=1s", "--timeout", "20", "--json", "-"],
                       env=dict(hung, GTSIM_FAULTS="interrupt:result=ERROR_UNKNOWN"),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    took = time.time() - t0
    err = p.stderr.decode(errors="replace")
    try:
        doc = json.loads(p.stdout.decode(errors="replace"))
    except ValueError as e:
        doc = {"error": repr(e)}
    t.ok(p.returncode == 8 and doc.get("status") == 8 and took < 15,
         "%s: status 8 at the first check, not 'no hang' at the timeout" % name,
         "rc %d, doc %s, %.1f s\n%s" % (p.returncode, doc.get("status"), took, err))
    t.ok("no hang" not in err and "refused to interrupt" in err and "ERROR_UNKNOWN" in err,
         "%s: stderr says the interrupt was refused, with the driver's words" % name, err)
    t.ok("refused to interrupt" in doc.get("error", "") and "ERROR_UNKNOWN" in doc.get("error", ""),
         "%s: the document's error names the refused interrupt" % name, json.dumps(doc)[:400])
    t.ok(a.poll() is None, "%s: the application runs on (still hung, not killed)" % name)


HANG_CHECKS = 4


def launch_hang_cell():
    """The same refusal in launch mode: vadd on a slow device (about 6 s)
    started by zestub dump --on hang=1s; the deadline rule's interrupt is
    refused. Status 8 and the driver's words, not the program's 0 with
    "without a hang"; the program still runs to its end. (GTSIM_FAULTS
    reaches the program too; it makes no interrupt call.)"""
    name = "launch dump --on hang / interrupt refused"
    slow = h.gtsim_env("platform=xehpc,subslices=2,eus=2,threads=4,pace=50")
    out = os.path.join(h.scratch_dir(), "h.json")
    p = subprocess.run([os.path.join(h.top, "zestub"), "dump", "--on", "hang=1s", "--json", out,
                        "--", os.path.join(h.top, "examples", "vadd")],
                       env=dict(slow, GTSIM_FAULTS="interrupt:result=ERROR_UNKNOWN"),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    err = p.stderr.decode(errors="replace")
    try:
        with open(out) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        doc = {"error": repr(e)}
    t.ok(p.returncode == 8 and doc.get("status") == 8,
         "%s: status 8, in the document too (not the program's 0)" % name,
         "rc %d, doc %s\n%s" % (p.returncode, doc.get("status"), err))
    t.ok("could not be told" in err and "without a hang" not in err and
         "ERROR_UNKNOWN" in doc.get("error", ""),
         "%s: stderr says whether it hung could not be told; the document has the driver's words"
         % name, err[-800:])
    t.ok("vadd: PASSED" in p.stdout.decode(errors="replace"),
         "%s: the program ran to its end" % name, p.stdout.decode(errors="replace")[-400:])


LAUNCH_HANG_CHECKS = 3


def launch_cell():
    """The device lost at the application's first kernel launch (the
    fault is in the application's environment): the client is told the
    device process ended, the application sees DEVICE_LOST and ends."""
    name = "launch / lost"
    try:
        app, srv, _ = start("", True, app_faults="launch:at=1:device_lost")
        c = srv.c
        attach(c, app)
        h.release(app)
        r = c.req("vCont;c", timeout=60)
        while r.startswith("T") and "library" in r:  # module loads before the launch
            r = c.req("vCont;c", timeout=60)
        t.ok(r.startswith("W1;process:1"), "%s: the client is told the device process ended: W1"
             % name, r)
        rc = srv.close(20)
        st = h.wait_exit(app, 60)
        out = app.stdout.read().decode(errors="replace")
        t.ok(st not in (0, None) and "lost" in out,
             "%s: the application ends with an error, its device lost" % name, "%r\n%s" % (st, out))
        t.eq(rc, 0, "%s: zestub ends with status 0" % name)
    except Exception as e:
        for i in range(3):
            t.ok(False, "%s: %r" % (name, e))
    finally:
        h.cleanup()


LAUNCH_CHECKS = 3

# A bad GTSIM_FAULTS fails zeInit with the reason, as a bad GTSIM_CONFIG does.
BAD_SETTINGS = [("read_memory:every=x", "every=x is not a number"),
                ("launch:at=1", "launch needs at=N:device_lost"),
                ("resume:result=ZE_RESULT_BOGUS", "unknown result 'ZE_RESULT_BOGUS'"),
                ("peek", "unknown call 'peek'")]


def bad_settings():
    for faults, reason in BAD_SETTINGS:
        p = subprocess.run([os.path.join(h.top, "zestub"), "devices"],
                           env=dict(env, GTSIM_FAULTS=faults), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=30)
        err = p.stderr.decode(errors="replace")
        t.ok(p.returncode != 0 and "GTSIM_FAULTS: " + reason in err,
             "GTSIM_FAULTS=%s is refused: %s" % (faults, reason), err)


def run_body(body, checks, what):
    """A cell outside the table: on an exception its checks that did not
    run fail, so the plan holds; the applications are stopped after."""
    first = t.n
    try:
        body()
    except Exception as e:
        for i in range(max(0, checks - (t.n - first))):
            t.ok(False, "%s: %r" % (what, e))
    finally:
        h.cleanup()


# FAULT_CELLS=WORD runs only the cells whose name contains WORD (while
# working on one; the suite runs them all).
if os.environ.get("FAULT_CELLS"):
    CELLS = [c for c in CELLS if os.environ["FAULT_CELLS"] in c[0]]
t = h.Tap(sum(c[4] + COMMON for c in CELLS) + DUMP_CHECKS * len(DUMPS) + HANG_CHECKS +
          LAUNCH_HANG_CHECKS + LAUNCH_CHECKS + len(BAD_SETTINGS))
bad_settings()
for name, faults, fn, wait_load, checks in CELLS:
    run_cell(name, faults, fn, wait_load, checks)
for body in DUMPS:
    run_body(body, DUMP_CHECKS, "dump cell")
run_body(hang_cell, HANG_CHECKS, "dump --on hang cell")
run_body(launch_hang_cell, LAUNCH_HANG_CHECKS, "launch dump --on hang cell")
launch_cell()
sys.exit(t.done())
