#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`zestub dump --json FILE` writes FILE.partial and renames it to FILE only
once the record is whole, so a zestub killed on the way (a job launcher's
SIGKILL) never leaves a FILE that is half a document: it leaves
FILE.partial, which `zestub merge` names as an incomplete record (or,
killed between its last write and the rename, reads as the whole record
it is, marked). A FILE
from an earlier run is removed when the new run starts, so that it cannot
be taken for this run's. Launch mode on vadd's slow kernel (pace 5).
A FILE that exists and is not a regular file (a FIFO here; /dev/null in
real use, where a rename as root would replace the device) is written in
place and never replaced or removed, for --json and --core alike."""
import json
import os
import re
import shutil
import signal
import subprocess
import stat
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

t = h.Tap(14)  # the plan: every check this test makes
zestub = os.path.join(h.top, "zestub")
vadd = os.path.join(h.top, "examples", "vadd")
env = h.small_device(5)
env.pop("ZET_ENABLE_PROGRAM_DEBUGGING", None)
tmp = h.scratch_dir()
path = os.path.join(tmp, "dump.json")
partial = path + ".partial"


def wait_for(cond, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def read(p):
    with open(p) as f:
        return f.read()


def start_dump():
    """zestub dump --json FILE -- vadd; True once FILE.partial holds the
    devices (zestub has attached and released the program, whose kernel
    then runs slowly while nothing else is written)."""
    p = subprocess.Popen([zestub, "dump", "--json", path, "--", vadd], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    h._procs.append(p)
    return p, wait_for(lambda: os.path.exists(partial) and '"devices":[' in read(partial), 30)


with h.guarded(t, "a zestub killed before its record is whole"):
    with open(path, "w") as f:
        f.write('{"schema":"zestub-dump","stale":true}')
    p, grew = start_dump()
    t.ok(grew, "while zestub runs the record grows in FILE.partial")
    t.ok(not os.path.exists(path), "the earlier run's FILE was removed when this run started")
    pid = re.search(r'"pid":(\d+)', read(partial))
    p.kill()
    p.wait()
    # zestub's SIGKILL leaves its program running on alone: end it.
    if pid:
        try:
            os.kill(int(pid.group(1)), signal.SIGKILL)
        except ProcessLookupError:
            pass
    t.ok(not os.path.exists(path) and os.path.exists(partial),
         "after SIGKILL: no FILE, the incomplete record stays in FILE.partial",
         sorted(os.listdir(tmp)))
    try:
        json.loads(read(partial))
        whole = True
    except ValueError:
        whole = False
    t.ok(not whole, "FILE.partial is indeed not a whole document (so FILE must not be it)")
    m = subprocess.run([zestub, "merge", "--json", partial], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    files = json.loads(m.stdout.decode()).get("files", [])
    t.ok(m.returncode == 1 and len(files) == 1 and
         "incomplete record" in files[0].get("error", "") and
         "incomplete record" in m.stderr.decode(),
         "zestub merge names FILE.partial an incomplete record (status 1, said on stderr)",
         {"status": m.returncode, "files": files, "stderr": m.stderr.decode()})

with h.guarded(t, "a zestub that ends normally"):
    # The first run's FILE.partial would satisfy the wait below at once.
    if os.path.exists(partial):
        os.remove(partial)
    p, grew = start_dump()
    t.ok(grew, "a new run starts a new FILE.partial")
    # SIGTERM, as a launcher ends a job: passed to the program, which dies;
    # zestub writes its record and publishes it.
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    t.eq(p.returncode, 128 + signal.SIGTERM, "zestub's status is the program's (killed by "
         "SIGTERM: 143)")
    doc = None
    try:
        doc = json.loads(read(path))
    except (OSError, ValueError) as e:
        doc = {"error": str(e)}
    t.ok(doc.get("complete") is True and doc.get("program", {}).get("signal") == signal.SIGTERM,
         "FILE is the whole record (complete, program killed by SIGTERM)", doc)
    t.ok(not os.path.exists(partial), "no FILE.partial is left beside it", sorted(os.listdir(tmp)))
    # A SIGKILL between the last write and the rename leaves this whole
    # record under FILE.partial (seen under mpirun's abort): merge reads it
    # and says it was not renamed.
    whole_partial = os.path.join(tmp, "whole.json.partial")
    shutil.copyfile(path, whole_partial)
    m = subprocess.run([zestub, "merge", "--json", whole_partial], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    files = json.loads(m.stdout.decode() or "{}").get("files", [])
    t.ok(m.returncode == 0 and len(files) == 1 and "error" not in files[0] and
         files[0].get("unrenamed") is True and files[0].get("complete") is True and
         "before renaming it" in m.stderr.decode(),
         "zestub merge reads a whole FILE.partial as the record, marked unrenamed and said on "
         "stderr (status 0: the program was killed, nothing faulted)",
         {"status": m.returncode, "files": files, "stderr": m.stderr.decode()})
    m = subprocess.run([zestub, "merge", whole_partial, path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    human = m.stdout.decode()
    t.ok(human.count("is a whole record: zestub dump was stopped after writing it, before "
                     "renaming it") == 1 and "whole.json.partial is a whole record" in human,
         "the human report marks the whole FILE.partial, and only it", human)
    os.remove(whole_partial)

with h.guarded(t, "FIFOs as --json and --core"):
    fifo_json, fifo_core = os.path.join(tmp, "json.fifo"), os.path.join(tmp, "core.fifo")
    os.mkfifo(fifo_json)
    os.mkfifo(fifo_core)
    got = {}

    def drain(name):
        with open(name, "rb") as f:
            got[name] = f.read()

    readers = [threading.Thread(target=drain, args=(n,), daemon=True)
               for n in (fifo_json, fifo_core)]
    for r in readers:
        r.start()
    penv = h.gtsim_env("platform=xehpc")
    app, _ = h.start_app(penv, name="pagefault", args=["2"])
    d = subprocess.run([zestub, "dump", "--attach", str(app.pid), "--timeout", "60", "--json",
                        fifo_json, "--core", fifo_core], env=penv, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    for r in readers:
        r.join(30)
    h.wait_exit(app, 60)
    try:
        doc = json.loads(got.get(fifo_json, b"").decode())
    except ValueError:
        doc = {}
    t.ok(doc.get("complete") is True and doc.get("threads"),
         "--json FIFO: the whole record came through the FIFO", got.get(fifo_json, b"")[-300:])
    t.ok(all(stat.S_ISFIFO(os.stat(n).st_mode) for n in (fifo_json, fifo_core)) and
         not [n for n in os.listdir(tmp) if n.endswith(".partial") and "fifo" in n],
         "both FIFOs are still FIFOs, nothing .partial beside them", sorted(os.listdir(tmp)))
    err = d.stderr.decode(errors="replace")
    t.ok(d.returncode == 7 and "core.fifo" in err,
         "a core cannot be written to a pipe (it is written at offsets): status 7, said on "
         "stderr", (d.returncode, err))

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(t.done())
