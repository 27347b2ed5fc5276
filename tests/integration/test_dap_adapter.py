#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Eclipse CDT's debug adapter (cdt-gdb-adapter, what VS Code extensions
use) over the Debug Adapter Protocol against zestub and vadd on gtsim:
initialize, attach (gdbtarget, target remote), threads, pause (stopped as
SIGINT, never SIGTRAP), stackTrace, readMemory at the PC, evaluate
`>monitor threads`, continue, disconnect, and the application finishes.
Runs only where node and the adapter are present: $CDT_GDB_ADAPTER names
its dist/debugTargetAdapter.js, or node finds the package (NODE_PATH, or
node_modules in the build or source tree). Skipped otherwise: the test
never fetches anything."""
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402


def find_adapter():
    path = os.environ.get("CDT_GDB_ADAPTER")
    if path:
        return path if os.path.exists(path) else None
    node = shutil.which("node")
    if not node:
        return None
    paths = [os.path.join(d, "node_modules") for d in (h.top, h.srcdir)]
    r = subprocess.run([node, "-e", "console.log(require.resolve("
                        "'cdt-gdb-adapter/dist/debugTargetAdapter.js', {paths: %s}))"
                        % json.dumps(paths + os.environ.get("NODE_PATH", "").split(":"))],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return r.stdout.decode().strip() or None if r.returncode == 0 else None


gdb = h.gdb_or_skip()
adapter = find_adapter()
if not adapter or not shutil.which("node"):
    print("1..0 # SKIP node or cdt-gdb-adapter is not installed (set CDT_GDB_ADAPTER)")
    sys.exit(0)


class DAP:
    """A DAP client over the adapter's stdin/stdout."""

    def __init__(self):
        self.proc = subprocess.Popen(["node", adapter], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        h._procs.append(self.proc)
        self.seq = 0
        self.msgs = queue.Queue()
        self.events = []
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        f = self.proc.stdout
        while True:
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                c = f.read(1)
                if not c:
                    return
                head += c
            n = int([ln for ln in head.decode().split("\r\n")
                     if ln.lower().startswith("content-length")][0].split(":")[1])
            self.msgs.put(json.loads(f.read(n)))

    def _next(self, deadline):
        m = self.msgs.get(timeout=max(0.01, deadline - time.time()))
        if m.get("type") == "event":
            self.events.append(m)
        return m

    def request(self, command, args=None, timeout=60):
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command,
                           "arguments": args or {}}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.proc.stdin.flush()
        deadline = time.time() + timeout
        while True:
            m = self._next(deadline)
            if m.get("type") == "response" and m.get("request_seq") == self.seq:
                return m

    def event(self, name, since=0, timeout=60):
        deadline = time.time() + timeout
        while True:
            for e in self.events[since:]:
                if e.get("event") == name:
                    return e
            self._next(deadline)


    def output(self, since, words, timeout=30):
        """The output events' text since index since, once it holds every
        word (the adapter sends a command's output after its response)."""
        deadline = time.time() + timeout
        while True:
            text = "".join(e.get("body", {}).get("output", "") for e in self.events[since:]
                           if e.get("event") == "output")
            if all(w in text for w in words) or time.time() >= deadline:
                return text
            try:
                self._next(deadline)
            except queue.Empty:
                return text


env = h.small_device(5)
t = h.Tap(10)
with h.guarded(t, "DAP session"):
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    srv = h.Zestub(env, "--attach", str(app.pid))
    d = DAP()
    r = d.request("initialize", {"adapterID": "gdbtarget", "linesStartAt1": True,
                                 "columnsStartAt1": True, "pathFormat": "path"})
    t.ok(r.get("success"), "initialize", r)
    r = d.request("attach", {"gdb": gdb, "preConnectCommands": ["set remotetimeout 60"],
                             "target": {"type": "remote", "host": "127.0.0.1",
                                        "port": str(srv.port)}}, timeout=120)
    t.ok(r.get("success"), "attach (gdbtarget, target remote)", r)
    d.event("initialized")
    d.request("configurationDone")
    # GDB lists the threads once the attach has settled: ask until it does.
    deadline = time.time() + 30
    while True:
        r = d.request("threads")
        threads = r.get("body", {}).get("threads", [])
        if len(threads) >= h.SMALL_THREADS or time.time() >= deadline:
            break
        time.sleep(0.2)
    t.eq(len(threads), h.SMALL_THREADS, "threads: every hardware thread")
    if not d.request("continue", {"threadId": threads[0]["id"] if threads else 1}).get("success"):
        t.diag("continue before pause was refused (already running?)")
    time.sleep(1.0)
    mark = len(d.events)
    r = d.request("pause", {"threadId": threads[0]["id"] if threads else 1})
    stopped = d.event("stopped", mark, timeout=60)
    reason = stopped.get("body", {}).get("reason")
    t.ok(r.get("success") and reason in ("SIGINT", "pause"),
         "pause: stopped as a pause (reason %s), not SIGTRAP" % reason, stopped)
    tid = stopped.get("body", {}).get("threadId", threads[0]["id"] if threads else 1)
    r = d.request("stackTrace", {"threadId": tid})
    frames = r.get("body", {}).get("stackFrames", [])
    t.ok(r.get("success") and frames, "stackTrace of the stopped thread", r)
    pc = frames[0].get("instructionPointerReference") if frames else None
    r = d.request("readMemory", {"memoryReference": pc or "$pc", "count": 16})
    t.ok(r.get("success") and r.get("body", {}).get("data"), "readMemory at the PC", r)
    mark = len(d.events)
    r = d.request("evaluate", {"expression": ">monitor threads", "context": "repl",
                               "frameId": frames[0]["id"] if frames else 0})
    out = d.output(mark, ("threads", "stopped"))
    t.ok(r.get("success") and "threads" in out and "stopped" in out,
         "evaluate '>monitor threads' in the debug console", [r, out[:400]])
    r = d.request("continue", {"threadId": tid})
    t.ok(r.get("success"), "continue", r)
    r = d.request("disconnect", {}, timeout=60)
    t.ok(r.get("success"), "disconnect", r)
    t.eq(h.wait_exit(app), 0, "the application finishes")
sys.exit(t.done())
