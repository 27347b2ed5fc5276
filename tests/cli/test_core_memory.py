#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a GPU core holds besides registers and code, and the options that
choose it (doc/core-format.md, "Memory" and "Options"), on gtsim:
- with the application's XPTI table, its live allocations, each byte what
  the debug server reads there (read over RSP before the dump);
- without a table, the readable memory next to the fault;
- --core-memory as a budget (what it leaves out is said), 0 and
  --core-light write no memory, --core-threads N writes N threads,
  --core-size bounds the whole file (threads beyond it left out);
- the SLM of the first thread's work-group in its own segment at
  0x10000000, what the server reads there for that thread (m...@1);
- a core of an earlier run is removed even when this run writes none; a
  core that cannot be written is exit status 7 (also in the JSON);
- `monitor core FILE` through the GDB server, and its errors."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

t = h.Tap(5 + 3 + 2 + 2 + 2 + 2 + 3 + 5 + 2 + 5 + 2 + 5)  # the plan
zestub = os.path.join(h.top, "zestub")
reader = os.path.join(h.top, "tests", "cli", "core_check")
tmp = h.scratch_dir()
PF_W = 2
PAGE = 4096
SLM_BASE = 1 << 28  # SLM offset 0, as the debug API and Intel's GDB address it


def traced(env):
    return dict(env, XPTI_TRACE_ENABLE="1",
                XPTI_SUBSCRIBERS=os.path.join(h.top, ".libs", "libzestub_xpti.so"),
                XPTI_FRAMEWORK_DISPATCHER=os.path.join(h.top, ".libs", "libxptifw.so"))


def segments(path):
    """(flags, vaddr, bytes) of every PT_LOAD of a core."""
    with open(path, "rb") as f:
        data = f.read()
    out = []
    if data[:4] != b"\x7fELF":
        return out
    phoff, = struct.unpack_from("<Q", data, 32)
    phnum, = struct.unpack_from("<H", data, 56)
    for i in range(phnum):
        p_type, p_flags, p_off, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data,
                                                                          phoff + 56 * i)
        if p_type == 1:
            out.append((p_flags, p_vaddr, data[p_off:p_off + p_filesz]))
    return out


def memory(path):
    """The device memory segments (the SLM one apart)."""
    return [(a, b) for fl, a, b in segments(path) if fl & PF_W and a != SLM_BASE]


def slm(path):
    """The SLM segment's bytes, or None."""
    got = [b for fl, a, b in segments(path) if fl & PF_W and a == SLM_BASE]
    return got[0] if len(got) == 1 else None


def dump(pid, env, *args):
    return subprocess.run([zestub, "dump", "--attach", str(pid), "--timeout", "60"] + list(args),
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)


def checked(core, *args):
    p = subprocess.run([reader, core] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=60)
    return p.returncode == 0, p.stdout.decode(errors="replace")[-1500:]


def sycl_like(env):
    """sycl_like paused before its faulting launch: (process, live
    allocations {base: size} from its log, the fault's freed buffer)."""
    app = h.launch(env, "sycl_like", ["3"])
    live, freed = {}, None
    for _ in range(40):
        line = app.stdout.readline().decode(errors="replace")
        m = re.match(r"alloc 0x([0-9a-f]+) size (\d+)", line)
        if m:
            live[int(m.group(1), 16)] = int(m.group(2))
        m = re.match(r"free 0x([0-9a-f]+)", line)
        if m:
            freed = int(m.group(1), 16)
            live.pop(freed, None)
        if not line or "launching in" in line:
            break
    return app, live, freed


def read_over_rsp(env, pid, ranges):
    """What the server reads at each (address, size), before the dump."""
    srv = h.Stdio(env)
    srv.attach(pid)
    got = {}
    for addr, size in ranges:
        reply = srv.c.req("m%x,%x" % (addr, size))
        got[addr] = bytes.fromhex(reply) if re.fullmatch(r"([0-9a-f]{2})+", reply) else None
    srv.close()
    return got


env0 = h.gtsim_env("platform=xehpc")

