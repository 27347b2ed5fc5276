#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A 4-rank Open MPI job on this machine, every rank wrapped in
`zestub dump --json 'dump-%r.json' -- examples/mpi_pagefault`, each rank on
its own gtsim device (devices=4, rank N uses device N): ranks 1 and 3
page-fault on one kernel line, 0 and 2 finish. The per-rank records and
`zestub merge` must name exactly ranks 1,3 as faulted, the kernel, the line
and each faulting rank's freed allocation (its address, as the rank printed
it); `--core 'core-%r'` must leave one GPU core per faulting rank, of its
device.

The first job runs with Open MPI's job abort switched off
(orte_abort_on_non_zero_status 0, as doc/dump-format.md advises): by
default the first rank to end with status 5 makes mpirun send the others
SIGTERM and then SIGKILL, at times within milliseconds (its wait between
them is cut short by any other rank's exit), so whether a rank that ended
at the same moment finished its record is a race. The second job keeps
the default abort and checks what holds whatever the race: mpirun reports
the failure, no dump-N.json is ever a partial document (a killed rank
leaves dump-N.json.partial), and zestub merge names such a file as
incomplete, or, when the kill came after the last write and before the
rename, reads the whole record it holds and marks it. Skipped when mpirun or the MPI example is missing (quickstart
installs openmpi-bin and libopenmpi-dev)."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

app = os.path.join(h.top, "examples", "mpi_pagefault")
mpirun = shutil.which("mpirun")
if not mpirun or not os.path.exists(app):
    print("1..0 # SKIP %s" % ("mpirun is not installed (apt-get install openmpi-bin "
                              "libopenmpi-dev)" if not mpirun else
                              "examples/mpi_pagefault was not built (no MPI at configure time)"))
    sys.exit(0)

t = h.Tap(23)  # the plan: every check this test makes
zestub = os.path.join(h.top, "zestub")
tmp = h.scratch_dir()
env = h.gtsim_env("platform=xehpc,devices=4,subslices=2,eus=2,threads=4")
env.pop("ZET_ENABLE_PROGRAM_DEBUGGING", None)
if "ASAN_OPTIONS" in env:
    # Open MPI's libraries and the components it dlopens leave memory
    # allocated at exit, and once a component is unloaded LeakSanitizer
    # cannot name its frames to suppress them: every clean rank would end
    # with LeakSanitizer's status. Leaks of zestub's own launch mode are
    # checked without MPI (test_launch.py).
    env["ASAN_OPTIONS"] += ":detect_leaks=0"
    # hwloc's OpenCL component asks the installed OpenCL platforms for their
    # devices; Intel's (intel-opencl-icd) dlopens with RTLD_DEEPBIND, which
    # the sanitizer runtime refuses by aborting every sanitized rank. No rank
    # needs OpenCL topology.
    env["HWLOC_COMPONENTS"] = "-opencl"


def job(folder, abort):
    """Runs the 4-rank job writing into FOLDER: (mpirun's status, output)."""
    argv = [mpirun, "-n", "4", "--oversubscribe"]
    if not abort:
        argv += ["--mca", "orte_abort_on_non_zero_status", "0"]
    if os.geteuid() == 0:
        argv.append("--allow-run-as-root")
    argv += [zestub, "dump", "--json", os.path.join(folder, "dump-%r.json")]
    if not abort:  # the GPU cores of the faulting ranks, named by rank too
        argv += ["--core", os.path.join(folder, "core-%r")]
    argv += ["--", app]
    try:
        p = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=240)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode(errors="replace") + "\n<timeout>"


