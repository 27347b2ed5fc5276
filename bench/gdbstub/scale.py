#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Stop the world at scale (issue 23): zestub before and after, in the same
run window, on examples/vadd with every hardware thread running (gtsim
pace=1), at 8,192 and 65,536 threads. Per phase, the client's wall time,
zestub's CPU time (/proc schedstat of all its threads) and its Level Zero
debug calls by function with the time spent inside them (an LD_PRELOAD
counter, zecount.c, built here with the system compiler):

  vAttach -> stop reply; + the thread list (qXfer:threads); Intel's GDB's
  first `info threads` (Hg + `e` for every thread; 8,192 only);
  ^C -> stop reply; vCont;c -> the zetDebugResume call (resume issued).

`--before BUILDDIR` is a build of the commit to compare with (same
configure); without it only the current build is measured. When
GDBSERVER_ZE (or --gdbserver-ze) names Intel's gdbserver for the GPU, it
runs the same cycles on the same gtsim device in the same window,
interleaved, as `gdbserver --multi --once 127.0.0.1:0` attached by
`vAttach;PID`, and its column and its ratio to this build are printed;
otherwise a note says the column is skipped. Results and method:
bench/README.md, "Stop the world at scale"."""

import argparse
import mmap
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # the source tree is read-only in distcheck
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "lib"))
sys.path.insert(0, HERE)

from measure import xfer  # noqa: E402
from rig import App, RigError, Server, Where  # noqa: E402

FUNCS = ["ReadEvent", "ReadRegisters", "WriteRegisters", "Interrupt", "Resume", "ReadMemory",
         "WriteMemory", "AcknowledgeEvent", "Attach", "Detach"]
SLOT = 24  # zecount.c: calls, ns, last_begin, 8 bytes each
# 262,144: four tiles of 65,536 on one root device (gtsim/README.md)
SHAPES = {8192: "slices=8", 65536: "slices=64", 262144: "tiles=4,slices=64"}
clock = time.perf_counter


def now_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def build_counter(out_dir):
    so = os.path.join(out_dir, "zecount.so")
    cflags = subprocess.run(["pkg-config", "--cflags", "level-zero"], capture_output=True,
                            text=True).stdout.split() or ["-I/usr/include/level_zero"]
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", *cflags, "-o", so,
                    os.path.join(HERE, "zecount.c"), "-ldl"], check=True)
    return so


class Counter:
    """The file zecount.so counts into, mapped here too."""

    def __init__(self, path):
        self.path = path
        with open(path, "wb") as f:
            f.write(bytes(SLOT * len(FUNCS)))
        self.f = open(path, "r+b")
        self.map = mmap.mmap(self.f.fileno(), SLOT * len(FUNCS))

    def snap(self):
        b = bytes(self.map)
        return [tuple(int.from_bytes(b[i * SLOT + j * 8:i * SLOT + j * 8 + 8], "little")
                      for j in range(3)) for i in range(len(FUNCS))]

    def close(self):
        self.map.close()
        self.f.close()


class CountedWhere(Where):
    """zestub's environment: the counter preloaded."""

    def __init__(self, where, so, path, latency_us=0):
        super().__init__(where.builddir, where.config, where.rundir)
        self.so, self.path, self.latency_us = so, path, latency_us

    def env(self):
        env = super().env()
        env["LD_PRELOAD"] = self.so
        env["ZECOUNT_FILE"] = self.path
        if self.latency_us:  # gtsim's cost model (gtsim/README.md); 2abc8ab ignores it
            env["GTSIM_DEBUG_LATENCY_US"] = str(self.latency_us)
        return env


def cpu_ns(pid):
    total = 0
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, task)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass  # a thread that ended meanwhile
    return total


class Phase:
    def __init__(self, wall, cpu, a, b):
        self.wall, self.cpu = wall, cpu
        self.calls = {FUNCS[i]: b[i][0] - a[i][0] for i in range(len(FUNCS))}
        self.call_ns = {FUNCS[i]: b[i][1] - a[i][1] for i in range(len(FUNCS))}