# A. With the XPTI table: the live allocations, byte for byte.
with h.guarded(t, "XPTI allocations in the core"):
    app, live, freed = sycl_like(traced(env0))
    before = read_over_rsp(env0, app.pid, sorted(live.items()))
    core = os.path.join(tmp, "a.core")
    d = dump(app.pid, env0, "--json", os.path.join(tmp, "a.json"), "--core", core)
    err = d.stderr.decode(errors="replace")
    t.ok(d.returncode == 0 and os.path.exists(core), "sycl_like fault: dump --core exits 0", err)
    mem = memory(core) if os.path.exists(core) else []
    t.eq(sorted((a, len(b)) for a, b in mem), sorted(live.items()),
         "the core's memory segments are the live allocations of the XPTI table")
    t.ok(mem and all(before.get(a) == b for a, b in mem),
         "each holds what the server read at its address", [a for a, b in mem])
    t.ok(("%d bytes of memory" % sum(live.values())) in err, "stderr says how much memory", err)
    ok, out = checked(core)
    t.ok(ok, "core_check accepts it", out)
    h.wait_exit(app, 60)

# B. Without a table: what is readable next to the fault.
with h.guarded(t, "memory next to the fault without XPTI"):
    app, live, freed = sycl_like(dict(env0))
    before = read_over_rsp(env0, app.pid, sorted(live.items()))
    core = os.path.join(tmp, "b.core")
    d = dump(app.pid, env0, "--json", os.path.join(tmp, "b.json"), "--core", core)
    doc = json.load(open(os.path.join(tmp, "b.json")))
    fault = int((doc.get("page_faults") or [{}])[-1].get("address", "0"), 16)
    t.ok(d.returncode == 0 and fault, "sycl_like fault without XPTI: dump exits 0 (fault 0x%x)" %
         fault, d.stderr.decode(errors="replace"))
    mem = memory(core) if os.path.exists(core) else []
    lo, hi = fault // PAGE * PAGE - PAGE, fault // PAGE * PAGE + 2 * PAGE
    inside = [any(b <= a and a + len(x) <= b + s for b, s in live.items()) for a, x in mem]
    t.ok(mem and all(lo <= a and a + len(x) <= hi for a, x in mem) and all(inside),
         "memory segments lie within a page of the fault, in live buffers",
         [(hex(a), len(x)) for a, x in mem])
    t.ok(mem and all(before.get(b, b"")[a - b:a - b + len(x)] == x
                     for a, x in mem for b, s in live.items() if b <= a < b + s),
         "and hold what the server read there")
    h.wait_exit(app, 60)

# C. A budget smaller than the allocations.
with h.guarded(t, "--core-memory 256"):
    app, live, freed = sycl_like(traced(env0))
    core = os.path.join(tmp, "c.core")
    d = dump(app.pid, env0, "--json", os.path.join(tmp, "c.json"), "--core", core,
             "--core-memory", "256")
    err = d.stderr.decode(errors="replace")
    mem = memory(core) if os.path.exists(core) else []
    # No allocation holds the fault (it hit a freed buffer): the faulting
    # work-group's SLM comes before the other allocations.
    t.ok(d.returncode == 0 and mem == [] and len(slm(core) or b"") == 256,
         "--core-memory 256: 256 bytes of the faulting work-group's SLM, no allocation",
         [(hex(a), len(b)) for a, b in mem])
    t.ok("%d allocations left out" % len(live) in err and "--core-memory" in err,
         "stderr says what the budget left out", err)
    h.wait_exit(app, 60)

# D. A lightweight core of the page-fault example.
with h.guarded(t, "--core-light"):
    app, _ = h.start_app(env0, name="pagefault", args=["2"])
    core = os.path.join(tmp, "d.core")
    d = dump(app.pid, env0, "--json", os.path.join(tmp, "d.json"), "--core", core, "--core-light")
    doc = json.load(open(os.path.join(tmp, "d.json")))
    faulting = [x for x in doc.get("threads", []) if x.get("reason") == "page-fault"]
    t.ok(d.returncode == 0 and os.path.exists(core) and memory(core) == [],
         "--core-light: no memory segment", d.stderr.decode(errors="replace"))
    ok, out = checked(core, "--threads", str(len(faulting)), "--signal", "11")
    t.ok(ok and faulting, "--core-light: the %d faulting threads" % len(faulting), out)
    h.wait_exit(app, 60)

# E. --core-threads N.
with h.guarded(t, "--core-threads 2"):
    env = h.small_device(5)
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    core = os.path.join(tmp, "e.core")
    d = dump(app.pid, env, "--on", "now", "--core", core, "--core-threads", "2")
    err = d.stderr.decode(errors="replace")
    ok, out = checked(core, "--threads", "2")
    t.ok(d.returncode == 0 and ok, "--core-threads 2: a core of 2 threads", out + err)
    t.ok(re.search(r"2 of \d+ stopped threads written", err), "stderr says so", err)
    app.kill()
    app.wait()

