# SPDX-License-Identifier: MIT
"""A private one-node Slurm cluster for a test: munged with its own key and
socket, slurmctld and slurmd in the foreground (-D), all in one temporary
directory with a slurm.conf written here, on free ports, as root.

Nothing of the machine's own Slurm or MUNGE is used or touched: the
configuration, state, spool, pid and log files and the MUNGE socket are
the directory's, and the client commands find the cluster through
SLURM_CONF (env()). stop() ends everything the cluster started, whatever
happened before: jobs are cancelled; what still works in the cluster's
folder (srun and the tasks in its job directory; a slurmstepd, which
detaches from slurmd into a session of its own, in slurmd's) is killed by
pid; the three daemons, children of this process that also die with it
(PR_SET_PDEATHSIG), get SIGTERM, then SIGKILL. A watchdog process does the
same sweep when the test is killed outright. Used by test_launch_slurm.py."""
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

# Each program the cluster runs, and the Debian package that has it.
PROGRAMS = {"munged": "munge", "slurmctld": "slurmctld", "slurmd": "slurmd",
            "srun": "slurm-client", "scontrol": "slurm-client", "sinfo": "slurm-client",
            "squeue": "slurm-client", "scancel": "slurm-client"}
# What a user must install for the cluster, in one line.
PACKAGES = "munge slurmctld slurmd slurm-client (or slurm-wlm)"
LAUNCHER_RANKS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")


class Unavailable(Exception):
    """The cluster cannot run here: str() is the reason for the skip,
    logs the daemons' log tails (may be empty)."""

    def __init__(self, reason, logs=""):
        super().__init__(reason)
        self.logs = logs


def missing():
    """Why this machine cannot run the cluster before anything is started
    (not root, programs missing), or None."""
    if os.geteuid() != 0:
        return ("not root: slurmd must run as root to start job steps as their user, "
                "and the test starts its own slurmd")
    absent = [p for p in PROGRAMS if not shutil.which(p)]
    if absent:
        pkgs = sorted({PROGRAMS[p] for p in absent})
        return "%s not installed (apt-get install %s)" % (", ".join(absent), " ".join(pkgs))
    return None


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("", 0))
        return s.getsockname()[1]


def _die_with_parent():
    # Run in the child before exec: a test killed by SIGKILL (a make
    # interrupted, a CI timeout) must not leave a daemon running.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    os.setpgid(0, 0)


def _tail(path, n=15):
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        return ["(%s)" % e]
    return lines[-n:] if lines else ["(empty)"]


def _last_error(path):
    """The last error or fatal line of a daemon's log, for a skip reason."""
    errors = [line.strip() for line in _tail(path, 200)
              if re.search(r"\b(error|fatal)\b", line, re.I)]
    return ": " + errors[-1] if errors else ""


def pids_working_in(folder):
    """The processes (not this one) whose working directory is FOLDER or
    below: in a cluster's folder, only what the cluster started."""
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == os.getpid():
            continue
        try:
            cwd = os.readlink("/proc/%s/cwd" % p)
        except OSError:
            continue
        if cwd == folder or cwd.startswith(folder + "/"):
            pids.append(int(p))
    return pids


