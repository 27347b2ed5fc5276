#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 35, wrong answers, over raw RSP (the siginfo part is in
test_siginfo.py):
- launch mode (`zestub 127.0.0.1:0 -- PROGRAM`): the device exit carries
  the program's real end: W with its exit status (0 for vadd, 3 for
  sycl_hang giving up), X with the signal that killed it (SIGTERM: X0f);
  it was always W1;
- Z0 in the middle of an instruction: an error reply, and a warning at the
  default log level naming the instruction that is there and its length
  (a client shows only "Cannot access memory"); the same for a breakpoint
  planted by an M write of the instruction's bytes, as Intel's GDB plants;
- unpaced gtsim, a thread stepped to the end of its kernel and the program
  left to end: every register or memory read the client makes meanwhile
  is data, unavailable (x...), or an error that names the exit, never a
  driver's failure; the run ends with the exit."""
import os
import re
import signal
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402
from bp_util import line_rows, load_module, with_breakpoint_bit  # noqa: E402

t = h.Tap(17)  # the plan: every check this test makes
ex = os.path.join(h.top, "examples")
STOCK = "qSupported:multiprocess+;swbreak+;vContSupported+;xmlRegisters=i386"


def launched(env, prog):
    """zestub 127.0.0.1:0 -- PROG (launch mode, one client) and its client."""
    env = dict(env)
    env.pop("ZET_ENABLE_PROGRAM_DEBUGGING", None)  # zestub sets it itself
    z = h.Zestub(env, "--", *prog, comm="127.0.0.1:0")
    c = z.client()
    c.req(h.INTEL)
    c.req("?")
    return z, c


def run_to_end(c, on_running=None):
    """Continues, acknowledging module loads, until W or X; that reply.
    on_running is called once the first kernel's module is acknowledged
    and the program was resumed."""
    for _ in range(20):
        c.send("vCont;c")
        if on_running and on_running.get("acked"):
            on_running.pop("acked")(on_running)
        r = c.recv(timeout=60).decode()
        if r[:1] in "WX":
            return r
        if r == "Up1.0;library":
            xml = c.xfer("libraries", "")[0].decode()
            m = re.search(r'begin="0x([0-9a-f]+)" end="0x([0-9a-f]+)" ack="yes"', xml)
            if m:
                c.req("vAck:in-memory-library:0x%s,0x%s" % (m.group(1), m.group(2)))
                if on_running is not None and "fn" in on_running:
                    on_running["acked"] = on_running.pop("fn")
    return None


def code_of(reply, letter):
    m = re.match(letter + r"([0-9a-f]+);process:", reply or "")
    return int(m.group(1), 16) if m else None


# ---- 1. launch mode: the exit status -----------------------------------------
with h.guarded(t, "launch mode, vadd exits 0"):
    z, c = launched(h.small_device(200), [os.path.join(ex, "vadd")])
    r = run_to_end(c)
    t.eq(code_of(r, "W"), 0, "vadd: the exit is W with status 0 (%s)" % r)
    c.close()
    t.eq(z.wait(30), 0, "zestub exits with the program's status, 0")

hang = h.gtsim_env("platform=xehpc,subslices=2,eus=2,threads=4,barrier_skip=1")
with h.guarded(t, "launch mode, sycl_hang gives up with status 3"):
    z, c = launched(hang, [os.path.join(ex, "sycl_hang"), "--give-up", "2"])
    r = run_to_end(c)
    t.eq(code_of(r, "W"), 3, "sycl_hang --give-up: the exit is W with status 3 (%s)" % r)
    c.close()
    t.eq(z.wait(30), 3, "zestub exits with the program's status, 3")

with h.guarded(t, "launch mode, the program is killed by SIGTERM"):
    z, c = launched(hang, [os.path.join(ex, "sycl_hang")])
    pid = int(re.search(r"created; pid = (\d+)", z.stderr()).group(1))

    def kill(_):
        time.sleep(0.5)
        os.kill(pid, signal.SIGTERM)

    r = run_to_end(c, {"fn": kill})
    t.eq(code_of(r, "X"), 15, "a signal death is X with the signal, SIGTERM (%s)" % r)
    c.close()
    t.eq(z.wait(30), 128 + 15, "zestub exits as the shell would, 143")

