#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What --allow-any-user gives away (issue 31, items 7 and 8), against
zestub --multi and examples on gtsim.

A client of another user (`nobody`, a forked child that setuid()s; those
checks skip when the test is not root) is let in, but may not start a
program (vRun: an E reply saying why, logged) and may have `monitor core`
write only inside the server's working directory (.. escapes and links
pointing out refused, saying why); the server's own user still runs
programs; --allow-any-user-unconfined lets the other user run them (as
root here: the uid the program reports). A unix: socket is made 0666
with --allow-any-user and serves the other user, and a directory others
cannot search is warned about. The exposure decision on resolved
addresses: localhost listens, the machine's own non-loopback address
needs --allow-remote and the refusal names it."""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402
# Loaded now: a child that setuid()s to nobody may not be able to read the
# standard library where it lies (socket.create_connection loads it).
import encodings.idna  # noqa: E402,F401

t = h.Tap(25)  # the plan: every check this test makes
ZESTUB = os.path.abspath(os.path.join(h.top, "zestub"))
APP_ENV = h.small_device(200)
SRV_ENV = dict(APP_ENV)
SRV_ENV.pop("ZET_ENABLE_PROGRAM_DEBUGGING", None)  # zestub sets it for what it runs
NOBODY = 65534
tmp = h.scratch_dir(prefix="zestub-anyuser-")
os.chmod(tmp, 0o755)
WHY_NOT = None if os.geteuid() == 0 else "not root: cannot connect as another user"


def hx(s):
    return s.encode().hex()


def vrun_packet(*argv):
    return "vRun;" + ";".join(hx(a) for a in argv)


class Server:
    """zestub --multi ARGS COMM in directory cwd, stdout and stderr in one
    file; self.port (TCP) once it listens."""

    def __init__(self, comm, *args, cwd=tmp):
        self.out = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([ZESTUB, "--multi"] + list(args) + [comm], env=SRV_ENV,
                                     cwd=cwd, stdout=self.out, stderr=self.out)
        h._procs.append(self.proc)
        self.port = None
        end = time.time() + 20
        while time.time() < end and self.proc.poll() is None:
            m = re.search(r"Listening on (port (\d+)|\S+)", self.text())
            if m:
                self.port = int(m.group(2)) if m.group(2) else None
                break
            time.sleep(0.05)

    def text(self):
        self.out.flush()
        self.out.seek(0)
        return self.out.read().decode(errors="replace")

    def stop(self):
        self.proc.terminate()
        return h.wait_exit(self.proc, 20)


def as_user(uid, talk):
    """talk() in a forked child running as uid (None: as we are); its dict
    comes back through a pipe."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            if uid is not None:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            out = talk()
        except Exception as e:  # reported to the parent
            out = {"error": repr(e)}
        os.write(w, json.dumps(out).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return json.loads(data.decode() or '{"error": "no answer"}')


def connect(target):
    return h.Client.unix(target, timeout=90) if isinstance(target, str) else \
        h.Client.tcp(target, timeout=90)


def run_id(target, outfile):
    """Connects, asks for extended mode and vRuns sh -c 'id > outfile'."""
    def talk():
        c = connect(target)
        feats = c.req(h.INTEL)
        c.req("!")
        r = c.req(vrun_packet("/bin/sh", "-c",
                              "id > %s; echo mark=$ZMARK cwd=$(pwd) >> %s" % (outfile, outfile)),
                  timeout=90)
        c.close()
        return {"feats": feats, "vrun": r}
    return talk


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


# A. TCP, --allow-any-user: another user debugs, but neither runs programs
# nor writes cores outside the server's directory.
with h.guarded(t, "--allow-any-user, another user"):
    work = os.path.join(tmp, "work")
    outside = os.path.join(tmp, "outside")
    os.mkdir(work)
    os.mkdir(outside)
    os.symlink(outside, os.path.join(work, "out-link"))
    srv = Server("127.0.0.1:0", "--allow-any-user", cwd=work)
    text = srv.text()
    t.ok("every local user may connect" in text and "start programs" in text and
         work in text, "the warning says what is given away and where cores may go", text)
    if WHY_NOT:
        for what in range(10):
            t.skip("another user's client: check %d" % (what + 1), WHY_NOT)
    else:
        app, _ = h.start_app(APP_ENV, args=["--print-buffers"], running="buffers:")
        marker = os.path.join(tmp, "nobody-ran")

        def talk():
            c = connect(srv.port)
            c.req(h.INTEL)
            c.req("!")
            out = {"settings": [c.req("QEnvironmentHexEncoded:" + hx("ZMARK=evil")),
                                c.req("QSetWorkingDir:" + hx("/"))]}
            out["vrun"] = c.req(vrun_packet("/bin/sh", "-c", "id > " + marker), timeout=90)
            out["attach"] = c.req("vAttach;%x" % app.pid, timeout=60)
            for key, f in (("abs", os.path.join(outside, "a.core")), ("dotdot", "../b.core"),
                           ("link", "out-link/c.core"), ("inside", "in.core")):
                out[key] = c.monitor("core --memory 0 " + f)[1]
            out["detach"] = c.req("D", timeout=60)
            c.close()
            return out
        got = as_user(NOBODY, talk)
        t.ok(got.get("vrun", "").startswith("E") and "vRun refused" in got["vrun"] and
             "uid %d" % NOBODY in got["vrun"], "vRun from uid %d: an E reply saying why" % NOBODY,
             got)
        t.ok(not os.path.exists(marker), "the program did not run")
        t.ok("vRun refused" in srv.text(), "the server log says it", srv.text())
        t.ok(got.get("attach", "")[:1] in ("T", "S"), "the other user may attach (debug)", got)
        t.ok("refused" in got.get("abs", "") and "outside" in got["abs"] and
             not os.listdir(outside), "monitor core to an absolute path elsewhere: refused",
             got.get("abs"))
        t.ok("refused" in got.get("dotdot", "") and not os.path.exists(os.path.join(tmp, "b.core")),
             "monitor core ../FILE: refused", got.get("dotdot"))
        t.ok("refused" in got.get("link", "") and not os.listdir(outside),
             "monitor core through a link pointing out: refused", got.get("link"))
        t.ok("refused" not in got.get("inside", "x") and
             any(n.startswith("in.core") for n in os.listdir(work)),
             "monitor core inside the working directory is written", (got.get("inside"),
                                                                        os.listdir(work)))
        t.eq(got.get("detach"), "OK", "the other user detaches")
        t.eq(got.get("settings"), ["OK", "OK"], "its environment and directory settings are "
             "answered OK (checked below: not kept)")
        h.wait_exit(app, 120)
    mine = os.path.join(tmp, "owner-ran")
    got = as_user(None, run_id(srv.port, mine))
    t.ok("before it created a Level Zero module" in got.get("vrun", "") and
         "refused" not in got.get("vrun", ""), "the server's own user still runs programs", got)
    t.ok(read(mine).startswith("uid=%d" % os.geteuid()) and
         "mark= cwd=%s\n" % work in read(mine),
         "its program ran, with no environment or directory the other user set", read(mine))
    t.eq(srv.stop(), 0, "zestub ends on SIGTERM with status 0")

# B. --allow-any-user-unconfined: the user said so; the other user's program
# runs as the server's user.
with h.guarded(t, "--allow-any-user-unconfined"):
    srv = Server("127.0.0.1:0", "--allow-any-user-unconfined")
    t.ok("a shell as you" in srv.text(), "the warning says it is a shell as the server's user",
         srv.text())
    if WHY_NOT:
        t.skip("unconfined: another user's vRun runs", WHY_NOT)
        t.skip("unconfined: as the server's user", WHY_NOT)
    else:
        marker = os.path.join(tmp, "nobody-ran-unconfined")
        got = as_user(NOBODY, run_id(srv.port, marker))
        t.ok("before it created a Level Zero module" in got.get("vrun", ""),
             "unconfined: another user's vRun runs the program", got)
        t.ok(read(marker).startswith("uid=%d" % os.geteuid()),
             "unconfined: as the server's user", read(marker))
    srv.stop()

# C. unix: with --allow-any-user the socket is 0666 and serves other users.
with h.guarded(t, "unix: --allow-any-user"):
    path = os.path.join(tmp, "s")
    srv = Server("unix:" + path, "--allow-any-user")
    mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else None
    t.eq(mode, 0o666, "the socket is 0666")
    if WHY_NOT:
        t.skip("unix: another user connects and is served, vRun refused", WHY_NOT)
    else:
        got = as_user(NOBODY, run_id(path, os.path.join(tmp, "nobody-unix")))
        t.ok("PacketSize" in got.get("feats", "") and "vRun refused" in got.get("vrun", ""),
             "unix: another user connects and is served, its vRun refused", got)
    srv.stop()
    closed = os.path.join(tmp, "closed")
    os.mkdir(closed, 0o700)
    srv = Server("unix:" + os.path.join(closed, "s"), "--allow-any-user")
    t.ok("cannot search %s" % closed in srv.text(),
         "a directory others cannot search is named in a warning", srv.text())
    srv.stop()


def own_address():
    """The machine's non-loopback IPv4 address (a UDP socket towards a
    documentation address; nothing is sent), else hostname -I's first."""
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect(("192.0.2.1", 9))
        ip = s.getsockname()[0]
        s.close()
        if not ip.startswith("127.") and ip != "0.0.0.0":
            return ip
    except OSError:
        pass
    try:
        words = subprocess.run(["hostname", "-I"], capture_output=True,
                               timeout=10).stdout.decode().split()
        return next((w for w in words if "." in w and not w.startswith("127.")), None)
    except (OSError, subprocess.SubprocessError):
        return None


# D. The exposure decision on resolved addresses.
with h.guarded(t, "exposure"):
    srv = Server("localhost:0")
    t.ok(srv.port is not None and "warning: listening" not in srv.text(),
         "localhost: listens without --allow-remote or a warning", srv.text())
    srv.stop()
    ip = own_address()
    if not ip:
        for what in ("own address refused", "names it", "--allow-remote listens", "warns"):
            t.skip(what, "no non-loopback IPv4 address on this machine")
    else:
        r = subprocess.run([ZESTUB, "--multi", "%s:0" % ip], env=SRV_ENV, capture_output=True,
                           timeout=20)
        err = r.stderr.decode(errors="replace")
        t.eq(r.returncode, 2, "%s (this machine's) without --allow-remote: usage error" % ip)
        t.ok("resolves to %s" % ip in err and "--allow-remote" in err,
             "the refusal names the resolved address and the option", err)
        srv = Server("%s:0" % ip, "--allow-remote")
        t.ok(srv.port is not None, "with --allow-remote it listens", srv.text())
        t.ok("warning: listening on %s:0 (%s)" % (ip, ip) in srv.text(),
             "and warns, naming the address", srv.text())
        srv.stop()

shutil.rmtree(tmp, ignore_errors=True)
h.cleanup()
sys.exit(t.done())
