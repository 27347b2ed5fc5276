#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Registers (g G p P e) and memory (m M x X, @space, tagged addresses,
thread context) against the mock target."""
import os
import sys

sys.dont_write_bytecode = True  # the source tree may be read-only (distcheck)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mock_server import Server  # noqa: E402
from rspclient import escape, RSPError  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap(112)  # the plan: every check this test makes
srv = Server("--attach", "0x1234", comm=":0")
c = srv.connect()
c.req("qSupported:swbreak+;multi-address-space+")

# device 1 (tdesc 1): GRF 128x32B, ce 4, sr0 16, cr0 16, SBA 9x8, dbg0 8
SIZES1 = [32] * 128 + [4, 16, 16] + [8] * 9 + [8]
SIZES2 = [64] * 256 + [32] + [4] * 4 + [4, 16, 16, 16] + [64] * 4 + [64] * 8 + [16] + [8] * 9 + [8]

t.eq(c.req("Hgp1.1"), "OK", "Hg p1.1")
g = c.req("g")
t.eq(len(g), 2 * sum(SIZES1), "g length for tdesc 1")
t.ok(g == g.lower() and all(ch in "0123456789abcdef" for ch in g), "g is lowercase hex")
t.eq(c.req("p0"), g[:64], "p0 = first 32 bytes of g")
t.eq(c.req("p80"), g[256 * 32:256 * 32 + 8], "p80 (ce) agrees with g")
t.eq(c.req("p8c"), g[-16:], "p8c (dbg0, the last register) agrees with g")
for bad in ("p8d", "pfff", "p", "pzz", "p1x"):
    t.eq(c.req(bad), "E01", "bad register %s -> E01" % bad)

# writes
t.eq(c.req("P1=" + "ab" * 32), "OK", "P1 writes r1")
t.eq(c.req("p1"), "ab" * 32, "r1 reads back")
t.eq(c.req("P80=01020304"), "E01", "P to read-only ce -> E01")
t.eq(c.req("P1=abab"), "E01", "P with the wrong size -> E01")
t.eq(c.req("P8d=00"), "E01", "P to a bad register -> E01")
t.eq(c.req("P1" + "ab" * 32), "E01", "P without '=' -> E01")
g = c.req("g")
g2 = g[:64] + "cd" * 32 + g[128:]
t.eq(c.req("G" + g2), "OK", "G with read-only registers unchanged")
t.eq(c.req("p1"), "cd" * 32, "G wrote r1")
ce = 2 * 32 * 128
g3 = g2[:ce] + "ffffffff" + g2[ce + 8:]
t.eq(c.req("G" + g3), "E01", "G changing read-only ce -> E01")
t.eq(c.req("G" + g2[:-2]), "E01", "G with the wrong length -> E01")
t.eq(c.req("G" + "zz" + g2[2:]), "E01", "G with bad hex -> E01")

# expedited
e = c.req("e")
fields = dict(f.split(":") for f in e.rstrip(";").split(";"))
t.eq(sorted(int(k, 16) for k in fields), [0, 127, 128, 129, 130, 131, 135],
     "e lists r0 r127 ce sr0 cr0 genstbase isabase")
t.eq(fields["00"], c.req("p0"), "e value of r0 matches p0")
t.ok(all(len(k) >= 2 for k in fields), "regnums in e have two digits at least")

# unavailable thread p1.3
t.eq(c.req("Hgp1.3"), "OK", "Hg p1.3 (unavailable)")
t.eq(c.req("g"), "x" * (2 * sum(SIZES1)), "g of an unavailable thread is all x")
t.eq(c.req("p0"), "x" * 64, "p0 of an unavailable thread is x")
t.ok(c.req("e").startswith("00:" + "x" * 64 + ";"), "e of an unavailable thread is x")
t.eq(c.req("P1=" + "00" * 32), "E01", "P to an unavailable thread -> E01")

# big register file
t.eq(c.req("Hgp2.2"), "OK", "Hg p2.2")
g = c.req("g")
t.eq(len(g), 2 * sum(SIZES2), "g of a 256 x 512-bit GRF thread (%d hex digits)" % len(g))
t.ok(len(g) < 0x10000, "it fits in PacketSize")
t.eq(c.req("G" + g), "OK", "G of the whole PVC file")

# ---- memory ----
t.eq(c.req("Hgp1.1"), "OK", "Hg p1.1")
t.eq(c.req("m10000,8"), bytes(i ^ 1 for i in range(8)).hex(), "m default space")
t.eq(c.req("M10010,4:deadbeef"), "OK", "M")
t.eq(c.req("m10010,4"), "deadbeef", "M read back")
t.eq(c.request("x10010,4"), b"b\xde\xad\xbe\xef", "x binary read")
t.eq(c.req("X10010,2:\x01\x02"), "OK", "X binary write")
t.eq(c.req("m10010,4"), "0102beef", "X read back")
# Every byte value through X, escaped as GDB escapes (# $ } * only: a raw
# '%' is data), read back with m; then GDB's own `set {int}A=0x25252525`.
every = bytes(range(256))
try:
    t.eq(c.request(b"X10100,100:" + escape(every), timeout=3), b"OK",
         "X with every byte value 0..255")
    t.eq(c.req("m10100,100"), every.hex(), "m reads every byte value back")
    t.eq(c.request(b"X10200,4:%%%%", timeout=3), b"OK", "X10200,4:%%%% (GDB's 0x25252525)")
    t.eq(c.req("m10200,4"), "25252525", "0x25252525 reads back")
except (TimeoutError, RSPError) as e:
    t.ok(False, "X with raw '%' bytes is answered", repr(e))
    c.close()
    c = srv.connect()
    c.req("qSupported:swbreak+;multi-address-space+")
    c.req("Hgp1.1")
r = c.req("m1fffe,10")
t.eq(len(r), 4, "read crossing the end is short (2 bytes)")
for bad in ("m0,4", "m30000,4", "m,4", "m10000", "m10000,", "mzz,4", "m10000@,4",
            "m10000,4x", "M30000,1:00", "M10000,2:00", "M10000,1:zz", "M10000,1",
            "x0,4", "X30000,1:a", "X10000,2:a", "m10000@5,4"):
    t.eq(c.req(bad), "E01", "bad memory packet %s -> E01" % bad)
t.eq(c.req("X0,0:"), "OK", "zero-length X probe -> OK")
t.eq(c.req("x10000,0"), "b", "zero-length x -> b")
big = c.req("m10000,10000")
t.ok(0 < len(big) <= 0x10000, "long m is capped to fit PacketSize (%d)" % len(big))
_, out = c.monitor("mock lastmem")
t.eq(out.strip(), "pid=1 tid=1 space=0 addr=0x10000", "stopped Hg thread is the context")

# SLM (@1) and tagged addresses
t.eq(c.req("m10@1,4"), "a1a1a1a1", "m @1 reads SLM of device 1")
t.eq(c.req("M10@1,1:55"), "OK", "M @1")
t.eq(c.request("x10@1,2"), b"b\x55\xa1", "x @1")
t.eq(c.req("X11@1,1:\x66"), "OK", "X @1")
t.eq(c.req("m10@1,2"), "5566", "X @1 read back")
t.eq(c.req("m4000000000000010,2"), "5566", "tag 010 in bits 63..61 -> SLM")
_, out = c.monitor("mock lastmem")
t.eq(out.strip(), "pid=1 tid=1 space=1 addr=0x10", "tagged address decoded to SLM offset")
c.req("m0700000000010000,1")
_, out = c.monitor("mock lastmem")
t.eq(out.strip(), "pid=1 tid=1 space=0 addr=0xe700000000010000",
     "bits 58..56 copied into 63..61 (canonical form)")
t.eq(c.req("m2000@1,4"), "E01", "SLM out of range -> E01")

# context: a thread that is not stopped
t.eq(c.req("Hgp1.3"), "OK", "Hg p1.3 (unavailable)")
t.eq(c.req("m10000,2"), "0100", "default space through the device's all thread")
_, out = c.monitor("mock lastmem")
t.eq(out.strip(), "pid=1 tid=0 space=0 addr=0x10000", "context falls back to tid 0")
t.eq(c.req("m10@1,4"), "E01", "SLM without a stopped thread -> E01")
t.eq(c.req("m4000000000000010,4"), "E01", "tagged SLM without a stopped thread -> E01")

# A client without Intel's extensions (stock GDB): the host-shaped view.
c.req("qSupported:multiprocess+;swbreak+;xmlRegisters=i386")
t.eq(c.req("Hgp1.1"), "OK", "stock: Hg p1.1")
x86 = c.xfer("features", "target.xml")[0]
t.ok(b"<architecture>i386:x86-64</architecture>" in x86 and b"<reg" not in x86,
     "stock x86 GDB: target.xml names x86-64 and no registers", x86)
pc = (0x800000 + 0x100).to_bytes(8, "little").hex()  # mock: isabase + IP of tid 1
t.eq(c.req("g"), "xx" * 128 + pc, "stock x86 GDB: g = rax..r15 unavailable, rip = device PC")
t.eq(c.req("p10"), pc, "stock x86 GDB: p10 (rip) = device PC")
t.eq(c.req("p0"), "xx", "stock x86 GDB: other registers unavailable")
t.eq(c.req("p11"), "xx", "stock x86 GDB: eflags unavailable")
t.ok(c.req("P10=" + "00" * 8).startswith("E."), "stock: register writes refused with E.text")
t.ok(c.req("G" + "00" * 136).startswith("E."), "stock: G refused with E.text")
t.eq(c.req("m10000,2"), "0100", "stock: memory reads work")
t.eq(c.req("Hgp1.3"), "OK", "stock: Hg p1.3 (unavailable)")
t.eq(c.req("p10"), "00" * 8, "stock: a thread that is not stopped shows PC 0 (GDB needs one)")
# Z0 in the server for such a client (Intel GT has a breakpoint bit, no
# breakpoint instruction: bit 30 of a native instruction, bit 7 of a
# compacted one).
t.ok(";Z0+" in ";" + c.req("qSupported:multiprocess+;swbreak+;xmlRegisters=i386"),
     "stock: qSupported says Z0+")
c.req("Hgp1.1")
c.req("M10000,10:" + "00" * 16)  # a native instruction (bit 29 clear)
c.req("M10010,8:" + "00000020" + "00" * 4)  # a compacted one (bit 29 set)
t.eq(c.req("Z0,10000,1"), "OK", "stock: Z0 on a native instruction")
t.eq(c.req("m10000,4"), "00000040", "stock: bit 30 set, nothing else")
t.eq(c.req("Z0,10010,1"), "OK", "stock: Z0 on a compacted instruction")
t.eq(c.req("m10010,4"), "80000020", "stock: bit 7 set, nothing else")
t.eq(c.req("Z0,10000,1"), "OK", "stock: Z0 twice is fine")
t.eq(c.req("z0,10000,1"), "OK", "stock: z0")
t.eq(c.req("m10000,4"), "00000000", "stock: z0 restores the instruction")
t.ok(c.req("Z0,10,1").startswith("E."), "stock: Z0 where there is no code -> E.text")
t.eq(c.req("Z0,10000"), "E01", "stock: malformed Z0 -> E01")
t.eq(c.req("Z1,10000,1"), "", "stock: hardware breakpoints are not offered")
c.req("M10020,10:" + "00000040" + "00" * 12)  # the bit already set by someone else
t.eq(c.req("Z0,10020,1"), "OK", "stock: Z0 where the bit is already set")
t.eq(c.req("z0,10020,1"), "OK", "stock: its z0")
t.eq(c.req("m10020,4"), "00000040", "stock: a bit the server did not set stays")
t.ok(";Z0-" in ";" + c.req("qSupported:multiprocess+;multi-address-space+"),
     "Intel's client: Z0- (it writes the bit itself)")
t.eq(c.req("Z0,10010,1"), "", "Intel's client: Z0 -> empty reply")
c.req("qSupported:multiprocess+")
t.eq(c.req("Hgp1.1"), "OK", "unknown host: Hg p1.1")
t.eq(c.req("g"), "xx" * 8, "unknown host family: g of 8 unavailable bytes")
t.eq(c.req("p10"), "xx", "unknown host family: p unavailable")
t.eq(c.req("qXfer:features:read:target.xml:0,100"), "E01",
     "unknown host family: no target description")

c.close()
srv.proc.terminate()
srv.wait()
clean, err = srv.sanitizer_clean()
t.ok(clean, "no sanitizer report", err)
srv.stop()
sys.exit(t.done())
