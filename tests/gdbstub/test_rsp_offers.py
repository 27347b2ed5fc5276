#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the server offers follows from the target's capability tables
(gdbstub/target.h, decided in gdbstub/offers.c): the mock with every table
it has, then without its libraries, software-breakpoint and monitor tables
(rsp_mock_server --without). A table that is missing takes its packets and
its qSupported tokens with it; the mock never had programs, non-stop or
siginfo, so vRun, QNonStop and qXfer:siginfo:read are never offered."""
import os
import sys

sys.dont_write_bytecode = True  # the source tree may be read-only (distcheck)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mock_server import Server  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap(39)  # the plan: every check this test makes
INTEL = ("qSupported:multiprocess+;swbreak+;vContSupported+;multi-address-space+;"
         "qXfer:libraries:read:in-memory-library+;vAck:in-memory-library+")
STOCK = "qSupported:multiprocess+;swbreak+;xmlRegisters=i386"
LIBS = "qXfer:libraries:read+"
VACK = "vAck:in-memory-library+"


def feats(c, q):
    return c.req(q).split(";")


def check_clean(srv):
    srv.proc.terminate()
    t.eq(srv.wait(), 0, "SIGTERM ends the server cleanly")
    clean, err = srv.sanitizer_clean()
    t.ok(clean, "no sanitizer report", err)


# ---- every table the mock has: the control, so the checks below can fail ----
srv = Server("--multi", comm=":0")
c = srv.connect()
f = feats(c, INTEL)
t.ok(LIBS in f and VACK in f, "with libraries: Intel's client is offered them and vAck")
f = feats(c, STOCK)
t.ok("Z0+" in f, "with sw_breakpoints: a stock client is offered Z0+")
t.ok("mock" in c.monitor("help")[1], "with a monitor table: monitor help lists its rows")
c.close()
check_clean(srv)

# ---- without libraries, software breakpoints and monitor commands ----
srv = Server("--multi", "--without", "libraries,sw_breakpoints,monitor", comm=":0")
c = srv.connect()
r = c.req(INTEL)
f = r.split(";")
t.ok(LIBS not in f and "qXfer:libraries:read:in-memory-library+" not in f,
     "no libraries table: qXfer:libraries:read not announced", r)
t.ok(VACK not in f, "no libraries table: vAck not announced", r)
t.ok("Z0-" in f, "Intel's client: Z0- as always", r)
t.ok(c.req("vAttach;1234").startswith("T05"), "vAttach")
t.eq(c.req("qXfer:libraries:read::0,fff"), "", "no libraries table: qXfer:libraries:read -> empty")
t.eq(c.req("vAck:in-memory-library:0x20000,0x21000"), "", "no libraries table: vAck -> empty")
r = c.req(STOCK)
f = r.split(";")
t.ok("Z0-" in f and "Z0+" not in f, "no sw_breakpoints table: a stock client gets Z0-", r)
t.eq(c.req("Hgp1.1"), "OK", "Hg p1.1")
before = c.req("m10000,4")
t.eq(c.req("Z0,10000,1"), "", "no sw_breakpoints table: Z0 -> empty")
t.eq(c.req("z0,10000,1"), "", "no sw_breakpoints table: z0 -> empty")
t.eq(c.req("m10000,4"), before, "... and the instruction is untouched")
t.eq(c.req("p10"), "xx" * 8, "no sw_breakpoints table: the host view's rip is unavailable")
r, out = c.monitor("help")
t.ok(r == "OK" and "mock" not in out and "exit" in out,
     "no monitor table: monitor help has the server's rows only", out)
r, out = c.monitor("mock acks")
t.ok(r == "OK" and "Unknown monitor command" in out,
     "no monitor table: a target command is unknown", out)
c.close()
check_clean(srv)

# ---- without libraries only: a module load is not reported ----
srv = Server("--multi", "--without", "libraries", comm=":0")
c = srv.connect()
c.req(INTEL)
t.ok(c.req("vAttach;1234").startswith("T05"), "vAttach (no libraries table)")
t.eq(c.monitor("mock next library 1")[0], "OK", "the next continue loads a module")
c.send("vCont;c")
t.eq(c.pending(0.3), b"", "no libraries table: the library event is dropped, not reported")
c.interrupt()
t.ok(c.recv(5).startswith(b"T"), "^C stops")
t.eq(c.monitor("mock acks")[1].strip(), "0", "nothing acknowledged a load the client never saw")
c.close()
check_clean(srv)

# ---- tables the mock never had: programs, non-stop, siginfo ----
srv = Server("--multi", comm=":0")
c = srv.connect()
r = c.req(INTEL)
f = r.split(";")
t.ok(not any(x in f for x in ("QEnvironmentHexEncoded+", "QEnvironmentUnset+",
                              "QEnvironmentReset+", "QSetWorkingDir+",
                              "QStartupWithShell+")),
     "no programs table: vRun's packets not announced, even with --multi", r)
t.ok("QNonStop+" not in f, "no non_stop table: QNonStop+ not announced", r)
t.ok("qXfer:siginfo:read+" not in f, "no siginfo table: qXfer:siginfo:read+ not announced", r)
t.eq(c.req("vRun;" + b"/bin/true".hex()), "", "no programs table: vRun -> empty (refused)")
t.eq(c.req("vKill;1"), "E01", "no programs table: vKill -> E01")
t.eq(c.req("QNonStop:1"), "E01", "no non_stop table: QNonStop:1 -> E01")
t.ok(c.req("vAttach;1234").startswith("T05"), "vAttach")
t.eq(c.req("qXfer:siginfo:read::0,fff"), "", "no siginfo table: qXfer:siginfo:read -> empty")
t.eq(c.req("qAttached"), "1", "no programs table: nothing is the server's own program")
c.close()
check_clean(srv)
sys.exit(t.done())
