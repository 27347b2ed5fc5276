#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A dump with --json and --core reads each register set of each thread
once (issue 30): the records and the core take their registers from one
pass. Counted twice: by zestub's own count of zetDebugReadRegisters calls
(the document's stats.zet_calls.read_registers), and by gtsim's call
counter (GTSIM_FAULTS=read_registers:after=N fails every call after the
Nth: with N the expected count nothing fails, with N-1 one read does).
The register sets per thread are measured by a dump without a core, which
reads each set of each thread once for its records. The JSON document's
sets are read ahead of the records by several host threads
(report/pass_ahead.c, ZESTUB_DUMP_READERS): with 4 readers and with none
the calls and the records' shape are the same."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

t = h.Tap(8)  # the plan
zestub = os.path.join(h.top, "zestub")
tmp = h.scratch_dir(prefix="zestub-regreads-")
env = h.small_device(1)  # vadd runs for minutes: every thread stays in the kernel


def dump(app, name, core, faults=None, readers=None):
    """zestub dump --on now --registers all --json NAME [--core]: (status,
    document or None, stderr)."""
    path = os.path.join(tmp, name)
    args = [zestub, "dump", "--attach", str(app.pid), "--on", "now", "--registers", "all",
            "--json", path]
    if core:
        args += ["--core", os.path.join(tmp, name + ".core")]
    e = dict(env, GTSIM_FAULTS=faults) if faults else dict(env)
    if readers is not None:
        e["ZESTUB_DUMP_READERS"] = str(readers)
    p = subprocess.run(args, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    doc = json.load(open(path)) if os.path.exists(path) else None
    return p.returncode, doc, p.stderr.decode(errors="replace")


def reads(doc):
    return doc["stats"]["zet_calls"]["read_registers"], len(doc["threads"])


def shape(doc):
    """Each record's thread, place and the names of the registers it has a
    value for (values change between dumps: the kernel runs on between)."""
    return [(r["thread"], r["state"], r.get("line"),
             sorted(k for k, v in (r.get("registers") or {}).items() if v is not None))
            for r in doc["threads"]]


with h.guarded(t, "register reads of a dump with --json and --core"):
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    time.sleep(0.3)
    rc, plain, err = dump(app, "plain.json", core=False)
    calls, n = reads(plain)
    sets, extra = divmod(calls, n) if n else (0, 0)
    t.ok(rc == 0 and n == h.SMALL_THREADS and sets >= 2 and extra < n,
         "without a core: %d calls for %d threads, %d register sets a thread" % (calls, n, sets),
         err)
    rc, both, err = dump(app, "both.json", core=True)
    calls_b, n_b = reads(both)
    t.ok(rc == 0 and "core written" in err and n_b == n, "with --core: the dump and the core", err)
    t.ok(calls_b == n_b * sets + extra,
         "with --core: %d calls = %d threads x %d sets (+%d), each set of each thread read once"
         % (calls_b, n_b, sets, extra), both["stats"])
    # gtsim counts the same calls: N allowed, all succeed; N-1, one fails.
    rc, doc, err = dump(app, "exact.json", core=True, faults="read_registers:after=%d" % calls_b)
    t.ok(rc == 0 and "unreadable registers" not in err and "could not all be read" not in err,
         "gtsim: %d read_registers calls suffice" % calls_b, err)
    rc, doc, err = dump(app, "short.json", core=True,
                        faults="read_registers:after=%d" % (calls_b - 1))
    t.ok("unreadable registers" in err or "could not all be read" in err,
         "gtsim: %d calls do not (one set of one thread is then missing)" % (calls_b - 1), err)
    rc0, none, err0 = dump(app, "none.json", core=False, readers=0)
    rc4, four, err4 = dump(app, "four.json", core=False, readers=4)
    t.ok(rc0 == 0 and rc4 == 0 and reads(none) == reads(four) == (calls, n),
         "readers ahead (4) and none: the same %d calls for %d threads" % (calls, n),
         "%s %s %s %s" % (none and reads(none), four and reads(four), err0, err4))
    t.ok(none and four and shape(none) == shape(four) and
         all(len(x[3]) > 0 for x in shape(four)),
         "the same records, every register of every record read, either way",
         json.dumps(four["threads"][:1] if four else None)[:400])
    t.ok(os.path.exists(os.path.join(tmp, "both.json.core")) and
         not os.path.exists(os.path.join(tmp, "both.json.core.partial")),
         "the core is in place, no .partial left")
    app.kill()
