#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""zestub merge on hand-made per-rank dumps (no device needed): rank ranges
(0-3,7), equivalence classes split by kernel, line, stop reason and fault
address class (freed vs live allocation, from the XPTI fields), ranks
without a "rank" field, unreadable and foreign files, the exit statuses,
hang dumps (the ranks that hung, each one's oldest submission, status 6),
the --json document of doc/merge-format.md, and hostile files: nesting
deeper than the reader's limit, numbers JSON does not write, a file cut
short, a huge rank, a directory, an empty file, a NUL byte."""
import json
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from scratch import scratch_dir  # noqa: E402
from tap import Tap  # noqa: E402

zestub = os.path.join(os.environ.get("top_builddir", "."), "zestub")
tmp = scratch_dir()
t = Tap(33)
ok = t.ok


def thread(tid, reason="page-fault", kernel="k", line=8, session=0):
    return {"session": session, "device": 0, "thread": tid, "state": "stopped",
            "reason": reason, "pc": "0x1000", "kernel": kernel, "kernel_address": "0x1000",
            "module": None, "function": kernel, "file": "k.cl", "line": line, "column": 1,
            "submitted_at": None, "registers": {"cr0": "0x0"}}


def alloc(state, file="app.c", line=12):
    return {"base": "0x5000", "size": 64, "offset": 0, "in_guard": False, "state": state,
            "allocated_at": {"file": file, "line": line, "column": 1, "function": "main",
                             "uid": "0x1"},
            "freed_at": None}


def doc(rank, threads=(), faults=(), table=False, dumped=None, complete=True):
    d = {"schema": "zestub-dump", "version": 1, "pid": 100 + (rank or 0),
         "trigger": "page-fault", "rank": rank, "host": "h",
         "devices": [], "xpti": {"table": table, "note": None if table else "no table"},
         "page_faults": list(faults), "threads": list(threads),
         "program": {"path": "app", "exit_code": 0, "signal": None,
                     "dumped": bool(threads) if dumped is None else dumped},
         "stats": {}, "status": 5 if threads else 0, "complete": complete}
    return d


def fault(addr, tids, allocation=None, session=0):
    return {"session": session, "address": addr, "reason": "mapping", "threads": list(tids),
            "allocation": allocation}


def write(name, d):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(d if isinstance(d, str) else json.dumps(d))
    return path


def merge(paths, js=True):
    p = subprocess.run([zestub, "merge"] + (["--json"] if js else []) + paths,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.decode()
    return p.returncode, (json.loads(out) if js and out.strip() else out), p.stderr.decode()


# 1. ranks 0-3 and 7 fault the same way, 4-6 are clean: one class, "0-3,7".
paths = []
for r in range(8):
    if r in (0, 1, 2, 3, 7):
        d = doc(r, [thread("0.0.0.0"), thread("0.1.0.0")],
                [fault("0x%x" % (0x9000 + r), ["0.0.0.0", "0.1.0.0"])])
    else:
        d = doc(r)
    paths.append(write("r%d.json" % r, d))
rc, m, err = merge(paths)
ok(rc == 5, "some rank faulted: status 5", err)
ok(m.get("schema") == "zestub-merge" and m.get("version") == 1, "schema zestub-merge, version 1")
ok(m["faulted"] == {"ranges": "0-3,7", "list": [0, 1, 2, 3, 7]}, "faulted ranks compress to 0-3,7",
   m["faulted"])
ok(m["not_faulted"]["ranges"] == "4-6", "clean ranks 4-6", m["not_faulted"])
ok(len(m["classes"]) == 1 and m["classes"][0]["threads"] == 10 and
   m["classes"][0]["ranks"]["ranges"] == "0-3,7", "one class: 10 threads on ranks 0-3,7",
   m["classes"])
c = m["classes"][0]
ok(c["representative"]["rank"] == 0 and c["representative"]["thread"]["thread"] == "0.0.0.0",
   "the representative is the lowest rank's first thread", c["representative"])
ok(len(c["fault_addresses"]) == 5 and c["fault_addresses"][0] == {"rank": 0, "address": "0x9000"},
   "each rank's fault address is listed", c["fault_addresses"])
ok(c["fault_class"] == "unknown (no XPTI table)" and c["allocation"] is None,
   "without an XPTI table the fault class says so", c)
rc, human, _ = merge(paths, js=False)
ok("faulted: 0-3,7" in human and "did not fault: 4-6" in human and
   "class 1: 10 threads on ranks 0-3,7" in human, "human output: ranks and the class", human)

# 2. classes split by line, reason and fault class; XPTI allocations.
a = write("a.json", doc(0, [thread("0.0.0.0"), thread("0.0.1.0", line=9),
                            thread("0.0.2.0", reason="interrupt")],
                        [fault("0x10", ["0.0.0.0", "0.0.1.0"], alloc("freed"))], table=True))
b = write("b.json", doc(1, [thread("0.0.0.0"), thread("0.0.1.0")],
                        [fault("0x20", ["0.0.0.0"], alloc("freed")),
                         fault("0x30", ["0.0.1.0"], alloc("live"))], table=True))
rc, m, err = merge([a, b])
keys = sorted((c["line"], c["reason"], c["fault_class"], c["ranks"]["ranges"], c["threads"])
              for c in m["classes"])
want = sorted([(8, "page-fault", "freed allocation from app.c:12", "0-1", 2),
               (9, "page-fault", "freed allocation from app.c:12", "0", 1),
               (8, "interrupt", "none", "0", 1),
               (8, "page-fault", "live allocation from app.c:12", "1", 1)])
ok(keys == want, "classes split by line, stop reason and fault address class", keys)
freed = [c for c in m["classes"] if c["line"] == 8 and c["fault_class"].startswith("freed")]
ok(freed and freed[0]["allocation"]["state"] == "freed" and
   freed[0]["allocation"]["allocated_at"]["file"] == "app.c",
   "a class carries its representative's allocation", freed)
ok(m["classes"][0]["threads"] == 2, "the largest class comes first", m["classes"][0])
rc, human, _ = merge([a, b], js=False)
ok("allocated at app.c:12 in main" in human and "fault address: freed allocation" in human,
   "human output names the allocation site", human)

# 3. no rank field: the place on the command line stands in.
x = write("x.json", doc(None, [thread("0.0.0.0")], [fault("0x1", ["0.0.0.0"])]))
y = write("y.json", doc(None))
rc, m, err = merge([y, x])
ok(m["faulted"]["list"] == [1] and m["not_faulted"]["list"] == [0],
   "without a rank field, files are ranks in command-line order", m)

# 4. no fault anywhere: status 0.
rc, m, err = merge([y])
ok(rc == 0 and m["classes"] == [] and m["faulted"]["list"] == [], "no fault: status 0, no class",
   m)

# 5. unreadable and foreign files: reported, status 1, the rest still merged.
junk = write("junk.json", "{not json")
foreign = write("foreign.json", {"schema": "other"})
rc, m, err = merge([x, junk, foreign, os.path.join(tmp, "missing.json")])
errs = [f for f in m["files"] if "error" in f]
ok(rc == 1 and len(errs) == 3, "three bad files: status 1, each listed with its error", m["files"])
ok("line 1" in err and "not a zestub dump" in err and "No such file" in err,
   "stderr says why for each", err)
ok(m["faulted"]["list"] == [0], "the readable file is still merged", m["faulted"])
# A name without %r given to a job of several ranks: zestub dump wrote
# NAME.rN.EXT instead; the error says so.
write("job.r0.json", doc(0))
write("job.r1.json", doc(1))
rc, m, err = merge([os.path.join(tmp, "job.json")])
ok(rc == 1 and "No such file" in err and "one file per rank" in err and
   os.path.join(tmp, "job.r*.json") in err,
   "a missing job.json beside job.r0.json and job.r1.json: the error names job.r*.json", err)

# 6. an incomplete dump is flagged; usage errors.
inc = write("inc.json", doc(2, [thread("0.0.0.0")], [fault("0x1", ["0.0.0.0"])], complete=False))
rc, human, _ = merge([inc], js=False)
ok("rank 2: incomplete dump" in human, "an incomplete dump is flagged", human)
p = subprocess.run([zestub, "merge"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
ok(p.returncode == 2, "no file: usage error (2)")
p = subprocess.run([zestub, "merge", "--bogus", x], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
ok(p.returncode == 2 and b"unknown option" in p.stderr, "unknown option: usage error (2)")

# 7. hang dumps: the ranks that hung, the oldest submission of each.
def hang_doc(rank, hung):
    d = doc(rank, [thread("0.0.0.0", reason="interrupt", kernel="slm", line=16)], dumped=True)
    d["trigger"] = "hang"
    d["status"] = 6 if hung else 0
    if hung:
        d["hang"] = {"rule": "xpti", "limit_s": 2.0, "running_s": 2.5, "in_flight": 1,
                     "idle_checks": None, "after": "resume",
                     "oldest": {"kernel": "slm", "file": "app.c", "line": 58, "column": None,
                                "function": "main", "site_uid": "0x1", "task_uid": "0x2",
                                "instance": 1, "queue": "0x10", "begin_ns": 5, "host_tid": 7}}
    return d


h0 = write("h0.json", hang_doc(0, True))
h1 = write("h1.json", hang_doc(1, False))
h2 = write("h2.json", hang_doc(2, True))
rc, m, err = merge([h0, h1, h2])
ok(rc == 6, "some rank hung, none faulted: status 6 (%d)" % rc, err)
ok(m.get("hung") == {"ranges": "0,2", "list": [0, 2]} and
   [f.get("hung") for f in m["files"]] == [True, False, True], "hung ranks 0,2", m)
ok(m["files"][0]["hang"]["oldest"]["line"] == 58 and m["files"][1]["hang"] is None,
   "each file carries its hang object (null when none)", m["files"])
rc, human, _ = merge([h0, h1, h2], js=False)
ok("hung: 0,2" in human and
   "rank 0: hang (rule xpti): oldest submission slm at app.c:58 in main, running 2.5 s" in human,
   "human output: hung ranks and where each hang was submitted", human)
rc, m, err = merge([h0, x])
ok(rc == 5, "a fault and a hang: the fault wins, status 5", err)

# 8. hostile files: refused with the line and the reason, the rest merged.
deep = write("deep.json", "[" * 100000)
rc, m, err = merge([deep, y])
ok(rc == 1 and "deep.json: line 1: nested deeper than 64" in err and
   m["not_faulted"]["list"] == [1],
   "100,000 nested '[': refused (line 1: nested deeper than 64), no stack overflow", err)
at_limit = write("limit.json", "[" * 64 + "]" * 64)
over = write("over.json", '{"schema":"zestub-dump","x":' + "[" * 64 + "]" * 64 + "}")
rc, m, err = merge([at_limit, over])
ok(rc == 1 and "limit.json: not a zestub dump" in err and "over.json: line 1: nested deeper" in err,
   "64 levels are read, 65 are not", err)
nan = write("nan.json", '{"schema":"zestub-dump","rank":nan}')
hexa = write("hex.json", '{"schema":"zestub-dump",\n"pid":0x10}')
rc, m, err = merge([nan, hexa])
ok(rc == 1 and "nan.json: line 1: unexpected character" in err and
   "hex.json: line 2: bad" in err, "numbers JSON does not write are refused with their line", err)
whole = json.dumps(doc(3, [thread("0.0.0.0")]))
cut = write("cut.json", whole[:whole.index('"trigger"')])
rc, m, err = merge([cut, y])
ok(rc == 1 and "cut.json: line 1: bad object" in err and len(m["files"]) == 2,
   "a file cut short: refused, the other still merged", err)
big = write("big.json", '{"schema":"zestub-dump","rank":1e300,"complete":true}')
rc, m, err = merge([big])
ok(rc == 0 and m["files"][0]["rank"] == 9223372036854775807,
   "a rank of 1e300 saturates (no undefined conversion)", m["files"])
os.mkdir(os.path.join(tmp, "adir"))
empty = write("empty.json", "")
nul = os.path.join(tmp, "nul.json")
with open(nul, "wb") as f:
    f.write(json.dumps(doc(5, [thread("0.0.0.0")])).encode() + b"\0garbage")
rc, m, err = merge([os.path.join(tmp, "adir"), empty, nul, y])
ok(rc == 1 and "adir: Is a directory" in err and "empty.json: an empty file" in err and
   "nul.json: a NUL byte at offset" in err and len(m["files"]) == 4,
   "a directory, an empty file and a NUL byte: each refused, saying so", err)

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(t.done())
