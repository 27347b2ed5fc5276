#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The packet matrix: every packet family zestub serves, sent over stdio
against examples/vadd running on gtsim, each answer checked against what
gtsim says is true: the thread count and ids from GTSIM_CONFIG, register
values from gtsim's deterministic register file (gtsim/hw.c init_thread),
code bytes from the kernel's ELF fixture, memory bytes the application
published (vadd --print-buffers), stop reasons from cr0. Then the bad
input: malformed and oversized packets, bad checksums, garbage between
packets, unknown packets, bad thread ids, register numbers and addresses.
Each gets its error (E01 or E.text; E02 only for attach failures) and the
server keeps serving. Ends with the application running to its exit.

Not covered here: non-stop, libraries (not served yet), SLM, multiple
devices and tiles, breakpoints (the bit written through X)."""
import os
import re
import select
import subprocess
import sys
import time
import traceback
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402
from harness import Tap, decode_payload, escape, frame  # noqa: E402

CONFIG = "platform=xehpc,subslices=2,eus=2,threads=4,pace=20"
# The topology is the ground truth for the thread list: gtsim's defaults
# for what CONFIG leaves out (gtsim/README.md).
TOPO = dict(slices=1, subslices=4, eus=8, threads=8, tiles=1)
TOPO.update({k: int(v) for k, v in (kv.split("=") for kv in CONFIG.split(","))
             if k in TOPO})
NTHREADS = TOPO["tiles"] * TOPO["slices"] * TOPO["subslices"] * TOPO["eus"] * TOPO["threads"]

env = h.gtsim_env(CONFIG)
t = Tap(199)  # the plan: every check this test makes
log = []  # (request, reply) of every exchange, for the error-class check


def coords(lwp):
    """slice, subslice, eu, thread of lwp (thread varies fastest)."""
    i = lwp - 1
    th, i = i % TOPO["threads"], i // TOPO["threads"]
    eu, i = i % TOPO["eus"], i // TOPO["eus"]
    ss, sl = i % TOPO["subslices"], i // TOPO["subslices"]
    return sl, ss, eu, th


def grf_pattern(lwp, r, d):
    # gtsim/hw.c init_thread: dword d of GRF r (0 < r < count - 1).
    return ((lwp * 0x9E3779B1) & 0xFFFFFFFF) ^ (r << 8 | d)


def u32(b, i):
    return int.from_bytes(b[4 * i:4 * i + 4], "little")


def plain_err(r):
    """An ordinary failure as Intel's GDB expects it: E01 or E.text."""
    return r == "E01" or (r.startswith("E.") and len(r) > 2)


def read_line(f, deadline):
    """One line of the application's output, or '' at the deadline: a
    hung application must fail the test, not hang it."""
    buf = b""
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([f], [], [], left)[0]:
            return buf.decode(errors="replace")
        ch = os.read(f.fileno(), 1)
        if not ch:
            break
        buf += ch
    return buf.decode(errors="replace")


def bp_bit_set(insn):
    # Breakpoint control bit: bit 7 compacted, bit 30 native; compaction
    # is bit 29 (protocol 5).
    if insn[3] & 0x20:
        return bool(insn[0] & 0x80)
    return bool(insn[3] & 0x40)


def insn_len(insn):
    return 8 if insn[3] & 0x20 else 16


class Matrix:
    def __init__(self, c):
        self.c = c

    def q(self, payload, timeout=None):
        r = self.c.req(payload, timeout)
        log.append((payload if isinstance(payload, str) else payload.decode("latin-1"), r))
        return r

    def qb(self, payload, timeout=None):
        """A request whose reply is binary: the decoded bytes."""
        r = self.c.request(payload, timeout)
        log.append((payload if isinstance(payload, str) else payload.decode("latin-1"),
                    r.decode("latin-1")))
        return r

    def raw_reply(self):
        """The next reply's payload as sent, escapes and all, acked."""
        c = self.c
        while c.read_byte() != 0x24:
            pass
        raw = bytearray()
        while True:
            b = c.read_byte()
            if b == 0x23:
                break
            raw.append(b)
        c.read_byte()
        c.read_byte()
        if not c.noack:
            c.write_raw(b"+")
        return bytes(raw)


