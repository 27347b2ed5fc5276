#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""zestub as a GDB server over stdio against a real application on gtsim:
vAttach, the thread list against the configured topology, the target
description, registers and memory of a stopped thread against what the
device says, continue until the application exits, and a clean detach
that leaves the application running to completion. Not yet covered (issue
5): the full packet matrix, stock GDB and GDB/MI sessions, benchmarks."""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

# 2 x 2 x 4 = 16 hardware threads, slow enough to catch running.
env = h.small_device(20)
t = h.Tap(31)  # the plan: every check this test makes

app, line = h.start_app(env)
t.ok(line.startswith("device:"), "the application started", line)

srv = h.Stdio(env, keep_stderr=True)
c = srv.c


r = c.req(h.FEATURES)
t.ok("PacketSize=" in r and "multiprocess+" in r, "qSupported", r)
t.eq(c.req("!"), "OK", "extended mode")
stop = c.req("vAttach;%x" % app.pid, timeout=30)
t.ok(re.match(r"^(T[0-9a-f]{2}.*thread:p1\.[0-9a-f]+;|Up1\.[0-9a-f]+)$", stop) is not None,
     "vAttach answers with a stop reply for device process 1", stop)
t.eq(c.req("qAttached:1"), "1", "qAttached:1")

ids = []
r = c.req("qfThreadInfo")
while r.startswith("m"):
    ids += r[1:].split(",")
    r = c.req("qsThreadInfo")
t.eq(len(ids), 16, "one RSP thread per hardware thread (2x2x4)")
t.ok(ids and ids[0] == "p1.1" and ids[-1] == "p1.10", "ids run p1.1 .. p1.10 (hex)", ids[:3])

xml = c.xfer("threads", "")[0]
t.ok(b'id_str="ZE 0.1.1.3"' in xml, "id_str names slice.subslice.eu.thread", xml[:200])

tdesc = c.xfer("features", "target.xml")[0].decode()
try:
    root = ET.fromstring(tdesc)
    arch = root.findtext("architecture")
    dev = root.find("device")
    regs = [r.get("name") for r in root.iter("reg")]
except ET.ParseError as e:
    arch, dev, regs = None, None, []
    t.diag("target.xml: %s" % e)
t.eq(arch, "intelgt", "architecture intelgt")
t.ok(dev is not None and dev.get("vendor-id") == "0x8086" and dev.get("target-id") == "0x0bd5"
     and dev.get("total-threads") == "16", "the <device> element", dev.attrib if dev is not None else None)
for name in ("r0", "ce", "cr0", "sr0", "isabase", "genstbase"):
    t.ok(name in regs, "register %s in the description" % name)

# A stopped thread (attach stops everything): its cr0 IP and isabase.
stopped = re.search(r"thread:p1\.([0-9a-f]+);", stop)
if stopped:
    tid = stopped.group(1)
    t.eq(c.req("Hgp1.%s" % tid), "OK", "select the stopped thread")
    cr0 = regs.index("cr0")
    isab = regs.index("isabase")
    v = c.req("p%x" % cr0)
    t.ok(re.fullmatch(r"[0-9a-f]{32}", v) is not None, "cr0 reads as 16 bytes", v)
    b = c.req("p%x" % isab)
    t.ok(re.fullmatch(r"[0-9a-f]{16}", b) is not None, "isabase reads as 8 bytes", b)
    if re.fullmatch(r"[0-9a-f]{32}", v or "") and re.fullmatch(r"[0-9a-f]{16}", b or ""):
        ip = int.from_bytes(bytes.fromhex(v)[8:12], "little")
        base = int.from_bytes(bytes.fromhex(b), "little")
        code = c.req("m%x,10" % (base + ip))
        t.ok(re.fullmatch(r"[0-9a-f]{32}", code) is not None, "16 bytes of code at the PC", code)
    t.eq(c.req("p9999"), "E01", "a register number that does not exist -> E01")
    t.eq(c.req("m10,4"), "E01", "an address outside every allocation -> E01")
    # monitor dump: zestub dump's JSON document through the connection.
    r, text = c.monitor("dump --json --registers none")
    try:
        doc = json.loads(text)
    except ValueError as e:
        doc = {"error": str(e), "text": text[:300]}
    recs = doc.get("threads", [])
    t.ok(r == "OK" and doc.get("schema") == "zestub-dump" and doc.get("pid") == app.pid,
         "monitor dump --json: a zestub-dump document of the application", str(doc)[:300])
    t.ok(len(recs) >= 1 and all(x.get("kernel") == "vadd" for x in recs),
         "monitor dump lists the stopped threads in kernel vadd (%d)" % len(recs),
         str(recs[:1])[:300])
    r, text = c.monitor("dump")
    t.ok(r == "OK" and "zestub dump of process %d" % app.pid in text,
         "monitor dump: the human format", text[:200])
    r, text = c.monitor("dump --registers loud")
    t.ok(r == "OK" and "--registers takes none, expedited or all" in text,
         "monitor dump with a bad argument: why, and OK (no protocol error)", (r, text))
else:
    t.diag("attach reported no stopped thread: %s" % stop)

# Continue: the application finishes; its device process exits.
c.send("vCont;c")
end = c.recv(timeout=60)
t.ok(end.startswith(b"W") or end.startswith(b"T"), "a stop or exit reply after continue", end)
stops = 0
# Each continue may legitimately stop again, but not forever: a stale stop
# reported after a resume would make this loop spin.
while end.startswith(b"T") and stops < 20:
    stops += 1
    c.send("vCont;c")
    end = c.recv(timeout=60)
t.ok(stops < 20, "continuing does not produce stop after stop (%d extra stops)" % stops)
t.ok(end.startswith(b"W1;process:1"), "W1;process:1 when the application exits", end)
rc = h.wait_exit(app)
t.eq(rc, 0, "the application finishes normally")
rc = srv.close()
t.ok(rc == 0, "zestub exits cleanly (--once): %s" % rc, srv.stderr())
h.cleanup()
sys.exit(t.done())
