#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 22's user session, typed at Intel's GDB's prompt through a
pseudo-terminal as a person would, Ctrl-C as a byte on the terminal:
`target extended-remote`, `attach`, a pending `break vadd.cl:6`,
`continue` (hit), `next` (another thread may hit the breakpoint first),
`delete`, `continue`, Ctrl-C. Every run must end with the interrupt seen
(GDB reports a stop and gives the prompt back while the kernel still
runs), the kernel stopped, `detach` clean and vadd's exit status 0. The
run is repeated (ZESTUB_PTY_RUNS, default 10): the lost Ctrl-C happened in
4 of 6 runs before the fix. Needs INTELGT_GDB (Intel's GDB); skipped
otherwise. The raw-RSP form of the same sequence runs in every make check
(test_interrupt_signal.py)."""
import os
import re
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402
from pty_terminal import PROMPT, Terminal  # noqa: E402

gdb = h.intel_gdb()
RUNS = int(os.environ.get("ZESTUB_PTY_RUNS", "10"))
CHECKS_PER_RUN = 8
t = h.Tap(RUNS * CHECKS_PER_RUN)  # the plan: every check this test makes
# 16 threads at 3 instructions a second: the kernel runs for seconds
# after the breakpoint, long enough for a person's Ctrl-C.
env = h.small_device(3)


def one_run(n):
    tag = "run %d" % n
    app, _ = h.start_app(env, args=["--wait-before-load"], stdin=True)
    srv = h.Zestub(env, "--multi")
    term = Terminal(h.gdb_argv(gdb) + ["-nx", "-q", "-iex", "set pagination off", "-iex",
                     "set remotetimeout 20", "-iex", "set breakpoint pending on",
                     "-iex", "set width 0", "-iex", "set confirm off"], dict(env, TERM="dumb"))
    try:
        term.read_until(re.escape(PROMPT), 30)
        term.command("target extended-remote :%d" % srv.port)
        out = term.command("attach %d" % app.pid)
        t.ok(out is not None and ("Attaching" in out or "attached" in out),
             "%s: attach" % tag, out)
        out = term.command("break vadd.cl:6")
        h.release(app)
        out = term.command("continue", timeout=90)
        t.ok(out is not None and re.search(r"Breakpoint 1.*vadd\.cl:6", out, re.S),
             "%s: continue hits the breakpoint at vadd.cl:6" % tag, out)
        out = term.command("next", timeout=60)
        t.ok(out is not None, "%s: next ends (a step or another thread's hit)" % tag, out)
        term.command("delete")
        term.type("continue")
        cont = term.read_until(r"Continuing\.\n", 30)
        time.sleep(0.5)
        os.write(term.fd, b"\x03")
        stop = term.read_until(re.escape(PROMPT) + "$", 30)
        t.ok(cont is not None and stop is not None and re.search(r"received signal SIGINT", stop),
             "%s: Ctrl-C stops the kernel (\"received signal SIGINT\") and gives the prompt back"
             % tag, (cont, stop))
        t.ok(app.poll() is None, "%s: the application still runs (the kernel did not end)" % tag)
        out = term.command("info threads")
        t.ok(out is not None and re.search(r"ZE \d+\.\d+\.\d+\.\d+", out or ""),
             "%s: info threads after the interrupt" % tag, out)
        out = term.command("detach")
        t.ok(out is not None and "Detaching" in out and "rror" not in out,
             "%s: detach is clean" % tag, out)
        term.command("monitor exit", timeout=10)
        t.eq(h.wait_exit(app), 0, "%s: the application's exit status" % tag)
    finally:
        term.close()


for n in range(1, RUNS + 1):
    with h.guarded(t, "run %d" % n):
        one_run(n)
sys.exit(t.done())
