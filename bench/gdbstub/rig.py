# SPDX-License-Identifier: MIT
"""The processes a measurement needs: examples/vadd running on gtsim and
zestub serving it over loopback TCP.

Both load gtsim with the same GTSIM_CONFIG (gtsim refuses an attach to a
device of another shape). Everything started here is killed on every way
out, exceptions included: zestub first, because gtsim resumes the threads
of a debugger that dies, so the application is never left stopped."""

import os
import re
import subprocess
import threading
import time

from fastwire import FastClient

# Intel's dialect: a client that says this gets thread ids per device,
# target descriptions with <device> and expedited registers.
QSUPPORTED = "qSupported:multiprocess+;swbreak+;vContSupported+;multi-address-space+;unavailable+"


class RigError(Exception):
    pass


class Where:
    """What both processes must agree on: the build, the simulated device
    and gtsim's runtime directory. The directory is the benchmark's own,
    so the sockets of applications it kills do not pile up in /tmp."""

    def __init__(self, builddir, config, rundir):
        self.builddir, self.config, self.rundir = builddir, config, rundir

    def env(self):
        env = dict(os.environ)
        env["ZE_ENABLE_ALT_DRIVERS"] = os.path.join(self.builddir, ".libs", "libze_gtsim.so")
        env["GTSIM_CONFIG"] = self.config
        env["GTSIM_RUNTIME_DIR"] = self.rundir
        return env


class App:
    """vadd with program debugging on and --print-buffers; returns once its
    kernel is submitted (gtsim's pace keeps it running for the whole
    benchmark). `pattern` and `pattern_bytes` name its device buffer whose
    byte i is i mod 256: every byte the protocol escapes, at a known place."""

    def __init__(self, where, settle=0.3, args=()):
        env = dict(where.env(), ZET_ENABLE_PROGRAM_DEBUGGING="1")
        self.proc = subprocess.Popen(
            [os.path.join(where.builddir, "examples", "vadd"), "--print-buffers", *args], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid
        first = self.proc.stdout.readline().decode(errors="replace")
        line = self.proc.stdout.readline().decode(errors="replace")
        m = re.match(r"buffers: .*pattern=0x([0-9a-f]+) pattern_bytes=(\d+)", line)
        if not first.startswith("device:") or not m:
            self.kill()
            raise RigError("vadd did not start: %r %r" % (first, line))
        self.pattern, self.pattern_bytes = int(m.group(1), 16), int(m.group(2))
        # The line comes right after the submission: let gtsim dispatch the
        # threads, so an attach finds them running.
        time.sleep(settle)
        if self.proc.poll() is not None:
            self.kill()
            raise RigError("vadd ended early (exit %s): pace too fast?" % self.proc.returncode)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()


class Server:
    """`zestub --once --multi :0` with stderr collected by a thread (the
    listening port is its first line). With log_path, stderr goes to that
    file instead and is read back after the run: a --log-level debug run
    writes a line per stop, and a Python reader thread taking the GIL for
    each would compete with the client being timed. `argv` runs another
    server instead (Intel's gdbserver in scale.py): it must listen on a
    port it prints as "Listening on port N", as gdbserver does for port 0."""

    def __init__(self, where, timeout, args=(), log_path=None, argv=None):
        self.log_path = log_path
        self.log_file = open(log_path, "wb") if log_path else None
        if argv is None:
            argv = [os.path.join(where.builddir, "zestub"), "--once", *args, "--multi", ":0"]
        self.name = os.path.basename(argv[0])
        self.proc = subprocess.Popen(
            argv, env=where.env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self.log_file or subprocess.PIPE)
        self.lines = []
        self.port = None
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._drain if not log_path else self._poll_log,
                                       daemon=True)
        self.reader.start()
        self.client = None
        if not self.ready.wait(30) or self.port is None:
            self.kill()
            raise RigError("%s did not listen: %s" % (self.name, self.stderr()))
        self.client = FastClient.tcp(self.port, timeout=timeout)

    def _port_line(self, line):
        m = re.match(r"Listening on port (\d+)$", line)
        if m and self.port is None:
            self.port = int(m.group(1))
            self.ready.set()

    def _drain(self):
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            self.lines.append(line)
            self._port_line(line)
        self.ready.set()

    def _poll_log(self):
        """Until the port line shows up in the log file (or zestub ends)."""
        while self.proc.poll() is None:
            with open(self.log_path, "rb") as f:
                for raw in f.read().splitlines():
                    self._port_line(raw.decode(errors="replace"))
            if self.port is not None:
                break
            time.sleep(0.01)
        self.ready.set()

    def log_lines(self):
        """zestub's stderr so far, from the file or the reader thread."""
        if not self.log_path:
            return list(self.lines)
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace").splitlines()

    def stderr(self):
        return "\n".join(self.log_lines()[-20:])

    def hello(self, features=QSUPPORTED):
        """What GDB sends before anything else, then no-ack mode as GDB
        uses over TCP, so every figure is without acks."""
        c = self.client
        r = c.req(features)
        m = re.search(r"PacketSize=([0-9a-fA-F]+)", r)
        if not m:
            raise RigError("qSupported without PacketSize: %r" % r)
        if c.start_noack() != "OK":
            raise RigError("QStartNoAckMode refused")
        if c.req("!") != "OK":
            raise RigError("extended mode refused")
        return int(m.group(1), 16)

    def detach_and_close(self, pid=1):
        """Leaves the application running: detach, then the end of the
        connection ends the server (--once). zestub's process is 1; Intel's
        gdbserver names a device by a pid of its own (its stop replies')."""
        try:
            if self.client:
                self.client.req("D;%x" % pid)
        finally:
            self.kill()

    def kill(self, grace=10):
        if self.client:
            self.client.close()
            self.client = None
        try:
            self.proc.wait(grace)
        except subprocess.TimeoutExpired:
            pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(5)
        if self.log_file:
            self.log_file.close()
        else:
            self.proc.stderr.close()
