#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""zestub's job-launcher form under a real Slurm (doc/user-guide.md, "Dumps
in CI"): a private one-node cluster (slurm_cluster.py: munged, slurmctld
and slurmd of Debian's packages, started here as root, stopped at the end)
runs

  srun -n 2 zestub dump --on page-fault --json 'dump-%r.json' -- pagefault

on gtsim. Slurm's tasks see SLURM_PROCID and no other launcher's rank, so
the rank in each record and file name is Slurm's; srun --label ties each
record to its task (the record's fault address is the pointer that task
printed; in the hang job below, the record's pid is the one that task's
program printed, which also holds under ASan, whose heap gives both
tasks the same address). zestub merge then names both ranks. A --multi-prog job (rank 0
runs vadd, rank 1 faults) leaves one clean-exit record and one dump, named
by rank in the two forms a multi-prog file can write (Slurm substitutes
%t itself and drops an unescaped %r: `\\%r` passes it to zestub); a
--multi-prog line whose %r Slurm drops gives both tasks one name, and
each still leaves its own record (NAME.r0.json, NAME.r1.json). A hang:
`srun -n 2 zestub dump --on hang=1s --after-hang kill` on
examples/sycl_hang (gtsim barrier_skip=1, the XPTI table loaded) ends each
task with status 6 and a hang dump of its rank; zestub merge says both
hung. Under srun --mpi=pmi2 and --mpi=pmix, whose PMI_RANK and PMIX_RANK
zestub reads before SLURM_PROCID, each record still has its task's rank.
At the end no job, step or task is left, and the daemons stop on
SIGTERM.

Skipped, with the reason, when not root, when a program of the packages
is missing (munge, slurmctld, slurmd, slurm-client), or when the daemons
do not bring the node up (their log tails printed first)."""
import glob
import json
import os
import re
import signal
import subprocess
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import harness as h  # noqa: E402
import slurm_cluster  # noqa: E402

why = slurm_cluster.missing()
if why:
    print("1..0 # SKIP " + why)
    sys.exit(0)


def _end(signum, frame):
    # make or CI stopping the test: leave through stop() below.
    raise SystemExit(128 + signum)


for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, _end)

top = os.path.abspath(h.top)
zestub = os.path.join(top, "zestub")
ex = os.path.join(top, "examples")
libs = os.path.join(top, ".libs")
cluster = slurm_cluster.Cluster()
try:
    cluster.start()
except slurm_cluster.Unavailable as e:
    cluster.stop()
    for line in e.logs.splitlines():
        print("# " + line)
    print("1..0 # SKIP the private Slurm cluster did not start: %s" % e)
    cluster.remove()
    sys.exit(0)
except BaseException:  # anything else (a signal, a bug): nothing left behind
    cluster.stop()
    cluster.remove()
    raise


BARRIER_LINE = h.line_of("tests/kernels/slm.cl", "barrier(")
SUBMIT_LINE = h.line_of("examples/sycl_hang.c", 'rt_submit(&q, kernel, "slm"')
# A device small enough to check every thread, and one no default has (16
# threads): a record of it shows GTSIM_CONFIG reached the rank.
DEVICE = "platform=xehpc,subslices=2,eus=2,threads=4"
DEVICE_THREADS = 16
env = h.gtsim_env(DEVICE)
# zestub's launch mode sets it for the program: not inherited here.
env.pop("ZET_ENABLE_PROGRAM_DEBUGGING", None)
# Two tasks on a 1-CPU node need Slurm's leave to share it.
share = ["--overcommit"] if cluster.cpus < 2 else []


def labelled(out):
    """srun --label's output: {task: [lines]}."""
    tasks = {}
    for m in re.finditer(r"^\s*(\d+): (.*)$", out, re.M):
        tasks.setdefault(int(m.group(1)), []).append(m.group(2))
    return tasks


def task_statuses(err):
    """srun's 'task(s) A-B,C: Exited with exit code N' lines: {task: N}.
    A task srun says nothing of ended with 0."""
    got = {}
    for m in re.finditer(r"tasks? ([\d,-]+): Exited with exit code (\d+)", err):
        for part in m.group(1).split(","):
            a, _, b = part.partition("-")
            for task in range(int(a), int(b or a) + 1):
                got[task] = int(m.group(2))
    return got


def records(pattern, n=2):
    return {r: json.load(open(os.path.join(cluster.jobdir, pattern % r))) for r in range(n)}


