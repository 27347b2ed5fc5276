#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A damaged XPTI table must not hide a hang (issue 31, item 9).
examples/sycl_hang hangs in slm's barrier (GTSIM_CONFIG barrier_skip=1)
with our XPTI subscriber loaded; the test then damages the task records
of its table in place (the table is a memfd the application holds; this
process opens it through /proc/PID/fd, as any process of the same user
could), and `zestub dump --attach PID --on hang=1s` must still dump the
hang, with the deadline rule, saying that the table's task records
cannot be read. Two kinds of damage: every task's seqlock word left odd
(a writer that died mid-write), and a task's site index outside the
table. Before the fix both ended in "no hang within N s" (status 3)."""
import json
import mmap
import os
import re
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

zestub = os.path.join(h.top, "zestub")
libs = os.path.join(h.top, ".libs")
hung = h.gtsim_env("platform=xehpc,barrier_skip=1")
hung["ZET_ENABLE_PROGRAM_DEBUGGING"] = "1"
TRACED = dict(hung, XPTI_TRACE_ENABLE="1",
              XPTI_SUBSCRIBERS=os.path.join(libs, "libzestub_xpti.so"),
              XPTI_FRAMEWORK_DISPATCHER=os.path.join(libs, "libxptifw.so"))
# xpti/xtab_format.h: the header's task area and counter, a task record's
# seq (first word) and site (after seven words).
MAGIC = 0x3142415450585A5A
TASKS_AREA = 56       # struct xtab_area tasks: offset u64, record_size u32, capacity u32
TASK_TICKET = 120     # counters.task_ticket
SITE_IN_TASK = 56
DAMAGE = [("every task's seqlock word odd", "seq"), ("a task's site index out of range", "site")]
t = h.Tap(4 * len(DAMAGE))


def table_of(pid):
    """The application's XPTI table, mapped read-write."""
    fds = "/proc/%d/fd" % pid
    for fd in sorted(os.listdir(fds)):
        try:
            target = os.readlink(os.path.join(fds, fd))
        except OSError:
            continue
        if target.startswith("/memfd:zestub-xpti"):
            with open(os.path.join(fds, fd), "r+b") as f:
                m = mmap.mmap(f.fileno(), 0)
            if struct.unpack_from("<Q", m, 0)[0] == MAGIC:
                return m
            m.close()
    return None


def damage(m, how):
    """Damages every task slot in use; returns how many."""
    offset, size, capacity = struct.unpack_from("<QII", m, TASKS_AREA)
    used = min(struct.unpack_from("<Q", m, TASK_TICKET)[0], capacity)
    for i in range(used):
        rec = offset + i * size
        if how == "seq":
            seq = struct.unpack_from("<Q", m, rec)[0]
            struct.pack_into("<Q", m, rec, seq | 1)
        else:
            struct.pack_into("<I", m, rec + SITE_IN_TASK, capacity + 5)
    return used


for what, how in DAMAGE:
    with h.guarded(t, what):
        app, first = h.start_app(TRACED, "sycl_hang", ["--give-up", "90"],
                                 running="submit kernel slm")
        pid = int(re.search(r"pid (\d+)", first).group(1))
        try:
            m = table_of(pid)
            used = damage(m, how) if m else 0
            t.ok(used >= 1, "%s: %d task record(s) damaged in the live table" % (what, used))
            p = subprocess.run([zestub, "dump", "--attach", str(pid), "--on", "hang=1s",
                                "--timeout", "20", "--json", "-"], env=hung,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
            try:
                doc = json.loads(p.stdout)
            except ValueError:
                doc = {}
            t.ok(p.returncode == 6, "%s: the hang is dumped, status 6 (got %d)"
                 % (what, p.returncode), p.stderr[-1500:])
            t.ok((doc.get("hang") or {}).get("rule") == "deadline" and
                 len(doc.get("threads", [])) >= 1,
                 "%s: by the deadline rule, with the hung threads" % what, doc.get("hang"))
            t.ok("task record" in p.stderr and "cannot be read" in p.stderr and
                 "deadline rule instead" in p.stderr,
                 "%s: stderr says the table's tasks cannot be read" % what, p.stderr[-1500:])
        finally:
            app.kill()
            app.wait()
sys.exit(t.done())
