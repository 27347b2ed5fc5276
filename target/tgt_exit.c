/* SPDX-License-Identifier: MIT */
/* The end of a device's application: which devices the client still
 * knows (listed until their end is reported), whether an end is owed, and
 * the report itself. Process exit always wins (README.md): tgt_run.c asks
 * here before it resumes anything or takes any other event. */
#include "target/tgt_int.h"

#include <string.h>

#include "sessions/sess.h"

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

/* Process exit always wins: a device whose application ended is reported
 * before anything else that is queued (its stops and library changes are
 * over). The driver gives no exit status: code 1 says "the host process
 * exited" (Intel's convention). */
bool tgt_report_exit(struct tgt *t, struct rsp_event *ev)
{
    for (unsigned k = 0; k < t->n; k++) {
        if (!tgt_exit_untold(t, k))
            continue;
        t->exit_told[k] = true;
        rsp_logf(&t->log, RSP_LOG_INFO,
                 "device process %u: the application is gone from the device", k + 1);
        memset(ev, 0, sizeof(*ev));
        ev->kind = RSP_EVENT_EXITED;
        ev->pid = k + 1;
        ev->code = 1; /* HOST_EXIT */
        return true;
    }
    return false;
}
