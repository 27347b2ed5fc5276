#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""zestub merge on a dump whose strings are hostile (issue 31, item 10):
kernel, file, function, thread, register and allocation-site names that
hold ESC sequences, C0 and C1 control characters, DEL and bytes that are
not UTF-8. The human report must carry no raw control byte but its own
newlines (each is written escaped, \\x1b or \\u009b), and the --json
report must give back every string exactly as the dump had it. And the
fault address lines of a dump without an XPTI table agree (issue 35): the
address is known and listed, its allocation is what is unknown."""
import json
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from scratch import scratch_dir  # noqa: E402
from tap import Tap  # noqa: E402

zestub = os.path.join(os.environ.get("top_builddir", "."), "zestub")
tmp = scratch_dir()
t = Tap(9)

ESC = "\x1b]0;owned\x07\x1b[2J\x1b[31m"  # set the title, clear the screen, red
C1 = "\u009b31m\u0085"                    # CSI and NEL as C1 characters
KERNEL = "k" + ESC + "ernel"
FILE = "src/" + C1 + "evil\r\n.cl"
FUNCTION = "fn\x7f\x08\x00x".replace("\x00", "\t")
ALLOC_FILE = "app\x1b[1A.c"
REG = "cr0\x1b[K"


def thread(tid, kernel, file, function):
    return {"session": 0, "device": 0, "thread": tid + "\x1b[8m", "state": "stopped",
            "reason": "page-fault\x1bc", "pc": "0x1000", "kernel": kernel,
            "kernel_address": "0x1000", "module": None, "function": function, "file": file,
            "line": 8, "column": 1,
            "submitted_at": {"file": ALLOC_FILE, "line": 3, "function": function},
            "registers": {REG: "0x0\x1b[0m"}}


def dump(rank, table):
    alloc = ({"base": "0x5000\x1b[5m", "size": 64, "offset": 0, "in_guard": False,
              "state": "freed", "allocated_at": {"file": ALLOC_FILE, "line": 12,
                                                 "function": FUNCTION},
              "freed_at": None} if table else None)
    return {"schema": "zestub-dump", "version": 1, "pid": 100 + rank, "trigger": "page-fault",
            "rank": rank, "host": "h\x1b[0m", "devices": [],
            "xpti": {"table": table, "note": None},
            "page_faults": [{"session": 0, "address": "0x55bd0000\x1b[2J", "reason": "mapping",
                             "threads": ["0.0.0.0\x1b[8m"], "allocation": alloc}],
            "threads": [thread("0.0.0.0", KERNEL, FILE, FUNCTION)],
            "program": {"path": "app", "exit_code": 0, "signal": None, "dumped": True},
            "hang": {"rule": "xpti\x1b[1m", "limit_s": 2.0, "running_s": 2.5,
                     "oldest": {"kernel": KERNEL, "file": ALLOC_FILE, "line": 5,
                                "function": FUNCTION}},
            "stats": {}, "status": 5, "complete": False}


def write(name, d, raw_tail=b""):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        # ensure_ascii=False: the C1 characters as UTF-8 bytes, as a dump
        # written by another tool could hold them.
        f.write(json.dumps(d, ensure_ascii=False).encode() + raw_tail)
    return path


def merge(paths, js):
    p = subprocess.run([zestub, "merge"] + (["--json"] if js else []) + paths,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout


with_table = write("with-table.json", dump(0, True))
# A kernel name with a byte that is not UTF-8 (0x9b: CSI to an 8-bit
# terminal), written into the JSON text as a raw byte.
raw = json.dumps(dump(1, False), ensure_ascii=False).encode()
raw = raw.replace(b'"kernel": "k', b'"kernel": "\x9b1mk', 1)
no_table = os.path.join(tmp, "no-table.json")
with open(no_table, "wb") as f:
    f.write(raw)
paths = [with_table, no_table]

rc, human = merge(paths, False)
bad = sorted({"0x%02x" % b for b in human if (b < 0x20 and b != 0x0a) or b == 0x7f})
t.ok(rc == 5 and human.startswith(b"zestub merge: 2 ranks") and not bad,
     "human report: no raw C0 or DEL byte but newlines", "rc %d, raw bytes %s\n%s"
     % (rc, bad, human.decode(errors="replace")))
c1 = re.findall(rb"\xc2[\x80-\x9f]", human)
t.ok(not c1 and b"\x9b" not in human, "human report: no C1 character, no lone 0x9b byte",
     "%r" % c1)
text = human.decode("utf-8", errors="strict") if not c1 else ""
t.ok("k\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mernel" in text and "\\u009b31m\\u0085" in text and
     "evil\\x0d\\x0a.cl" in text and "fn\\x7f\\x08\\x09x" in text and "\\x9b1mk" in text,
     "the escapes are written as \\xNN and \\u00NN, the rest of each name as it was", text)
t.ok("app\\x1b[1A.c:12 in fn\\x7f" in text and "cr0\\x1b[K" in text and
     "rule xpti\\x1b[1m" in text and "0x55bd0000\\x1b[2J" in text,
     "allocation sites, registers, the hang rule and addresses are escaped too", text)

rc, out = merge(paths, True)
try:
    doc = json.loads(out.decode("utf-8", errors="surrogateescape"))
except ValueError as e:
    doc = {"error": str(e)}
t.ok(rc == 5 and doc.get("schema") == "zestub-merge", "--json: valid JSON", out[:400])
cls = {c["fault_class"]: c for c in doc.get("classes", [])}
freed = cls.get("freed allocation from " + ALLOC_FILE + ":12", {})
rep = freed.get("representative", {}).get("thread", {})
t.ok(freed.get("kernel") == KERNEL and freed.get("file") == FILE and
     freed.get("function") == FUNCTION and rep.get("registers") == {REG: "0x0\x1b[0m"} and
     freed["allocation"]["allocated_at"]["function"] == FUNCTION and
     doc["files"][0]["hang"]["rule"] == "xpti\x1b[1m",
     "--json: every hostile string round-trips as the dump had it", json.dumps(doc)[:2000])

# Issue 35: without an XPTI table the address is known, its allocation is not.
rc, human = merge([no_table], False)
text = human.decode("utf-8", errors="replace")
t.ok(not re.search(r"^  fault address: unknown", text, re.M),
     "no table: the report does not call the fault address unknown", text)
t.ok(re.search(r"^  fault address: in an unknown allocation \(no XPTI table\)$", text, re.M) and
     re.search(r"^  fault addresses \(rank:address\): 1:0x55bd0000", text, re.M),
     "no table: the allocation is unknown, the address listed on the next line", text)
rc, out = merge([no_table], True)
doc = json.loads(out.decode("utf-8", errors="surrogateescape"))
t.ok(doc["classes"][0]["fault_class"] == "unknown (no XPTI table)" and
     doc["classes"][0]["fault_addresses"] == [{"rank": 1, "address": "0x55bd0000\x1b[2J"}],
     "no table, --json: the fault class as before, the address given", doc["classes"])

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(t.done())
