#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""All-stop run control, stop replies, detach/kill, disconnects, and the
three transports (TCP, unix socket, stdio) against the mock target."""
import os
import stat
import sys

sys.dont_write_bytecode = True  # the source tree may be read-only (distcheck)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mock_server import Server  # noqa: E402
from scratch import scratch_dir  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap(87)  # the plan: every check this test makes


def check_clean(srv):
    srv.proc.terminate()
    srv.wait()
    clean, err = srv.sanitizer_clean()
    t.ok(clean, "no sanitizer report", err)
    srv.stop()


srv = Server("--multi", comm=":0")
c = srv.connect()
# The features Intel's GDB announces (multi-address-space+ marks a client
# that knows the intelgt architecture and gets expedited registers).
c.req("qSupported:multiprocess+;swbreak+;multi-address-space+;unavailable+")
t.ok(c.req("vAttach;99").startswith("T05"), "attached")
t.eq(c.req("vCont?"), "vCont;c;C;t;s;S;r", "vCont? reply")

# continue, then ^C
c.send("vCont;c")
t.eq(c.pending(0.3), b"", "vCont;c: no reply while running")
c.interrupt()
r = c.recv()
t.ok(r.startswith(b"T05") and r.endswith(b"thread:p1.1;") and b"swbreak" not in r,
     "^C -> T05 for the interrupted device", r)
_, out = c.monitor("mock lastresume")
t.eq(out.strip(), "c:-1.-1", "vCont;c resumes everything in one call")

# vCtrlC
c.send("vCont;c")
t.eq(c.req("vCtrlC"), "OK", "vCtrlC -> OK")
t.ok(c.recv().startswith(b"T05"), "then the stop reply")

# breakpoint with swbreak
c.monitor("mock next swbreak 2 3")
c.send("vCont;c")
r = c.recv().decode()
t.ok(r.startswith("T05swbreak:;tdesc:2;") and r.endswith("thread:p2.3;"),
     "swbreak stop: T05swbreak:;tdesc:2;...thread:p2.3;", r)
t.ok("library" not in r, "no library piggyback on a breakpoint reply")
regs = [f.split(":")[0] for f in r.split(";")[2:-2]]
t.eq(regs, ["00", "ff", "105", "106", "107", "116", "11a"],
     "expedited r0 r255 ce sr0 cr0 genstbase isabase in tdesc order")
t.eq(c.req("qC"), "QCp2.3", "the stopped thread becomes current")
t.eq(c.req("?"), r, "? repeats the last stop")

# step with a wildcard continue: one resume call
c.send("vCont;s:p1.2;c")
r = c.recv().decode()
t.ok(r.startswith("T05tdesc:1;") and r.endswith("thread:p1.2;"), "step -> T05 on p1.2", r)
_, out = c.monitor("mock lastresume")
t.eq(out.strip(), "s:1.2;c:-1.-1", "vCont;s:p1.2;c passed as one batch")
c.send("vCont;S05:p1.4;C05")
t.ok(c.recv().endswith(b"thread:p1.4;"), "S/C with signals (ignored)")
c.send("vCont;c:p1.-1;s:p2")
c.interrupt()
t.ok(c.recv().startswith(b"T05"), "vCont with process-wide actions")
_, out = c.monitor("mock lastresume")
t.eq(out.strip(), "c:1.-1;s:2.-1", "process-wide actions")
c.send("vCont;c:p1.0")
c.interrupt()
c.recv()
_, out = c.monitor("mock lastresume")
t.eq(out.strip(), "c:1.-1", "(P,0) means every thread of P")
t.eq(c.req("Hcp1.5"), "OK", "Hc p1.5")
c.send("s")
t.ok(c.recv().endswith(b"thread:p1.5;"), "s steps the Hc thread")
_, out = c.monitor("mock lastresume")
t.eq(out.strip(), "s:1.5;c:-1.-1", "s = step Hc thread, continue the rest")
c.send("c")
c.interrupt()
t.ok(c.recv().startswith(b"T05"), "c then ^C")
c.monitor("mock next segv 1 6")
c.send("C0b")
t.ok(c.recv().decode().startswith("T0btdesc:1;"), "page fault stop -> T0b")

# other stop kinds
c.monitor("mock next unavail 1 3")
c.send("vCont;c")
t.eq(c.recv(), b"Up1.3", "unavailable -> Up1.3")
c.req("qSupported:multiprocess+;swbreak+")
c.monitor("mock next unavail 1 3")
c.send("vCont;c")
t.eq(c.recv(), b"E.Unavailable.", "unavailable, client without unavailable+ -> E.Unavailable.")
c.req("qSupported:multiprocess+;swbreak+;multi-address-space+;unavailable+;"
      "qXfer:libraries:read:in-memory-library+;vAck:in-memory-library+")
c.monitor("mock next library 1")
c.send("vCont;c")
t.eq(c.recv(), b"Up1.0;library", "library change -> Up1.0;library")
xml = c.xfer("libraries", "")[0]
t.eq(xml, b'<library-list version="1.2">\n<in-memory-library begin="0x20000" end="0x21000" '
     b'ack="yes"><segment address="0x800000"/></in-memory-library>\n</library-list>\n',
     "qXfer:libraries:read: the module, waiting for its ack")
t.eq(c.req("vAck:in-memory-library:0x20000,0x21000"), "OK", "vAck")
t.eq(c.monitor("mock acks")[1].strip(), "1", "vAck acknowledged the load once")
t.ok(b'ack="yes"' not in c.xfer("libraries", "")[0] and
     b'version="1.1"' in c.xfer("libraries", "")[0], "acknowledged: listed without ack, 1.1")
t.ok(c.req("vAck:in-memory-library:0x20000").startswith("E.junk in vAck"), "vAck junk -> E.")
# Without vAck from the client the server acknowledges at once and, when it
# cannot read libraries either, does not report the change.
c.req("qSupported:multiprocess+;swbreak+;multi-address-space+;unavailable+")
c.monitor("mock next library 2")
c.send("vCont;c")
t.eq(c.pending(0.3), b"", "no library report to a client that cannot read libraries")
t.eq(c.monitor("mock acks")[1].strip(), "2", "... and the load is acknowledged at once")
c.interrupt()
t.ok(c.recv().startswith(b"T05"), "^C after that")
c.req("qSupported:multiprocess+;swbreak+;multi-address-space+;unavailable+")

# bad vCont packets
for bad in ("vCont;", "vCont;x", "vCont;c:p9.1", "vCont;c:p1.99", "vCont;r20,10:p1.1", "vCont;r10:p1.1",
            "vCont;c;", "vCont;Czz", "vCont;c:q", "cfoo", "s10", "C", "Szz"):
    t.eq(c.req(bad), "E01", "bad resume %s -> E01" % bad)
t.eq(c.req("vCont;t:p1.1"), "OK", "vCont;t only -> OK (all-stop)")

# swbreak only when the client announced it
c.req("qSupported:multiprocess+")
c.monitor("mock next swbreak 1 2")
c.send("vCont;c")
r = c.recv()
t.ok(not r.startswith(b"T05swbreak"), "no swbreak: when the client did not announce it", r)
# Stock GDB (no Intel extensions) cannot parse Intel GT registers or
# Intel's tdesc in a stop reply: it gets neither.
t.eq(r, b"T05thread:p1.2;", "no tdesc, no expedited registers for a client without intelgt")
c.req("qSupported:swbreak+;multi-address-space+")

# kill, detach
t.eq(c.req("vKill;1"), "E01", "vKill -> E01")
c.send("k")
t.eq(c.pending(0.3), b"", "k: no reply (GDB does not read one)")
t.eq(c.req("qAttached:1"), "1", "still serving after k")
t.eq(c.req("D;9"), "E01", "D;9 (no such device) -> E01")
t.eq(c.req("D;zz"), "E01", "D;zz -> E01")
t.eq(c.req("D;1"), "OK", "D;1 -> OK")
t.ok("Detached from device [0000:3b:00.0]" in srv.stderr(), "detach message", srv.stderr())
ids = c.req("qfThreadInfo")
t.ok(ids.startswith("mp2.1") and "p1." not in ids, "device 1 gone from the thread list", ids)
t.eq(c.req("Hgp1.1"), "E01", "Hg to a detached device -> E01")

# process exit and kill events
c.monitor("mock next exit 2")
c.send("vCont;c")
t.eq(c.recv(), b"W1;process:2", "device gone -> W1;process:2")
t.eq(c.req("?"), "W00", "nothing left: ? -> W00")
t.ok(c.req("vAttach;99").startswith("T05"), "re-attach (extended-remote)")
c.monitor("mock next kill 1")
c.send("vCont;c")
c.close()
srv.wait(0.5)
t.ok("client gone, detached" in srv.stderr(), "disconnect while stopped -> client_gone")

# disconnect while running
c = srv.connect()
t.ok(c.req("vAttach;99").startswith("T05"), "second client attaches")
c.monitor("mock next kill 1")
c.send("vCont;c")
t.eq(c.recv(), b"X0b;process:1", "process-level fault -> X0b;process:1")
c.send("vCont;c")
c.close()
srv.wait(0.5)
t.ok(srv.stderr().count("client gone") == 2, "disconnect while running -> client_gone",
     srv.stderr())
t.ok(srv.proc.poll() is None, "without --once the server waits for the next client")
check_clean(srv)

# plain remote (not --multi): detaching the last device ends the connection
srv = Server("--attach", "7", "--once", comm=":0")
c = srv.connect()
t.ok(c.req("?").startswith("T05"), "--attach: ? reports the attach stop")
t.eq(c.req("D;1"), "OK", "D;1")
t.eq(c.req("D"), "OK", "D (all)")
try:
    end = "a byte %r after the last reply" % c.read_byte(2)
except (EOFError, ConnectionResetError) as e:
    end = e  # the server closed its end: the read found end of file
except TimeoutError:
    end = "the connection is still open 2 s after the last detach"
t.ok(isinstance(end, (EOFError, ConnectionResetError)), "connection closed after the last detach",
     end)
t.eq(srv.wait(), 0, "--once: the server exits")
c.close()
check_clean(srv)

# unix socket transport
d = scratch_dir()
path = os.path.join(d, "rsp.sock")
srv = Server("--attach", "7", comm="unix:" + path)
t.eq(stat.S_IMODE(os.stat(path).st_mode), 0o600, "unix socket is mode 0600")
c = srv.connect()
t.ok(c.req("?").startswith("T05"), "unix socket: served")
t.eq(c.monitor("exit")[0], "OK", "unix socket: monitor exit")
t.eq(srv.wait(), 0, "unix socket: server exits")
c.close()
check_clean(srv)
t.ok(not os.path.exists(path), "unix socket file removed at exit")
if not os.path.exists(path):
    os.rmdir(d)

# stdio transport
srv = Server("--multi", comm="-")
c = srv.connect()
t.ok(c.req("qSupported:multi-address-space+").startswith("PacketSize="), "stdio: qSupported")
t.ok(c.req("vAttach;5").startswith("T05"), "stdio: vAttach")
t.eq(c.start_noack(), "OK", "stdio: no-ack mode")
t.eq(len(c.req("g")), 2 * 17348, "stdio: g of a PVC-sized thread")
r, _ = c.monitor("exit")
t.eq(r, "OK", "stdio: monitor exit")
t.eq(srv.wait(), 0, "stdio: server exits")
check_clean(srv)
sys.exit(t.done())
