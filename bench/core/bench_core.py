#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 21's core targets (bench/core/README.md), every figure a ratio
against a baseline measured in the same run:

(a) examples/vadd on an 8,192-thread gtsim device, every thread running
    (pace 1), `zestub dump --on now` with and without `--core`, rounds
    interleaved. The core's write speed is its size over the time spent
    writing it, taken two ways: the window between the creation of
    CORE.partial and its rename (inotify on the directory: zestub is not
    touched), and the wall time with --core minus the wall time without.
    Both are divided by the speed of a plain sequential write of the same
    number of bytes to the same directory, done in the same round (target
    >= 50%). zestub runs with bench/gdbstub's call counter (zecount.so)
    preloaded, so the window splits into the device's register and memory
    reads (time inside those calls) and zestub's own part, whose speed is
    given too. zestub's peak RSS (GNU time's %M) with and without --core:
    the core is streamed when the extra is bounded, not a fraction of the
    core's size.
(b) examples/pagefault's lightweight core (`--on page-fault --core
    --core-light`): its size against 1 MiB (target: under); and its
    default core's size beside it (with memory: the fault's pages and the
    first thread's SLM)."""

import argparse
import ctypes
import os
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # the source tree is read-only in distcheck
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gdbstub"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "lib"))

from rig import App, RigError, Where  # noqa: E402
from scale import FUNCS, CountedWhere, Counter, build_counter, wait_dispatched  # noqa: E402

MIB = 1 << 20
IN_CREATE, IN_MOVED_TO = 0x100, 0x80
clock = time.perf_counter


class Watch:
    """inotify on a directory: when NAME.partial appeared and when NAME
    was renamed into place (clock() of this process), with the call
    counter's state at each (COUNTER.snap())."""

    def __init__(self, directory, counter):
        self.counter = counter
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0 or self.libc.inotify_add_watch(
                self.fd, directory.encode(), IN_CREATE | IN_MOVED_TO) < 0:
            raise RigError("inotify: %s" % os.strerror(ctypes.get_errno()))
        self.seen, self.stop = {}, False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            if not select.select([self.fd], [], [], 0.05)[0]:
                continue
            at, snap = clock(), self.counter.snap()
            buf = os.read(self.fd, 65536)
            i = 0
            while i + 16 <= len(buf):
                _, mask, _, n = struct.unpack_from("iIII", buf, i)
                name = buf[i + 16:i + 16 + n].rstrip(b"\0").decode()
                self.seen.setdefault((name, mask & (IN_CREATE | IN_MOVED_TO)), (at, snap))
                i += 16 + n

    def window(self, name):
        """Seconds from NAME.partial's creation to its rename and the
        seconds zestub spent in device reads meanwhile, or (None, None)."""
        a = self.seen.get((name + ".partial", IN_CREATE))
        b = self.seen.get((name, IN_MOVED_TO))
        if a is None or b is None:
            return None, None
        return b[0] - a[0], sum(b[1][i][1] - a[1][i][1] for i in DEVICE_READS) / 1e9

    def close(self):
        self.stop = True
        self.thread.join()
        os.close(self.fd)


def run_dump(where, argv, timeout, tmp):
    """zestub dump ...: (wall seconds, peak RSS in bytes). The peak comes
    from GNU time, a small C parent: wait4 here would report at least this
    Python's own peak (exec keeps the old image's high-water mark)."""
    hwm = os.path.join(tmp, "maxrss")
    t0 = clock()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", hwm] + argv, env=where.env(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    wall = clock() - t0
    if p.returncode != 0:
        raise RigError("%s exited %d: %s" % (" ".join(argv[:3]), p.returncode,
                                            p.stderr.decode(errors="replace")[-500:]))
    with open(hwm) as f:
        return wall, int(f.read().split()[-1]) * 1024


def plain_write(path, size):
    """Seconds to write SIZE bytes sequentially (1 MiB writes, no fsync:
    zestub does not sync either), open to close."""
    chunk = b"\x5a" * MIB
    t0 = clock()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    left = size
    while left:
        left -= os.write(fd, chunk[:min(left, MIB)])
    os.close(fd)
    took = clock() - t0
    os.unlink(path)
    return took


def synced_then(f, *args):
    """f(*args) after os.sync(): from a page cache with nothing dirty."""
    os.sync()
    return f(*args)


DEVICE_READS = [FUNCS.index("ReadRegisters"), FUNCS.index("ReadMemory")]


def device_reads(counter, before):
    """(calls, seconds) of register and memory reads since BEFORE."""
    now = counter.snap()
    return (sum(now[i][0] - before[i][0] for i in DEVICE_READS),
            sum(now[i][1] - before[i][1] for i in DEVICE_READS) / 1e9)


def one_round(a, where, counted, counter, tmp, watch, rnd):
    """vadd without --core, vadd with --core, the plain write: one each.
    zestub runs with the call counter preloaded (counted): the device reads
    a run makes, and the time spent in them."""
    out, reads = {}, {}
    for mode in ("without", "with"):
        app = App(where, a.settle, ["--items", str(a.threads * 32)])
        try:
            wait_dispatched(app, a.timeout)
            argv = [os.path.join(where.builddir, "zestub"), "dump", "--attach", str(app.pid),
                    "--on", "now", "--timeout", str(int(a.timeout))]
            core = os.path.join(tmp, "r%d.core" % rnd)
            if mode == "with":
                argv += ["--core", core]
            # Each timed write starts with no dirty pages of an earlier one
            # (the plain write would otherwise pay for the core's writeback,
            # or the core for the last round's plain write): a plain write's
            # speed swung 9x between rounds without this.
            os.sync()
            before = counter.snap()
            out[mode] = run_dump(counted, argv, a.timeout, tmp)
            reads[mode] = device_reads(counter, before)
        finally:
            app.kill()
    size = os.path.getsize(core)
    os.unlink(core)
    win, win_reads = watch.window("r%d.core" % rnd)
    return {"size": size, "wall": out["without"][0], "wall_core": out["with"][0],
            "rss": out["without"][1], "rss_core": out["with"][1],
            "window": win,
            "win_reads": win_reads,
            "reads": reads["with"][0] - reads["without"][0],
            "read_s": reads["with"][1] - reads["without"][1],
            "plain": synced_then(plain_write, os.path.join(tmp, "plain.bin"), size)}


def pagefault_core(a, tmp, options=("--core-light",)):
    """(b): the size of the page-fault example's core with options."""
    where = Where(a.builddir, a.pf_config, tmp)
    env = dict(where.env(), ZET_ENABLE_PROGRAM_DEBUGGING="1")
    app = subprocess.Popen([os.path.join(a.builddir, "examples", "pagefault"), "2"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        app.stdout.readline()  # started: Level Zero is up
        core = os.path.join(tmp, "pf.core")
        run_dump(where, [os.path.join(a.builddir, "zestub"), "dump", "--attach", str(app.pid),
                         "--on", "page-fault", "--timeout", "60", "--core", core] +
                 list(options), 120, tmp)
        return os.path.getsize(core)
    finally:
        if app.poll() is None:
            app.kill()
        app.wait()


def med(rows, key):
    return statistics.median(r[key] for r in rows)


def report(a, rows, pf_size):
    size = med(rows, "size")
    plain = size / med(rows, "plain")
    print("(a) %d threads, %d rounds, medians; core %.1f MiB" % (a.threads, len(rows), size / MIB))
    print("%-40s %12s %10s" % ("", "MiB/s", "/ plain"))
    print("%-40s %12.1f %10.3f" % ("plain sequential write (baseline)", plain / MIB, 1.0))
    wins = [r["window"] for r in rows if r["window"]]
    if wins:
        w = size / statistics.median(wins)
        print("%-40s %12.1f %10.3f" % ("zestub: .partial created -> renamed", w / MIB, w / plain))
    own = None
    if wins:
        own = statistics.median(r["window"] - r["win_reads"] for r in rows if r["window"])
        if own > 0:
            print("%-40s %12.1f %10.3f" % ("zestub: the window less its device reads",
                                          size / own / MIB, size / own / plain))
    extra = statistics.median(r["wall_core"] - r["wall"] for r in rows)
    if extra > 0:
        print("%-40s %12.1f %10.3f" % ("zestub: wall(--core) - wall(no core)", size / extra / MIB,
                                      size / extra / plain))
    print("dump wall s: without %.2f, with --core %.2f; window %s s" % (
        med(rows, "wall"), med(rows, "wall_core"),
        "%.2f" % statistics.median(wins) if wins else "not seen"))
    print("device reads the core adds: %d calls, %.2f s (in the Level Zero calls)" % (
        med(rows, "reads"), med(rows, "read_s")))
    if own is not None:
        print("window %.3f s = device reads in it %.3f s + zestub's own part %.3f s" % (
            statistics.median(wins), statistics.median(r["win_reads"] for r in rows if r["window"]),
            own))
    rss, rss_core = med(rows, "rss"), med(rows, "rss_core")
    print("peak RSS MiB: without %.1f, with --core %.1f; extra %.1f MiB = %.2f x the core" % (
        rss / MIB, rss_core / MIB, (rss_core - rss) / MIB, (rss_core - rss) / size))
    if pf_size is not None:
        print("(b) page-fault core, --core-light: %d bytes = %.3f x 1 MiB (target < 1); "
              "default options: %d bytes" % (pf_size[0], pf_size[0] / MIB, pf_size[1]))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--builddir", required=True)
    p.add_argument("--threads", type=int, default=8192)
    p.add_argument("--config", help="GTSIM_CONFIG for (a); default: Xe-HPC with --threads "
                   "threads (8 x 8 x 8 EUs x 16 per slice), pace 1")
    p.add_argument("--pf-config", default="platform=xehpc", help="GTSIM_CONFIG for (b)")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--settle", type=float, default=0.3)
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--dir", help="where the cores go (default: a new temporary directory)")
    a = p.parse_args()
    a.builddir = os.path.abspath(a.builddir)
    slices = max(1, a.threads // 1024)
    config = a.config or "platform=xehpc,slices=%d,subslices=8,eus=8,threads=16,pace=1" % slices
    tmp = tempfile.mkdtemp(prefix="zestub-core-", dir=a.dir)
    counter = Counter(os.path.join(tmp, "counts"))
    watch = Watch(tmp, counter)
    try:
        print("# load average before: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
        where = Where(a.builddir, config, tmp)
        counted = CountedWhere(where, build_counter(tmp), counter.path)
        rows = []
        for rnd in range(a.reps):
            print("# round %d" % (rnd + 1), file=sys.stderr)
            rows.append(one_round(a, where, counted, counter, tmp, watch, rnd))
        pf = (pagefault_core(a, tmp), pagefault_core(a, tmp, ()))
        report(a, rows, pf)
        print("# load average after: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    finally:
        counter.close()
        watch.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except RigError as e:
        sys.exit("bench_core: %s" % e)