# ---- 3. Z0 in the middle of an instruction -----------------------------------
with h.guarded(t, "Z0 in the middle of an instruction"):
    env = h.small_device(5)
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    srv = h.Stdio(env, timeout=30.0, keep_stderr=True)  # default log level
    srv.c.req(STOCK + ";error-message+")  # errors carry their text
    stop = srv.c.req("vAttach;%x" % app.pid, timeout=60)
    m = re.search(r"thread:p([0-9a-f]+)\.([0-9a-f]+);", stop)
    c = srv.c
    c.req("Hgp%s.%s" % (m.group(1), m.group(2)))
    pc = int.from_bytes(bytes.fromhex(c.req("p10")), "little")
    ins = bytes.fromhex(c.req("m%x,10" % pc))
    size = 8 if ins[3] & 0x20 else 16
    mid = c.req("Z0,%x,1" % (pc + 4))
    t.ok(mid.startswith("E.") and "not an instruction start" in mid,
         "Z0 at PC+4 is refused with an error that says why", mid)
    log = srv.stderr()
    want = ("0x%x is not an instruction start: the instruction there begins at 0x%x, %d bytes "
            "long" % (pc + 4, pc, size))
    t.ok("warning" in log and want in log,
         "the server warns why at the default log level: '%s'" % want, log[-800:])
    t.eq(c.req("Z0,%x,1" % pc), "OK", "Z0 at the instruction's start is planted")
    t.ok("not an instruction start" not in srv.stderr()[len(log):],
         "and nothing more is warned")
    c.req("z0,%x,1" % pc)
    # Intel's GDB plants by writing the instruction's bytes (M/X): the
    # same refusal and warning for a plant in the middle of one.
    before = c.req("m%x,10" % (pc + 4))
    planted = with_breakpoint_bit(bytes.fromhex(before))
    seen = len(srv.stderr())
    r = c.req("M%x,10:%s" % (pc + 4, planted.hex()))
    t.ok(r.startswith("E.") and "not an instruction start" in r,
         "an M plant at PC+4 is refused with an error that says why", r)
    t.eq(c.req("m%x,10" % (pc + 4)), before, "the refused M changed no code")
    t.ok(want in srv.stderr()[seen:], "and the server warns why", srv.stderr()[seen:][-400:])
    insn = c.req("m%x,10" % pc)
    t.eq(c.req("M%x,10:%s" % (pc, with_breakpoint_bit(bytes.fromhex(insn)).hex())), "OK",
         "an M plant at the instruction's start is written")
    c.req("M%x,10:%s" % (pc, insn))
    c.req("D;%s" % m.group(1))
    t.eq(srv.close(), 0, "zestub exits 0")

# ---- 4. unpaced: `next` past the kernel's end, the program ends ----------------
with h.guarded(t, "unpaced: range steps to the kernel's end, then the program ends"):
    env = h.gtsim_env("platform=xehpc,subslices=2,eus=2,threads=4,pace=0")
    # One work-group of 32 items: one hardware thread, whose end lets the
    # program go on to its exit at once.
    app, _ = h.start_app(env, args=["--wait-before-load", "--items", "32"], stdin=True)
    srv = h.Stdio(env, timeout=30.0)
    c = srv.c
    srv.attach(app.pid, h.INTEL + ";error-message+")
    mod = load_module(app, c)
    rows, _ = line_rows(c, *mod) if mod else ([], 0)
    lines = sorted({a for a, _ in rows})
    bp = lines[-2]  # the kernel's last line but one: a `next` or two from its end
    insn = bytes.fromhex(c.req("m%x,10" % bp))
    c.req("M%x,10:%s" % (bp, with_breakpoint_bit(insn).hex()))
    c.req("vAck:in-memory-library:0x%x,0x%x" % mod)
    r = c.req("vCont;c", timeout=60)
    tid = int(re.search(r"thread:p1\.([0-9a-f]+);", r).group(1), 16)
    c.req("M%x,10:%s" % (bp, insn.hex()))  # GDB removes it before stepping
    bad, replies, cur = [], [], bp
    for _ in range(20):
        # GDB's `next`: a range step of the line, the other threads continue.
        nxt = min([a for a in lines if a > cur] or [1 << 63])
        c.req("Hgp1.%x" % tid)
        r = c.req("vCont;r%x,%x:p1.%x;c" % (cur, nxt, tid), timeout=60)
        replies.append(r[:30])
        # What GDB reads after each stop: the thread's registers, its PC.
        for q in ("g", "p0", "m%x,8" % bp):
            a = c.req(q)
            if a.startswith("E") and "exited" not in a:
                bad.append((q, a))
        if r[:1] in "WXE":
            break
        if r.startswith("U"):
            time.sleep(0.3)  # the program ends meanwhile
            for q in ("g", "p0"):
                a = c.req(q)
                if a.startswith("E") and "exited" not in a:
                    bad.append((q, a))
            # The module's unload is told before the exit (a library
            # change, U...;library): GDB reads the list and continues.
            for _ in range(5):
                replies.append(c.req("vCont;c", timeout=60)[:30])
                if not replies[-1].endswith(";library"):
                    break
            break
        cur = nxt
    t.ok(replies and replies[-1][:1] in "WX",
         "the step past the end (U), then the program's exit", replies[-6:])
    t.eq(bad, [], "no read answered with anything but data, x... or an error naming the exit")
    srv.close()
sys.exit(t.done())