# F. An earlier run's cores are removed even when none is written.
with h.guarded(t, "stale cores"):
    old = os.path.join(tmp, "old.core")
    for name in (old, old + ".0", old + ".1"):
        with open(name, "w") as f:
            f.write("an earlier run")
    d = dump(999999, env0, "--core", old)
    t.ok(d.returncode == 1, "no such process: exit 1", d.stderr.decode(errors="replace"))
    t.ok(not any(os.path.exists(n) for n in (old, old + ".0", old + ".1")),
         "the earlier run's FILE, FILE.0 and FILE.1 are gone", os.listdir(tmp))

# G. A core that cannot be written: its own exit status.
with h.guarded(t, "unwritable core"):
    app, _ = h.start_app(env0, name="pagefault", args=["2"])
    js = os.path.join(tmp, "g.json")
    d = dump(app.pid, env0, "--json", js, "--core", os.path.join(tmp, "no", "such", "dir", "x"))
    err = d.stderr.decode(errors="replace")
    t.ok(d.returncode == 7, "exit status 7 (%d)" % d.returncode, err)
    t.ok("cannot write" in err and "no/such/dir" in err, "stderr names the file and why", err)
    t.eq(json.load(open(js)).get("status") if os.path.exists(js) else None, 7,
         "the JSON record's status is 7 too")
    h.wait_exit(app, 60)

# H. monitor core through the GDB server.
with h.guarded(t, "monitor core"):
    env = h.small_device(5)
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    srv = h.Stdio(env)
    srv.attach(app.pid)
    core = os.path.join(tmp, "h.core")
    r, text = srv.c.monitor("core --memory 0 " + core)
    t.ok(r == "OK" and "core written: " + core in text, "monitor core FILE writes it", (r, text))
    ok, out = checked(core) if os.path.exists(core) else (False, "no file")
    t.ok(ok, "core_check accepts the server's core", out)
    r, text = srv.c.monitor("core")
    t.ok("a FILE is needed" in text, "monitor core without FILE says what is missing", text)
    r, text = srv.c.monitor("core --memory 12Q x")
    t.ok("--memory takes a size" in text, "a bad size is refused with the reason", text)
    r, text = srv.c.monitor("help")
    t.ok(re.search(r"^\s*core \[--light\]", text, re.M), "monitor help lists core", text)
    srv.close()
    app.kill()
    app.wait()