def rss_pages(pid):
    with open("/proc/%d/statm" % pid) as f:
        return int(f.read().split()[1])


def wait_dispatched(app, timeout):
    """gtsim writes a thread's register file when it dispatches it (16 KiB
    of GRF each on Xe-HPC): once vadd's resident size stops growing every
    thread has its work. Attaching earlier would time gtsim's dispatch,
    which holds the hardware lock the attach needs."""
    end, last, still = time.monotonic() + timeout, -1, 0
    while time.monotonic() < end and still < 3:
        now = rss_pages(app.pid)
        still = still + 1 if now == last else 0
        last = now
        time.sleep(0.2)


def one_cycle(a, where, counted, counter, nthreads, argv=None):
    """One application, one fresh server (zestub, or argv): every phase
    once."""
    # A work-item for every SIMD lane of every hardware thread (vadd's
    # Xe-HPC kernel is SIMD 32): every thread has work, and at pace 1 runs
    # far longer than a cycle lasts.
    app = App(where, a.settle, ["--items", str(nthreads * 32)])
    wait_dispatched(app, a.timeout)
    srv = None
    out = {}
    try:
        srv = Server(counted, a.timeout, argv=argv)
        psize = srv.hello()
        c, zpid = srv.client, srv.proc.pid

        def phase(name, fn):
            s0, c0, t0 = counter.snap(), cpu_ns(zpid), clock()
            extra = fn()
            t1 = clock()
            out[name] = Phase(t1 - t0, cpu_ns(zpid) - c0, s0, counter.snap())
            return extra

        stop = phase("vAttach -> stop", lambda: c.req("vAttach;%x" % app.pid, timeout=a.timeout))
        if not re.match(r"^T", stop):
            raise RigError("vAttach answered %r (%s)" % (stop[:60], srv.stderr()))
        # The process the stop names, to detach from (gdbserver's own id
        # for the device; zestub's 1).
        m = re.search(r"thread:p([0-9a-f]+)\.", stop)
        pid = int(m.group(1), 16) if m else 1
        listed = phase("+ qXfer:threads", lambda: xfer(c, "threads", "", psize - 5)[0])
        if listed.count(b"<thread ") != nthreads:
            raise RigError("%s's list has %d threads" % (srv.name, listed.count(b"<thread ")))
        if nthreads <= a.e_max:
            def select_and_e():
                for t in range(1, nthreads + 1):
                    if c.req("Hgp1.%x" % t) != "OK":
                        raise RigError("Hgp1.%x refused" % t)
                    if not c.req("e"):
                        raise RigError("e answered nothing")
            phase("Hg + e, every thread", select_and_e)
        sent = [0]

        def cont():
            # The ^C waits for the resume (the first zetDebugResume after
            # vCont;c), as a user's would after GDB says it continued, so
            # the phases measure the same thing for both servers. Intel's
            # gdbserver takes a ^C in its SIGIO handler and calls
            # zetDebugInterrupt from there; one that arrives while its
            # resume is still writing registers hung it on gtsim before
            # gtsim's interrupt was queued like the runtime's
            # (--ctrl-c-at-once checks that it no longer does;
            # bench/README.md).
            resumes = counter.snap()[FUNCS.index("Resume")][0]
            sent[0] = now_ns()
            c.send("vCont;c")
            if a.ctrl_c_at_once:
                return
            end = time.monotonic() + a.timeout
            while counter.snap()[FUNCS.index("Resume")][0] == resumes:
                if time.monotonic() > end:
                    raise RigError("vCont;c: no zetDebugResume in %d s" % a.timeout)
                time.sleep(0.001)
            time.sleep(a.run_ms / 1000)

        phase("vCont;c (+ run)", cont)

        def ctrl_c():
            c.interrupt()
            return c.recv(a.timeout).decode("latin-1")

        r = phase("^C -> stop", ctrl_c)
        if not re.match(r"^[TU]", r):
            raise RigError("^C answered %r" % r[:60])
        # The resume may come after the ^C was sent (a server still writing
        # cr0 of every thread): the first zetDebugResume after vCont;c.
        resume = counter.snap()[FUNCS.index("Resume")][2]
        out["vCont;c -> resume issued"] = resume - sent[0] if resume > sent[0] else None
        srv.detach_and_close(pid)
        srv = None
        return out
    finally:
        if srv:
            srv.kill(grace=0)
        app.kill()


