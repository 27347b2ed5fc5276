# SPDX-License-Identifier: MIT
"""What every integration test needs: an application on gtsim, zestub
serving it (on a TCP port, or over stdio with an RSP client attached), a
GDB found on PATH or named by an environment variable, the kernel fixtures,
and a guard that turns an exception into one failed check. Every process
started here is killed by cleanup(), so a failing test never leaves an
application stopped behind it. A test puts tests/lib on sys.path, imports
it first and takes Client and Tap from here too (rspclient.py, tap.py and
mi.py are its neighbours in tests/lib)."""
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

sys.dont_write_bytecode = True
import mi  # noqa: E402
from gdbpath import gdb_argv  # noqa: E402,F401
from rspclient import Client, decode_payload, escape, frame  # noqa: E402,F401
from scratch import scratch_dir  # noqa: E402,F401
from tap import Tap  # noqa: E402,F401

top = os.environ.get("top_builddir", ".")
srcdir = os.environ.get("top_srcdir", ".")
_procs = []

# What a client without the Intel GT extensions announces, and what Intel's
# GDB adds to it: in-memory libraries and their acknowledgement.
FEATURES = "qSupported:multiprocess+;swbreak+;vContSupported+;multi-address-space+;unavailable+"
INTEL = FEATURES + (";qXfer:libraries:read:in-memory-library+;vAck:library+;"
                    "vAck:in-memory-library+")


def gtsim_env(config):
    env = dict(os.environ)
    env["ZE_ENABLE_ALT_DRIVERS"] = env["GTSIM_LIB"]
    env["GTSIM_CONFIG"] = config
    return env


# The device most tests use: Xe-HPC with 2 subslices x 2 EUs x 4 threads,
# few enough threads to check each one; pace (instructions a second per
# thread) sets how long vadd's kernel runs.
SMALL_THREADS = 16


def small_device(pace):
    """The environment of an application on the small device."""
    return gtsim_env("platform=xehpc,subslices=2,eus=2,threads=4,pace=%d" % pace)


def fixture(name):
    """The bytes of tests/kernels/fixtures/NAME."""
    with open(os.path.join(srcdir, "tests", "kernels", "fixtures", name), "rb") as f:
        return f.read()


def line_of(path, needle):
    """The number of the first line of the source file PATH (from the top of
    the source tree) that contains needle: checks name the lines of
    kernels and examples without hard-coding numbers that edits move."""
    with open(os.path.join(srcdir, path)) as f:
        for n, text in enumerate(f, 1):
            if needle in text:
                return n
    raise LookupError(needle)


def launch(env, name="vadd", args=(), stdin=False, stdout=subprocess.PIPE):
    """Starts examples/NAME with program debugging on, its stderr merged
    into stdout (a pipe unless given). With `stdin`, the application reads
    a pipe (vadd --wait-before-load waits there for release())."""
    app = subprocess.Popen([os.path.join(top, "examples", name)] + list(args),
                           env=dict(env, ZET_ENABLE_PROGRAM_DEBUGGING="1"),
                           stdin=subprocess.PIPE if stdin else None, stdout=stdout,
                           stderr=subprocess.STDOUT)
    _procs.append(app)
    return app


def start_app(env, name="vadd", args=(), running=None, stdin=False):
    """launch(), then the first line of its output: returns (process,
    line). With `running`, also waits for the line that starts with it
    (vadd --print-buffers prints it once its kernel is submitted), so an
    attach finds the kernel running even on a loaded machine."""
    app = launch(env, name, args, stdin)
    first = app.stdout.readline().decode(errors="replace")
    line = first
    while running and line and not line.startswith(running):
        line = app.stdout.readline().decode(errors="replace")
    return app, first


def release(app):
    """Lets an application started with --wait-before-load go on."""
    app.stdin.write(b"go\n")
    app.stdin.flush()


class _Captured:
    """A child's stderr kept in a temporary file."""

    def __init__(self):
        self.err = tempfile.TemporaryFile()

    def stderr(self):
        self.err.flush()
        self.err.seek(0)
        return self.err.read().decode(errors="replace")


