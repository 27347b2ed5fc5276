#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Only the debuggee's owner may connect (issue 16): zestub on 127.0.0.1
serves a client of its own uid, refuses one of another uid (`nobody`,
switched to with setpriv; those checks skip when this test cannot switch
users) with a logged reason and goes on serving, lets it in with
--allow-any-user (and warns), keeps its Unix socket 0600 and checks the
peer of a Unix socket too; an address other machines can reach needs
--allow-remote. No application is needed: the checks happen before any
packet is read."""
import os
import shutil
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness as h  # noqa: E402

t = h.Tap(20)  # the plan: every check this test makes
ENV = h.small_device(200)
ZESTUB = os.path.join(h.top, "zestub")
NOBODY = 65534
# Run as the other user: connect, ask qSupported, print what came back.
PROBE = r"""
import socket, sys
target = sys.argv[1]
try:
    if target.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX); s.connect(target[5:])
    else:
        s = socket.create_connection(("127.0.0.1", int(target)))
except OSError as e:
    print("CONNECT-ERROR", e.errno); sys.exit(0)
s.settimeout(5)
got = b""
try:
    s.sendall(b"$qSupported#37")
    while b"#" not in got[2:]:
        d = s.recv(4096)
        if not d:
            break
        got += d
except OSError:
    pass
print("GOT", got.decode(errors="replace"))
"""


def can_switch_users():
    if os.geteuid() != 0:
        return "not root: cannot connect as another user"
    if not shutil.which("setpriv"):
        return "setpriv is not installed"
    return None


def as_nobody(target):
    r = subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                        "--clear-groups", sys.executable, "-c", PROBE, str(target)],
                       capture_output=True, timeout=30)
    return r.stdout.decode(errors="replace").strip()


def refused(got):
    """What a refused client reads: the acknowledgement, then an error
    reply saying why (GDB prints it), then the end; never a served reply."""
    return got.startswith("GOT +$E.refused a connection from uid %d" % NOBODY)


def as_self(target):
    r = subprocess.run([sys.executable, "-c", PROBE, str(target)], capture_output=True,
                       timeout=30)
    return r.stdout.decode(errors="replace").strip()


def server(comm, *args):
    """zestub --multi on COMM; stop() ends it with SIGTERM."""
    srv = h.Zestub(ENV, "--multi", *args, once=False, comm=comm)
    srv.stop = lambda: (srv.proc.terminate(), h.wait_exit(srv.proc, 10))[1]
    return srv


why_not = can_switch_users()

with h.guarded(t, "TCP on 127.0.0.1"):
    srv = server("127.0.0.1:0")
    t.ok(srv.port is not None, "zestub listens", srv.stderr())
    got = as_self(srv.port)
    t.ok(got.startswith("GOT +$") and "PacketSize" in got, "our own uid is served", got)
    if why_not:
        for what in ("another uid is refused", "the refusal is logged with the uid",
                     "the server still serves its owner afterwards"):
            t.skip(what, why_not)
    else:
        got = as_nobody(srv.port)
        t.ok(refused(got), "another uid is refused: told why in an error reply, then closed",
             got)
        t.ok("refused a connection from uid %d" % NOBODY in srv.stderr(),
             "the refusal is logged with the uid", srv.stderr())
        got = as_self(srv.port)
        t.ok(got.startswith("GOT +$"), "the server still serves its owner afterwards", got)
    t.eq(srv.stop(), 0, "zestub ends on SIGTERM with status 0")

with h.guarded(t, "--once survives a refused client"):
    srv = h.Zestub(ENV, "--multi", comm="127.0.0.1:0")
    if why_not:
        t.skip("a refused client does not end a --once server", why_not)
    else:
        as_nobody(srv.port)
        t.ok(srv.proc.poll() is None, "a refused client does not end a --once server")
    got = as_self(srv.port)
    t.ok(got.startswith("GOT +$"), "--once: the owner is served", got)
    t.eq(h.wait_exit(srv.proc, 10), 0, "--once ends after its one served client")

with h.guarded(t, "--allow-any-user"):
    srv = server("127.0.0.1:0", "--allow-any-user")
    t.ok("every local user may connect" in srv.stderr(), "--allow-any-user warns", srv.stderr())
    if why_not:
        t.skip("--allow-any-user: another uid is served", why_not)
    else:
        got = as_nobody(srv.port)
        t.ok(got.startswith("GOT +$"), "--allow-any-user: another uid is served", got)
    srv.stop()

with h.guarded(t, "Unix socket"):
    d = h.scratch_dir(prefix="zestub-peer-")
    os.chmod(d, 0o755)
    path = os.path.join(d, "s")
    srv = server("unix:" + path)
    mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else None
    t.eq(mode, 0o600, "the Unix socket is created 0600")
    t.ok(as_self("unix:" + path).startswith("GOT +$"), "unix: our own uid is served")
    if why_not:
        t.skip("unix: another uid cannot even connect to the 0600 socket", why_not)
        t.skip("unix: with the mode loosened, SO_PEERCRED still refuses it", why_not)
    else:
        got = as_nobody("unix:" + path)
        t.ok(got.startswith("CONNECT-ERROR"), "unix: another uid cannot even connect to the "
             "0600 socket", got)
        os.chmod(path, 0o666)
        got = as_nobody("unix:" + path)
        t.ok(refused(got) and "refused a connection from uid %d" % NOBODY in srv.stderr(),
             "unix: with the mode loosened, SO_PEERCRED still refuses it",
             "%s\n%s" % (got, srv.stderr()))
    srv.stop()
    shutil.rmtree(d, ignore_errors=True)

with h.guarded(t, "--allow-remote"):
    r = subprocess.run([ZESTUB, "--multi", "0.0.0.0:0"], capture_output=True, timeout=20,
                       env=ENV)
    err = r.stderr.decode(errors="replace")
    t.eq(r.returncode, 2, "0.0.0.0 without --allow-remote is a usage error")
    t.ok("--allow-remote" in err and "authentication" in err,
         "the error says why and what to add", err)
    srv = server("0.0.0.0:0", "--allow-remote")
    t.ok("no authentication" in srv.stderr(), "--allow-remote warns that RSP has no "
         "authentication", srv.stderr())
    got = as_self(srv.port) if srv.port else ""
    t.ok(got.startswith("GOT +$"), "--allow-remote: a local client of our uid is served", got)
    if why_not:
        t.skip("--allow-remote: a local client of another uid is still refused", why_not)
    else:
        got = as_nobody(srv.port)
        t.ok(refused(got), "--allow-remote: a local client of another uid is still refused",
             got)
    srv.stop()

sys.exit(t.done())