with h.guarded(t, "mpirun job"):
    rc, out = job(tmp, abort=False)
    # Without the abort Open MPI 4 ends with status 0 whatever the ranks
    # said: each rank's status is in its record (checked below).
    t.ok(rc is not None and "mpi_pagefault: 4 ranks done" in out and
         out.count("it faulted, the dump was written") == 2,
         "the job ran to its end; two ranks say they were dumped", out[-3000:])
    freed = dict(re.findall(r"rank (\d+): launching oob\(p=(0x[0-9a-f]+) freed\)", out))
    t.eq(sorted(freed), ["1", "3"], "ranks 1 and 3 freed their allocation before the launch")
    files = sorted(os.path.basename(f) for f in glob.glob(os.path.join(tmp, "dump-*.json")))
    t.eq(files, ["dump-%d.json" % r for r in range(4)],
         "one record per rank, named by the launcher's rank (%r)")
    docs = {}
    for r in range(4):
        path = os.path.join(tmp, "dump-%d.json" % r)
        if os.path.exists(path):
            docs[r] = json.load(open(path))
    t.ok(all(docs[r].get("rank") == r for r in docs), "each record carries its rank",
         {r: docs[r].get("rank") for r in docs})
    t.ok(all(docs[r]["program"]["dumped"] == (r in (1, 3)) for r in docs),
         "ranks 1 and 3 were dumped; 0 and 2 left a clean-exit record",
         {r: docs[r].get("program") for r in docs})
    t.ok(all(docs[r]["status"] == (5 if r in (1, 3) else 0) for r in docs),
         "statuses: 5 for the faulting ranks, 0 for the others",
         {r: docs[r].get("status") for r in docs})
    t.ok(all(any(th["device"] == r for th in docs[r]["threads"]) for r in (1, 3) if r in docs),
         "each faulting rank's threads are on its own device (device index = rank)",
         {r: sorted({th["device"] for th in docs[r]["threads"]}) for r in docs})
    # A rank attaches every device; only the one with stopped threads gets a
    # core (FILE.N, N the device's position when there are several).
    cores = sorted(os.path.basename(f) for f in glob.glob(os.path.join(tmp, "core-*")))
    t.eq(cores, ["core-1.1", "core-3.3"], "--core core-%r: one core per faulting rank, its device")
    checked = [subprocess.run([os.path.join(h.top, "tests", "cli", "core_check"),
                               os.path.join(tmp, c), "--signal", "11"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT).returncode
               for c in cores]
    t.ok(checked and all(c == 0 for c in checked), "core_check accepts both (SIGSEGV)", checked)

    m = subprocess.run([zestub, "merge", "--json"] +
                       [os.path.join(tmp, "dump-%d.json" % r) for r in range(4)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t.eq(m.returncode, 5, "zestub merge: status 5 (some rank faulted)")
    merged = json.loads(m.stdout.decode())
    t.eq(merged["faulted"], {"ranges": "1,3", "list": [1, 3]}, "merged: faulted ranks 1,3")
    t.eq(merged["not_faulted"], {"ranges": "0,2", "list": [0, 2]}, "merged: clean ranks 0,2")
    pf = [c for c in merged["classes"] if c["reason"] == "page-fault"]
    t.eq(len(pf), 1, "one page-fault class")
    if pf:
        c = pf[0]
        t.ok(c["kernel"] == "oob" and c["file"].endswith("oob.cl") and c["line"] == 7,
             "the class names the kernel and the line (oob, oob.cl:7)", c)
        t.eq(c["ranks"]["ranges"], "1,3", "the class's ranks are exactly 1,3")
        got = {str(a["rank"]): a["address"] for a in c["fault_addresses"]}
        t.eq(got, freed, "the class names each rank's freed allocation (fault address = freed "
             "pointer)")
        rep = c["representative"]
        t.ok(rep["rank"] == 1 and rep["thread"]["reason"] == "page-fault" and
             "cr0" in rep["thread"].get("registers", {}),
             "a representative thread with its registers", rep)
    hp = subprocess.run([zestub, "merge"] + [os.path.join(tmp, "dump-%d.json" % r)
                                             for r in range(4)], stdout=subprocess.PIPE)
    human = hp.stdout.decode()
    # Exit status 5: some rank faulted (doc/merge-format.md).
    t.ok(hp.returncode == 5 and "faulted: 1,3" in human and "did not fault: 0,2" in human and
         re.search(r"page-fault in oob at \S*oob\.cl:7", human) is not None,
         "the human report says the same", human[:1500])

with h.guarded(t, "mpirun job with Open MPI's default abort"):
    tmp2 = os.path.join(tmp, "abort")
    os.mkdir(tmp2)
    rc, out = job(tmp2, abort=True)
    t.ok(rc is not None and rc != 0, "with the default abort mpirun reports the failed ranks",
         out[-3000:])
    whole, broken, partial = {}, [], []
    for r in range(4):
        path = os.path.join(tmp2, "dump-%d.json" % r)
        if os.path.exists(path):
            try:
                whole[r] = json.load(open(path))
            except ValueError as e:
                broken.append("%s: %s" % (path, e))
        if os.path.exists(path + ".partial"):
            partial.append(r)
    t.eq(broken, [], "every dump-N.json is a whole JSON document")
    t.ok(sorted(list(whole) + partial) == [0, 1, 2, 3],
         "each rank left exactly one of dump-N.json and dump-N.json.partial",
         {"whole": sorted(whole), "partial": partial})
    # The rank whose status 5 set off the abort ended on its own, record
    # written: whatever else was killed, one faulting rank's record is whole.
    t.ok(any(whole[r]["program"]["dumped"] and whole[r]["status"] == 5 for r in whole),
         "the rank that ended the job first left its whole record (dumped, status 5)",
         {r: whole[r].get("status") for r in whole})
    names = sorted(os.path.join(tmp2, f) for f in os.listdir(tmp2))
    m = subprocess.run([zestub, "merge", "--json"] + names, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    files = json.loads(m.stdout.decode())["files"]
    # A rank's zestub killed mid-record leaves a .partial that is not a
    # whole document; one killed between its last write and the rename
    # leaves a whole one, which merge reads (nothing lost) and marks.
    partials = [f for f in files if f["path"].endswith(".partial")]
    cut = [f for f in partials if "error" in f]
    t.ok(all("incomplete record" in f["error"] for f in cut) and
         all(f.get("unrenamed") is True for f in partials if "error" not in f) and
         not any(f.get("unrenamed") for f in files if not f["path"].endswith(".partial")) and
         m.returncode == (1 if cut else 5),
         "zestub merge names each cut .partial an incomplete record and reads a whole one as "
         "unrenamed (status 1 if any is cut, else 5)",
         {"status": m.returncode, "files": files})

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(t.done())