class Zestub(_Captured):
    """zestub [--once] COMM ARGS (COMM a free port of 127.0.0.1 unless
    given); stderr goes to a file. Waits until it listens: self.port is
    the TCP port (None for a Unix socket, or when it did not start)."""

    def __init__(self, env, *args, once=True, comm=":0"):
        super().__init__()
        argv = [os.path.join(top, "zestub")] + (["--once"] if once else []) + [comm]
        self.proc = subprocess.Popen(argv + list(args), env=env, stdout=subprocess.DEVNULL,
                                     stderr=self.err)
        _procs.append(self.proc)
        self.port = None
        self.listening = False
        deadline = time.time() + 20
        while not self.listening and time.time() < deadline and self.proc.poll() is None:
            m = re.search(r"Listening on (port (\d+)|\S+)", self.stderr())
            if m:
                self.listening = True
                self.port = int(m.group(2)) if m.group(2) else None
            else:
                time.sleep(0.05)

    def client(self, timeout=30):
        return Client.tcp(self.port, timeout=timeout)

    def wait(self, timeout=20):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None


class Stdio(_Captured):
    """zestub --once ARGS --multi - with an RSP client on its stdin and
    stdout (self.c). Its stderr is kept when keep_stderr, else dropped."""

    def __init__(self, env, args=(), timeout=20.0, keep_stderr=False):
        super().__init__()
        self.proc = subprocess.Popen([os.path.join(top, "zestub"), "--once"] + list(args) +
                                     ["--multi", "-"], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=self.err if keep_stderr else subprocess.DEVNULL,
                                     bufsize=0)
        _procs.append(self.proc)
        self.c = Client(self.proc.stdout.fileno(), self.proc.stdin.fileno(), timeout=timeout)

    def attach(self, pid, features=INTEL, timeout=30):
        """qSupported with the client's features, then vAttach: returns
        (qSupported reply, stop reply)."""
        reply = self.c.req(features)
        return reply, self.c.req("vAttach;%x" % pid, timeout=timeout)

    def end_stream(self):
        """The end of the client's stream: zestub --once ends."""
        self.proc.stdin.close()

    def close(self, timeout=10):
        """Hangs up; zestub's exit status, or None (and killed) after
        timeout."""
        self.c.close()
        self.end_stream()
        return wait_exit(self.proc, timeout)


def wait_exit(proc, timeout=180):
    """The exit status, or None (and the process killed) after timeout.
    The default leaves room for a slow kernel on a loaded machine: vadd at
    pace 5 needs about a minute on 16 threads, and CI runs two suites at
    once."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


def find_gdb(var=None):
    """The GDB to run: $var when given and set, else gdb on PATH (or None)."""
    if var:
        return os.environ.get(var) or None
    return shutil.which("gdb")


def gdb_or_skip(var=None, why="gdb is not installed"):
    """find_gdb, or the whole test skipped (a TAP plan of 0) when there is
    none."""
    gdb = find_gdb(var)
    if not gdb:
        print("1..0 # SKIP " + why)
        sys.exit(0)
    return gdb


def intel_gdb():
    """Intel's GDB as $INTELGT_GDB names it, or the test skipped: CI does
    not have it."""
    return gdb_or_skip("INTELGT_GDB", "INTELGT_GDB is not set (Intel's GDB is not available)")


@contextlib.contextmanager
def mi_session(t, what, gdb):
    """guarded() around a gdb -i=mi session (tests/lib/mi.py),
    which it yields; a failure shows the session's last records."""
    s = None
    with guarded(t, what, lambda: s.records[-5:] if s else None):
        s = mi.GDB(gdb)
        _procs.append(s.proc)
        yield s


def gdb_batch(gdb, commands, timeout=90, extra=()):
    """Runs gdb -batch with one -ex per command; returns (status, output)."""
    argv = gdb_argv(gdb) + ["-nx", "-batch", "-iex", "set remotetimeout 20"] + list(extra)
    for c in commands:
        argv += ["-ex", c]
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode(errors="replace") + "\n<timeout>"


@contextlib.contextmanager
def guarded(t, what, detail=None):
    """Runs the with-block; an exception in it becomes one failed check
    (WHAT: the error, with detail() or the traceback) so that the plan is
    still printed. Every process started so far is killed afterwards."""
    try:
        yield
    except Exception as e:  # report, then go on to the plan
        t.ok(False, "%s: %r" % (what, e), detail() if detail else traceback.format_exc())
    finally:
        cleanup()


def cleanup():
    for p in _procs:
        if p.poll() is None:
            p.kill()
            p.wait()
