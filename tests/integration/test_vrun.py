#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""vRun (GDB's `run` over target extended-remote) against zestub --multi
and examples on gtsim, spoken raw: the environment and working directory
the client sets reach the program, a program that cannot start or ends
before its first module gives one clear error and the server goes on, a
run program is attached before its first module (the load is announced
before its kernel runs, held until vAck), runs to its exit (W with its
status; X with the signal that killed it), and vKill kills it. The program's output goes to zestub's own stdout (its stderr
over stdio)."""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import bp_util  # noqa: E402
import harness as h  # noqa: E402

t = h.Tap(34)  # the plan: every check this test makes
zestub = os.path.join(h.top, "zestub")
vadd = os.path.abspath(os.path.join(h.top, "examples", "vadd"))
env = h.small_device(200)
env.pop("ZET_ENABLE_PROGRAM_DEBUGGING", None)  # zestub sets it for the program
tmp = h.scratch_dir()
STOCK = "qSupported:multiprocess+;swbreak+;vContSupported+;xmlRegisters=i386"


def hx(s):
    return s.encode().hex()


def vrun(c, *argv):
    return c.req("vRun;" + ";".join(hx(a) for a in argv), timeout=90)


class Server:
    """zestub --once --multi :0, its stdout and stderr in one file."""

    def __init__(self, *extra):
        self.out = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([zestub, "--once", "--multi"] + list(extra) + [":0"],
                                     env=env, stdout=self.out, stderr=self.out)
        h._procs.append(self.proc)
        m = None
        end = time.time() + 20
        while m is None and time.time() < end:
            m = re.search(r"Listening on port (\d+)", self.text())
            time.sleep(0 if m else 0.05)
        self.client = h.Client.tcp(int(m.group(1)), timeout=90)

    def text(self):
        self.out.flush()
        self.out.seek(0)
        return self.out.read().decode(errors="replace")

    def pids(self):
        return [int(p) for p in re.findall(r"Process \S+ created; pid = (\d+)", self.text())]


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def continue_to_exit(c):
    seen = []
    for _ in range(10):
        c.send("vCont;c")
        r = c.recv(timeout=90).decode()
        seen.append(r)
        if r[:1] in "WX":
            break
    return seen


with h.guarded(t, "vRun, Intel's client"):
    srv = Server("--log-level", "info")
    c = srv.client
    feats = c.req(h.INTEL).split(";")
    t.ok(all(f in feats for f in ("QEnvironmentHexEncoded+", "QEnvironmentUnset+",
                                  "QEnvironmentReset+", "QSetWorkingDir+", "QStartupWithShell+")),
         "--multi announces the packets GDB sends before vRun", feats)
    t.eq(c.req("!"), "OK", "extended mode")
    t.eq([c.req("QStartupWithShell:1"), c.req("QEnvironmentHexEncoded:" + hx("ZMARK=hello")),
          c.req("QSetWorkingDir:" + hx(tmp))], ["OK"] * 3,
         "QStartupWithShell, QEnvironmentHexEncoded, QSetWorkingDir: OK")
    r = vrun(c, "/nonexistent/prog")
    t.ok(r.startswith("E02") and "cannot run /nonexistent/prog: No such file" in r,
         "a program that does not exist: one E02 error saying why", r)
    r = vrun(c, "sh", "-c", "echo mark=$ZMARK cwd=$(pwd)")
    t.ok(r.startswith("E02") and "before it created a Level Zero module" in r,
         "a program that ends before its first module: an error saying so", r)
    t.ok("mark=hello cwd=%s" % tmp in srv.text(),
         "the environment and directory the client set reach the program, whose output is "
         "zestub's", srv.text())
    t.eq(c.req("QEnvironmentUnset:" + hx("ZMARK")), "OK", "QEnvironmentUnset")
    r = c.req("vRun;", timeout=90)
    t.ok(r.startswith("E02") and srv.text().count("cwd=%s" % tmp) == 2 and
         "mark= cwd=" in srv.text(), "an empty vRun runs the last program again, unset ZMARK",
         srv.text())
    t.eq([c.req("QEnvironmentReset"), c.req("QSetWorkingDir:")], ["OK"] * 2,
         "QEnvironmentReset, QSetWorkingDir: (back to the server's)")
    t.ok(c.req("QSetWorkingDir:6") == "E01" and c.req("QEnvironmentHexEncoded:" + hx("NOEQ")) ==
         "E01", "malformed: odd hex, a set without '=' -> E01")

    # Intel's GDB reads the new thread's PC before it resumes anything:
    # vRun answers with the first thread at a kernel's first instruction,
    # the program's modules acknowledged by the server on the way.
    stop = vrun(c, vadd)
    m = re.match(r"T05.*thread:p1\.([0-9a-f]+);", stop)
    t.ok(m is not None, "vRun vadd: a thread's stop answers it", stop)
    t.eq(c.req("qAttached"), "0", "qAttached: 0, the program is GDB's to kill")
    libs = c.xfer("libraries", "")[0].decode()
    lm = re.search(r'begin="0x([0-9a-f]+)" end="0x([0-9a-f]+)"(?! ack)', libs)
    t.ok(lm is not None, "the module is listed, already acknowledged", libs)
    entries = bp_util.kernel_entries(bp_util.module_elf(c, int(lm.group(1), 16),
                                                        int(lm.group(2), 16))) if lm else []
    pc = bp_util.pc_of(c, bp_util.regnums(c), int(m.group(1), 16)) if m else None
    t.ok(pc is not None and pc in entries,
         "the thread is at a kernel's first instruction (%s in %s, from the module's ELF)"
         % (pc and hex(pc), [hex(e) for e in entries]))
    insn = bytes.fromhex(c.req("m%x,10" % entries[0])) if entries else b""
    bit = (insn[0] & 0x80) if insn and insn[3] & 0x20 else (insn[3] & 0x40 if insn else 1)
    t.ok(insn and not bit, "the server's entry breakpoint is gone before the reply", insn.hex())
    seen = continue_to_exit(c)
    t.ok(seen and seen[-1] == "W00;process:1" and all(r == "Up1.0;library" for r in seen[:-1]),
         "continued: the module's unload and the exit, no thread held at an entry reported",
         seen)
    t.ok("vadd: PASSED" in srv.text() and "acknowledged by the server" in srv.text(),
         "the program ran its kernel to the end; the log says who acknowledged its module",
         srv.text())
    t.eq(c.req("?"), "W00", "nothing attached any more")

    stop = vrun(c, vadd)
    pid = srv.pids()[-1] if srv.pids() else 0
    t.ok(stop[:1] in "TU" and alive(pid), "vRun again: attached, the program runs", stop)
    t.eq(c.req("vKill;1"), "OK", "vKill of the run program")
    end = time.time() + 10
    while alive(pid) and time.time() < end:
        time.sleep(0.05)
    t.ok(not alive(pid), "the program is killed and reaped")
    t.eq(c.req("?"), "W00", "after vKill nothing is attached")
    stop = vrun(c, vadd)
    pid = srv.pids()[-1] if srv.pids() else 0
    os.kill(pid, signal.SIGTERM)
    seen = continue_to_exit(c)
    t.ok(stop[:1] in "TU" and seen and seen[-1] == "X0f;process:1",
         "a run program killed by SIGTERM: X0f", seen)
    t.eq(c.req("qRcmd," + hx("exit")), "OK", "monitor exit")
    t.eq(h.wait_exit(srv.proc, 30), 0, "zestub exits 0")

with h.guarded(t, "vRun, a client without Intel's extensions"):
    srv = Server()
    c = srv.client
    c.req(STOCK)
    c.req("!")
    r = vrun(c, os.path.join(tmp, "missing"))
    t.ok(r.startswith("E.cannot run ") and "No such file" in r,
         "a bad program path: E.message for a client without Intel's extensions", r)
    stop = vrun(c, vadd)
    pid = srv.pids()[-1] if srv.pids() else 0
    t.ok(stop.startswith("T05") and "thread:p%x." % pid in stop,
         "the server keeps serving; vRun answers a plain stop under the host pid", stop)
    t.eq(c.req("qAttached:%x" % pid), "0", "qAttached:PID: 0")
    t.eq(c.req("P39=ffffffffffffffff"), "OK",
         "x86-64 GDB's orig_rax write (run sets the PC) changes nothing and is accepted")
    seen = continue_to_exit(c)
    t.ok(seen and seen[-1] == "W00;process:%x" % pid,
         "continue to the end: W00 for the host pid", seen)
    t.ok("vadd: PASSED" in srv.text(), "the program finished", srv.text())
    c.req("qRcmd," + hx("exit"))
    t.eq(h.wait_exit(srv.proc, 30), 0, "zestub exits 0")
with h.guarded(t, "vRun over stdio"):
    err = tempfile.TemporaryFile()
    p = subprocess.Popen([zestub, "--once", "--multi", "-"], env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=err, bufsize=0)
    h._procs.append(p)
    c = h.Client(p.stdout.fileno(), p.stdin.fileno(), timeout=90)
    c.req(STOCK)
    c.req("!")
    t.ok(vrun(c, vadd).startswith("T05") and continue_to_exit(c)[-1].startswith("W"),
         "over stdio: vRun, then the exit, the protocol stream untouched by the program")
    c.req("qRcmd," + hx("exit"))
    h.wait_exit(p, 30)
    err.seek(0)
    t.ok("vadd: PASSED" in err.read().decode(errors="replace"),
         "over stdio the program's stdout goes to zestub's stderr")
h.cleanup()
sys.exit(t.done())
