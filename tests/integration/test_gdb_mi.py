#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A GDB/MI session (stock GDB with -i=mi, as IDE debug adapters drive it)
against zestub and a real application on gtsim: connect, thread list,
memory at the PC, continue, interrupt, detach. Every line GDB prints must
be well-formed MI, and the stopped / running / thread-group records must
carry what a front end needs (thread ids, stopped-threads, group ids)."""
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402
import mi  # noqa: E402

gdb = h.gdb_or_skip()
# 16 threads at 5 instructions per second: the kernel runs for several
# seconds, long enough to be continued and interrupted.
env = h.small_device(5)
kernel_elf = h.fixture("vadd-xehpc.elf")
t = h.Tap(23)  # the plan: every check this test makes
with h.mi_session(t, "MI session", gdb) as s:
    app, line = h.start_app(env, args=["--print-buffers"], running="buffers:")
    t.ok(line.startswith("device:"), "the application started", line)
    srv = h.Zestub(env, "--attach", str(app.pid))
    cls, _ = s.command("-gdb-set remotetimeout 20")
    t.eq(cls, "done", "-gdb-set")
    # IDE adapters run MI asynchronously, so that -exec-interrupt is read
    # while the target runs.
    cls, _ = s.command("-gdb-set mi-async on")
    t.eq(cls, "done", "-gdb-set mi-async on")
    mark = len(s.records)
    cls, res = s.command("-target-select remote :%d" % srv.port)
    t.ok(cls == "connected", "-target-select remote -> ^connected", res)
    started = s.wait_async("=", "thread-group-started", mark)
    t.ok(started.get("id") == "i1" and started.get("pid") == "1",
         "=thread-group-started names the group and the device process", started)
    stopped = s.wait_async("*", "stopped", mark)
    t.ok("thread-id" in stopped and stopped.get("stopped-threads") == "all"
         and "addr" in stopped.get("frame", {}),
         "*stopped after connect: thread-id, stopped-threads=all, a frame", stopped)
    created = [r for r in s.records if r[0] == "=" and r[2] == "thread-created"]
    t.eq(len(created), h.SMALL_THREADS, "=thread-created for every hardware thread")

    cls, res = s.command("-thread-info")
    threads = res.get("threads", [])
    t.ok(cls == "done" and len(threads) == h.SMALL_THREADS,
         "-thread-info lists %d threads" % h.SMALL_THREADS, len(threads))
    t.ok(all(th.get("state") == "stopped" and "frame" in th for th in threads),
         "every thread is stopped with a frame", threads[:1])
    t.ok("current-thread-id" in res, "-thread-info names the current thread")

    cls, res = s.command("-data-read-memory-bytes $pc 16")
    mem = res.get("memory", [{}])
    code = bytes.fromhex(mem[0].get("contents", "")) if cls == "done" and mem else b""
    t.ok(len(code) == 16 and code in kernel_elf,
         "-data-read-memory-bytes at $pc returns code of the vadd kernel", res)
    cls, res = s.command("-data-read-memory-bytes 0x10 4")
    t.eq(cls, "error", "memory outside every allocation -> ^error")

    cls, res = s.command('-interpreter-exec console "monitor help"')
    t.eq(cls, "done", "monitor help through -interpreter-exec")

    mark = len(s.records)
    cls, _ = s.command("-exec-continue")
    t.eq(cls, "running", "-exec-continue -> ^running")
    running = s.wait_async("*", "running", mark)
    t.eq(running.get("thread-id"), "all", "*running,thread-id=\"all\" (all-stop)")
    time.sleep(0.5)
    mark = len(s.records)
    cls, _ = s.command("-exec-interrupt")
    t.eq(cls, "done", "-exec-interrupt -> ^done")
    try:
        stopped = s.wait_async("*", "stopped", mark, timeout=30)
    except mi.MIError as e:
        stopped = {"error": str(e)}
    t.ok("thread-id" in stopped and stopped.get("stopped-threads") == "all",
         "*stopped after the interrupt names a thread", [stopped, srv.stderr()[-3000:]])

    mark = len(s.records)
    cls, _ = s.command("-target-detach")
    t.eq(cls, "done", "-target-detach -> ^done")
    exited = s.wait_async("=", "thread-group-exited", mark, timeout=10)
    t.eq(exited.get("id"), "i1", "=thread-group-exited,id=\"i1\"")
    cls, _ = s.command("-gdb-exit")
    t.eq(cls, "exit", "-gdb-exit -> ^exit")
    t.eq(h.wait_exit(app), 0, "the application finishes after detach")
    t.eq(srv.wait(), 0, "zestub exits 0")
    t.eq(s.malformed, [], "every line GDB printed is well-formed MI (%d records)" % len(s.records))
sys.exit(t.done())
