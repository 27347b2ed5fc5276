#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Malformed packets and the error replies of every packet family, against
the mock target, as a stock GDB (no Intel GT extensions) sends them: the
RSP answers a request it cannot parse or carry out with an error (E01 for
malformed arguments, E.<text> where the reason helps the user), never a
crash, a hang or a wrong success. Also the paths that only such a client
reaches: Z0 breakpoints kept across many addresses, two devices, a detach
and a library load; a failed vAttach as E.<text>; the device process a
stock client knows by the host pid (the alias); QNonStop refused by a
target without non-stop mode."""
import os
import sys

sys.dont_write_bytecode = True  # the source tree may be read-only (distcheck)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mock_server import Server  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap(87)  # the plan: every check this test makes
STOCK = "qSupported:multiprocess+;swbreak+;xmlRegisters=i386"
NATIVE = "00" * 16  # a native instruction: bit 29 (compaction) clear


def check_clean(srv):
    srv.proc.terminate()
    t.eq(srv.wait(), 0, "SIGTERM ends the server cleanly")
    clean, err = srv.sanitizer_clean()
    t.ok(clean, "no sanitizer report", err)
    srv.stop()


def bp_bit(hexword):
    """Bit 30 of the first dword of an instruction (little-endian hex)."""
    return (int.from_bytes(bytes.fromhex(hexword[:8]), "little") >> 30) & 1


srv = Server("--attach", "0x1234", comm=":0")
c = srv.connect()
c.req(STOCK)
t.eq(c.req("Hgp1.1"), "OK", "Hg p1.1")

# Z0 / z0 that cannot be parsed; other breakpoint kinds are not offered.
for bad in ("Z0", "Z0;1", "Z0,zz,1", "Z0,10000;1", "Z0,10000,zz", "Z0,10000,1;X1,2", "z0",
            "z0,zz"):
    t.eq(c.req(bad), "E01", "malformed breakpoint packet %s -> E01" % bad)
t.eq(c.req("Zx"), "", "Z with an unknown type -> empty (not supported)")

# More breakpoints than the table's first allocation (16): each one sets
# its instruction's bit, each z0 clears it again.
BASE, N = 0x10100, 20
c.req("M%x,%x:%s" % (BASE, 16 * N, NATIVE * N))
replies = [c.req("Z0,%x,1" % (BASE + 16 * i)) for i in range(N)]
t.eq(replies, ["OK"] * N, "%d Z0 breakpoints planted" % N)
mem = c.req("m%x,%x" % (BASE, 16 * N))
t.eq([bp_bit(mem[32 * i:]) for i in range(N)], [1] * N, "each instruction has bit 30 set")
replies = [c.req("z0,%x,1" % (BASE + 16 * i)) for i in range(N)]
t.eq(replies, ["OK"] * N, "%d z0 removals" % N)
t.eq(c.req("m%x,%x" % (BASE, 16 * N)), NATIVE * N, "every instruction is restored")

# A breakpoint on each device; a library load of device 1 (acknowledged at
# once for this client) plants device 1's again where it is still set.
c.req("M10000,10:" + NATIVE)
t.eq(c.req("Z0,10000,1"), "OK", "Z0 on device 1")
t.eq(c.req("Hgp2.1"), "OK", "Hg p2.1")
c.req("M10000,10:" + NATIVE)
t.eq(c.req("Z0,10000,1"), "OK", "Z0 on device 2")
c.monitor("mock next library 1")
c.send("vCont;c")
t.eq(c.pending(0.3), b"", "a library load is not reported to a client without vAck")
c.interrupt()
t.ok(c.recv().startswith(b"T05"), "^C stops")
t.eq(c.req("Hgp1.1"), "OK", "Hg p1.1 after the load")
t.eq(bp_bit(c.req("m10000,4")), 1, "device 1's breakpoint is still set after the load")
# Detaching device 1 removes its breakpoints only.
t.eq(c.req("D;1"), "OK", "D;1 with breakpoints on both devices")
t.eq(c.req("Hgp2.1"), "OK", "Hg p2.1 after D;1")
t.eq(bp_bit(c.req("m10000,4")), 1, "device 2's breakpoint stays after D;1")
t.eq(c.req("z0,10000,1"), "OK", "z0 on device 2")
t.eq(bp_bit(c.req("m10000,4")), 0, "device 2's instruction is restored")

# Queries and thread ids that name nothing.
for bad in ("qAttached:zz", "qAttached:99", "QThreadEvents:2", "Hgp-2.1", "Hgp1.-2", "Tp-1.-1",
            "Tp2.-1", "Tp-1"):
    t.eq(c.req(bad), "E01", "%s -> E01" % bad)
t.eq(c.req("QThreadEvents:1"), "OK", "QThreadEvents:1 -> OK")
t.eq(c.req("Hg0"), "OK", "Hg0 (any thread)")
t.eq(c.req("qC"), "QCp2.1", "Hg0 resolves to the thread of the last stop's device")

# Memory arguments that cannot be parsed.
for bad in ("m10000@zz,4", "m10000@100000000,4", "m10000@1;4", "X10000,1;a", "M10000,2:zzzz",
            "M10000,2"):
    t.eq(c.req(bad), "E01", "%s -> E01" % bad)

# The host view a stock x86-64 GDB gets: its write of orig_rax (register
# 0x39 of amd64-linux) changes nothing and succeeds, so `run` goes on.
g = c.req("g")
t.eq(c.req("P39=" + "ff" * 8), "OK", "P of orig_rax -> OK")
t.eq(c.req("g"), g, "... and changes no register")

# Run control with an address or a bad process.
for bad in ("c10000", "s10000", "C05;10000", "S05;10000", "D;0", "D;zz", "D;100000000", "D;5"):
    t.eq(c.req(bad), "E01", "%s -> E01" % bad)
t.eq(c.req("vCtrlC"), "OK", "vCtrlC while stopped (all-stop) -> OK")
t.ok(c.req("?").startswith("T05"), "still stopped after vCtrlC")

# qXfer requests that cannot be parsed.
for bad in ("qXfer:features:read:target.xml", "qXfer:features:read:target.xml:zz,10",
            "qXfer:features:read:target.xml:0;10", "qXfer:features:read:target.xml:0,10x",
            "qXfer:features:read:%s:0,10" % ("a" * 200), "qXfer:threads:read:foo:0,10"):
    t.eq(c.req(bad), "E01", "%s -> E01" % bad[:60])

# qRcmd whose argument is not hex text.
for bad in ("qRcmd,6", "qRcmd,6800", "qRcmd,zz"):
    t.eq(c.req(bad), "E01", "%s -> E01" % bad)
r, out = c.monitor("   help")
t.ok(r == "OK" and "help -- show this text" in out, "monitor with leading spaces finds help", out)
c.close()
check_clean(srv)

# vAttach from a stock client: failures as E.<text> (GDB 13 takes anything
# else for success), the device process named by the host pid.
missing = 0x7FFFFFF0
while os.path.exists("/proc/%d" % missing):
    missing -= 1
srv = Server("--multi", comm=":0")
c = srv.connect()
c.req(STOCK)
t.eq(c.req("!"), "OK", "extended mode")
r = c.req("vAttach;1")
t.ok(r.startswith("E.") and r.count("attempting to attach too early") == 2,
     "vAttach too early on both devices -> E.<text> naming each", r)
r = c.req("vAttach;2")
t.ok(r.startswith("E.") and "attaching is not permitted" in r, "vAttach not permitted -> E.<text>",
     r)
r = c.req("vAttach;3")
t.ok(r.startswith("E.") and r.endswith("\nattempting to attach too early"),
     "too early without the phrase: the server adds it", r)
t.eq(c.req("vAttach;0"), "E01", "vAttach;0 -> E01")
t.eq(c.req("vAttach;99"), "T05thread:p99.1;", "vAttach;99: the stop names the host pid (0x99)")
t.eq(c.req("qAttached:99"), "1", "qAttached of the host pid")
t.eq(c.req("Hgp99.1"), "OK", "Hg p99.1")
t.eq(c.req("Hgp2.1"), "E01", "the device process behind the alias has no other name")
t.eq(c.req("vAttach;99"), "E.Already attached to process 153.", "attaching the same process again")
r = c.req("vAttach;%x" % os.getpid())
t.ok(r.startswith("E.Already attached to process 153: one process is debugged at a time"),
     "attaching another live process", r)
r = c.req("vAttach;%x" % missing)
t.eq(r, "E.Already attached to process 153; process %d does not exist." % missing,
     "attaching a process that does not exist")
t.eq(c.req("D;99"), "OK", "D;99 detaches the device process behind the alias")
t.ok("p99." not in c.req("qfThreadInfo"), "p99 is gone from the thread list")
c.close()
check_clean(srv)

# The mock has no non-stop mode: QNonStop:1 is refused and all-stop stays.
srv = Server("--multi", comm=":0")
c = srv.connect()
c.req(STOCK)
c.req("!")
t.eq(c.req("QNonStop:1"), "E01", "QNonStop:1 to a target without non-stop -> E01")
t.ok(c.req("vAttach;1234").startswith("T05"), "vAttach still answers with the stop (all-stop)")
c.close()
check_clean(srv)
sys.exit(t.done())