def fmt_s(v):
    if v is None:
        return "-"
    return "%.1f ms" % (v * 1e3) if v < 1 else "%.2f s" % v


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    return xs[len(xs) // 2] if xs else None


def report(nthreads, results, builds):
    print("\n### %s threads, all running (median of %d)\n" % (format(nthreads, ","),
                                                               len(results[builds[0]])))
    phases = [p for p in results["after"][0] if p != "vCont;c -> resume issued"]
    # Every other column is divided by this build's: "before / after" is
    # how much this build gained, "gdbserver-ze / after" how many times
    # Intel's gdbserver's figure is zestub's.
    others = [b for b in builds if b != "after"]
    head = "| phase | what |" + "".join(" %s |" % b for b in builds)
    head += "".join(" %s / after |" % b for b in others)
    print(head)
    print("|---|---|" + "---|" * (len(builds) + len(others)))

    def row(name, what, pick):
        vals = {b: median([pick(cyc) for cyc in results[b]]) for b in builds}
        line = "| %s | %s |" % (name, what)
        for b in builds:
            v = vals[b]
            line += " %s |" % (("-" if v is None else "%d" % v) if what.startswith("calls")
                               else fmt_s(v))
        for b in others:
            ok = vals[b] is not None and vals["after"] not in (None, 0)
            line += " %s |" % ("%.1fx" % (vals[b] / vals["after"]) if ok else "-")
        print(line)

    def calls(cyc, ps):
        """Every counted debug call of the phases ps (ReadEvent included:
        each is a call into the driver, waiting or not)."""
        return sum(cyc[p].calls[f] for p in ps if p in cyc for f in FUNCS)

    for p in phases:
        row(p, "wall", lambda cyc, p=p: cyc[p].wall if p in cyc else None)
        row(p, "server CPU", lambda cyc, p=p: cyc[p].cpu / 1e9 if p in cyc else None)
        row(p, "calls, all counted", lambda cyc, p=p: calls(cyc, [p]) if p in cyc else None)
        for f in FUNCS:
            if any(p in cyc and cyc[p].calls[f] for b in builds for cyc in results[b]):
                row(p, "calls " + f, lambda cyc, p=p, f=f: cyc[p].calls[f] if p in cyc else None)
                if f != "ReadEvent":  # a reader thread waits inside it: not a cost
                    row(p, "time in " + f,
                        lambda cyc, p=p, f=f: cyc[p].call_ns[f] / 1e9 if p in cyc else None)
    row("vAttach -> stop + whole list", "wall",
        lambda cyc: cyc["vAttach -> stop"].wall + cyc["+ qXfer:threads"].wall)
    row("vAttach -> stop + whole list", "server CPU",
        lambda cyc: (cyc["vAttach -> stop"].cpu + cyc["+ qXfer:threads"].cpu) / 1e9)
    row("vCont;c -> resume issued", "wall",
        lambda cyc: cyc["vCont;c -> resume issued"] / 1e9
        if cyc.get("vCont;c -> resume issued") else None)
    # The run phase's wall is mostly the sleep before ^C: the sum takes
    # the time to the resume instead.
    timed = [p for p in phases if p != "vCont;c (+ run)"]
    row("all phases (resume issued, not the run)", "wall",
        lambda cyc: sum(cyc[p].wall for p in timed if p in cyc)
        + (cyc.get("vCont;c -> resume issued") or 0) / 1e9)
    row("all phases", "calls, all counted", lambda cyc: calls(cyc, phases))
    # A server that polls for events with a timeout makes ReadEvent calls
    # in proportion to the time it runs, not to the threads.
    row("all phases", "calls, all but ReadEvent", lambda cyc: calls(cyc, phases) - sum(
        cyc[p].calls["ReadEvent"] for p in phases if p in cyc))
    # Issue 23's cycle: attach, the list, continue, ^C; without Intel's
    # GDB's first `info threads`, which reads registers by the thread.
    cycle = [p for p in phases if p != "Hg + e, every thread"]
    row("attach, list, vCont;c, ^C", "wall (to the resume, not the run)",
        lambda cyc: sum(cyc[p].wall for p in cycle if p in cyc and p != "vCont;c (+ run)")
        + (cyc.get("vCont;c -> resume issued") or 0) / 1e9)
    row("attach, list, vCont;c, ^C", "calls, all counted", lambda cyc: calls(cyc, cycle))
    if "gdbserver-ze" not in builds:
        print("\n(gdbserver-ze: GDBSERVER_ZE is not set, its column is skipped)")
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--builddir", default=os.environ.get("top_builddir", "."))
    p.add_argument("--before", help="build directory of the commit to compare with")
    p.add_argument("--threads", type=int, action="append", choices=sorted(SHAPES))
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--run-ms", type=float, default=50,
                   help="running time before ^C, from the resume")
    p.add_argument("--e-max", type=int, default=8192,
                   help="Hg + e for every thread up to this many threads")
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--latency-us", type=int, default=0,
                   help="gtsim's extra cost per register or memory access (after only)")
    p.add_argument("--spread-ms", type=int, default=0,
                   help="gtsim's interrupt_spread_ms (after only): interrupted threads halt "
                   "over this window and the interrupt's answer comes at its end")
    p.add_argument("--gdbserver-ze", default=os.environ.get("GDBSERVER_ZE"),
                   help="Intel's gdbserver for the GPU, run on the same device "
                   "(default: $GDBSERVER_ZE; none: its column is skipped)")
    p.add_argument("--ctrl-c-at-once", action="store_true",
                   help="send ^C right after vCont;c, not after the server's zetDebugResume "
                   "(a ^C that lands inside the server's resume loop)")
    p.add_argument("--settle", type=float, default=0.3,
                   help="seconds after vadd's launch before watching its dispatch")
    a = p.parse_args()
    builds = (["before"] if a.before else []) + ["after"]
    dirs = {"before": a.before, "after": a.builddir, "gdbserver-ze": a.builddir}
    argvs = {}
    if a.gdbserver_ze:
        if not os.access(a.gdbserver_ze, os.X_OK):
            raise RigError("GDBSERVER_ZE=%s is not an executable" % a.gdbserver_ze)
        builds.append("gdbserver-ze")  # this build's gtsim and vadd
        argvs["gdbserver-ze"] = [os.path.abspath(a.gdbserver_ze), "--multi", "--once",
                                 "127.0.0.1:0"]
    tmp = tempfile.mkdtemp(prefix="zestub-scale-")
    try:
        so = build_counter(tmp)
        counter = Counter(os.path.join(tmp, "counts"))
        for n in a.threads or sorted(SHAPES):
            config = "platform=xehpc,%s,subslices=8,eus=8,threads=16,pace=1" % SHAPES[n]
            results = {b: [] for b in builds}
            for rep in range(a.reps):
                for b in builds:  # interleaved: both see the same machine
                    cfg = config
                    if a.spread_ms and b != "before":  # 29d5fde's gtsim has no such key
                        cfg += ",interrupt_spread_ms=%d" % a.spread_ms
                    where = Where(os.path.abspath(dirs[b]), cfg, tmp)
                    counted = CountedWhere(where, so, counter.path, a.latency_us)
                    print("# %d threads, %s, rep %d" % (n, b, rep + 1), file=sys.stderr)
                    results[b].append(one_cycle(a, where, counted, counter, n, argvs.get(b)))
            report(n, results, builds)
        counter.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except RigError as e:
        sys.exit("scale: %s" % e)
