#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A user's session through Intel's GDB (issue 36): zestub against Intel's
gdbserver for the GPU on the same gtsim device, interleaved in one run
window. Intel's GDB runs at its command line on a pseudo-terminal, as a
person types: `target extended-remote`, `attach PID`, `info threads`
twice, `continue &` (timed to the server's zetDebugResume), `interrupt`, `detach`, on examples/vadd with every
hardware thread busy (gtsim pace=1, 8,192 threads by default). Per step:
the wall time from the command to what the user waits for (the prompt;
for `interrupt`, the stop shown) and the server's Level Zero debug calls
(zecount.c preloaded into the server, as scale.py does; all calls but
zetDebugReadEvent, which an event reader makes whether anything happens or
not).

Needs INTELGT_GDB (Intel's GDB) and GDBSERVER_ZE (Intel's gdbserver
built for the GPU); without either it says so and exits 0. Results and
method: bench/README.md, "Intel's GDB's session at 8,192 threads"."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "lib"))
sys.path.insert(0, HERE)

from gdbpath import gdb_argv  # noqa: E402
from pty_terminal import PROMPT, Terminal  # noqa: E402
from rig import App, RigError, Where  # noqa: E402
from scale import (FUNCS, SHAPES, CountedWhere, Counter, build_counter,  # noqa: E402
                   wait_dispatched)


STEPS = ["attach", "info threads (first)", "info threads (second)",
         "continue & -> resume issued", "interrupt -> stop shown", "detach"]
clock = time.perf_counter
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User + system CPU of a process, all its threads (0 once it is gone).
    Not scale.cpu_ns: that sums the threads alive now, so a step in which
    a thread ends (detach ends the event readers) comes out negative;
    /proc/PID/stat keeps the time of ended threads, in clock ticks."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0.0


class Listener:
    """A server that listens on a port it prints as "Listening on port N"
    (zestub and gdbserver both do, for port 0), its stderr drained."""

    def __init__(self, argv, env):
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.lines, self.port, ready = [], None, threading.Event()

        def drain():
            for raw in self.proc.stderr:
                line = raw.decode(errors="replace").rstrip("\n")
                self.lines.append(line)
                m = re.search(r"Listening on port (\d+)", line)
                if m and self.port is None:
                    self.port = int(m.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        if not ready.wait(30) or self.port is None:
            self.kill()
            raise RigError("%s did not listen: %s" % (argv[0], "\n".join(self.lines[-10:])))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def session(a, gdb, where, counted, counter, argv):
    """One application, one fresh server and one GDB: every step once.
    Returns {step: (wall, {function: calls}, {process: CPU seconds})}: the
    CPU of GDB, the server and the application (gtsim's device runs in
    it) says who the wall time of a step belongs to; on 2 cores a step
    GDB spends its own CPU on cannot get faster than that CPU, whatever
    the server does."""
    app = App(where, a.settle, ["--items", str(a.threads * 32)])
    wait_dispatched(app, a.timeout)
    srv = term = None
    out = {}
    try:
        srv = Listener(argv, counted.env())
        term = Terminal(gdb_argv(gdb) + ["-nx", "-q", "-iex", "set pagination off", "-iex",
                         "set remotetimeout 60", "-iex", "set width 0", "-iex",
                         "set confirm off", "-iex", "set height 0"], dict(os.environ, TERM="dumb"))
        if term.read_until(re.escape(PROMPT), 60) is None:
            raise RigError("no GDB prompt")

        pids = {"GDB": term.pid, "server": srv.proc.pid, "application": app.pid}

        def cpu():
            return {k: cpu_seconds(pid) for k, pid in pids.items()}

        def step(name, command, until=re.escape(PROMPT) + "$"):
            s0, c0, t0 = counter.snap(), cpu(), clock()
            term.type(command)
            got = term.read_until(until, a.timeout)
            t1 = clock()
            s1, c1 = counter.snap(), cpu()
            if got is None:
                raise RigError("%s: no answer (%r)" % (command, term.text[-300:]))
            if name:
                out[name] = (t1 - t0, {f: s1[i][0] - s0[i][0] for i, f in enumerate(FUNCS)},
                             {k: c1[k] - c0[k] for k in pids})
            return got

        step(None, "target extended-remote :%d" % srv.port)
        got = step("attach", "attach %d" % app.pid)
        if "rror" in got:
            raise RigError("attach: %s" % got[-300:])
        for name in ("info threads (first)", "info threads (second)"):
            got = step(name, "info threads")
            rows = len(re.findall(r"ZE \d+\.\d+\.\d+\.\d+", got))
            if rows < a.threads:
                raise RigError("%s listed %d threads: %s" % (name, rows, got[-300:]))
        # GDB's prompt comes back at once; the server may still be resuming
        # (gdbserver-ze writes a register of every thread first). Timed to
        # the server's zetDebugResume, and the interrupt comes only after
        # it, as in scale.py, so both servers' steps measure the same
        # thing. With --interrupt-at-once the interrupt follows the prompt
        # at once and lands inside gdbserver-ze's resume loop, which hung
        # it on gtsim until gtsim's interrupt was queued like the
        # runtime's (bench/README.md, "Intel's GDB's session").
        resume = FUNCS.index("Resume")
        s0, t0 = counter.snap(), clock()
        step(None, "continue &")
        if a.interrupt_at_once:
            # GDB may show this stop only by switching to the thread it
            # names (gdbserver-ze reports it so when the ^C came during
            # its resume); the detach that follows shows the server lives.
            out["continue & -> resume issued"] = (clock() - t0, {f: 0 for f in FUNCS}, {})
            step("interrupt -> stop shown", "interrupt",
                 r"(received signal SIG\w+|stopped|\[Switching to thread)[^\n]*\n(.*\n)?")
            term.read_until(re.escape(PROMPT), 5)
            got = step("detach", "detach")
            if "Detaching" not in got:
                raise RigError("detach: %s" % got[-300:])
            return out
        end = time.monotonic() + a.timeout
        while counter.snap()[resume][0] == s0[resume][0] and time.monotonic() < end:
            time.sleep(0.002)
        s1 = counter.snap()
        if s1[resume][0] == s0[resume][0]:
            raise RigError("continue &: the server never called zetDebugResume")
        out["continue & -> resume issued"] = (
            clock() - t0, {f: s1[i][0] - s0[i][0] for i, f in enumerate(FUNCS)}, {})
        time.sleep(a.run_ms / 1000)
        step("interrupt -> stop shown", "interrupt",
             r"(received signal SIG\w+|stopped)[^\n]*\n(.*\n)?")
        term.read_until(re.escape(PROMPT), 5)  # a prompt printed with the stop, if any
        got = step("detach", "detach")
        if "Detaching" not in got:
            raise RigError("detach: %s" % got[-300:])
        return out
    finally:
        if term:
            term.close()
        if srv:
            srv.kill()
        app.kill()


def busy(calls):
    """Debug calls but zetDebugReadEvent: a server's event reader calls it
    whether anything happens or not, so its count follows wall time."""
    return sum(n for f, n in calls.items() if f != "ReadEvent")


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--builddir", default=os.environ.get("top_builddir", "."))
    p.add_argument("--threads", type=int, default=8192, choices=sorted(SHAPES))
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--run-ms", type=float, default=200, help="running time before interrupt")
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--settle", type=float, default=0.3)
    p.add_argument("--interrupt-at-once", action="store_true",
                   help="interrupt as soon as `continue &` gives the prompt back, not after "
                   "the server's zetDebugResume (its row then times only the prompt)")
    a = p.parse_args()
    gdb, gds = os.environ.get("INTELGT_GDB"), os.environ.get("GDBSERVER_ZE")
    if not gdb or not gds:
        print("intelgdb_session: skipped: INTELGT_GDB (Intel's GDB) and GDBSERVER_ZE (Intel's "
              "gdbserver for the GPU) must both name executables")
        return 0
    builddir = os.path.abspath(a.builddir)
    argvs = {"zestub": [os.path.join(builddir, "zestub"), "--once", "--multi", ":0"],
             "gdbserver-ze": [os.path.abspath(gds), "--multi", "--once", "127.0.0.1:0"]}
    tmp = tempfile.mkdtemp(prefix="zestub-igdb-")
    try:
        so = build_counter(tmp)
        counter = Counter(os.path.join(tmp, "counts"))
        config = "platform=xehpc,%s,subslices=8,eus=8,threads=16,pace=1" % SHAPES[a.threads]
        where = Where(builddir, config, tmp)
        counted = CountedWhere(where, so, counter.path)
        res = {b: [] for b in argvs}
        with open("/proc/loadavg") as f:
            print("# load before: %s" % f.read().strip())
        for rep in range(a.reps):
            for b in argvs:  # interleaved: both see the same machine
                print("# %s, rep %d" % (b, rep + 1), file=sys.stderr)
                try:
                    res[b].append(session(a, gdb, where, counted, counter, argvs[b]))
                except RigError as e:
                    # One failed session (a server that did not answer a
                    # step) is said and run once more, so that one server's
                    # bad run does not lose the other's figures.
                    print("# %s, rep %d failed (%s): once more" % (b, rep + 1, e))
                    res[b].append(session(a, gdb, where, counted, counter, argvs[b]))
        with open("/proc/loadavg") as f:
            print("# load after: %s" % f.read().strip())
        counter.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print("\n### Intel's GDB at %s busy threads (median of %d)\n" % (format(a.threads, ","),
                                                                      a.reps))
    print("| step | zestub | gdbserver-ze | zestub / gdbserver-ze | ReadRegisters calls, "
          "zestub | gdbserver-ze | debug calls but ReadEvent, zestub | gdbserver-ze |")
    print("|---|---|---|---|---|---|---|---|")
    whole = {}
    for st in STEPS + ["whole session"]:
        if st == "whole session":
            w = {b: median([sum(r[s][0] for s in STEPS) for r in res[b]]) for b in argvs}
            rr = {b: median([sum(r[s][1]["ReadRegisters"] for s in STEPS) for r in res[b]])
                  for b in argvs}
            al = {b: median([sum(busy(r[s][1]) for s in STEPS) for r in res[b]])
                  for b in argvs}
        else:
            w = {b: median([r[st][0] for r in res[b]]) for b in argvs}
            rr = {b: median([r[st][1]["ReadRegisters"] for r in res[b]]) for b in argvs}
            al = {b: median([busy(r[st][1]) for r in res[b]]) for b in argvs}
        whole[st] = w["zestub"] / w["gdbserver-ze"]
        print("| %s | %.3f s | %.3f s | %.2fx | %d | %d | %d | %d |" % (
            st, w["zestub"], w["gdbserver-ze"], whole[st], rr["zestub"], rr["gdbserver-ze"],
            al["zestub"], al["gdbserver-ze"]))
    # Totals hide where the calls go; a count per function is what says
    # what a real GPU would pay for each step (stable on a loaded machine).
    print("\n### Debug calls by function, per step (median of %d)\n" % a.reps)
    for st in STEPS:
        for b in argvs:
            funcs = sorted({f for r in res[b] for f, n in r[st][1].items() if n})
            print("# %s, %s: %s" % (st, b, ", ".join(
                "%s %d" % (f, median([r[st][1].get(f, 0) for r in res[b]])) for f in funcs)))
    # The wall time of a step is GDB's CPU, the server's, the application's
    # and the waits between them; GDB's own share is a floor no server
    # can go under (continue & is timed to the server's resume, not to a
    # prompt, so it has no CPU row).
    print("\n### CPU seconds per step (median of %d): GDB / server / application\n" % a.reps)
    print("| step | zestub: GDB | server | application | gdbserver-ze: GDB | server | "
          "application |")
    print("|---|---|---|---|---|---|---|")
    for st in STEPS:
        if not all(r[st][2] for b in argvs for r in res[b]):
            continue
        cells = ["%.3f" % median([r[st][2][k] for r in res[b]])
                 for b in argvs for k in ("GDB", "server", "application")]
        print("| %s | %s |" % (st, " | ".join(cells)))
    for st in ("info threads (first)", "whole session"):
        print("# %s: zestub at %.2fx gdbserver-ze's time: %s the 0.5x goal" % (
            st, whole[st], "meets" if whole[st] <= 0.5 else "misses"))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RigError as e:
        sys.exit("intelgdb_session: %s" % e)
