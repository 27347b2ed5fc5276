#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every file zestub writes is whole or absent (issue 31): `dump --json
FILE`, `--json -` and the human text on a full stdout (/dev/full),
`--core FILE`, `--json` and `--core` together, and the server's `monitor
core FILE`, in attach mode (examples/vadd, `--on now`) and launch mode
(`-- examples/pagefault`, `--on page-fault`; monitor core is the server's
and is tested attached). Each writer meets:

  full   a 64 KiB tmpfs with one page left: status 7, stderr names the
         file and "No space left on device", neither FILE nor
         FILE.partial left;
  ro     a read-only tmpfs: the same with "Read-only file system";
  link   a symbolic link planted at FILE.partial (and, separately, at
         FILE) pointing to a victim file: the victim is unchanged, FILE is
         a regular file holding the report, no FILE.partial is left.

The mounts need root; without it (or when mount fails) those cells are
skipped with the reason, the link cells always run. A link planted at
FILE pointing at a block device (a loop device over an image file, root
only) is refused before a byte is written: a report is written in place
only onto a terminal, /dev/null, a pipe or a socket. Every cell makes
three checks, so the plan is fixed. Launch mode has no helper file to
test: the handshake with libzestub_launch.so is an inherited socketpair
(launch/README.md), nothing in the file system."""
import errno
import json
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

ATTACH_CELLS = 4 + 1 + 1 + 4 + 3 + 4  # json, json -, human, core, both, monitor core
LAUNCH_CELLS = 4 + 1 + 4 + 3  # json, json -, core, both
BLOCK_CELLS = 2  # --json and --core at a link to a block device
t = h.Tap(3 * (ATTACH_CELLS + LAUNCH_CELLS + BLOCK_CELLS))  # the plan: three checks a cell
zestub = os.path.join(h.top, "zestub")
pagefault = os.path.join(h.top, "examples", "pagefault")
tmp = h.scratch_dir(prefix="zestub-writers-")
mounted = []
VICTIM = b"the victim's own content\n"
REASON = {"full": "No space left on device", "ro": "Read-only file system"}
LEAVE = 4096  # what a full tmpfs keeps free: the file is created, its writes fail


class Skip(Exception):
    pass


def fill(d):
    """Fills the tmpfs d, then frees LEAVE bytes."""
    path = os.path.join(d, "filler")
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError as e:
            if e.errno != errno.ENOSPC:
                raise
    os.truncate(path, max(0, os.path.getsize(path) - LEAVE))


def cell_dir(name, kind):
    """A fresh directory for one cell: a full or read-only tmpfs (Skip
    when that cannot be), or a plain directory for the link cells."""
    d = os.path.join(tmp, name)
    os.mkdir(d)
    if kind not in REASON:
        return d
    if os.geteuid() != 0:
        raise Skip("mounting a tmpfs needs root")
    opts = "size=64k" if kind == "full" else "ro,size=64k"
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", d],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        raise Skip("mount -t tmpfs -o %s failed: %s" %
                   (opts, p.stdout.decode(errors="replace").strip()))
    mounted.append(d)
    if kind == "full":
        fill(d)
    return d


def unmount_all():
    while mounted:
        subprocess.run(["umount", "-l", mounted.pop()], stderr=subprocess.DEVNULL)


def plant(path, name):
    """A victim file and a symbolic link to it at path."""
    victim = os.path.join(tmp, "victim-" + name)
    with open(victim, "wb") as f:
        f.write(VICTIM)
    os.symlink(victim, path)
    return victim


def whole(path, kind):
    """path is a regular file (not a link) holding a report of kind."""
    if os.path.islink(path) or not os.path.isfile(path):
        return False
    data = open(path, "rb").read()
    if kind == "core":
        return data[:4] == b"\x7fELF"
    try:
        return bool(json.loads(data).get("threads"))
    except ValueError:
        return False


def leftovers(d, files):
    """What of files (and their .partial) exists in d."""
    return [n for f in files for n in (f, f + ".partial") if os.path.lexists(os.path.join(d, n))]


def run_cell(label, kind, files, run, ok_status):
    """One cell: files is {name: 'json'|'core'} in a fresh directory;
    run(paths) returns (status, message text). Three checks."""
    try:
        d = cell_dir(label.replace(" ", "_").replace("/", "_"), kind)
    except Skip as e:
        for what in ("status", "message", "files"):
            t.skip("%s: %s" % (label, what), str(e))
        return
    paths = {n: os.path.join(d, n) for n in files}
    victims = {}
    if kind == "link-partial":
        victims = {n: plant(p + ".partial", n) for n, p in paths.items()}
    elif kind == "link-final":
        victims = {n: plant(p, n) for n, p in paths.items()}
    try:
        status, text = run(paths)
    finally:
        listing = sorted(os.listdir(d))
    if kind in REASON:
        t.eq(status, 7, "%s: status 7" % label)
        # A --json FILE that cannot be created stops the run before it
        # attaches (or before the program runs): no core is tried then.
        want = [n for n in files if n.endswith(".json")] if kind == "ro" else list(files)
        want = want or list(files)
        said = [n for n in want if "%s: %s" % (paths[n], REASON[kind]) in text or
                "%s failed: %s" % (paths[n], REASON[kind]) in text]
        t.ok(said == want, "%s: the message names %s and says '%s'" %
             (label, " and ".join(want), REASON[kind]), text[-1500:])
        t.ok(not leftovers(d, files), "%s: neither FILE nor FILE.partial is left" % label,
             listing)
        return
    t.ok(status == ok_status, "%s: status %r (want %r)" % (label, status, ok_status), text[-1500:])
    same = [open(v, "rb").read() == VICTIM and not os.path.islink(v) for v in victims.values()]
    t.ok(all(same), "%s: the victim is unchanged, nothing written through the link" % label, same)
    t.ok(all(whole(p, k) for p, k in zip(paths.values(), files.values())) and
         not [n for n in listing if n.endswith(".partial")],
         "%s: FILE is a regular file with the report, no FILE.partial" % label, listing)


def zrun(argv, stdout=subprocess.PIPE, timeout=180):
    p = subprocess.run(argv, env=env, stdout=stdout, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stderr.decode(errors="replace")


def dev_full(argv):
    with open("/dev/full", "wb") as full:
        return zrun(argv, stdout=full)


# Which writer, its files, and the extra arguments: one row a writer.
WRITERS = [
    ("--json FILE", {"r.json": "json"}, lambda p: ["--json", p["r.json"]]),
    ("--core FILE", {"r.core": "core"}, lambda p: ["--core", p["r.core"]]),
    ("--json and --core", {"r.json": "json", "r.core": "core"},
     lambda p: ["--json", p["r.json"], "--core", p["r.core"]]),
]


def kinds(writer):
    return ("full", "ro", "link-partial") + (("link-final",) if len(writer[1]) == 1 else ())


try:
    # ---- attach mode: vadd's kernel runs for minutes, dumped --on now ----
    with h.guarded(t, "attach mode"):
        env = h.small_device(1)
        app, _ = h.start_app(env, args=["--print-buffers"], running="buffers:")
        attach = [zestub, "dump", "--attach", str(app.pid), "--on", "now", "--timeout", "60"]
        for name, files, args in WRITERS:
            for kind in kinds((name, files)):
                run_cell("attach %s, %s" % (name, kind), kind, files,
                         lambda p, a=args: zrun(attach + a(p)), 0)
        for label, extra in (("attach --json - on /dev/full", ["--json", "-"]),
                             ("attach human text on /dev/full", [])):
            status, text = dev_full(attach + extra)
            t.eq(status, 7, "%s: status 7" % label)
            t.ok("standard output" in text and "No space left on device" in text,
                 "%s: the message names standard output and the reason" % label, text[-1500:])
            t.eq(app.poll(), None, "%s: the application runs on" % label)

        # monitor core FILE through the server, attached to the same vadd.
        srv = h.Stdio(env)
        srv.attach(app.pid)

        def monitor_core(p):
            r, text = srv.c.monitor("core --memory 0 " + p["m.core"])
            return (0 if r == "OK" and "core written" in text else 7), r + "\n" + text

        for kind in ("full", "ro", "link-partial", "link-final"):
            run_cell("monitor core FILE, %s" % kind, kind, {"m.core": "core"}, monitor_core, 0)
        srv.close()
        app.kill()
        app.wait()

    # ---- launch mode: pagefault started by zestub, dumped on its fault ----
    with h.guarded(t, "launch mode"):
        env = h.gtsim_env("platform=xehpc")
        # All registers: pagefault's record is then 80 KB (4 KB without).
        launch = [zestub, "dump", "--on", "page-fault", "--timeout", "60", "--registers", "all"]
        for name, files, args in WRITERS:
            for kind in kinds((name, files)):
                run_cell("launch %s, %s" % (name, kind), kind, files,
                         lambda p, a=args: zrun(launch + a(p) + ["--", pagefault]), 5)
        status, text = dev_full(launch + ["--json", "-", "--", pagefault])
        label = "launch --json - on /dev/full"
        t.eq(status, 7, "%s: status 7" % label)
        t.ok("standard output" in text and "No space left on device" in text,
             "%s: the message names standard output and the reason" % label, text[-1500:])
        t.ok("it faulted, the record could not be written" in text,
             "%s: the program ran and faulted, its record is said not written" % label,
             text[-1500:])
    # ---- a link at FILE to a block device: refused, the device untouched ----
    img = os.path.join(tmp, "disk.img")
    loop, why = None, None
    if os.geteuid() != 0:
        why = "a loop device needs root"
    else:
        with open(img, "wb") as f:
            f.write(b"\xa5" * 65536)
        p = subprocess.run(["losetup", "-f", "--show", img], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        if p.returncode == 0:
            loop = p.stdout.decode().strip()
        else:
            why = "losetup failed: %s" % p.stdout.decode(errors="replace").strip()
    env = h.small_device(1)
    app = h.start_app(env, args=["--print-buffers"], running="buffers:")[0] if loop else None
    for flag in ("--json", "--core"):
        label = "%s FILE linked to a block device" % flag
        if not loop:
            for what in ("status", "message", "device"):
                t.skip("%s: %s" % (label, what), why)
            continue
        link = os.path.join(tmp, "blk" + flag[1:])
        os.symlink(loop, link)
        status, text = zrun([zestub, "dump", "--attach", str(app.pid), "--on", "now",
                             "--timeout", "60", flag, link])
        with open(loop, "rb") as dev:
            same = dev.read(65536) == b"\xa5" * 65536
        t.eq(status, 7, "%s: refused, status 7" % label)
        t.ok("block device" in text, "%s: the message says it is a block device" % label,
             text[-800:])
        t.ok(same, "%s: not a byte written to the device" % label)
    if app:
        app.kill()
        app.wait()
    if loop:
        subprocess.run(["losetup", "-d", loop])
finally:
    unmount_all()
    h.cleanup()
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(t.done())
