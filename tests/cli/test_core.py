#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""zestub dump --core on gtsim, read back by tests/cli/core_check (libelf):
the module a core embeds equals byte for byte the module the server hands
a client over RSP (vadd, read with `m` before the dump), and its program
note's description is the server's target.xml, its code segments what
the server reads at their addresses; the page-fault
example's core has one status note per thread of the JSON dump of the same
run, the fault's signal and address, the faulting PC in a code segment; a
truncated or corrupt core is rejected with a reason; a bad --core pattern
is a usage error."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

CHECKS = 12  # what core_check prints for every core
t = h.Tap(2 + (CHECKS + 1) + 2 + 3 + (CHECKS + 1) + 2 + 1 + 1)  # the plan
zestub = os.path.join(h.top, "zestub")
reader = os.path.join(h.top, "tests", "cli", "core_check")
tmp = h.scratch_dir()


def core_check(label, core, *args):
    """core_check's CHECKS results as ours, then one saying it made them
    all with an exit status that agrees."""
    p = subprocess.run([reader, core, "--prefix", label + ": "] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    out = p.stdout.decode(errors="replace").splitlines()
    got = bad = 0
    for line in out:
        if line.startswith("ok - ") or line.startswith("not ok - "):
            got += 1
            bad += line.startswith("not ok")
            if got <= CHECKS:
                t.ok(line.startswith("ok - "), line.split(" - ", 1)[1])
    for i in range(got, CHECKS):
        t.ok(False, "%s: check %d not reached" % (label, i + 1), out[-5:])
    t.ok(got == CHECKS and (p.returncode == 0) == (bad == 0) and p.returncode in (0, 1),
         "%s: core_check made its %d checks (exit status %d)" % (label, CHECKS, p.returncode),
         out[-5:])


def dump(pid, env, *args):
    return subprocess.run([zestub, "dump", "--attach", str(pid), "--timeout", "60"] + list(args),
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)


# 1. The module the server serves, then the core of the same process.
with h.guarded(t, "vadd: the served module and the core"):
    env = h.small_device(5)
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    srv = h.Stdio(env)
    srv.attach(app.pid)
    libs = srv.c.xfer("libraries", "")[0].decode()
    served_xml = srv.c.xfer("features", "target.xml")[0]
    m = re.search(r'<in-memory-library begin="0x([0-9a-f]+)" end="0x([0-9a-f]+)"', libs)
    served = b""
    if m:
        begin, end = int(m.group(1), 16), int(m.group(2), 16)
        while begin + len(served) < end:
            n = min(0x400, end - begin - len(served))
            reply = srv.c.req("m%x,%x" % (begin + len(served), n))
            if not re.fullmatch(r"([0-9a-f]{2})+", reply):
                break
            served += bytes.fromhex(reply)
    srv.close()
    t.ok(m is not None and served[:4] == b"\x7fELF" and len(served) == end - begin,
         "the server serves vadd's module (%d bytes)" % len(served), libs)
    module = os.path.join(tmp, "served.elf")
    with open(module, "wb") as f:
        f.write(served)
    core = os.path.join(tmp, "vadd.core")
    d = dump(app.pid, env, "--on", "now", "--json", os.path.join(tmp, "vadd.json"), "--core", core)
    doc = json.load(open(os.path.join(tmp, "vadd.json")))
    nthreads = len(doc.get("threads", []))
    t.ok(d.returncode == 0 and os.path.exists(core) and not os.path.exists(core + ".partial") and
         nthreads > 0, "vadd: dump --on now --core exits 0 and leaves the core, no .partial",
         d.stderr.decode(errors="replace")[-2000:])
    core_check("vadd", core, "--threads", str(nthreads), "--module", module)
    # The program note: "GPU", NUL, the description, NUL.
    with open(core, "rb") as f:
        data = f.read()
    at = data.find(b"GPU\0<?xml")
    core_xml = data[at + 4:data.index(b"\0", at + 4)] if at >= 0 else b""
    t.ok(core_xml and core_xml == served_xml,
         "vadd: the core's description is the server's target.xml (%d and %d bytes)" %
         (len(core_xml), len(served_xml)), served_xml[:300])
    # Its code segments hold what the server reads at the same addresses
    # (the dump has detached; vadd's kernel still runs).
    code = []
    if data[:4] == b"\x7fELF":
        phoff, = struct.unpack_from("<Q", data, 32)
        phnum, = struct.unpack_from("<H", data, 56)
        for i in range(phnum):
            p_type, p_flags, p_off, p_vaddr, _, p_filesz = struct.unpack_from(
                "<IIQQQQ", data, phoff + 56 * i)
            if p_type == 1 and p_flags & 1:
                code.append((p_vaddr, data[p_off:p_off + p_filesz]))
    srv = h.Stdio(env)
    srv.attach(app.pid)
    same = []
    for addr, want in code:
        got = b""
        while len(got) < len(want):
            reply = srv.c.req("m%x,%x" % (addr + len(got), min(0x400, len(want) - len(got))))
            if not re.fullmatch(r"([0-9a-f]{2})+", reply):
                break
            got += bytes.fromhex(reply)
        same.append(got == want)
    srv.close()
    t.ok(code and all(same), "vadd: %d code segment(s), each what the server reads there" %
         len(code), same)
    app.kill()
    app.wait()

# 2. The page-fault example end to end, %p in the name.
with h.guarded(t, "pagefault: the core of a fault"):
    env = h.gtsim_env("platform=xehpc")
    app, _ = h.start_app(env, name="pagefault", args=["2"])
    pattern = os.path.join(tmp, "pf.%p.core")
    d = dump(app.pid, env, "--on", "page-fault", "--json", os.path.join(tmp, "pf.json"), "--core",
             pattern)
    rc = h.wait_exit(app, 60)
    core = pattern.replace("%p", str(app.pid))
    t.ok(d.returncode == 0, "pagefault: dump --core exits 0", d.stderr.decode(errors="replace"))
    t.ok(rc == 0, "pagefault: the application finishes after the dump (%r)" % rc)
    t.ok(os.path.exists(core) and not [n for n in os.listdir(tmp) if n.endswith(".partial")],
         "pagefault: the core is named with the pid, no .partial left", os.listdir(tmp))
    doc = json.load(open(os.path.join(tmp, "pf.json")))
    faults = doc.get("page_faults") or [{}]
    pcs = [th["pc"] for th in doc.get("threads", []) if th.get("reason") == "page-fault"]
    core_check("pagefault", core, "--threads", str(len(doc.get("threads", []))), "--signal", "11",
               "--fault-addr", faults[-1].get("address", "0"), "--pc", pcs[0] if pcs else "0")

    # A truncated core and a file that is no ELF: rejected, with the reason.
    for label, size, why in (("truncated", os.path.getsize(core) // 2, "truncated: segment"),
                             ("cut in its header", 30, "truncated: 30 bytes")):
        bad = os.path.join(tmp, "bad.core")
        with open(core, "rb") as f, open(bad, "wb") as g:
            g.write(f.read(size))
        p = subprocess.run([reader, bad], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode(errors="replace")
        t.ok(p.returncode == 1 and ("not ok - the core is whole: rejected, " + why) in out,
             "a core %s is rejected with a clear message" % label, out[:400])

# 3. A --core pattern that does not expand is a usage error.
with h.guarded(t, "--core %q"):
    d = subprocess.run([zestub, "dump", "--attach", "1", "--core", os.path.join(tmp, "x.%q")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    t.ok(d.returncode == 2 and b"--core" in d.stderr, "--core with %q: usage error (2)",
         d.stderr.decode(errors="replace"))

# 4. One rank of two, a --core name without %r: the rank's own file, said
# once on stderr (the name is expanded to remove old cores and to write).
with h.guarded(t, "--core without %r, rank 1 of 2"):
    env = h.small_device(5)
    app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
    renv = dict(env, SLURM_PROCID="1", SLURM_NTASKS="2")
    for k in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"):
        renv.pop(k, None)
    d = dump(app.pid, renv, "--on", "now", "--json", os.path.join(tmp, "rank.json"), "--core",
             os.path.join(tmp, "rank.core"))
    err = d.stderr.decode(errors="replace")
    app.kill()
    app.wait()
    t.ok(d.returncode == 0 and os.path.exists(os.path.join(tmp, "rank.r1.core")) and
         os.path.exists(os.path.join(tmp, "rank.r1.json")) and
         not os.path.exists(os.path.join(tmp, "rank.core")) and
         err.count("--core %s has no %%r" % os.path.join(tmp, "rank.core")) == 1,
         "rank 1 of 2: rank.r1.core and rank.r1.json, the --core note once", err[-1500:])

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(t.done())