# I. Usage errors.
with h.guarded(t, "usage"):
    for opt, val in (("--core-threads", "0"), ("--core-memory", "12Q")):
        d = subprocess.run([zestub, "dump", "--attach", "1", "--core", "x", opt, val],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        t.ok(d.returncode == 2 and opt.encode() in d.stderr, "%s %s: usage error (2)" % (opt, val),
             d.stderr.decode(errors="replace"))


def written(d):
    """The thread count of stderr's "core written: NAME (T threads", or 0."""
    m = re.search(r"core written: \S+ \((\d+) thread", d.stderr.decode(errors="replace"))
    return int(m.group(1)) if m else 0


# J. --core-size: threads in the core's order while the whole file fits.
with h.guarded(t, "--core-size"):
    env = h.small_device(5)
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    one, full, cut = (os.path.join(tmp, n) for n in ("j1.core", "jall.core", "j3.core"))
    # vadd prints its buffers once the kernel is submitted; on a loaded
    # machine gtsim may not have dispatched a thread yet, and a dump then
    # rightly finds none stopped ("no core written"): ask again.
    for _ in range(10):
        d1 = dump(app.pid, env, "--on", "now", "--core", one, "--core-threads", "1",
                  "--core-memory", "0")
        if written(d1) or b"no stopped thread" not in d1.stderr:
            break
        time.sleep(0.3)
    d2 = dump(app.pid, env, "--on", "now", "--core", full, "--core-memory", "0")
    n = written(d2)
    t.ok(written(d1) == 1 and n >= 4, "a one-thread and a %d-thread core as references" % n,
         d1.stderr.decode(errors="replace") + d2.stderr.decode(errors="replace"))
    per = (os.path.getsize(full) - os.path.getsize(one)) // max(n - 1, 1)
    bound = os.path.getsize(one) + 2 * per + per // 2
    d = dump(app.pid, env, "--on", "now", "--core", cut, "--core-memory", "0", "--core-size",
             str(bound))
    err = d.stderr.decode(errors="replace")
    ok, out = checked(cut, "--threads", "3") if os.path.exists(cut) else (False, "no file")
    t.ok(d.returncode == 0 and ok, "--core-size %d: a core of 3 threads" % bound, out + err)
    t.ok(os.path.exists(cut) and os.path.getsize(cut) <= bound,
         "the file is within the bound", os.path.getsize(cut) if os.path.exists(cut) else None)
    t.ok("3 of %d stopped threads written (--core-size %d)" % (n, bound) in err,
         "stderr says how many threads the bound let in", err)
    d = subprocess.run([zestub, "dump", "--attach", "1", "--core", "x", "--core-size", "1000"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    t.ok(d.returncode == 2 and b"at least 4K" in d.stderr, "--core-size 1000: usage error (2)",
         d.stderr.decode(errors="replace"))
    app.kill()
    app.wait()

# K. --core-size below what A's core took: the memory is cut to fit.
with h.guarded(t, "--core-size cuts memory"):
    a_core = os.path.join(tmp, "a.core")
    bound = os.path.getsize(a_core) - 200
    app, live, freed = sycl_like(traced(env0))
    core = os.path.join(tmp, "k.core")
    d = dump(app.pid, env0, "--core", core, "--core-size", str(bound))
    err = d.stderr.decode(errors="replace")
    mem = memory(core) if os.path.exists(core) else []
    kept = sum(len(b) for fl, a, b in segments(core) if fl & PF_W)
    t.ok(d.returncode == 0 and 0 < os.path.getsize(core) <= bound and
         0 < kept < sum(len(b) for fl, a, b in segments(a_core) if fl & PF_W),
         "--core-size %d: the file within it, part of the memory in" % bound, err)
    t.ok("raise --core-size" in err and "threads written" not in err,
         "stderr says the bound cut memory, not threads", err)
    h.wait_exit(app, 60)

# L. SLM: examples/sycl_hang's work-groups wait at slm's barrier; gtsim
# keeps no data of its own in SLM (its kernels move no data), so the test
# writes a word there through the server first.
with h.guarded(t, "SLM in the core"):
    env = h.gtsim_env("platform=xehpc,barrier_skip=1")
    app, _ = h.start_app(env, "sycl_hang", ["--give-up", "120"], running="submit kernel slm")
    srv = h.Stdio(env)
    srv.attach(app.pid)
    core = os.path.join(tmp, "l.core")
    r, text = srv.c.monitor("core " + core)
    m = re.search(r"(\d+) bytes of SLM of thread (\d+)", text)
    t.ok(r == "OK" and m, "monitor core says whose SLM it wrote", text)
    size, tid = (int(m.group(1)), int(m.group(2))) if m else (0, 1)
    srv.c.req("Hgp1.%x" % tid)
    wrote = srv.c.req("M%x@1,4:5a5e5a5e" % (SLM_BASE + 0x40))
    r, text = srv.c.monitor("core " + core)
    got = slm(core) if os.path.exists(core) else None
    t.ok(got is not None and len(got) == size and size > 0x44,
         "one SLM segment at 0x%x of %d bytes" % (SLM_BASE, size), len(got or b""))
    live = srv.c.req("m%x@1,%x" % (SLM_BASE, size)) if size else ""
    t.ok(got and live == got.hex(), "it holds what the server reads in thread %d's SLM" % tid,
         (live[:160], (got or b"").hex()[:160]))
    t.ok(wrote == "OK" and got and got[0x40:0x44] == bytes.fromhex("5a5e5a5e"),
         "with the word written there through the server", (wrote, (got or b"")[0x40:0x44]))
    gdb = h.find_gdb("INTELGT_GDB")
    if not gdb:
        t.skip("Intel's GDB reads the word at 0x%x" % (SLM_BASE + 0x40), "INTELGT_GDB is not set")
    else:
        rc, out = h.gdb_batch(gdb, ["target core " + core, "x/1xw 0x%x" % (SLM_BASE + 0x40)])
        t.ok(re.search(r"0x%x:\s+0x5e5a5e5a" % (SLM_BASE + 0x40), out),
             "Intel's GDB reads the word at 0x%x of the core" % (SLM_BASE + 0x40), out[-800:])
    srv.close()
    app.kill()
    app.wait()

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(t.done())
