#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the XPTI join of a `zestub dump --json` document against what
examples/sycl_like logged on stdout (examples/sycl_rt.h lists the lines).
Prints TAP lines (no plan) with a prefix; exits 1 if any check failed.
Each mode makes a fixed number of checks (demo 14, concurrent 6, absent 3;
a guard that stops early leaves its failure, and the calling script counts
the checks it did not reach as failures too).

  check_xpti.py demo DUMP.json APP.log PREFIX
      the page-fault demo: the fault's allocation (base, size, offset,
      allocated/freed at, ids) and every faulting thread's submission site
      and task instance
  check_xpti.py concurrent DUMP.json APP.log PREFIX [unique|ambiguous]
      two devices, one queue each: every stopped thread is attributed to
      the task its device's queue was running (unique), or, where the table
      cannot tell (both devices run one kernel), that task is one of exactly
      two candidates (ambiguous)
  check_xpti.py absent DUMP.json PID PREFIX
      no table: one note, no joined fields
"""
import json
import re
import sys

failed = 0
PREFIX = ""


def check(ok, what):
    global failed
    print(("ok" if ok else "not ok") + " - " + PREFIX + what)
    if not ok:
        failed += 1
    return ok


def diag(msg):
    print("# " + msg)


def parse_log(path):
    """The example's own account: sites, submissions, allocations, frees."""
    log = {"sites": {}, "submits": [], "allocs": [], "frees": [], "order": []}
    loc = r"(\S+):(\d+)"
    with open(path) as fh:
        for line in fh:
            m = re.match(r"site (\S+) at " + loc + r" function (\S+) uid=(0x[0-9a-f]+)$", line)
            if m:
                log["sites"][m.group(1), m.group(2), int(m.group(3))] = {
                    "kernel": m.group(1), "file": m.group(2), "line": int(m.group(3)),
                    "function": m.group(4), "uid": int(m.group(5), 16)}
                continue
            m = re.match(r"submit kernel (\S+) instance (\d+) queue (0x[0-9a-f]+) device (\d+) at "
                         + loc + r" uid=(0x[0-9a-f]+)$", line)
            if m:
                log["submits"].append({
                    "kernel": m.group(1), "instance": int(m.group(2)),
                    "queue": int(m.group(3), 16), "device": int(m.group(4)),
                    "file": m.group(5), "line": int(m.group(6)), "uid": int(m.group(7), 16)})
                log["order"].append(("submit", log["submits"][-1]))
                continue
            m = re.match(r"alloc (0x[0-9a-f]+) size (\d+) at " + loc + r" uid=(0x[0-9a-f]+)$", line)
            if m:
                log["allocs"].append({"ptr": int(m.group(1), 16), "size": int(m.group(2)),
                                      "file": m.group(3), "line": int(m.group(4)),
                                      "uid": int(m.group(5), 16)})
                continue
            m = re.match(r"free (0x[0-9a-f]+) at " + loc + r" uid=(0x[0-9a-f]+)$", line)
            if m:
                log["frees"].append({"ptr": int(m.group(1), 16), "file": m.group(2),
                                     "line": int(m.group(3)), "uid": int(m.group(4), 16)})
                log["order"].append(("free", log["frees"][-1]))
    return log


def hexval(v):
    return int(v, 16) if isinstance(v, str) else None


def site_of(log, sub):
    return log["sites"].get((sub["kernel"], sub["file"], sub["line"]))


def demo(doc, log):
    check(doc.get("xpti", {}).get("table") is True and doc["xpti"].get("note") is None,
          "the XPTI table was found, no note")
    oob = [s for s in log["submits"] if s["kernel"] == "oob"]
    if not check(len(oob) == 1, "the example logged one oob submission"):
        return
    oob = oob[0]
    # The buffer freed before the faulting launch, as the example logged it.
    before = []
    for kind, rec in log["order"]:
        if kind == "submit" and rec is oob:
            break
        if kind == "free":
            before.append(rec)
    if not check(len(before) == 1, "the example freed one buffer before the launch"):
        return
    freed = before[0]
    alloc = [a for a in log["allocs"] if a["ptr"] == freed["ptr"]]
    if not check(len(alloc) == 1, "that buffer's allocation is logged"):
        return
    alloc = alloc[0]
    faults = doc["page_faults"]
    if not check(len(faults) == 1, "one page fault (%d)" % len(faults)):
        return
    f = faults[0]
    addr = hexval(f["address"])
    check(addr is not None and freed["ptr"] <= addr < freed["ptr"] + alloc["size"],
          "fault address 0x%x lies in the freed buffer" % (addr or 0))
    a = f.get("allocation")
    if not check(isinstance(a, dict), "the fault names an allocation"):
        return
    check(hexval(a["base"]) == alloc["ptr"] and a["size"] == alloc["size"],
          "allocation base and size are the logged ones (0x%x, %d)" % (alloc["ptr"], alloc["size"]))
    check(a["offset"] == addr - alloc["ptr"] and a["offset"] > 0,
          "offset of the fault in the allocation (%s)" % a["offset"])
    check(a["state"] == "freed" and a["in_guard"] is False, "the allocation is freed")
    at = a.get("allocated_at") or {}
    check(at.get("file") == alloc["file"] and at.get("line") == alloc["line"] and
          hexval(at.get("uid")) == alloc["uid"] and at.get("function") == "demo",
          "allocated at %s:%d in demo, uid 0x%x" % (alloc["file"], alloc["line"], alloc["uid"]))
    ft = a.get("freed_at") or {}
    check(ft.get("file") == freed["file"] and ft.get("line") == freed["line"] and
          hexval(ft.get("uid")) == freed["uid"] and ft.get("function") == "demo",
          "freed at %s:%d in demo, uid 0x%x" % (freed["file"], freed["line"], freed["uid"]))
    site = site_of(log, oob)
    hit = [t for t in doc["threads"] if t["reason"] == "page-fault"]
    check(len(hit) > 0 and len(hit) == len(f["threads"]), "faulting threads (%d)" % len(hit))
    ok = len(hit) > 0 and site is not None
    for t in hit:
        s = t.get("submitted_at") or {}
        good = (t["kernel"] == "oob" and s.get("attribution") == "unique" and
                s.get("file") == oob["file"] and s.get("line") == oob["line"] and
                s.get("function") == "demo" and hexval(s.get("site_uid")) == site["uid"] and
                hexval(s.get("task_uid")) == oob["uid"] and s.get("instance") == oob["instance"] and
                hexval(s.get("queue")) == oob["queue"] and s.get("candidates_total") == 1 and
                len(s.get("candidates", [])) == 1)
        if not good:
            diag("thread %s: %s" % (t["thread"], json.dumps(s)))
        ok &= good
    check(ok, "every faulting thread: submitted at %s:%d in demo, task instance %d on queue 0x%x"
          % (oob["file"], oob["line"], oob["instance"], oob["queue"]))


