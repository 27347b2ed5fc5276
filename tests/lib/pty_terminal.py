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


# A match is searched for only in the text that came since the last
# search plus this many characters before it: the patterns looked for (a
# prompt, a stop line) are short. Searching the whole text on every read
# made a long listing (8,192 `info threads` rows, read a row at a time)
# quadratic: tens of seconds of the reader's own CPU, which a benchmark on
# two cores then counted against the server it measured.
OVERLAP = 4096


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
        rx = re.compile(pattern)
        done = []  # text already searched, apart from the last OVERLAP
        tail = self.text
        while True:
            m = rx.search(tail)
            if m:
                got = "".join(done) + tail[:m.end()]
                self.text = tail[m.end():]
                return got
            if len(tail) > OVERLAP:
                done.append(tail[:-OVERLAP])
                tail = tail[-OVERLAP:]
            left = deadline - time.monotonic()
            if left <= 0:
                self.text = "".join(done) + tail
                return None
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    data = os.read(self.fd, 1 << 20)
                except OSError:
                    data = b""
                if not data:
                    self.text = "".join(done) + tail
                    return None
                tail += data.decode("utf-8", "replace").replace("\r", "")

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
