# SPDX-License-Identifier: MIT
"""A program (GDB) on the slave side of a pseudo-terminal, its controlling
terminal, so the byte 0x03 becomes SIGINT as at a real one, and its output
read up to a pattern: the interactive GDB a person runs, for the tests and
benchmarks that must see what that person sees."""
import os
import pty
import re
import select
import signal
import time

PROMPT = "(gdb) "


class Terminal:
    def __init__(self, argv, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(argv[0], argv, env)
        self.text = ""

    def read_until(self, pattern, timeout):
        """The text up to the end of the first match of pattern (the text
        after it is kept for the next call); None on timeout or EOF."""
        deadline = time.monotonic() + timeout
        while True:
            m = re.search(pattern, self.text)
            if m:
                got, self.text = self.text[:m.end()], self.text[m.end():]
                return got
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    data = os.read(self.fd, 1 << 20)
                except OSError:
                    return None
                if not data:
                    return None
                self.text += data.decode("utf-8", "replace").replace("\r", "")

    def type(self, line):
        os.write(self.fd, line.encode() + b"\n")

    def command(self, line, timeout=60):
        """Types a command; its output up to the next GDB prompt (None on
        timeout)."""
        self.type(line)
        return self.read_until(re.escape(PROMPT) + "$", timeout)

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)