def concurrent(doc, log, expect):
    check(doc.get("xpti", {}).get("table") is True, "the XPTI table was found")
    threads = doc["threads"]
    by_uid = {s["uid"]: s for s in log["submits"]}
    queue_of = {}
    for s in log["submits"]:
        queue_of.setdefault(s["device"], s["queue"])
    sessions = {d["session"]: d["device"] for d in doc["devices"]}
    check(len(set(sessions.values())) == 2 and len(queue_of) == 2, "two devices, two queues")
    check(len(threads) > 0, "stopped threads (%d)" % len(threads))
    counts = {"unique": 0, "ambiguous": 0}
    right = True
    per_device = {}
    for t in threads:
        s = t.get("submitted_at")
        dev = sessions.get(t["session"])
        if not s or dev not in queue_of:
            diag("thread %s on session %s: no submission" % (t["thread"], t["session"]))
            right = False
            continue
        q = queue_of[dev]
        mine = [c for c in s["candidates"] if hexval(c.get("queue")) == q]
        ok = len(mine) == 1 and s["attribution"] in counts
        if ok:
            c = mine[0]
            sub = by_uid.get(hexval(c["task_uid"]))
            # The task is one the example ran on this device, of this kernel.
            ok = (sub is not None and sub["device"] == dev and sub["kernel"] == t["kernel"] and
                  sub["instance"] == c["instance"] and sub["file"] == c["file"] and
                  sub["line"] == c["line"])
            if s["attribution"] == "unique":
                ok &= (s["candidates_total"] == 1 and hexval(s["task_uid"]) == sub["uid"] and
                       s["instance"] == sub["instance"] and hexval(s["queue"]) == q)
            else:
                # Ambiguous only when the other queue ran the same kernel.
                ok &= (s["task_uid"] is None and s["candidates_total"] == len(s["candidates"]) == 2
                       and all(c2["kernel"] == t["kernel"] for c2 in s["candidates"]))
            counts[s["attribution"]] += 1
            per_device.setdefault(dev, set()).add(c["task_uid"])
        if not ok:
            diag("thread %s on device %s (queue 0x%x), kernel %s: %s" %
                 (t["thread"], dev, q, t["kernel"], json.dumps(s)))
        right &= ok
    check(right, "every stopped thread names its device's running task (%d unique, %d ambiguous)"
          % (counts["unique"], counts["ambiguous"]))
    check(counts[expect] == len(threads), "every attribution is %s" % expect)
    check(all(len(v) == 1 for v in per_device.values()),
          "the threads of one device agree on one task")


def absent(doc, pid):
    x = doc.get("xpti")
    check(isinstance(x, dict) and x.get("table") is False and
          x.get("note") == "no XPTI table for pid %s (application not instrumented): "
          "no submission sites or allocations" % pid,
          "no table: one note naming pid %s" % pid)
    check(len(doc["threads"]) > 0 and all(t.get("submitted_at", 0) is None for t in doc["threads"]),
          "no submission sites")
    check(len(doc["page_faults"]) > 0 and
          all(f.get("allocation", 0) is None for f in doc["page_faults"]), "no allocations")


def main():
    global PREFIX
    mode, path, arg, PREFIX = sys.argv[1:5]
    expect = sys.argv[5] if len(sys.argv) > 5 else "unique"
    PREFIX += " "
    with open(path) as fh:
        doc = json.load(fh)
    if mode == "demo":
        demo(doc, parse_log(arg))
    elif mode == "concurrent":
        concurrent(doc, parse_log(arg), expect)
    else:
        absent(doc, arg)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
