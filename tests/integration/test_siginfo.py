#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""qXfer:siginfo:read (issue 21): `p $_siginfo` works live. examples/
pagefault launches a kernel on a freed pointer; the application prints
that pointer, so the expected fault address comes from the application,
not from zestub. Over raw RSP: qSupported offers qXfer:siginfo:read+, the
faulting thread's siginfo says SIGSEGV (11), SEGV_MAPERR (1) and the fault
address in si_addr (byte 16); an annex, or no thread to ask (after the
detach), gets an error. With stock GDB: `p $_siginfo` at the fault prints
the signal and the address. A stop and its siginfo agree (issue 35): the
attach's stop (T05) says SIGTRAP, the client's interrupt (T02) SIGINT
with si_code SI_USER, a breakpoint (T05swbreak) SIGTRAP with TRAP_BRKPT."""
import time
import os
import re
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402
from bp_util import with_breakpoint_bit  # noqa: E402

t = h.Tap(14)  # the plan: every check this test makes
env = h.small_device(200)


def pagefault_app():
    """pagefault with a pause (a debugger attaches), then the freed
    pointer it launches the kernel on."""
    app, first = h.start_app(env, name="pagefault", args=["5"])
    return app, first


def freed_pointer(app):
    line = ""
    while line is not None and "launching oob(" not in line:
        line = app.stdout.readline().decode(errors="replace") or None
    m = re.search(r"p=(0x[0-9a-f]+)", line or "")
    return int(m.group(1), 16) if m else None


def decode(si):
    signo, errno_, code = struct.unpack_from("<iii", si, 0)
    (addr,) = struct.unpack_from("<Q", si, 16)
    return signo, errno_, code, addr


with h.guarded(t, "raw RSP"):
    app, _ = pagefault_app()
    srv = h.Stdio(env, timeout=30.0)
    feats, stop = srv.attach(app.pid, h.INTEL)
    c = srv.c
    t.ok("qXfer:siginfo:read+" in feats, "qSupported offers qXfer:siginfo:read+", feats)
    p = freed_pointer(app)
    r = c.req("vCont;c", timeout=60)
    m = re.match(r"T0b.*thread:p1\.([0-9a-f]+);", r)
    t.ok(m is not None and p is not None, "the page fault stops with SIGSEGV", (r[:60], p))
    tid = int(m.group(1), 16) if m else 1
    c.req("Hgp1.%x" % tid)
    si, _ = c.xfer("siginfo", "")
    signo, errno_, code, addr = decode(si) if len(si) >= 24 else (0, 0, 0, 0)
    t.eq(len(si), 128, "the siginfo is 128 bytes")
    t.eq((signo, errno_, code), (11, 0, 1), "SIGSEGV, errno 0, SEGV_MAPERR")
    t.ok(p is not None and p <= addr < p + 4096,
         "si_addr (0x%x) is in the freed buffer the application named (%s)"
         % (addr, hex(p) if p else None))
    r = c.req("qXfer:siginfo:read:x:0,80")
    t.ok(r.startswith("E"), "an annex is refused", r)
    c.req("D;1")
    t.ok(c.req("qXfer:siginfo:read::0,80").startswith("E"), "after the detach: an error, "
         "no thread to ask")
    t.eq(srv.close(), 0, "zestub exits 0")


def stop_signal(r):
    m = re.match(r"T([0-9a-f]{2})", r)
    return int(m.group(1), 16) if m else None


def siginfo_of(c, r):
    """(si_signo, si_code) of the thread the stop reply r names."""
    m = re.search(r"thread:(p[0-9a-f]+\.[0-9a-f]+);", r)
    c.req("Hg" + (m.group(1) if m else "p1.1"))
    si, _ = c.xfer("siginfo", "")
    signo, _, code, _ = decode(si) if len(si) >= 24 else (0, 0, 0, 0)
    return signo, code


with h.guarded(t, "the stop and its siginfo agree"):
    paced = h.small_device(5)  # vadd's kernel runs for seconds
    app, _ = h.start_app(paced, args=["--print-buffers"], running="buffers:")
    srv = h.Stdio(paced, timeout=30.0)
    _, stop = srv.attach(app.pid, h.INTEL)
    c = srv.c
    t.eq((stop_signal(stop), siginfo_of(c, stop)[0]), (5, 5),
         "the attach's stop: T05 and si_signo 5")
    c.send("vCont;c")
    time.sleep(0.4)
    c.interrupt()
    r = c.recv(timeout=60).decode("latin-1")
    t.eq(stop_signal(r), 2, "the client's interrupt stops with SIGINT (T02)")
    t.eq(siginfo_of(c, r), (2, 0), "its siginfo: si_signo 2 (SIGINT), si_code 0 (SI_USER)")
    # A breakpoint bit two instructions ahead of the interrupted thread.
    regs = c.xfer("features", "target.xml")[0].decode()
    rn = {m.group(1): int(m.group(2)) for m in
          re.finditer(r'<reg name="([^"]+)"[^>]*regnum="(\d+)"', regs)}
    cr0 = bytes.fromhex(c.req("p%x" % rn["cr0"]))
    pc = (int.from_bytes(bytes.fromhex(c.req("p%x" % rn["isabase"])), "little") +
          int.from_bytes(cr0[8:12], "little"))
    for _ in range(2):
        pc += 8 if bytes.fromhex(c.req("m%x,10" % pc))[3] & 0x20 else 16
    orig = c.req("m%x,10" % pc)
    c.req("M%x,10:%s" % (pc, with_breakpoint_bit(bytes.fromhex(orig)).hex()))
    r = c.req("vCont;c", timeout=60)
    t.ok(r.startswith("T05swbreak:"), "a thread stops at the breakpoint", r[:40])
    t.eq(siginfo_of(c, r), (5, 1), "its siginfo: si_signo 5 (SIGTRAP), si_code 1 (TRAP_BRKPT)")
    c.req("M%x,10:%s" % (pc, orig))  # no thread stops on it after the detach
    c.req("D;1")
    srv.close()

gdb = h.find_gdb()
with h.guarded(t, "stock GDB"):
    if not gdb:
        t.skip("stock GDB: p $_siginfo shows SIGSEGV and the address", "gdb is not installed")
    else:
        app, _ = pagefault_app()
        srv = h.Zestub(env, "--attach", str(app.pid))
        rc, out = h.gdb_batch(gdb, ["target remote :%d" % srv.port, "continue",
                                    "p $_siginfo.si_signo", "p/x $_siginfo._sifields._sigfault.si_addr",
                                    "detach"])
        p = freed_pointer(app)
        m = re.search(r"\$2 = \(void \*\) (0x[0-9a-f]+)|\$2 = (0x[0-9a-f]+)", out)
        addr = int(m.group(1) or m.group(2), 16) if m else None
        t.ok("$1 = 11" in out and addr is not None and p is not None and p <= addr < p + 4096,
             "stock GDB: p $_siginfo shows SIGSEGV and the address in the freed buffer", out)
sys.exit(t.done())
