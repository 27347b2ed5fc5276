#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a `zestub dump --json` document against doc/dump-format.md and,
optionally, against facts computed independently of zestub: the freed
pointer the application printed, and the source line `readelf` decodes
from the kernel fixture for each thread's PC. Prints TAP lines (no plan)
with a prefix; exits 1 if any check failed. The number of checks depends
only on the options (7, plus one per option, two for --app-output, three
for --max-reads-per-thread): the calling script counts on it."""
import json
import os
import re
import subprocess
import sys

failed = 0
count = 0


def check(ok, what):
    global failed, count
    count += 1
    print(("ok" if ok else "not ok") + " - " + PREFIX + what)
    if not ok:
        failed += 1
    return ok


def is_hex(v):
    return isinstance(v, str) and re.fullmatch(r"0x[0-9a-f]+", v) is not None


REQUIRED_TOP = {"schema": str, "version": int, "pid": int, "trigger": str, "devices": list,
                "page_faults": list, "threads": list, "stats": dict, "status": int,
                "complete": bool}
REQUIRED_THREAD = ["session", "device", "thread", "state", "reason", "pc", "kernel",
                   "kernel_address", "module", "function", "file", "line", "column",
                   "submitted_at"]
ATTRIBUTIONS = {"unique", "ambiguous", "site-only"}
REASONS = {"page-fault", "breakpoint", "illegal-instruction", "software-exception",
           "interrupt", "unknown"}


def valid_submission(s):
    """A thread's submitted_at (doc/dump-format.md): null or the join."""
    if s is None:
        return True
    ok = isinstance(s, dict) and s.get("attribution") in ATTRIBUTIONS
    ok = ok and all(k in s for k in ("file", "line", "column", "function", "site_uid", "task_uid",
                                     "instance", "queue", "candidates_total",
                                     "other_device_sites", "candidates"))
    ok = ok and isinstance(s["candidates"], list) and len(s["candidates"]) <= s["candidates_total"]
    ok = ok and (s["attribution"] == "unique") == (s["task_uid"] is not None)
    for c in s.get("candidates", []) if ok else []:
        ok &= is_hex(c.get("site_uid"))
        ok &= (c.get("task_uid") is None) == (s["attribution"] == "site-only")
    return ok


def valid_allocation(a):
    if a is None:
        return True
    ok = isinstance(a, dict) and is_hex(a.get("base")) and isinstance(a.get("size"), int)
    ok = ok and isinstance(a.get("offset"), int) and a.get("state") in ("live", "freed")
    ok = ok and "allocated_at" in a and "freed_at" in a
    return ok and (a["state"] == "freed" or a["freed_at"] is None)


def validate(doc):
    ok = True
    for k, t in REQUIRED_TOP.items():
        ok &= k in doc and isinstance(doc[k], t)
    check(ok, "top-level fields and types")
    check(doc.get("schema") == "zestub-dump" and doc.get("version") == 1, "schema and version")
    x = doc.get("xpti", 0)
    check(x is None or (isinstance(x, dict) and isinstance(x.get("table"), bool) and
                        (x["table"] or isinstance(x.get("note"), str))),
          "xpti section (table %s)" % (x or {}).get("table"))
    ok = True
    for d in doc.get("devices", []):
        ok &= all(k in d for k in ("session", "device", "name", "pci_slot", "subdevice",
                                   "threads"))
        ok &= re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]",
                           str(d.get("pci_slot"))) is not None
    check(ok and len(doc.get("devices", [])) > 0, "device records")
    ok = True
    for t in doc.get("threads", []):
        ok &= all(k in t for k in REQUIRED_THREAD)
        ok &= re.fullmatch(r"\d+\.\d+\.\d+\.\d+", t.get("thread", "")) is not None
        ok &= t.get("reason") in REASONS and t.get("state") == "stopped"
        ok &= t.get("pc") is None or is_hex(t["pc"])
        ok &= isinstance(t.get("registers", {}), dict)
        ok &= all(is_hex(v) for v in t.get("registers", {}).values())
        ok &= valid_submission(t.get("submitted_at"))
    check(ok, "thread records (%d)" % len(doc.get("threads", [])))
    ok = True
    for f in doc.get("page_faults", []):
        ok &= is_hex(f.get("address")) and f.get("reason") in ("mapping", "permission", "unknown")
        ok &= isinstance(f.get("threads"), list)
        ok &= "allocation" in f and valid_allocation(f["allocation"])
    check(ok, "page fault records")
    st = doc.get("stats", {})
    check(isinstance(st.get("zet_calls"), dict) and isinstance(st.get("stopped_threads"), int),
          "stats")