def names(prefix):
    return sorted(os.path.basename(f) for f in glob.glob(os.path.join(cluster.jobdir,
                                                                      prefix + "*")))


def merge(files, *extra):
    p = subprocess.run([zestub, "merge"] + list(extra) +
                       [os.path.join(cluster.jobdir, f) for f in files],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(errors="replace")


t = h.Tap(22)  # the plan: every check this test makes
try:
    t.diag("Slurm %s, node %s with %d CPUs, in %s" % (
        subprocess.run(["srun", "--version"], env=cluster.env(os.environ),
                       stdout=subprocess.PIPE).stdout.decode().strip(),
        cluster.host, cluster.cpus, cluster.dir))

    # ---- the ranks' environment -----------------------------------------
    with h.guarded(t, "srun env"):
        rc, out, err = cluster.srun(["-n", "2", "--label"] + share + ["env"], env)
        seen = {task: dict(x.split("=", 1) for x in lines if "=" in x)
                for task, lines in labelled(out).items()}
        t.ok(rc == 0 and sorted(seen) == [0, 1] and
             all(seen[r].get("SLURM_PROCID") == str(r) and
                 not any(v in seen[r] for v in slurm_cluster.LAUNCHER_RANKS) and
                 seen[r].get("GTSIM_CONFIG") == DEVICE and
                 seen[r].get("ZE_ENABLE_ALT_DRIVERS") == env["ZE_ENABLE_ALT_DRIVERS"]
                 for r in seen),
             "each task sees SLURM_PROCID = its task number, no other launcher's rank, "
             "and gtsim's variables", (rc, err, {r: {k: v for k, v in seen[r].items()
                                                     if "RANK" in k or k.startswith("SLURM_P")}
                                                 for r in seen}))

    # ---- a page fault on every rank --------------------------------------
    with h.guarded(t, "srun -n 2 zestub dump --on page-fault"):
        rc, out, err = cluster.srun(["-n", "2", "--label"] + share +
                                    [zestub, "dump", "--on", "page-fault", "--json", "dump-%r.json",
                                     "--", os.path.join(ex, "pagefault")], env)
        t.ok(rc == 5 and task_statuses(err) == {0: 5, 1: 5},
             "srun: status 5, each task exited with zestub's 5 (dumped)", (rc, out, err))
        t.eq(names("dump-"), ["dump-0.json", "dump-1.json"], "one record per task, named %r")
        docs = records("dump-%d.json")
        t.ok(all(docs[r]["rank"] == r and docs[r]["host"] == os.uname().nodename and
                 docs[r]["trigger"] == "page-fault" and docs[r]["status"] == 5 and
                 docs[r]["complete"] and docs[r]["program"]["dumped"] for r in docs),
             "each record: its rank (SLURM_PROCID), the host, a complete page-fault dump",
             {r: (docs[r].get("rank"), docs[r].get("host"), docs[r].get("status")) for r in docs})
        t.ok(all(docs[r]["devices"][0]["threads"] == DEVICE_THREADS and docs[r]["threads"] and
                 all(x["reason"] == "page-fault" and x["kernel"] == "oob" and
                     x["file"].endswith("oob.cl") and x["line"] == 7
                     for x in docs[r]["threads"]) for r in docs),
             "each rank dumped its own gtsim device (GTSIM_CONFIG's %d threads): every "
             "thread in oob at oob.cl:7" % DEVICE_THREADS,
             {r: (docs[r]["devices"], docs[r]["threads"][:1]) for r in docs})
        printed = {r: re.findall(r"launching oob\(p=(0x[0-9a-f]+) freed", "\n".join(lines))
                   for r, lines in labelled(out).items()}
        faults = {r: [f["address"] for f in docs[r]["page_faults"]] for r in docs}
        # Under ASan both tasks' heaps give the same address; the hang job
        # below ties each record to its task by pid as well.
        t.ok(sorted(printed) == [0, 1] and all(len(printed[r]) == 1 for r in printed) and
             faults == printed,
             "each record's fault address is the pointer its task (srun --label) printed",
             (printed, faults))

        mrc, mout = merge(["dump-0.json", "dump-1.json"], "--json")
        merged = json.loads(mout)
        t.ok(mrc == 5 and merged["faulted"]["list"] == [0, 1] and
             merged["not_faulted"]["list"] == [],
             "zestub merge --json: status 5, ranks 0-1 faulted", (mrc, mout[:1500]))
        pf = [c for c in merged["classes"] if c["reason"] == "page-fault"]
        t.ok(len(pf) == 1 and pf[0]["kernel"] == "oob" and pf[0]["line"] == 7 and
             pf[0]["ranks"]["ranges"] == "0-1" and
             {a["rank"]: a["address"] for a in pf[0]["fault_addresses"]} ==
             {r: printed[r][0] for r in printed},
             "merged: one page-fault class, oob.cl:7, ranks 0-1, each rank's own address",
             merged["classes"])
        mrc, mout = merge(["dump-0.json", "dump-1.json"])
        t.ok(mrc == 5 and "zestub merge: 2 ranks" in mout and "faulted: 0-1" in mout and
             "did not fault: none" in mout, "the human merge says the same", mout[:1500])

    # ---- --multi-prog: one rank faults, the other does not -----------------
    with h.guarded(t, "srun --multi-prog"):
        progs = os.path.join(cluster.dir, "multi.conf")
        with open(progs, "w") as f:
            # Slurm expands %t (the task) and %o in this file and drops an
            # unknown %r: rank 0 names its file with %t, rank 1 escapes %r
            # for zestub (rank 1, so a rank read as 0 would show).
            f.write("0 %s dump --json mp-%%t.json -- %s\n" % (zestub, os.path.join(ex, "vadd")))
            f.write("1 %s dump --json mp-\\%%r.json -- %s\n" % (zestub,
                                                                  os.path.join(ex, "pagefault")))
        rc, out, err = cluster.srun(["-n", "2", "--label"] + share + ["--multi-prog", progs], env)
        t.ok(rc == 5 and task_statuses(err) == {1: 5} and names("mp-") ==
             ["mp-0.json", "mp-1.json"],
             "--multi-prog: task 0 status 0, task 1 status 5; mp-0.json and mp-1.json "
             "(%t and \\%r)", (rc, err, names("mp-")))
        docs = records("mp-%d.json")
        t.ok(docs[0]["rank"] == 0 and not docs[0]["program"]["dumped"] and
             docs[0]["status"] == 0 and docs[0]["threads"] == [] and
             docs[0]["program"]["path"].endswith("vadd") and docs[1]["rank"] == 1 and
             docs[1]["program"]["dumped"] and docs[1]["program"]["path"].endswith("pagefault"),
             "rank 0's record a clean-exit record of vadd, rank 1's a pagefault dump",
             {r: (docs[r]["rank"], docs[r]["status"], docs[r]["program"]) for r in docs})
        mrc, mout = merge(["mp-0.json", "mp-1.json"], "--json")
        merged = json.loads(mout)
        t.ok(mrc == 5 and merged["faulted"]["list"] == [1] and
             merged["not_faulted"]["list"] == [0],
             "zestub merge: rank 1 faulted, rank 0 did not", (mrc, mout[:1000]))

    # ---- --multi-prog with an unescaped %r: one name for both tasks --------
    with h.guarded(t, "srun --multi-prog, %r dropped"):
        progs = os.path.join(cluster.dir, "multi-same.conf")
        with open(progs, "w") as f:
            # Slurm drops the %r: each task is handed the same name, and
            # zestub makes it one per rank (doc/dump-format.md).
            f.write("0-1 %s dump --json ms-%%r.json -- %s\n" % (zestub, os.path.join(ex, "vadd")))
        rc, out, err = cluster.srun(["-n", "2", "--label"] + share + ["--multi-prog", progs], env)
        got = names("ms-")
        docs = {}
        for name in got:
            with open(os.path.join(cluster.jobdir, name)) as f:
                docs[name] = json.load(f).get("rank")
        t.ok(rc == 0 and len(got) == 2 and sorted(docs.values()) == [0, 1] and
             all(name.endswith(".r%d.json" % r) for name, r in docs.items()) and
             "rank 1 of 2 (SLURM_PROCID) writes" in err,
             "--multi-prog, ms-%r.json (Slurm drops the %r): two records, NAME.r0.json and "
             "NAME.r1.json, each its task's rank, and stderr says why", (rc, got, docs, err[-800:]))

    # ---- Slurm's PMI plugins: their rank variables come first ---------------
    listed = cluster.srun(["--mpi=list"], env)[1]
    for mpi, var in (("pmi2", "PMI_RANK"), ("pmix", "PMIX_RANK")):
        if not re.search(r"^\s*%s\s*$" % mpi, listed, re.M):
            t.skip("srun --mpi=%s: zestub's rank is the task's" % mpi,
                   "this Slurm has no %s plugin (srun --mpi=list)" % mpi)
            continue
        with h.guarded(t, "srun --mpi=" + mpi):
            # A program that never loads a module: each rank leaves its
            # clean-exit record at once.
            rc, out, err = cluster.srun(["-n", "2", "--label", "--mpi=" + mpi] + share +
                                        [zestub, "dump", "--json", mpi + "-%r.json", "--", "sh",
                                         "-c", "echo %s=$%s" % (var, var)], env)
            said = {r: lines for r, lines in labelled(out).items()}
            docs = records(mpi + "-%d.json") if rc == 0 else {}
            t.ok(rc == 0 and all(docs[r]["rank"] == r and "%s=%d" % (var, r) in said[r]
                                 for r in (0, 1)),
                 "srun --mpi=%s: %s (read before SLURM_PROCID) is the task number; each "
                 "record's rank is its task's" % (mpi, var),
                 (rc, said, err, {r: docs[r].get("rank") for r in docs}))

    # ---- a hang on every rank ---------------------------------------------
    with h.guarded(t, "srun -n 2 zestub dump --on hang=1s"):
        hung = dict(env, GTSIM_CONFIG=DEVICE + ",barrier_skip=1", XPTI_TRACE_ENABLE="1",
                    XPTI_SUBSCRIBERS=os.path.join(libs, "libzestub_xpti.so"),
                    XPTI_FRAMEWORK_DISPATCHER=os.path.join(libs, "libxptifw.so"))
        rc, out, err = cluster.srun(["-n", "2", "--label"] + share +
                                    [zestub, "dump", "--on", "hang=1s", "--after-hang", "kill",
                                     "--json", "hang-%r.json", "--",
                                     os.path.join(ex, "sycl_hang"), "--give-up", "60"], hung)
        t.ok(rc == 6 and task_statuses(err) == {0: 6, 1: 6} and
             names("hang-") == ["hang-0.json", "hang-1.json"],
             "srun: status 6, each task exited with zestub's 6 (hung); hang-0.json, hang-1.json",
             (rc, out[-1500:], err[-1500:]))
        docs = records("hang-%d.json")
        t.ok(all(docs[r]["rank"] == r and docs[r]["status"] == 6 and
                 docs[r]["trigger"] == "hang" and docs[r]["hang"]["rule"] == "xpti" and
                 docs[r]["hang"]["oldest"]["line"] == SUBMIT_LINE and
                 docs[r]["hang"]["after"] == "kill" and docs[r]["program"]["signal"] == 9
                 for r in docs),
             "each record: its rank, status 6, rule xpti at sycl_hang.c:%d, the program killed"
             % SUBMIT_LINE, {r: (docs[r].get("rank"), docs[r].get("hang"),
                                 docs[r].get("program")) for r in docs})
        pids = {r: re.findall(r"^sycl_hang: pid (\d+)$", "\n".join(lines), re.M)
                for r, lines in labelled(out).items()}
        t.ok(all(pids.get(r) == [str(docs[r]["pid"])] for r in docs) and
             docs[0]["pid"] != docs[1]["pid"],
             "hang-N.json is task N's: its pid is the one task N's program printed",
             (pids, {r: docs[r]["pid"] for r in docs}))
        t.ok(all(docs[r]["threads"] and
                 all(x["kernel"] == "slm" and x["line"] == BARRIER_LINE and
                     x["reason"] == "interrupt" for x in docs[r]["threads"]) for r in docs),
             "each rank's threads wait at slm.cl:%d (the barrier)" % BARRIER_LINE,
             {r: docs[r]["threads"][:1] for r in docs})
        mrc, mout = merge(["hang-0.json", "hang-1.json"], "--json")
        merged = json.loads(mout)
        t.ok(mrc == 6 and merged["hung"]["list"] == [0, 1] and merged["faulted"]["list"] == [],
             "zestub merge: status 6, ranks 0-1 hung", (mrc, mout[:1000]))

    # ---- nothing left behind -----------------------------------------------
    left = cluster.stop()
    t.ok(not left["jobs"] and not left["step_sockets"] and not left["pids"],
         "every job ended: no job, step or task left once they were cancelled", left)
    t.ok(all(how == "SIGTERM" for how in cluster.stopped.values()) and
         sorted(cluster.stopped) == ["munged", "slurmctld", "slurmd"],
         "munged, slurmctld and slurmd ran to the end and stopped on SIGTERM",
         (cluster.stopped, cluster.logs()))
finally:
    cluster.stop()
    if t.failed:
        t.diag(cluster.logs())
    cluster.remove()
sys.exit(t.done())
