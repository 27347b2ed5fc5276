/* SPDX-License-Identifier: MIT */
/* The end of a device's application: which devices the client still
 * knows (listed until their end is reported), whether an end is owed, and
 * the report itself. Process exit always wins (README.md): tgt_run.c asks
 * here before it resumes anything or takes any other event. */
#include "target/tgt_int.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "gdbstub/gdb_signal.h"
#include "sessions/sess.h"

/* The driver's exit event may come a moment before the process has become
 * a zombie (its device work ends first). */
#define HOST_STATUS_WAIT_MS 1000

/* A device whose event stream failed is not an exit: tgt_drvfail.c
 * tells the client (it stays listed until then). */
bool tgt_exit_untold(struct tgt *t, unsigned k)
{
    return tgt_listed(t, k) && !sess_alive(t->m, k) && !sess_stream_failed(t->m, k, NULL, 0);
}

bool tgt_listed(struct tgt *t, unsigned k)
{
    return sess_alive(t->m, k) || (t->exit_told && !t->exit_told[k] && sess_exited(t->m, k));
}

/* All-stop: a device whose application ended answers the resume with its
 * exit; nothing is resumed. Its DETACHED note is still queued (taking it
 * reports the exit), so the event fd is readable. */
bool tgt_exit_pending(struct tgt *t)
{
    for (unsigned k = 0; k < t->n; k++)
        if (tgt_exit_untold(t, k)) {
            rsp_logf(&t->log, RSP_LOG_DEBUG,
                     "p%u: the application ended: its exit answers the resume", k + 1);
            return true;
        }
    return false;
}

/* How our own child ended, without reaping it (WNOWAIT: whoever started
 * it, launch mode in cli/, still waits for it and exits with its status).
 * False at once when the application is not our child (attached by pid:
 * its status is not ours to read), or when it has not ended in time. */
static bool child_status(pid_t pid, int *code, int *sig)
{
    const struct timespec tick = {0, 10 * 1000 * 1000};
    for (int waited = 0; waited <= HOST_STATUS_WAIT_MS; waited += 10) {
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
            if (errno == EINTR)
                continue;
            return false; /* ECHILD: not ours */
        }
        if (si.si_pid == pid) {
            *sig = si.si_code == CLD_EXITED ? 0 : rsp_gdb_signal(si.si_status);
            *code = si.si_code == CLD_EXITED ? si.si_status : 0;
            return true;
        }
        nanosleep(&tick, NULL);
    }
    return false;
}

/* How the application ended: the launcher's answer for a program vRun
 * started, else ours for a child (launch mode). */
static bool host_status(struct tgt *t, int *code, int *sig)
{
    if (!t->host_pid)
        return false;
    if (t->launcher.status && t->launcher.status(t->launcher.arg, t->host_pid, code, sig) == 0)
        return true;
    return child_status((pid_t)t->host_pid, code, sig);
}

/* Fills the end of device k: W with the application's exit status, X with
 * the signal that killed it, as gdbserver reports a process. The driver
 * gives no status (PROCESS_EXIT and DETACHED carry none): for an
 * application that is not ours to wait for (attached by pid), code 1 says
 * "the host process exited" (Intel's convention). */
static void fill_exit(struct tgt *t, unsigned k, struct rsp_event *ev)
{
    int code = 0, sig = 0;
    bool known = host_status(t, &code, &sig);
    memset(ev, 0, sizeof(*ev));
    ev->pid = k + 1;
    ev->kind = known && sig > 0 ? RSP_EVENT_KILLED : RSP_EVENT_EXITED;
    ev->signal = sig;
    ev->code = known ? code : 1; /* HOST_EXIT */
    if (!known)
        rsp_logf(&t->log, RSP_LOG_INFO,
                 "device process %u: the exit status of process %u is not known here "
                 "(not started by this server): reported as 1",
                 k + 1, (unsigned)t->host_pid);
}

/* Process exit always wins: a device whose application ended is reported
 * before anything else that is queued (its stops and library changes are
 * over). */
bool tgt_report_exit(struct tgt *t, struct rsp_event *ev)
{
    for (unsigned k = 0; k < t->n; k++) {
        if (!tgt_exit_untold(t, k))
            continue;
        t->exit_told[k] = true;
        rsp_logf(&t->log, RSP_LOG_INFO,
                 "device process %u: the application is gone from the device", k + 1);
        fill_exit(t, k, ev);
        return true;
    }
    return false;
}