def decoded_lines(fixture):
    """(address, file, line) rows of the fixture's line table, addresses
    relative to the kernel's .text section, as readelf decodes them."""
    out = subprocess.run(["readelf", "--debug-dump=decodedline", fixture], check=True,
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+(0x[0-9a-f]+)", line)
        if m:
            rows.append((int(m.group(3), 16), os.path.basename(m.group(1)), int(m.group(2))))
    return rows


def expected_line(rows, offset):
    best = None
    for addr, f, ln in rows:
        if addr <= offset and (best is None or addr >= best[0]):
            best = (addr, f, ln)
    return best


def main():
    global PREFIX
    args = sys.argv[1:]
    opts = {}
    path = args.pop(0)
    while args:
        k = args.pop(0)
        opts[k] = args.pop(0)
    PREFIX = opts.get("--prefix", "") + " "
    with open(path) as fh:
        doc = json.load(fh)
    validate(doc)
    if "--status" in opts:
        check(doc["status"] == int(opts["--status"]), "status %s (got %s)" % (opts["--status"], doc["status"]))
    threads = doc["threads"]
    if "--app-output" in opts:
        with open(opts["--app-output"]) as fh:
            m = re.search(r"p=(0x[0-9a-f]+) freed", fh.read())
        freed = int(m.group(1), 16) if m else None
        faults = doc["page_faults"]
        check(freed is not None and len(faults) >= 1 and int(faults[0]["address"], 16) == freed,
              "fault address equals the freed pointer")
        hit = [t for t in threads if t["reason"] == "page-fault"]
        check(len(hit) > 0 and len(hit) == len(faults[0]["threads"]) if faults else False,
              "every faulting thread is reported (%d)" % len(hit))
    if "--kernel" in opts:
        k = opts["--kernel"]
        check(len(threads) > 0 and all(t["kernel"] == k for t in threads),
              "kernel name is %s for every thread" % k)
    if "--fixture" in opts:
        rows = decoded_lines(opts["--fixture"])
        ok = len(threads) > 0
        for t in threads:
            if not (t["pc"] and t["kernel_address"] and t["line"]):
                ok = False
                continue
            off = int(t["pc"], 16) - int(t["kernel_address"], 16)
            exp = expected_line(rows, off)
            if exp is None or exp[1] != os.path.basename(t["file"]) or exp[2] != t["line"]:
                print("# thread %s pc offset 0x%x: dump says %s:%s, readelf says %s" %
                      (t["thread"], off, t["file"], t["line"], exp))
                ok = False
        check(ok, "file:line matches readelf's decoded line table")
    if "--min-threads" in opts:
        check(len(threads) >= int(opts["--min-threads"]),
              "at least %s stopped threads (%d)" % (opts["--min-threads"], len(threads)))
    if "--reason" in opts:
        check(len(threads) > 0 and all(t["reason"] == opts["--reason"] for t in threads),
              "every thread stopped by %s" % opts["--reason"])
    if "--max-reads-per-thread" in opts:
        st = doc["stats"]
        n = st["stopped_threads"]
        per = st["register_reads"] / n if n else float("inf")
        print("# %d stopped threads, %d register-set reads (%.2f per thread), %d failed probes, "
              "%d zetDebugReadRegisters calls in all" % (n, st["register_reads"], per,
                                                         st["probes_failed"],
                                                         st["zet_calls"]["read_registers"]))
        check(per <= float(opts["--max-reads-per-thread"]),
              "at most one read per register set per stopped thread")
        check(st["zet_calls"]["read_registers"] == st["register_reads"] + st["probes_failed"],
              "every register read is accounted for")
        check(all(len(t.get("registers", {})) > 0 for t in doc["threads"]),
              "every thread carries its registers")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