def run(c, app, bufline):
    m = Matrix(c)
    q = m.q
    a_addr = int(re.search(r"\ba=0x([0-9a-f]+)", bufline).group(1), 16)
    pat = int(re.search(r"pattern=0x([0-9a-f]+)", bufline).group(1), 16)
    pat_len = int(re.search(r"pattern_bytes=(\d+)", bufline).group(1))

    def pat_bytes(off, n):
        return bytes((off + i) & 0xFF for i in range(n))

    # ---- features and attach -------------------------------------------
    r = q("qSupported:multiprocess+;swbreak+;vContSupported+;multi-address-space+;"
          "unavailable+;xmlRegisters=i386")
    feats = dict((f.split("=", 1) + [""])[:2] if "=" in f else (f, "") for f in r.split(";"))
    psize = int(feats.get("PacketSize", "0"), 16)
    t.ok(psize >= 0x1000 and all(k in feats for k in ("multiprocess+", "x+",
                                                       "multi-address-space+",
                                                       "qXfer:features:read+",
                                                       "qXfer:threads:read+")),
         "qSupported: PacketSize and the packets this matrix uses", r)
    t.eq(q("!"), "OK", "! (extended mode)")
    t.eq(q("?"), "W00", "? before attach: no process (W00)")
    missing = 0x7FFFFFF0
    while os.path.exists("/proc/%d" % missing):
        missing -= 1
    r = q("vAttach;%x" % missing, timeout=30)
    t.ok(r.startswith("E02") and len(r) > 3, "vAttach to a pid that does not exist -> E02<text>",
         r)
    t.eq(q("vAttach;zz"), "E01", "vAttach with a pid that is not hex -> E01")
    stop = q("vAttach;%x" % app.pid, timeout=30)
    sm = re.fullmatch(r"T([0-9a-f]{2})(.*)thread:p1\.([0-9a-f]+);", stop)
    t.ok(sm is not None and sm.group(1) == "05",
         "vAttach answers T05 (interrupted) naming a thread of device 1", stop[:200])
    if not sm:
        return
    stop_tid = int(sm.group(3), 16)
    t.ok(1 <= stop_tid <= NTHREADS, "the stop names an existing thread (%d)" % stop_tid)
    t.eq(q("?"), stop, "? repeats the attach stop reply")
    t.eq(q("qC"), "QCp1.%x" % stop_tid, "qC is the thread of the stop")
    t.eq(q("qAttached:1"), "1", "qAttached:1")
    # gdbserver answers E01 for a process it does not have.
    r = q("qAttached:99")
    t.eq(r, "E01", "qAttached for a process that does not exist -> E01")

    # ---- threads ---------------------------------------------------------
    ids = []
    r = q("qfThreadInfo")
    while r.startswith("m") and len(ids) < 10 * NTHREADS:
        ids += r[1:].split(",")
        r = q("qsThreadInfo")
    t.eq(r, "l", "qsThreadInfo ends the list with l")
    want_ids = ["p1.%x" % n for n in range(1, NTHREADS + 1)]
    t.eq(ids, want_ids, "qfThreadInfo/qsThreadInfo: the %d threads of the topology, in order"
         % NTHREADS)
    xml, _ = c.xfer("threads", "")
    try:
        th = [(e.get("id"), e.get("id_str"), e.get("tdesc"))
              for e in ET.fromstring(xml).iter("thread")]
    except ET.ParseError as e:
        th = []
        t.diag("threads: %s" % e)
    want_th = [("p1.%x" % n, "ZE %d.%d.%d.%d" % coords(n)) for n in range(1, NTHREADS + 1)]
    t.eq([x[:2] for x in th], want_th, "qXfer:threads: id and id_str of every thread")
    tdesc_ids = set(x[2] for x in th)
    t.ok(len(tdesc_ids) == 1 and "tdesc:%x;" % int(next(iter(tdesc_ids)) or "0") in stop,
         "every thread names the tdesc the stop reply carries", (tdesc_ids, stop[:20]))
    small, npk = c.xfer("threads", "", chunk=0x40)
    t.ok(small == xml and npk > 1, "qXfer:threads in 0x40-byte pieces is the same document")
    t.eq(q("qXfer:threads:read::%x,10" % (len(xml) + 5)), "l", "qXfer past the end -> l")
    t.eq(q("qXfer:threads:read::zz,10"), "E01", "qXfer with an offset that is not hex -> E01")
    t.eq(q("Tp1.1"), "OK", "T: thread p1.1 is alive")
    t.eq(q("Tp1.%x" % NTHREADS), "OK", "T: the last thread is alive")
    t.eq(q("Tp1.%x" % (NTHREADS + 1)), "E01", "T: one past the last thread -> E01")
    t.eq(q("Tp2.1"), "E01", "T: a process that does not exist -> E01")
    t.eq(q("Tzz"), "E01", "T: an id that is not hex -> E01")

    # ---- target description -----------------------------------------------
    tdesc = c.xfer("features", "target.xml")[0]
    try:
        root = ET.fromstring(tdesc)
        regs = [dict(r.attrib) for r in root.iter("reg")]
    except ET.ParseError as e:
        regs = []
        t.diag("target.xml: %s" % e)
    t.ok(len(regs) > 0 and [int(r["regnum"]) for r in regs] == list(range(len(regs))),
         "target.xml: regnums run 0..%d in document order" % (len(regs) - 1))
    if not regs:
        return
    size = [int(r["bitsize"]) // 8 for r in regs]
    byname = {r["name"]: int(r["regnum"]) for r in regs}
    expedited = [int(r["regnum"]) for r in regs if r.get("expedited") == "yes"]
    readonly = [int(r["regnum"]) for r in regs if r.get("save-restore") == "no"]
    grfs = sorted(int(n[1:]) for n in byname if re.fullmatch(r"r\d+", n))
    t.ok(all(n in byname for n in ("r0", "r26", "ce", "cr0", "sr0", "isabase", "genstbase",
                                   "dbg0")),
         "target.xml has the registers Intel's GDB needs")
    tid1 = q("qXfer:features:read:target-id-%s.xml:0,%x" % (th[0][2] if th else "1", psize))
    t.eq(tid1[1:].encode("latin-1"), tdesc, "target-id-N.xml is the document of target.xml")
    r = q("qXfer:features:read:nope.xml:0,100")
    t.ok(plain_err(r), "qXfer:features of an annex that does not exist -> E01", r)
    t.eq(q("qXfer:exec-file:read:1:0,100"), "l", "qXfer:exec-file is empty")

    # ---- registers: the stopped thread --------------------------------------
    t.eq(q("Hgp1.%x" % stop_tid), "OK", "Hg the stopped thread")
    g = q("g")
    t.eq(len(g), 2 * sum(size), "g: the size of every register of target.xml together")
    bad = []
    pvals = {}
    for n, sz in enumerate(size):
        v = q("p%x" % n)
        pvals[n] = v
        if not re.fullmatch(r"[0-9a-f]{%d}" % (2 * sz), v):
            bad.append((regs[n]["name"], v[:40]))
    t.ok(not bad, "p: every register of target.xml reads with its size (%d registers)"
         % len(size), bad[:10])
    t.eq(g, "".join(pvals[n] for n in range(len(size))), "g is p of every register, in order")
    got = dict(re.findall(r"([0-9a-f]{2,}):([0-9a-fx]+);", sm.group(2)))
    got = {int(k, 16): v for k, v in got.items()}
    t.eq(sorted(got), expedited, "the stop reply expedites exactly the expedited registers")
    t.ok(all(got[n] == pvals[n] for n in got if n in pvals),
         "the stop reply's expedited values are the thread's registers")
    e = q("e")
    ev = {int(k, 16): v for k, v in re.findall(r"([0-9a-f]{2,}):([0-9a-fx]+);", e)}
    t.ok(sorted(ev) == expedited and all(ev[n] == pvals[n] for n in ev),
         "e: only the expedited registers, with their values", e[:200])
    for pkt in ("p%x" % len(size), "p9999", "pzz", "p", "p1x"):
        t.eq(q(pkt), "E01", "%s (no such register / malformed) -> E01" % pkt)

    # Every thread against gtsim's register file. Running threads are
    # stopped (all-stop), idle ones are unavailable (all x).
    isab = {}
    entry = {}
    code = {}
    problems = []
    e_bad = []
    avail = unavail = 0
    sel_bad = []
    for lwp in range(1, NTHREADS + 1):
        if q("Hgp1.%x" % lwp) != "OK":
            sel_bad.append(lwp)
            continue
        # The first look at a thread since the stop: e carries every
        # expedited register (r0, the last GRF, ce, sr0, cr0, genstbase,
        # isabase), since Intel's GDB sends g for any it leaves out (issue
        # 36); the values are those p (and g) read.
        first_e = {int(k, 16): v for k, v in re.findall(r"([0-9a-f]{2,}):([0-9a-fx]+);", q("e"))}
        pe = {n: q("p%x" % n) for n in expedited}
        gg = q("g")
        if len(gg) != 2 * sum(size):
            problems.append((lwp, "g length %d" % len(gg)))
            continue
        vals, off = {}, 0
        for n, sz in enumerate(size):
            vals[n] = gg[off:off + 2 * sz]
            off += 2 * sz
        if set(gg) == {"x"}:
            unavail += 1
            ee = q("e")
            if set(ee.replace(":", "").replace(";", "")) - set("0123456789abcdefx") or \
                    any(set(v) != {"x"} for v in re.findall(r":([0-9a-fx]+);", ee)):
                problems.append((lwp, "unavailable but e is %r" % ee[:60]))
            continue
        if "x" in gg:
            problems.append((lwp, "partly unavailable"))
            continue
        avail += 1
        if sorted(first_e) != expedited or any(first_e[n] != vals[n] or first_e[n] != pe[n]
                                               for n in first_e):
            e_bad.append((lwp, sorted(first_e), [n for n in first_e if first_e[n] != pe[n]]))
        b = {n: bytes.fromhex(v) for n, v in vals.items()}
        sl, ss, eu, tt = coords(lwp)
        sr0, ce, cr0 = b[byname["sr0"]], b[byname["ce"]], b[byname["cr0"]]
        if u32(sr0, 0) != (tt | eu << 4 | ss << 8 | sl << 12):
            problems.append((lwp, "sr0.0 %#x is not ZE %d.%d.%d.%d" % ((u32(sr0, 0),)
                                                                          + coords(lwp))))
        if u32(ce, 0) == 0 or u32(ce, 0) != u32(sr0, 2):
            problems.append((lwp, "ce %#x != dispatch mask sr0.2 %#x" % (u32(ce, 0),
                                                                          u32(sr0, 2))))
        for r in grfs[1:-1]:
            rb = b[byname["r%d" % r]]
            if any(u32(rb, d) != grf_pattern(lwp, r, d) for d in range(len(rb) // 4)):
                problems.append((lwp, "r%d is not gtsim's pattern: %s" % (r, rb.hex()[:32])))
                break
        r0 = b[byname["r0"]]
        if u32(r0, 6) or u32(r0, 7):
            problems.append((lwp, "r0 dwords 6,7 (group y,z of a 1-D launch) %s" % r0.hex()))
        isab[lwp] = int.from_bytes(b[byname["isabase"]], "little")
        entry[lwp] = u32(b[byname["dbg0"]], 1)
        ip = u32(cr0, 2)
        if ip < entry[lwp]:
            problems.append((lwp, "IP %#x before the kernel entry %#x" % (ip, entry[lwp])))
        code[lwp] = ip
    t.ok(not sel_bad, "Hg selects each of the %d threads" % NTHREADS, sel_bad)
    t.ok(avail >= 1, "%d threads stopped with registers, %d unavailable" % (avail, unavail))
    t.ok(not problems, "registers of every thread match gtsim: ids in sr0, ce = dispatch mask, "
         "GRF pattern, IP after the kernel entry", problems[:10])
    t.ok(avail >= 1 and not e_bad, "the first e of each of the %d stopped threads carries every "
         "expedited register %r with p's and g's values" % (avail, expedited), e_bad[:5])
    t.ok(len(set(isab.values())) == 1 and len(set(entry.values())) == 1 and 0 not in isab.values(),
         "one isabase and one kernel entry (dbg0.1) for every thread",
         (set(isab.values()), set(entry.values())))

    # The code at each thread's PC is the vadd kernel's, without the
    # breakpoint bit (nothing inserted any).
    elf = h.fixture("vadd-xehpc.elf")
    t.eq(q("Hgp1.%x" % stop_tid), "OK", "Hg back to the stopped thread")
    base = isab.get(stop_tid, 0)
    bad = []
    for lwp, ip in sorted(code.items()):
        insn = q("m%x,10" % (base + ip))
        if not re.fullmatch(r"[0-9a-f]{32}", insn):
            bad.append((lwp, insn))
            continue
        ib = bytes.fromhex(insn)
        if ib[:insn_len(ib)] not in elf or bp_bit_set(ib):
            bad.append((lwp, hex(ip), insn))
    t.ok(code and not bad, "16 bytes at isabase+IP of every stopped thread are vadd's code "
         "(in its ELF fixture), breakpoint bit clear", bad[:5])
    first = m.qb("x%x,10" % (base + entry.get(stop_tid, 0)))
    t.ok(first[:1] == b"b" and len(first) == 17 and first[1:9] in elf,
         "x at isabase+entry: the kernel's first instruction", first)

    # Register writes on the stopped thread.
    r1 = byname["r1"]
    orig = pvals[r1]
    new = bytes(b ^ 0xA5 for b in bytes.fromhex(orig)).hex()
    t.eq(q("P%x=%s" % (r1, new)), "OK", "P r1 (writable GRF)")
    t.eq(q("p%x" % r1), new, "p r1 reads back what P wrote")
    t.eq(q("p%x" % byname["r2"]), pvals[byname["r2"]], "r2 is untouched by P r1")
    t.eq(q("P%x=%s" % (r1, orig)), "OK", "P r1 restores it")
    t.eq(q("p%x" % r1), orig, "p r1 is the original value again")
    for name in ("ce", "isabase"):
        n = byname[name]
        other = bytes(b ^ 0xFF for b in bytes.fromhex(pvals[n])).hex()
        t.ok(n in readonly and q("P%x=%s" % (n, other)) == "E01",
             "P %s (read-only, save-restore=no) -> E01" % name)
        t.eq(q("p%x" % n), pvals[n], "%s is unchanged by the refused P" % name)
    for pkt in ("P%x=00" % r1, "P%x=%s" % (len(size), "00" * 4), "Pzz=00", "P%x" % r1,
                "P%x=%s" % (r1, "zz" * size[r1])):
        t.eq(q(pkt), "E01", "%s... (wrong size / no register / malformed) -> E01" % pkt[:12])
    t.eq(q("p%x" % r1), orig, "r1 is unchanged by the refused writes")
    t.eq(q("G" + g), "OK", "G with the g contents (read-only registers unchanged)")
    t.eq(q("g"), g, "g is unchanged after that G")
    t.eq(q("G" + g[:-2]), "E01", "G one byte short -> E01")
    ce_off = 2 * sum(size[:byname["ce"]])
    g_ce = g[:ce_off] + ("%02x" % (int(g[ce_off:ce_off + 2], 16) ^ 1)) + g[ce_off + 2:]
    t.eq(q("G" + g_ce), "E01", "G changing read-only ce -> E01")
    r1_off = 2 * sum(size[:r1])
    t.eq(q("G" + g[:r1_off] + new + g[r1_off + len(new):]), "OK", "G changing r1")
    t.eq(q("p%x" % r1), new, "p r1 reads what G wrote")
    t.eq(q("P%x=%s" % (r1, orig)), "OK", "r1 restored")
    t.eq(q("g"), g, "the whole register file is as it was")

    # ---- thread selection errors ----------------------------------------------
    t.eq(q("Hgp1.%x" % (NTHREADS + 1)), "E01", "Hg one past the last thread -> E01")
    t.eq(q("Hgp99.1"), "E01", "Hgp99.1 (no such process) -> E01")
    t.eq(q("Hgzz"), "E01", "Hg with an id that is not hex -> E01")
    t.eq(q("Hq1"), "E01", "H with an unknown operation -> E01")
    t.eq(q("p%x" % byname["sr0"]), pvals[byname["sr0"]],
         "the refused H left the selected thread alone (its sr0)")
    t.eq(q("Hgp1.0"), "OK", "Hgp1.0 (any thread of process 1)")
    t.eq(q("Hc-1"), "OK", "Hc-1")
    t.eq(q("Hgp1.%x" % stop_tid), "OK", "Hg the stopped thread again")

    # ---- memory ------------------------------------------------------------
    t.eq(q("m%x,100" % pat), pat_bytes(0, 256).hex(), "m: 256 bytes of the pattern buffer")
    t.eq(q("m%x,40" % a_addr),
         b"".join(i.to_bytes(4, "little") for i in range(16)).hex(), "m: a[0..15] = 0..15")
    xr = m.qb("x%x,100" % pat)
    t.eq(xr, b"b" + pat_bytes(0, 256), "x: the same 256 bytes, binary")
    for byte, want in ((0x23, b"}\x03"), (0x24, b"}\x04"), (0x7D, b"}]"), (0x2A, b"}\n")):
        c.send("x%x,1" % (pat + byte))
        raw = m.raw_reply()
        t.eq(raw, b"b" + want, "x escapes byte %#x as %r" % (byte, want))
    tagged = pat | (1 << 61)  # generic pointer tag 001: global memory
    t.eq(q("m%x,10" % tagged), pat_bytes(0, 16).hex(),
         "m of a tagged pointer (bits 63..61 = 001) reads the untagged address")
    t.eq(q("m%x@0,10" % pat), pat_bytes(0, 16).hex(), "m with @0 (default space)")
    t.eq(q("m%x@5,4" % pat), "E01", "m in an address space that does not exist -> E01")

    off = 0x1000
    around = pat_bytes(off - 8, 32)
    data = bytes([0xDE, 0xAD, 0xBE, 0xEF, 0x23, 0x24, 0x7D, 0x2A])
    t.eq(q("M%x,8:%s" % (pat + off, data.hex())), "OK", "M: 8 bytes")
    t.eq(q("m%x,20" % (pat + off - 8)), (around[:8] + data + around[16:]).hex(),
         "m reads them back, neighbours untouched")
    t.eq(m.qb("x%x,8" % (pat + off)), b"b" + data, "x reads them back (escaped on the wire)")
    t.eq(q("M%x,8:%s" % (pat + off, around[8:16].hex())), "OK", "M restores")
    t.eq(q("m%x,20" % (pat + off - 8)), around.hex(), "the pattern is whole again")

    off = 0x2000
    data = bytes([0x23, 0x24, 0x7D, 0x2A, 0x03, 0x00, 0xFF, 0x2B, 0x2D, 0x5E])
    x_pkt = b"X%x,%x:" % (pat + off, len(data)) + escape(data)
    t.eq(q(x_pkt), "OK", "X: bytes that need escaping")
    t.eq(q("m%x,%x" % (pat + off, len(data))), data.hex(), "m reads the X bytes back")
    t.eq(q(b"X%x,%x:" % (pat + off, len(data)) + escape(pat_bytes(off, len(data)))), "OK",
         "X restores")
    t.eq(q("m%x,10" % (pat + off)), pat_bytes(off, 16).hex(), "restored")
    t.eq(q("X%x,0:" % pat), "OK", "X with length 0 (GDB's probe) -> OK")

    for pkt, what in ((b"X%x,4:abc" % (pat + off), "X whose data is shorter than its length"),
                      (b"X%x,2:abcd" % (pat + off), "X whose data is longer than its length"),
                      (b"M%x,4:0102" % (pat + off), "M whose data is shorter than its length"),
                      (b"M%x,2:zzzz" % (pat + off), "M whose data is not hex"),
                      (b"M%x,2" % (pat + off), "M without data")):
        t.eq(q(pkt), "E01", "%s -> E01" % what)
    t.eq(q("m%x,10" % (pat + off)), pat_bytes(off, 16).hex(), "the refused writes wrote nothing")

    for pkt, what in (("m10,4", "m"), ("x10,4", "x"), ("M10,1:00", "M"), (b"X10,1:\x00", "X")):
        t.eq(q(pkt), "E01", "%s at an address outside every allocation -> E01" % what)
    for pkt in ("mzz,4", "m%x" % pat, "m%x," % pat, "m%x,4z" % pat, "m,4", "m%x,zz" % pat,
                "x%x" % pat, "xzz,4"):
        t.eq(q(pkt), "E01", "malformed %s -> E01" % pkt.replace("%x" % pat, "ADDR"))

    # Reads longer than a packet: gdbserver caps them (or fails them); a
    # capped reply must fit PacketSize and be the start of the buffer.
    r = q("m%x,fffff" % pat)
    ok = plain_err(r) or (0 < len(r) <= psize and len(r) % 2 == 0 and
                          bytes.fromhex(r) == pat_bytes(0, len(r) // 2))
    t.ok(ok, "m longer than PacketSize: E01 or a truncated reply within PacketSize "
         "(%d hex digits)" % len(r), r[:60])
    c.send("x%x,fffff" % pat)
    raw = m.raw_reply()
    dec = decode_payload(raw)
    ok = raw == b"E01" or (0 < len(raw) <= psize and dec[:1] == b"b" and
                           dec[1:] == pat_bytes(0, len(dec) - 1))
    t.ok(ok, "x longer than PacketSize: E01 or a truncated reply within PacketSize "
         "(%d bytes on the wire)" % len(raw), raw[:60])

    # A packet of exactly PacketSize bytes, framing included, as GDB sizes
    # its writes; a leading zero on the address evens out the parity.
    off = 0x4000
    hdr = ""
    for n in range(psize // 2, 0, -1):
        for pad in ("", "0"):
            hdr = "M%s%x,%x:" % (pad, pat + off, n)
            if len(hdr) + 2 * n + 4 == psize:
                break
        if len(hdr) + 2 * n + 4 == psize:
            break
    inv = bytes(b ^ 0xFF for b in pat_bytes(off, n))
    flen = len(frame((hdr + inv.hex()).encode()))
    r = q(hdr + inv.hex())
    t.ok(flen == psize and r == "OK", "M of exactly PacketSize bytes (%d) is accepted" % flen, r)
    got = m.qb("x%x,%x" % (pat + off, n))
    t.ok(got == b"b" + inv, "the %d bytes it wrote read back" % n)
    t.eq(q(hdr + pat_bytes(off, n).hex()), "OK", "and are restored")
    t.ok(m.qb("x%x,%x" % (pat + off, n)) == b"b" + pat_bytes(off, n), "restored (read back)")

    # ---- framing -------------------------------------------------------------
    c.write_raw(b"$qC#00")
    nak = c.read_byte()
    t.eq(nak, 0x2D, "a bad checksum is answered with '-'")
    t.eq(c.pending(0.3), b"", "and with nothing else")
    c.write_raw(frame(b"qC"))  # the retransmission
    t.eq(c.read_byte(), 0x2B, "the retransmission is acked")
    r = c.recv().decode("latin-1")
    t.eq(r, "QCp1.%x" % stop_tid, "and answered")

    c.send("qC")  # its reply is NAKed instead of acked
    while c.read_byte() != 0x24:
        pass
    sent = bytearray(b"$")
    while not sent.endswith(b"#"):
        sent.append(c.read_byte())
    sent += bytes([c.read_byte(), c.read_byte()])
    c.write_raw(b"-")
    again = c.recv()
    t.ok(bytes(sent) == frame(again) and again.startswith(b"QC"),
         "a reply NAKed by the client is sent again", (bytes(sent), again))

    c.acks.clear()
    c.write_raw(frame(b"qFoo:" + b"A" * (psize + 64)))
    r = c.recv().decode("latin-1")
    t.ok("+" in c.acks and plain_err(r),
         "a packet longer than PacketSize is acked and refused (E01 or E.text)", (c.acks, r))
    t.eq(q("Tp1.1"), "OK", "the server still serves after it")
    c.acks.clear()
    c.write_raw(frame(b"qFoo:" + b"A" * (20 << 20)))
    r = c.recv(timeout=120).decode("latin-1")
    t.ok("+" in c.acks and plain_err(r), "a 20 MiB packet is acked and refused", (c.acks, r))
    t.eq(q("qC"), "QCp1.%x" % stop_tid, "the server still serves after the 20 MiB packet")
    for pkt, what in (("m0,ffffffffffffffff", "m of 2^64-1 bytes at 0"),
                      ("mffffffffffffffff,10", "m that wraps past the end of memory"),
                      ("M0,ffffffffffffffff:00", "M of 2^64-1 bytes"),
                      ("m1ffffffffffffffff,4", "m at an address of more than 64 bits"),
                      ("p10000", "p of register 0x10000"),
                      ("pffffffffffffffff", "p of register 2^64-1"),
                      ("P10000=00", "P of register 0x10000"),
                      ("Hgp1.ffffffff", "Hg of thread 0xffffffff"),
                      ("Hgp1.100000000", "Hg of a thread id beyond 32 bits"),
                      ("vAttach;1", "vAttach of pid 1 while attached"),
                      ("vAttach;%x" % os.getpid(), "vAttach of another process while attached")):
        r = q(pkt)
        t.ok(plain_err(r) or r.startswith("E02"), "%s -> an error" % what, r)
    t.eq(q("qC"), "QCp1.%x" % stop_tid, "the server still serves after them")

    c.write_raw(b"garbage \r\n\x00\x7f#}*:;\xff")
    t.eq(c.pending(0.3), b"", "garbage between packets gets no answer")
    t.eq(q("qC"), "QCp1.%x" % stop_tid, "the packet after the garbage is served")
    # A packet cut off by the next '$' counts as a bad checksum; the next
    # one is served. Sent by hand: Client.send would retransmit on the '-'.
    c.write_raw(b"$qC#" + frame(b"Tp1.2"))
    acks = bytes([c.read_byte(), c.read_byte()])
    r = c.recv().decode("latin-1")
    t.ok(acks == b"-+" and r == "OK",
         "a packet cut off by the next one gets '-', the next one is served", (acks, r))
    c.acks.clear()
    c.write_raw(frame(b"X%x,1:}" % pat))  # an escape with nothing after it
    r = c.recv().decode("latin-1")
    t.ok(plain_err(r), "an escape at the end of the data -> E01 or E.text", r)
    t.eq(q("m%x,1" % pat), "00", "and nothing was written")

    for pkt in ("qFooBar", "vFoo", "qXfer:foo:read::0,10", "Z0,%x,1" % pat, "jFoo", "QFoo:1"):
        t.eq(q(pkt), "", "unknown or unsupported %s -> empty reply" % pkt.split(",")[0])
    t.eq(q("vKill;1"), "E01", "vKill;1 -> E01 (kill is not supported)")
    t.eq(q("D;99"), "E01", "D for a process that does not exist -> E01")
    t.eq(q("QThreadEvents:1"), "OK", "QThreadEvents:1")
    r, out = c.monitor("help")
    t.ok(r == "OK" and "exit" in out, "monitor help", (r, out[:200]))
    t.eq(q("qRcmd,zz"), "E01", "qRcmd with a command that is not hex -> E01")

    # ---- run control ----------------------------------------------------------
    vq = q("vCont?")
    t.ok(vq.startswith("vCont") and all(a in vq.split(";") for a in ("c", "C", "s", "S", "t")),
         "vCont? offers c C s S t", vq)
    for pkt in ("vCont;c:p1.9999", "vCont;c:p9.1", "vCont;c:zz", "vCont;q", "vCont;", "vCont;c;",
                "vCont;s:p1.%x;c:p1.%x" % (stop_tid, NTHREADS + 1)):
        t.eq(q(pkt), "E01", "%s -> E01" % pkt)
    t.eq(q("?"), stop, "after the refused vConts nothing ran: ? still reports the attach stop")
    t.eq(q("p%x" % byname["cr0"]), pvals[byname["cr0"]], "and the thread's cr0 is unchanged")

    # Single steps: only the stepped thread runs (all-stop; the others were
    # not resumed), its IP moves by the length of the instruction at the PC
    # (compacted 8, native 16), stop reason SIGTRAP without swbreak. An
    # end-of-thread send makes the thread unavailable instead (U).
    def step(tid):
        t.eq(q("Hgp1.%x" % tid), "OK", "Hg p1.%x to step it" % tid)
        cr0 = q("p%x" % byname["cr0"])
        ip0 = u32(bytes.fromhex(cr0), 2)
        insn = bytes.fromhex(q("m%x,10" % (base + ip0)))
        eot = insn[3] & 0x20 == 0 and insn[0] & 0x7F in (0x31, 0x32) and insn[4] & 0x04
        c.send("vCont;s:p1.%x" % tid)
        st = c.recv(timeout=30).decode("latin-1")
        log.append(("vCont;s:p1.%x" % tid, st))
        # Protocol 7: only threads that were part of the resume count (the
        # attach interrupt's stops of other threads must not answer it).
        other = re.fullmatch(r"T05.*thread:p1\.([0-9a-f]+);", st)
        t.ok(not other or int(other.group(1), 16) == tid,
             "vCont;s:p1.%x reports no stop of a thread that was not resumed" % tid, st[-40:])
        if eot:
            t.eq(st, "Up1.%x" % tid, "stepping p1.%x over its end-of-thread send: U" % tid)
            return st
        stm = re.fullmatch(r"T05(.*)thread:p1\.%x;" % tid, st)
        t.ok(stm is not None and "swbreak" not in st,
             "vCont;s:p1.%x answers T05 for p1.%x (not swbreak)" % (tid, tid), st[-60:])
        t.eq(q("Hgp1.%x" % tid), "OK", "Hg p1.%x after its step" % tid)
        cr0 = q("p%x" % byname["cr0"])
        ip1 = u32(bytes.fromhex(cr0), 2) if re.fullmatch(r"[0-9a-f]{32}", cr0) else None
        t.ok(ip1 == ip0 + insn_len(insn), "the step moved p1.%x's IP by one %d-byte instruction"
             % (tid, insn_len(insn)), "IP %#x -> %s, cr0 %s" % (ip0, ip1 and hex(ip1), cr0))
        t.ok(stm is not None and ("%02x:%s;" % (byname["cr0"], cr0)) in st,
             "the step's stop reply carries p1.%x's new cr0" % tid)
        return st

    other = stop_tid % NTHREADS + 1
    step(other)
    st = step(stop_tid)
    t.eq(q("?"), st, "? repeats the last step's stop reply")

    # An interrupt while running: SIGINT for some thread, which is stopped.
    c.send("vCont;c")
    time.sleep(0.3)
    c.interrupt()
    st = c.recv(timeout=30).decode("latin-1")
    log.append(("^C", st))
    im = re.fullmatch(r"T02.*thread:p1\.([0-9a-f]+);", st)
    t.ok(im is not None, "^C while running answers T02 (SIGINT) with a thread", st[:120])
    if im:
        t.eq(q("Hgp1.%s" % im.group(1)), "OK", "Hg the interrupted thread")
        cr0 = q("p%x" % byname["cr0"])
        t.ok(re.fullmatch(r"[0-9a-f]{32}", cr0) is not None and
             u32(bytes.fromhex(cr0), 2) >= entry.get(stop_tid, 0),
             "the interrupted thread is stopped inside the kernel", cr0)
        # The stop of a thread nobody read before: its expedited registers
        # (the sets the stop reply read for it) are those p reads now.
        sx = {int(k, 16): v for k, v in re.findall(r"([0-9a-f]{2,}):([0-9a-f]+);", st)}
        sp = {n: q("p%x" % n) for n in expedited}
        t.ok(sorted(sx) == expedited and all(sx[n] == sp[n] for n in sx),
             "the interrupt's stop reply carries every expedited register with p's values",
             (sorted(sx), [n for n in sx if sx[n] != sp.get(n)]))
        t.eq(q("?"), st, "? repeats the interrupt's stop reply")

    t.eq(q("qDeltaThreadList"), "1", "qDeltaThreadList: 1 (the thread set is fixed)")
    # The first delta list may carry threads renamed by the stop (a name
    # says where a stopped thread is); the next, with nothing new, none.
    c.xfer("threads", "")
    xml, _ = c.xfer("threads", "")
    t.ok(b"<thread " not in xml, "after it, a thread list with nothing new is empty", xml[:200])
    t.eq(c.start_noack(), "OK", "QStartNoAckMode")
    t.eq(q("qC")[:4], "QCp1", "served without acks")

    # ---- to the end -------------------------------------------------------------
    c.send("vCont;c")
    end = c.recv(timeout=60).decode("latin-1")
    stops = 0
    while end.startswith("T") and stops < 20:
        stops += 1
        c.send("vCont;c")
        end = c.recv(timeout=60).decode("latin-1")
    t.eq(end, "W1;process:1", "continue: the device process exits with the application")
    t.eq(q("?"), "W00", "? after the exit: no process")


def main():
    try:
        app = h.launch(env, args=["--print-buffers"])
        deadline = time.monotonic() + 30
        line = read_line(app.stdout, deadline)
        t.ok(line.startswith("device:"), "the application started", line)
        bufline = read_line(app.stdout, deadline)
        if not t.ok(bufline.startswith("buffers: a=0x"), "it published its buffers", bufline):
            return
        srv = h.Stdio(env, keep_stderr=True)
        try:
            run(srv.c, app, bufline)
        except Exception:
            t.ok(False, "the packet matrix ran to its end", traceback.format_exc())
        # Every refusal of an ordinary request was E01 or E.text: E02 and
        # above make Intel's GDB throw (protocol 9).
        crit = [(p[:40], r[:60]) for p, r in log
                if re.match(r"E[0-9A-Fa-f]{2}", r) and r != "E01" and not p.startswith("vAttach")]
        t.ok(not crit, "no reply but vAttach's used E02 or above (%d exchanges)" % len(log), crit)
        # End of the client's stream: zestub --once ends. First, so that a
        # matrix cut short does not leave the application stopped.
        srv.end_stream()
        try:
            rc = app.wait(timeout=60)
        except subprocess.TimeoutExpired:
            rc = None
        out = app.stdout.read().decode(errors="replace") if rc is not None else ""
        t.ok(rc == 0 and "vadd: PASSED" in out,
             "the application finishes normally (%s), its data intact" % rc, out)
        rc = h.wait_exit(srv.proc, 10)
        t.ok(rc == 0, "zestub exits cleanly (--once): %s" % rc, srv.stderr()[-2000:])
    finally:
        h.cleanup()
    return t.done()


sys.exit(main())