def _parent(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            # pid (comm) state ppid ...: comm may hold spaces and ")".
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _node_cpus():
    """The CPUs slurmd will find here (slurmd -C, hwloc's count), so the
    node is never drained for a mismatch; else the CPUs Python sees."""
    try:
        out = subprocess.run(["slurmd", "-C"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             timeout=30).stdout.decode(errors="replace")
        m = re.search(r"\bCPUs=(\d+)", out)
        if m:
            return int(m.group(1))
    except (OSError, subprocess.TimeoutExpired):
        pass
    return os.cpu_count() or 1


class Cluster:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="zestub-slurm.")
        # munged refuses a socket in a folder every user cannot enter.
        os.chmod(self.dir, 0o755)
        self.jobdir = os.path.join(self.dir, "job")
        os.mkdir(self.jobdir)
        self.host = socket.gethostname().split(".")[0]
        self.cpus = _node_cpus()
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.socket = os.path.join(self.dir, "munge", "munge.socket")
        self.daemons = {}  # name -> Popen
        self.stopped = {}  # name -> how it ended, once stop() ran
        # A test killed outright (SIGKILL) runs no finally: the watchdog,
        # in a session of its own, sees its end of the pipe close and
        # kills what still works in the folder (a detached slurmstepd,
        # srun and the tasks; the daemons die with the test).
        self.watchdog = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--watch",
                                          self.dir], stdin=subprocess.PIPE, cwd="/",
                                         start_new_session=True)

    # ---- start ----------------------------------------------------------
    def start(self, timeout=60):
        """Starts munged, slurmctld and slurmd and waits until the node is
        idle; raises Unavailable (with the log tails) when it is not up in
        time. A port taken between choosing and binding it is retried."""
        self._start_munge()
        for attempt in range(3):
            self._write_conf(_free_port(), _free_port())
            self._spawn("slurmctld", ["slurmctld", "-D", "-f", self.conf])
            self._spawn("slurmd", ["slurmd", "-D", "-f", self.conf, "-N", self.host])
            try:
                self._wait_idle(timeout)
                return
            except Unavailable as e:
                busy = any("Address already in use" in line for f in ("slurmctld", "slurmd")
                           for line in _tail(self._log(f), 40))
                if not busy or attempt == 2:
                    raise e
                self._stop_daemon("slurmd")
                self._stop_daemon("slurmctld")

    def _log(self, name):
        return os.path.join(self.dir, name + ".log")

    def _spawn(self, name, argv):
        with open(self._log(name), "ab") as log:
            self.daemons[name] = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                                  stderr=subprocess.STDOUT, cwd=self.dir,
                                                  preexec_fn=_die_with_parent)

    def _start_munge(self):
        mdir = os.path.dirname(self.socket)
        os.mkdir(mdir)
        os.chmod(mdir, 0o755)  # whatever the umask: munged checks it
        key = os.path.join(mdir, "munge.key")
        # A key of our own: credentials of this cluster mean nothing to
        # the machine's munged, and the other way round.
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400)
        os.write(fd, os.urandom(1024))
        os.close(fd)
        self._spawn("munged", ["munged", "-F", "--socket=" + self.socket, "--key-file=" + key,
                               "--pid-file=" + os.path.join(mdir, "munged.pid"),
                               "--seed-file=" + os.path.join(mdir, "munged.seed"),
                               # -F logs to stderr (our munged.log); the
                               # file is named only to keep it private.
                               "--log-file=" + os.path.join(mdir, "munged.file.log")])
        deadline = time.time() + 15
        while not os.path.exists(self.socket):
            if self.daemons["munged"].poll() is not None or time.time() > deadline:
                raise Unavailable("munged did not create its socket (%s)%s" % (
                    "it exited with status %d" % self.daemons["munged"].returncode
                    if self.daemons["munged"].poll() is not None else "not within 15 s",
                    _last_error(self._log("munged"))), self.logs())
            time.sleep(0.05)

    def _write_conf(self, ctld_port, slurmd_port):
        d = self.dir
        lines = [
            "ClusterName=zestubtest",
            "SlurmctldHost=%s(127.0.0.1)" % self.host,
            "SlurmUser=root", "SlurmdUser=root",
            "SlurmctldPort=%d" % ctld_port, "SlurmdPort=%d" % slurmd_port,
            "AuthType=auth/munge", "CredType=cred/munge",
            "AuthInfo=socket=%s" % self.socket,
            "StateSaveLocation=%s/state" % d, "SlurmdSpoolDir=%s/spool" % d,
            # mpi/pmix makes a folder per step under TmpFS, named by job
            # and step only (/tmp/spmix_appdir_UID_JOB.STEP): in /tmp, one
            # that a killed step left would fail the same step of the
            # next cluster, whose job ids start at 1 again.
            "TmpFS=%s/tmp" % d,
            "SlurmctldPidFile=%s/slurmctld.pid" % d, "SlurmdPidFile=%s/slurmd.pid" % d,
            "SlurmctldLogFile=%s" % self._log("slurmctld.file"),
            "SlurmdLogFile=%s" % self._log("slurmd.file"),
            # No cgroups: a container (and CI's machine) may not delegate
            # them; processes are tracked through /proc.
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none",
            "MpiDefault=none", "SwitchType=switch/none",
            "SchedulerType=sched/builtin", "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "ReturnToService=2",
            "NodeName=%s NodeAddr=127.0.0.1 CPUs=%d State=UNKNOWN" % (self.host, self.cpus),
            "PartitionName=test Nodes=%s Default=YES MaxTime=INFINITE State=UP" % self.host,
        ]
        for sub in ("state", "spool", "tmp"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def _wait_idle(self, timeout):
        deadline = time.time() + timeout
        state = ""
        while time.time() < deadline:
            for name in ("slurmctld", "slurmd"):
                p = self.daemons[name]
                if p.poll() is not None:
                    raise Unavailable("%s exited with status %d at start%s" % (
                        name, p.returncode, _last_error(self._log(name))), self.logs())
            try:
                r = subprocess.run(["sinfo", "-h", "-n", self.host, "-o", "%T %E"],
                                   env=self.env(os.environ), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=30)
            except subprocess.TimeoutExpired:
                continue
            state = r.stdout.decode(errors="replace").strip()
            if r.returncode == 0 and state.split(" ")[0] in ("idle", "mixed"):
                return
            time.sleep(0.2)
        raise Unavailable("node %s not idle within %d s (sinfo: %s)%s" % (
            self.host, timeout, state.splitlines()[-1] if state else "nothing",
            _last_error(self._log("slurmd")) or _last_error(self._log("slurmctld"))),
            self.logs())

    def logs(self):
        """The tail of each daemon's log, for a skip or a failure."""
        out = []
        # slurmd.file.log: slurmd's LogFile, where slurmstepd (the job
        # steps) also writes; the others are the daemons' stderr.
        for name in ("munged", "slurmctld", "slurmd", "slurmd.file"):
            if os.path.exists(self._log(name)):
                out.append("---- %s (%s)" % (name, self._log(name)))
                out += _tail(self._log(name))
        return "\n".join(out)

    # ---- use ------------------------------------------------------------
    def env(self, base):
        """BASE for the cluster's commands: SLURM_CONF ours, no SLURM_*
        of an enclosing allocation (srun would join that job, on another
        cluster), and no other launcher's rank (it would come before
        SLURM_PROCID)."""
        e = {k: v for k, v in base.items()
             if not k.startswith("SLURM_") and k not in LAUNCHER_RANKS}
        e["SLURM_CONF"] = self.conf
        return e

    def srun(self, args, env, timeout=180):
        """srun ARGS in the job directory: (status, stdout, stderr); None
        for the status when it had to be killed after TIMEOUT."""
        p = subprocess.Popen(["srun"] + list(args), env=self.env(env), cwd=self.jobdir,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        try:
            out, err = p.communicate(timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            rc = None
            self.cancel_all()
        return rc, out.decode(errors="replace"), err.decode(errors="replace")

    # ---- stop -----------------------------------------------------------
    def cancel_all(self):
        subprocess.run(["scancel", "--user", "root"], env=self.env(os.environ),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)

    def leftovers(self):
        """What a finished job must not leave: jobs slurmctld still knows,
        step sockets in the spool folder, and processes working in the job
        directory (slurmstepd and the tasks run there); with the pids."""
        jobs = ""
        if self.daemons.get("slurmctld") and self.daemons["slurmctld"].poll() is None:
            r = subprocess.run(["squeue", "-h", "-o", "%i %T"], env=self.env(os.environ),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
            jobs = r.stdout.decode(errors="replace").strip()
        spool = os.path.join(self.dir, "spool")
        steps = sorted(f for f in os.listdir(spool) if f.startswith(self.host + "_"))
        return {"jobs": jobs, "step_sockets": steps, "pids": self._pids_in_jobdir()}

    def _pids_in_jobdir(self):
        """Processes working in the cluster's directory but the daemons
        and slurmctld's helper slurmscriptd: srun and the tasks (in the
        job directory) and slurmstepd (it takes slurmd's directory)."""
        daemons = {p.pid for p in self.daemons.values()}
        return [p for p in pids_working_in(self.dir)
                if p not in daemons and _parent(p) not in daemons]  # slurmscriptd

    def _stop_daemon(self, name, wait=10):
        p = self.daemons.pop(name, None)
        if p is None:
            return
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=wait)
                self.stopped[name] = "SIGTERM"
            except subprocess.TimeoutExpired:
                self.stopped[name] = "SIGKILL"
        else:
            self.stopped[name] = "had exited with status %d" % p.returncode
        # slurmctld's slurmscriptd is in the daemon's own process group.
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.wait()

    def stop(self):
        """Ends every job, step and daemon of the cluster; returns what was
        still there after the jobs were cancelled (leftovers()), which was
        then killed."""
        left = {"jobs": "", "step_sockets": [], "pids": []}
        if "slurmctld" in self.daemons:
            try:
                self.cancel_all()
                deadline = time.time() + 15
                left = self.leftovers()
                while (left["jobs"] or left["step_sockets"] or left["pids"]) and \
                        time.time() < deadline:
                    time.sleep(0.2)
                    left = self.leftovers()
            except (OSError, subprocess.SubprocessError) as e:
                left["error"] = repr(e)
        for pid in self._pids_in_jobdir():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for name in ("slurmd", "slurmctld", "munged"):
            self._stop_daemon(name)
        return left

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        self.watchdog.stdin.close()
        self.watchdog.wait()


def watch(folder):
    """The watchdog: once its standard input ends (the test ended, however
    it ended), kills every process still working in FOLDER and removes it."""
    sys.stdin.buffer.read()
    deadline = time.time() + 10
    while time.time() < deadline:
        left = pids_working_in(folder)
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.1)
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__" and sys.argv[1:2] == ["--watch"]:
    watch(sys.argv[2])
