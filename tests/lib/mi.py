# SPDX-License-Identifier: MIT
"""A GDB/MI driver and a strict parser of MI output records (the grammar of
the GDB manual's "GDB/MI Output Syntax"), so tests can both drive a GDB the
way IDE front ends do and check that every line it printed is well formed.
Python 3 stdlib only."""
import queue
import subprocess
import threading
import time

from gdbpath import gdb_argv  # noqa: E402


class MIError(Exception):
    pass


def _cstring(s, i):
    if i >= len(s) or s[i] != '"':
        raise MIError("expected a C string at %d" % i)
    i += 1
    out = []
    while i < len(s):
        ch = s[i]
        if ch == "\\":
            if i + 1 >= len(s):
                raise MIError("dangling escape")
            esc = s[i + 1]
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(esc, "\\" + esc))
            i += 2
        elif ch == '"':
            return "".join(out), i + 1
        else:
            out.append(ch)
            i += 1
    raise MIError("unterminated C string")


def _variable(s, i):
    j = i
    while j < len(s) and (s[j].isalnum() or s[j] in "-_"):
        j += 1
    if j == i:
        raise MIError("expected a variable name at %d" % i)
    return s[i:j], j


def _result(s, i):
    """variable=value at i -> (variable, value, index after it)."""
    k, i = _variable(s, i)
    if i >= len(s) or s[i] != "=":
        raise MIError("expected '=' at %d" % i)
    v, i = _value(s, i + 1)
    return k, v, i


def _items(s, i, close, item):
    """item(s, i) -> (value, index) repeated, separated by ',' up to the
    closing character: ([values], index after it)."""
    out = []
    while True:
        v, i = item(s, i)
        out.append(v)
        if i < len(s) and s[i] == ",":
            i += 1
        elif i < len(s) and s[i] == close:
            return out, i + 1
        else:
            raise MIError("expected ',' or '%s' at %d" % (close, i))


def _pair(s, i):
    k, v, i = _result(s, i)
    return (k, v), i


def _element(s, i):
    if i < len(s) and s[i] in '"{[':
        return _value(s, i)
    _, v, i = _result(s, i)  # a list of results: keep the values
    return v, i


def _value(s, i):
    if i >= len(s):
        raise MIError("expected a value")
    if s[i] == '"':
        return _cstring(s, i)
    if s[i] == "{":
        if s.startswith("{}", i):
            return {}, i + 2
        pairs, i = _items(s, i + 1, "}", _pair)
        return dict(pairs), i
    if s[i] == "[":
        if s.startswith("[]", i):
            return [], i + 2
        return _items(s, i + 1, "]", _element)
    raise MIError("bad value at %d" % i)


def parse(line):
    """One output line -> (kind, token, class, results). kind is one of
    '^' '*' '+' '=' (records), '~' '@' '&' (streams, class = the text) or
    '(gdb)'. Raises MIError when the line is not well-formed MI."""
    if line.strip() == "(gdb)":
        return "(gdb)", None, None, {}
    i = 0
    while i < len(line) and line[i].isdigit():
        i += 1
    token = int(line[:i]) if i else None
    if i >= len(line):
        raise MIError("empty record")
    kind = line[i]
    if kind in "~@&":
        if token is not None:
            raise MIError("a stream record has no token")
        text, j = _cstring(line, i + 1)
        if j != len(line):
            raise MIError("junk after a stream record")
        return kind, None, text, {}
    if kind not in "^*+=":
        raise MIError("unknown record type %r" % kind)
    j = i + 1
    while j < len(line) and (line[j].isalnum() or line[j] in "-_"):
        j += 1
    cls = line[i + 1:j]
    if not cls:
        raise MIError("record without a class")
    results = {}
    while j < len(line):
        if line[j] != ",":
            raise MIError("expected ',' at %d" % j)
        k, v, j = _result(line, j + 1)
        results[k] = v
    return kind, token, cls, results


class GDB:
    """gdb -i=mi as a child process. Every line read is parsed; lines that
    do not parse are kept in self.malformed."""

    def __init__(self, gdb, env=None):
        # stderr is not MI (start-up warnings of a GDB build go there): it
        # must not count against the records.
        self.proc = subprocess.Popen(gdb_argv(gdb) + ["-nx", "-q", "-i=mi"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.lines = queue.Queue()
        self.records = []  # every parsed record, in order
        self.malformed = []
        self.token = 0
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        for raw in self.proc.stdout:
            self.lines.put(raw.decode(errors="replace").rstrip("\r\n"))
        self.lines.put(None)

    def _next(self, deadline):
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.time()))
        except queue.Empty:
            return False
        if line is None:
            raise MIError("gdb exited")
        try:
            self.records.append(parse(line))
        except MIError as e:
            self.malformed.append((line, str(e)))
        return True

    def command(self, text, timeout=60):
        """Sends one command; returns its result record (class, results)."""
        self.token += 1
        tok = self.token
        start = len(self.records)
        self.proc.stdin.write(b"%d%s\n" % (tok, text.encode()))
        self.proc.stdin.flush()
        deadline = time.time() + timeout
        while time.time() < deadline:
            if not self._next(deadline):
                break
            for r in self.records[start:]:
                if r[0] == "^" and r[1] == tok:
                    return r[2], r[3]
        raise MIError("no result for %r" % text)

    def wait_async(self, kind, cls, since=0, timeout=60):
        """The first record of kind and class at or after index since."""
        deadline = time.time() + timeout
        while True:
            for r in self.records[since:]:
                if r[0] == kind and r[2] == cls:
                    return r[3]
            if time.time() >= deadline or not self._next(deadline):
                raise MIError("no %s%s record" % (kind, cls))

    def console(self, cmd, timeout=60):
        """A CLI command through -interpreter-exec; returns (result class,
        the console text it printed, then its error message if any)."""
        mark = len(self.records)
        cls, res = self.command('-interpreter-exec console "%s"' % cmd.replace('"', '\\"'),
                                timeout)
        text = "".join(r[2] for r in self.records[mark:] if r[0] == "~")
        return cls, text + res.get("msg", "")

    def detach(self):
        """Detaches the inferior attached first ("detach inferiors 1"; a
        plain "detach" where GDB refuses that form); returns console()'s
        (class, text)."""
        cls, text = self.console("detach inferiors 1")
        if cls != "done":
            cls, text = self.console("detach")
        return cls, text

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
