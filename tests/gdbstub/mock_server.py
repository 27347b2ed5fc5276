# SPDX-License-Identifier: MIT
"""tests/gdbstub/rsp_mock_server in a child process, with an RSP client
(tests/lib/rspclient.py) connected to it: what the gdbstub tests talk to."""

import os
import subprocess
import tempfile

from rspclient import Client, RSPError


def server_path():
    return os.path.join(os.environ.get("top_builddir", "."), "tests", "gdbstub", "rsp_mock_server")


class Server:
    """rsp_mock_server in a child process; stderr goes to an unnamed temp
    file, so nothing is left in /tmp by a test that never calls stop()."""

    def __init__(self, *args, comm=None):
        self.errf = tempfile.TemporaryFile()
        argv = [server_path()] + list(args)
        if comm:
            argv.append(comm)
        stdio = comm == "-"
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE if stdio else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=self.errf, bufsize=0)
        if stdio:
            self.client = Client(self.proc.stdout.fileno(), self.proc.stdin.fileno())
            self.where = "-"
        else:
            line = self.proc.stdout.readline().decode().strip()
            if not line.startswith("listening on "):
                raise RSPError("server did not start: %r %s" % (line, self.stderr()))
            self.where = line[len("listening on "):]

    def connect(self):
        if self.where == "-":
            return self.client
        if self.where.isdigit():
            return Client.tcp(int(self.where))
        return Client.unix(self.where)

    def stderr(self):
        self.errf.flush()
        return os.pread(self.errf.fileno(), 1 << 24, 0).decode(errors="replace")

    def wait(self, timeout=5):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def sanitizer_clean(self):
        """No AddressSanitizer/UBSan report in the server's stderr."""
        err = self.stderr()
        return not any(k in err for k in ("AddressSanitizer", "runtime error:",
                                           "LeakSanitizer")), err

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f:
                f.close()
        self.errf.close()
