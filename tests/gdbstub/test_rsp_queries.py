#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Negotiation, attach, threads, target descriptions and monitor commands
against the mock target."""
import os
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # the source tree may be read-only (distcheck)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mock_server import Server  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap(123)  # the plan: every check this test makes
srv = Server("--multi", comm=":0")
c = srv.connect()

# ---- qSupported: only what is implemented ----
r = c.req("qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+;unavailable+;"
          "multi-address-space+;qXfer:libraries:read:in-memory-library+")
feats = r.split(";")
for f in ("PacketSize=10000", "QStartNoAckMode+", "multiprocess+", "swbreak+",
          "qXfer:features:read+", "qXfer:threads:read+", "qXfer:exec-file:read+",
          "multi-address-space+", "x+", "R-", "Z0-", "Z1-", "vContSupported+",
          "qXfer:libraries:read+", "qXfer:libraries:read:in-memory-library+"):
    t.ok(f in feats, "qSupported announces " + f, r)
# vAck only to a client that announced it; vRun's packets only when the
# target starts programs (the mock does not).
for f in ("QEnvironmentHexEncoded+", "QNonStop+", "hwbreak+", "vAck:in-memory-library+", "QPassSignals+", "unavailable+"):
    t.ok(f not in feats, "qSupported does not announce " + f, r)
t.ok(int(r.split("PacketSize=")[1].split(";")[0], 16) >= 0x87a7,
     "PacketSize fits a g reply of 256 x 512-bit GRF")

# ---- before attach ----
t.eq(c.req("!"), "OK", "extended mode")
t.eq(c.req("Hc0"), "OK", "Hc0 before attach")
t.eq(c.req("Hgp0.0"), "OK", "Hgp0.0 before attach")
t.eq(c.req("?"), "W00", "? with nothing attached -> W00")
t.eq(c.req("qfThreadInfo"), "l", "no threads before attach")
t.eq(c.req("qC"), "", "qC before attach: empty")
t.eq(c.req("g"), "E01", "g before attach -> E01")
t.eq(c.req("vCont;c"), "E.no device is attached", "vCont;c before attach -> E.no device is attached")
t.eq(c.req("qXfer:features:read:target.xml:0,fff"), "E01", "target.xml before attach -> E01")

# ---- attach errors: one E02 reply each ----
r = c.req("vAttach;1")
t.ok(r.startswith("E02") and "attempting to attach too early" in r and
     "Device 1 [Mock GPU A] : attempting to attach too early" in r,
     "vAttach too early -> E02 with per-device reasons", r)
t.eq(c.pending(0.2), b"", "exactly one reply to a failed vAttach")
r = c.req("vAttach;3")
t.ok(r.startswith("E02") and "attempting to attach too early" in r,
     "too early without the phrase from the target: the server adds it", r)
r = c.req("vAttach;2")
t.ok(r.startswith("E02") and "not permitted" in r and "too early" not in r,
     "vAttach not permitted -> E02 without the retry phrase", r)
t.eq(c.req("vAttach;zz"), "E01", "vAttach with a bad pid -> E01")

# ---- attach ----
r = c.req("vAttach;1f2e")
t.ok(r.startswith("T05") and "tdesc:2;" in r and r.endswith("thread:p2.1;"),
     "vAttach -> all-stop T05 reply for the last device", r)
t.ok("swbreak" not in r, "no swbreak on an attach stop")
t.ok(r.index("tdesc:") < r.index("00:") < r.index("thread:"),
     "tdesc, expedited registers, thread in that order", r)
t.eq(c.req("vAttach;1f2e"), "E02Already attached to process 7982.",
     "second vAttach of the same pid -> Already attached, naming it")
t.eq(c.req("vAttach;7ffffff0"),
     "E02Already attached to process 7982; process 2147483632 does not exist.",
     "vAttach of a pid that does not exist says so")
t.eq(c.req("vAttach;%x" % os.getpid()),
     "E02Already attached to process 7982: one process is debugged at a time; "
     "detach it first to attach to process %d." % os.getpid(),
     "vAttach of another live process says what is in the way")
t.eq(c.req("qC"), "QCp2.1", "qC names the reporting thread")
t.eq(c.req("qAttached:1"), "1", "qAttached:1")
t.eq(c.req("qAttached:2"), "1", "qAttached:2")
t.ok(c.req("?").startswith("T05"), "? repeats the stop")

# ---- thread lists ----
ids = []
r = c.req("qfThreadInfo")
while r.startswith("m"):
    ids += r[1:].split(",")
    r = c.req("qsThreadInfo")
t.eq(r, "l", "qsThreadInfo ends with l")
t.eq(ids, ["p1.%x" % i for i in range(1, 9)] + ["p2.%x" % i for i in range(1, 5)],
     "qfThreadInfo lists every thread of every device")

doc, npk = c.xfer("threads", "", chunk=0x80)
t.ok(npk > 3, "qXfer:threads:read in several pieces (%d)" % npk)
root = ET.fromstring(doc)
th = root.findall("thread")
t.eq(len(th), 12, "thread list has 12 threads")
t.eq(th[0].attrib, {"id": "p1.1", "id_str": "ZE 0.0.0.0", "tdesc": "1"}, "first thread attrs")
t.eq(th[7].attrib["id_str"], "ZE 0.1.1.1", "id_str is slice.subslice.eu.thread")
t.eq(th[8].attrib, {"id": "p2.1", "id_str": "ZE 0.0.0.0", "tdesc": "2"}, "device 2 thread")
t.ok("delta" not in root.attrib, "no delta attribute before qDeltaThreadList")
doc2, _ = c.xfer("threads", "")
t.eq(len(ET.fromstring(doc2).findall("thread")), 12,
     "without qDeltaThreadList every list is complete")
t.eq(c.req("qDeltaThreadList"), "1", "qDeltaThreadList -> 1")
doc3, _ = c.xfer("threads", "")
root = ET.fromstring(doc3)
t.ok(root.attrib.get("delta") == "0" and not root.findall("thread"),
     "delta list: nothing changed", doc3)
r, out = c.monitor("mock tdesc 2 3 3")
t.eq(r, "OK", "mock: thread p2.3 gets tdesc 3")
root = ET.fromstring(c.xfer("threads", "")[0])
t.ok(root.attrib.get("delta") == "1" and root.find("thread").attrib["id"] == "p2.3" and
     root.find("thread").attrib["tdesc"] == "3", "delta list has the changed thread",
     ET.tostring(root))
t.eq(c.req("qXfer:threads:read:bogus:0,100"), "E01", "threads with an annex -> E01")
t.eq(c.req("qXfer:threads:read::zz"), "E01", "threads with a bad offset -> E01")

# ---- thread selection ----
t.eq(c.req("Hgp1.2"), "OK", "Hg p1.2")
t.eq(c.req("qC"), "QCp1.2", "qC follows Hg")
t.eq(c.req("Hgp1.0"), "OK", "Hg p1.0 (any thread of 1)")
t.eq(c.req("qC"), "QCp1.1", "Hg p1.0 resolves to a stopped thread")
t.eq(c.req("Hcp-1.-1"), "OK", "Hc p-1.-1")
t.eq(c.req("Hc-1"), "OK", "Hc-1")
for bad in ("Hgp9.1", "Hgp1.9", "Hgp1.ffffffff", "Hgq", "Hx1", "Hgp1.", "Hg"):
    t.eq(c.req(bad), "E01", "bad thread id %s -> E01" % bad)
t.eq(c.req("Tp1.8"), "OK", "T p1.8 alive")
t.eq(c.req("Tp1.3"), "OK", "T p1.3 (unavailable) alive")
for bad in ("Tp1.9", "Tp3.1", "Tp1.0", "T", "Tzz"):
    t.eq(c.req(bad), "E01", "thread not alive %s -> E01" % bad)

# ---- target descriptions ----
t.eq(c.req("Hgp1.1"), "OK", "Hg p1.1")
xml1, npk = c.xfer("features", "target.xml", chunk=0x100)
t.ok(npk > 2, "target.xml in pieces")
root = ET.fromstring(xml1)
t.eq(root.findtext("architecture"), "intelgt", "architecture intelgt")
t.eq(root.findtext("osabi"), "GNU/Linux", "osabi")
dev = root.find("device")
t.ok(dev is not None, "<device> element")
t.eq({k: dev.attrib.get(k) for k in ("vendor-id", "target-id", "pci-slot", "total-cores",
                                     "total-threads", "family", "model")},
     {"vendor-id": "0x8086", "target-id": "0x56a0", "pci-slot": "0000:3b:00.0",
      "total-cores": "4", "total-threads": "8", "family": "-", "model": "-"},
     "device attributes")
t.eq(dev.attrib.get("name"), 'Mock GPU A <&"test">', "device name XML-escaped")
t.eq(dev.attrib.get("uuid"), "0f0e0d0c0b0a09080706050403020100", "uuid last byte first")
t.ok("subdevice-id" not in dev.attrib, "root device: no subdevice-id")
children = [e.tag for e in root]
t.ok(children.index("device") < children.index("feature"), "device before the features")
feats = root.findall("feature")
t.eq([f.attrib["name"].split(".")[-1] for f in feats], ["grf", "ce", "sr", "cr", "sba", "dbg"],
     "one feature per register set, in driver order")
regs = [r for f in feats for r in f.findall("reg")]
t.eq([int(r.attrib["regnum"]) for r in regs], list(range(len(regs))), "regnums sequential from 0")
byname = {r.attrib["name"]: r.attrib for r in regs}
t.eq(sorted(n for n, a in byname.items() if a.get("expedited") == "yes"),
     sorted(["r0", "r127", "ce", "sr0", "cr0", "genstbase", "isabase"]), "expedited registers")
t.eq(sorted(n for n, a in byname.items() if a.get("save-restore") == "no"),
     sorted(["ce", "genstbase", "sustbase", "dynbase", "iobase", "isabase", "blsustbase",
             "blsastbase", "btbase", "scrbase"]), "read-only sets: save-restore=no")
t.eq((byname["r0"]["type"], byname["r0"]["bitsize"], byname["r0"]["group"]),
     ("vector8x32", "256", "grf"), "r0 type")
t.eq(feats[0].find("vector").attrib, {"id": "vector8x32", "type": "uint32", "count": "8"},
     "vector type declared in the feature")
t.eq((byname["isabase"]["type"], byname["isabase"]["group"]), ("uint64", "virtual"), "isabase")
t.eq(byname["ce"]["type"], "uint32", "ce uint32")

xml2, _ = c.xfer("features", "target-id-2.xml")
root2 = ET.fromstring(xml2)
t.eq(root2.find("device").attrib.get("subdevice-id"), "0", "sub-device: subdevice-id")
regs2 = [r.attrib["name"] for f in root2.findall("feature") for r in f.findall("reg")]
t.ok("r255" in regs2 and len(regs2) == 256 + 1 + 4 + 1 + 1 + 1 + 1 + 4 + 8 + 1 + 9 + 1,
     "target-id-2.xml: PVC-sized register file (%d regs)" % len(regs2))
xml3, _ = c.xfer("features", "target-id-3.xml")
t.ok(b"r127" in xml3 and b"r128" not in xml3, "target-id-3.xml: 128 GRF")
t.eq(c.req("Hgp2.1"), "OK", "Hg p2.1")
t.eq(c.xfer("features", "target.xml")[0], xml2, "target.xml follows the Hg thread")
for bad in ("target-id-9.xml", "target-id-0.xml", "target-id-x.xml", "other.xml",
            "target-id-1.xmlx"):
    t.eq(c.req("qXfer:features:read:%s:0,100" % bad), "E01", "features %s -> E01" % bad)
t.eq(c.req("qXfer:features:read:target.xml:0"), "E01", "features without length -> E01")
t.eq(c.req("qXfer:features:read:target.xml:%x,100" % (len(xml2) + 5)), "l",
     "offset past the end -> l")
t.eq(c.req("qXfer:exec-file:read:1:0,fff"), "l", "exec-file is empty")
t.eq(c.req("qXfer:exec-file:read::0,fff"), "l", "exec-file without annex is empty")

# ---- monitor ----
r, out = c.monitor("help")
t.ok(r == "OK" and "exit" in out and "help" in out, "monitor help", out)
r, out = c.monitor("frobnicate")
t.ok(r == "OK" and "Unknown monitor command 'frobnicate'" in out,
     "unknown monitor command: why, then OK (never 'Protocol error with Rcmd')",
     (r, out))
t.eq(c.req("qRcmd,6"), "E01", "qRcmd with odd hex -> E01")
t.eq(c.req("qRcmd,zz"), "E01", "qRcmd with bad hex -> E01")
t.eq(c.req("QThreadEvents:1"), "OK", "QThreadEvents:1")
t.eq(c.req("QThreadEvents:2"), "E01", "QThreadEvents:2 -> E01")

# ---- monitor exit ends the server ----
r, out = c.monitor("exit")
t.eq(r, "OK", "monitor exit -> OK")
t.ok(srv.wait() == 0, "server exits after monitor exit")
err = srv.stderr()
t.ok("client gone, detached 2" in err and "server ended: exit" in err,
     "devices detached on monitor exit", err)
clean, err = srv.sanitizer_clean()
t.ok(clean, "no sanitizer report", err)
c.close()
srv.stop()
sys.exit(t.done())
