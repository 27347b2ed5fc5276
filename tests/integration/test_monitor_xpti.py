#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The XPTI join in the GDB server (issue 8), as Intel's client over stdio,
checked against what examples/sycl_like itself logged (sycl_rt.h): thread
names in qXfer:threads:read ("oob @ oob.cl:N (sycl_like.c:L)"), `monitor
xpti`, `xpti tasks`, `xpti uid`, `xpti allocations`, `threads by-site` and
the sites of `monitor modules`. First the demo stopped on its page fault in
a freed buffer; then two devices running the same kernel from one site
(ambiguous tasks) and different kernels (unique), stopped with ^C, with
delta thread lists whose names must follow the threads; then vadd without
XPTI: one note, names without a host line, nothing else changes; and no
names on a device with more than 4,096 stopped threads."""
import os
import re
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

SMALL = "platform=xehpc,subslices=2,eus=4,threads=4,pace=20"  # 32 threads
TWO = "devices=2,pace=40,subslices=2,eus=4,threads=4"
NOTE = ("note: no XPTI table for pid %d (application not instrumented): no submission sites "
        "or allocations\n")
ROUNDS = 3  # stops of concurrent(): the attach, then two ^C
# demo() 35 checks; concurrent() 7, 4 per round and a ^C for each round after
# the first, twice; plain() 12; crowded() 5.
t = h.Tap(35 + 2 * (7 + 4 * ROUNDS + ROUNDS - 1) + 12 + 5)


def traced_env(env):
    top = os.path.abspath(h.top)
    return dict(env, ZET_ENABLE_PROGRAM_DEBUGGING="1", XPTI_TRACE_ENABLE="1",
                XPTI_SUBSCRIBERS=os.path.join(top, ".libs", "libzestub_xpti.so"),
                XPTI_FRAMEWORK_DISPATCHER=os.path.join(top, ".libs", "libxptifw.so"))


class App:
    """sycl_like with its log in a file (sycl_rt.h's lines)."""

    def __init__(self, env, args):
        self.path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "mx-%d.out" % os.getpid())
        self.log = open(self.path, "w")
        self.proc = h.launch(traced_env(env), "sycl_like", args, stdout=self.log)

    def text(self):
        with open(self.path) as f:
            return f.read()

    def wait_for(self, pattern, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            m = re.search(pattern, self.text(), re.M)
            if m:
                return m
            time.sleep(0.05)
        return None

    def close(self):
        self.log.close()
        os.unlink(self.path)


def serve(env, pid):
    srv = h.Stdio(env, timeout=30.0)
    _, stop = srv.attach(pid, timeout=60)
    t.ok(stop[:1] in ("T", "U"), "attached", stop[:80])
    return srv, srv.c


def finish(c, srv, pids):
    for p in pids:
        t.eq(c.req("D;%x" % p), "OK", "detach p%x" % p)
    t.eq(srv.close(20), 0, "zestub exits 0")


def names(xml):
    """(pid, tid) -> name or None, for every thread of a thread list."""
    out = {}
    for m in re.finditer(r'<thread id="p([0-9a-f]+)\.([0-9a-f]+)"([^>]*)/>', xml):
        n = re.search(r' name="([^"]*)"', m.group(3))
        out[(int(m.group(1), 16), int(m.group(2), 16))] = n.group(1) if n else None
    return out


def device_line(c, pid, tid):
    """(kernel, base file, line) of a stopped thread from `monitor thread`,
    or None when it is not stopped."""
    _, text = c.monitor("thread p%x.%x" % (pid, tid))
    m = re.search(r"\n  pc 0x[0-9a-f]+ in (\S+) at (?:.*/)?([^/:\s]+):(\d+)", text)
    return m.groups() if m else None


def check_names(c, listed, site_line, tag):
    """Named threads are exactly the stopped ones; each name is the kernel
    and line `monitor thread` gives, plus the submitting line."""
    bad = []
    for (pid, tid), name in sorted(listed.items()):
        loc = device_line(c, pid, tid)
        want = None
        if loc:
            want = "%s @ %s:%s" % loc
            if site_line.get(loc[0]):
                want += " (%s)" % site_line[loc[0]]
        if name != want:
            bad.append(("p%x.%x" % (pid, tid), name, want))
    t.ok(not bad and any(listed.values()),
         "%s: every stopped thread is named kernel @ file:line (host line), no other" % tag,
         bad[:5])


# ---- the demo: a page fault in a freed buffer ------------------------------

def demo():
    env = h.gtsim_env(SMALL)
    app = App(env, ["3"])
    t.ok(app.wait_for(r"^pid \d+: launching in 3 s$"), "sycl_like waits before its launch",
         app.text())
    log = app.text()
    pid = app.proc.pid
    srv, c = serve(env, pid)
    r, text = c.monitor("xpti")
    t.ok(r == "OK" and text.startswith("XPTI table of pid %d: " % pid) and
         " tasks (0 running)" in text, "monitor xpti before the launch: table found, no task",
         (r, text))

    c.send("vCont;c")
    st = c.recv(timeout=60).decode("latin-1")
    t.ok(st.startswith("T0b"), "the launch on the freed buffer stops with SIGSEGV", st[:80])
    log = app.text()
    sub = re.search(r"^submit kernel oob instance 1 queue 0x1 device 0 at (\S+):(\d+) "
                    r"uid=(0x[0-9a-f]+)$", log, re.M)
    vsite = re.search(r"^site vadd at (\S+):(\d+) function demo uid=(0x[0-9a-f]+)$", log, re.M)
    fr = re.search(r"^free (0x[0-9a-f]+) at (\S+) uid=(0x[0-9a-f]+)$", log, re.M)
    allocs = {m.group(1): (int(m.group(2)), m.group(3), m.group(4)) for m in re.finditer(
        r"^alloc (0x[0-9a-f]+) size (\d+) at (\S+) uid=(0x[0-9a-f]+)$", log, re.M)}
    if not t.ok(sub and vsite and fr and fr.group(1) in allocs and len(allocs) == 3,
                "the example logged its sites, allocations and free", log):
        return
    sub_at, sub_uid = "%s:%s" % sub.group(1, 2), sub.group(3)
    freed, free_at, free_uid = fr.groups()
    size, alloc_at, alloc_uid = allocs[freed]
    base = lambda p: p.rsplit("/", 1)[-1]  # noqa: E731
    site_line = {"oob": "%s:%s" % (base(sub.group(1)), sub.group(2))}

    # Thread names.
    listed = names(c.xfer("threads", "")[0].decode())
    t.eq(len(listed), 32, "32 threads listed")
    check_names(c, listed, site_line, "demo")

    # monitor xpti: the counters and the fault's allocation.
    r, text = c.monitor("xpti")
    t.diag("monitor xpti:\n" + text)
    fault = re.search(r"^page fault at 0x([0-9a-f]+) on device 0: in freed allocation %s "
                      r"\(%d bytes\) at offset (\d+)\n  allocated at %s in demo \(uid %s\)\n"
                      r"  freed at %s in demo \(uid %s\)$" %
                      (freed, size, re.escape(alloc_at), alloc_uid, re.escape(free_at), free_uid),
                      text, re.M)
    t.ok(r == "OK" and re.match(r"XPTI table of pid %d: \d+ sites, 2 tasks \(1 running\), "
                                r"3 allocations \(2 live\)\n" % pid, text),
         "monitor xpti: 2 tasks, one running; 3 allocations, 2 live", text)
    t.ok(fault and int(fault.group(1), 16) - int(freed, 16) == int(fault.group(2)),
         "the page fault is in the freed buffer, with its allocating and freeing lines", text)

    # xpti tasks
    r, text = c.monitor("xpti tasks")
    t.diag("monitor xpti tasks:\n" + text)
    lines = text.splitlines()
    t.ok(r == "OK" and lines[0] == "XPTI tasks: 1 running, 1 recent ended" and
         lines[1].startswith("  running oob instance 1 on queue 0x1, submitted at %s in demo, "
                             "host thread %d, uid %s, running for " % (sub_at, pid, sub_uid)) and
         lines[2].startswith("  ended   vadd instance 1 on queue 0x1, submitted at %s:%s in demo"
                             % vsite.group(1, 2)),
         "xpti tasks: the running oob first, then the ended vadd, as logged", text)
    r, text2 = c.monitor("xpti tasks all")
    # The same lines, but for the running task's age, which moves on.
    def ageless(ls):
        return [re.sub(r"running for [0-9.]+ s", "running for T s", x) for x in ls]
    t.ok(r == "OK" and ageless(text2.splitlines()[:2]) == ageless(lines[:2]),
         "xpti tasks all: the same", text2)

    # xpti uid
    for u in (sub_uid, sub_uid[2:], sub_uid.upper().replace("0X", "0x")):
        r, text = c.monitor("xpti uid %s" % u)
        t.ok(r == "OK" and text.startswith(
            "uid 0x%x: kernel oob submitted at %s in demo\n  site uid %s, device " %
            (int(sub_uid, 16), sub_at, sub_uid)) and "\n  tasks: 1 running, 0 recent ended\n"
            "  running oob instance 1 on queue 0x1" in text,
            "xpti uid %s: the oob site, its device and running task" % u, text)
    r, text = c.monitor("xpti uid %s" % vsite.group(3))
    t.ok(r == "OK" and "kernel vadd submitted at %s:%s in demo" % vsite.group(1, 2) in text and
         "tasks: 0 running, 1 recent ended" in text, "xpti uid of the vadd site", text)
    r, text = c.monitor("xpti uid %s" % free_uid)
    t.ok(r == "OK" and text == "uid %s: site %s in demo\n  site uid %s\n  allocations: 0 made "
         "here (0 live), 1 freed here\n" % (free_uid, free_at, free_uid),
         "xpti uid of the free: its line, one allocation freed there", text)
    r, text = c.monitor("xpti uid 0x1234")
    t.ok(r == "OK" and text == "uid 0x1234: no site, task or allocation has it in the XPTI table\n",
         "unknown uid -> one sentence, OK",
         (r, text))

    # xpti allocations
    addr = int(freed, 16) + 130
    r, text = c.monitor("xpti allocations 0x%x" % addr)
    want = ("0x%x: in freed allocation %s (%d bytes) at offset 130\n  allocated at %s in demo "
            "(uid %s)\n  freed at %s in demo (uid %s)\n" %
            (addr, freed, size, alloc_at, alloc_uid, free_at, free_uid))
    t.eq((r, text), ("OK", want), "xpti allocations ADDRESS: the freed buffer, both lines")
    t.eq(c.monitor("xpti allocations %d" % addr), ("OK", want), "the same address in decimal")
    r, text = c.monitor("xpti allocations 0x10")
    t.eq((r, text), ("OK", "0x10: in no allocation the XPTI table knows\n"),
         "an address outside every allocation")
    r, text = c.monitor("xpti allocations")
    t.diag("monitor xpti allocations:\n" + text)
    live = sorted((int(a, 16), a) for a in allocs if a != freed)
    want = "XPTI allocations: 2 live, 1 freed (recent); live:\n" + "".join(
        "  %s %d bytes allocated at %s in demo (uid %s)\n" %
        (a, allocs[a][0], allocs[a][1], allocs[a][2]) for _, a in live)
    t.eq((r, text), ("OK", want), "xpti allocations: the two live buffers, in address order")

    # threads by-site
    r, text = c.monitor("threads by-site")
    t.diag("monitor threads by-site:\n" + text)
    stopped = sum(1 for n in listed.values() if n)
    head = re.search(r"^  submitted at %s in demo, task instance 1 on queue 0x1 \(uid %s\): "
                     r"(\d+) threads$" % (re.escape(sub_at), sub_uid), text, re.M)
    groups = re.findall(r"^    (\d+) stopped at oob\.cl:\d+ in oob \((\S+)\)$", text, re.M)
    t.ok(r == "OK" and head and int(head.group(1)) == stopped and
         sum(int(n) for n, _ in groups) == stopped and
         "page-fault" in [why for _, why in groups],
         "threads by-site: the stopped threads under the oob submission, the fault among them",
         text)
    t.ok(re.search(r"^  without a submission site: %d threads\n    %d unavailable$" %
                   (32 - stopped, 32 - stopped), text, re.M), "the others after them", text)
    t.eq(c.monitor("threads --by-site"), (r, text), "--by-site is the same")
    r, text = c.monitor("threads by-sight")
    t.ok(r == "OK" and text == "usage: monitor threads [all] [by-site]\n", "a bad word -> usage",
         (r, text))

    # modules
    r, text = c.monitor("modules")
    t.ok(r == "OK" and re.search(r"; 1 kernel: oob \[%s\]$" % re.escape(site_line["oob"]), text,
                                 re.M) and
         re.search(r"; 1 kernel: vadd \[%s:%s\]$" % (base(vsite.group(1)), vsite.group(2)), text,
                   re.M), "monitor modules: each kernel with its submitting line", text)

    # usage and help
    for bad in ("xpti foo", "xpti uid", "xpti uid zz", "xpti tasks now",
                "xpti allocations 0xzz"):
        r, text = c.monitor(bad)
        t.ok(r == "OK" and text.startswith("usage: monitor xpti"), "'%s' -> usage, OK" % bad,
             (r, text))
    r, text = c.monitor("help")
    t.ok(r == "OK" and all(("\n  %s " % w) in text for w in
                           ("xpti", "xpti tasks", "xpti uid", "xpti allocations")),
         "monitor help lists the xpti commands", text)

    finish(c, srv, [1])
    t.eq(h.wait_exit(app.proc, 30), 0, "sycl_like finishes")
    app.close()


# ---- two devices: ambiguous and unique tasks, delta lists ------------------

def concurrent(same):
    tag = "same kernel" if same else "two kernels"
    env = h.gtsim_env(TWO)
    app = App(env, ["--concurrent", "8"] + (["--same-kernel"] if same else []))
    ok = (app.wait_for(r"^submit kernel .* device 0 ") and
          app.wait_for(r"^submit kernel .* device 1 "))
    if not t.ok(ok, "%s: sycl_like submits on both devices" % tag, app.text()):
        return
    srv, c = serve(env, app.proc.pid)
    t.ok(c.req("qDeltaThreadList") == "1", "%s: delta thread lists" % tag)
    view = {}
    for stop in range(ROUNDS):
        if stop:
            c.send("vCont;c")
            time.sleep(0.3)
            c.interrupt()
            st = c.recv(timeout=60).decode("latin-1")
            t.ok(st[:1] in ("T", "U"), "%s: ^C stops" % tag, st[:60])
        log = app.text()
        submits = {m.group(5): m.groups() for m in re.finditer(
            r"^submit kernel (\S+) instance (\d+) queue (0x[0-9a-f]+) device (\d) at \S+ "
            r"uid=(0x[0-9a-f]+)$", log, re.M)}
        site_line = {m.group(1): "%s:%s" % (m.group(2).rsplit("/", 1)[-1], m.group(3))
                     for m in re.finditer(r"^site (\S+) at (\S+):(\d+) ", log, re.M)}
        xml = c.xfer("threads", "")[0].decode()
        delta = names(xml)
        t.ok(re.search(r'<threads delta="%d">' % len(delta), xml),
             "%s %d: a delta list" % (tag, stop), xml[:200])
        view.update(delta)
        # The client's view, built from deltas only, must be what is true.
        check_names(c, view, site_line, "%s %d (from deltas)" % (tag, stop))
        again = c.xfer("threads", "")[0].decode()
        t.ok('<threads delta="0">' in again, "%s %d: nothing new in a second list" % (tag, stop),
             again[:200])
        r, text = c.monitor("threads by-site")
        t.diag("monitor threads by-site:\n" + text)
        heads = re.findall(r"^  submitted at .*$", text, re.M)
        cands = re.findall(r"^      candidate: task instance (\d+) on queue (0x[0-9a-f]+) "
                           r"\(uid (0x[0-9a-f]+)\)$", text, re.M)
        uniq = re.findall(r"^  submitted at \S+ in work, task instance (\d+) on queue "
                          r"(0x[0-9a-f]+) \(uid (0x[0-9a-f]+)\): \d+ threads$", text, re.M)
        logged = all(u in submits and submits[u][1:3] == (i, q) for i, q, u in cands + uniq)
        if same:
            t.ok(r == "OK" and heads and all("(ambiguous)" in hd for hd in heads) and
                 len(cands) >= 2 * len(heads) and logged,
                 "%s %d: by-site says the task is ambiguous, candidates as logged" % (tag, stop),
                 text)
        else:
            queues = {q: submits[u][3] for _, q, u in uniq if u in submits}
            t.ok(r == "OK" and heads and not cands and len(uniq) == len(heads) and logged and
                 len(set(queues)) == len(queues),
                 "%s %d: by-site names each device's own task, as logged" % (tag, stop), text)
    finish(c, srv, [1, 2])
    t.eq(h.wait_exit(app.proc, 120), 0, "%s: sycl_like finishes every round" % tag)
    app.close()


# ---- no table ----------------------------------------------------------------

def plain():
    env = h.gtsim_env(SMALL)
    app, line = h.start_app(env, args=["--print-buffers"])
    t.ok(app.stdout.readline().decode().startswith("buffers:"), "vadd's kernel is running")
    srv, c = serve(env, app.pid)
    note = NOTE % app.pid
    t.eq(c.monitor("xpti"), ("OK", note), "no table: monitor xpti is the one note, OK")
    for cmd in ("xpti tasks", "xpti uid 0x1", "xpti allocations", "xpti allocations 0x10"):
        t.eq(c.monitor(cmd), ("OK", note), "no table: %s -> the note, OK" % cmd)
    r, plain_text = c.monitor("threads")
    r2, text = c.monitor("threads by-site")
    t.ok(r == r2 == "OK" and text == note + plain_text,
         "no table: threads by-site = the note + monitor threads", (plain_text, text))
    r, text = c.monitor("modules")
    t.ok(r == "OK" and re.search(r"; 1 kernel: vadd$", text, re.M), "no table: modules as before",
         text)
    listed = names(c.xfer("threads", "")[0].decode())
    check_names(c, listed, {}, "no table")
    finish(c, srv, [1])


def crowded():
    """More than 4,096 stopped threads on a device: no names (their PC reads
    would cost seconds per stop), the list and monitor threads unchanged."""
    env = h.gtsim_env("platform=xehpc,slices=8,subslices=8,eus=8,threads=16,pace=1")
    app, line = h.start_app(env, args=["--print-buffers", "--items", str(8192 * 32)])
    t.ok(app.stdout.readline().decode().startswith("buffers:"), "8,192 threads: vadd runs")
    srv, c = serve(env, app.pid)
    listed = names(c.xfer("threads", "")[0].decode())
    r, text = c.monitor("threads")
    m = re.search(r": 8192 threads: (\d+) stopped", text)
    t.ok(len(listed) == 8192 and m and int(m.group(1)) > 4096 and not any(listed.values()),
         "8,192 threads, more than 4,096 stopped: no names", (text, len(listed)))
    finish(c, srv, [1])


for case in (demo, lambda: concurrent(True), lambda: concurrent(False), plain, crowded):
    with h.guarded(t, "the session ran to its end"):
        case()
sys.exit(t.done())
