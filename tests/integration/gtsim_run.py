# SPDX-License-Identifier: MIT
"""Starting the pieces of an integration test: an application on gtsim,
zestub listening on a TCP port, and a GDB found on PATH or named by an
environment variable. Every process started here is killed by cleanup(),
so a failing test never leaves an application stopped behind it."""
import os
import re
import shutil
import subprocess
import tempfile
import time

top = os.environ.get("top_builddir", ".")
srcdir = os.environ.get("top_srcdir", ".")
_procs = []


def gtsim_env(config):
    env = dict(os.environ)
    env["ZE_ENABLE_ALT_DRIVERS"] = env["GTSIM_LIB"]
    env["GTSIM_CONFIG"] = config
    return env


def start_app(env, name="vadd", args=(), running=None):
    """Starts examples/NAME with program debugging on; returns (process,
    first line of its output). With `running`, also waits for the line
    that starts with it (vadd --print-buffers prints it once its kernel is
    submitted), so an attach finds the kernel running even on a loaded
    machine."""
    app_env = dict(env, ZET_ENABLE_PROGRAM_DEBUGGING="1")
    app = subprocess.Popen([os.path.join(top, "examples", name)] + list(args), env=app_env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    _procs.append(app)
    first = app.stdout.readline().decode(errors="replace")
    line = first
    while running and line and not line.startswith(running):
        line = app.stdout.readline().decode(errors="replace")
    return app, first


class Zestub:
    """zestub on 127.0.0.1:<free port>; stderr goes to a file."""

    def __init__(self, env, *args):
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([os.path.join(top, "zestub"), "--once", ":0"] + list(args),
                                     env=env, stdout=subprocess.DEVNULL, stderr=self.err)
        _procs.append(self.proc)
        self.port = None
        deadline = time.time() + 20
        while self.port is None and time.time() < deadline and self.proc.poll() is None:
            m = re.search(r"Listening on port (\d+)", self.stderr())
            if m:
                self.port = int(m.group(1))
            else:
                time.sleep(0.05)

    def stderr(self):
        self.err.flush()
        self.err.seek(0)
        return self.err.read().decode(errors="replace")

    def wait(self, timeout=20):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None


def wait_exit(proc, timeout=60):
    """The exit status, or None (and the process killed) after timeout."""
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


def gdb_batch(gdb, commands, timeout=90, extra=()):
    """Runs gdb -batch with one -ex per command; returns (status, output)."""
    argv = [gdb, "-nx", "-batch", "-iex", "set remotetimeout 20"] + list(extra)
    for c in commands:
        argv += ["-ex", c]
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode(errors="replace") + "\n<timeout>"


def cleanup():
    for p in _procs:
        if p.poll() is None:
            p.kill()
            p.wait()
