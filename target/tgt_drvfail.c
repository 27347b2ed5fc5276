/* SPDX-License-Identifier: MIT */
/* Run control when the driver fails: an interrupt a device refuses, and
 * an event stream that cannot be read. Both must reach the client as the
 * driver's words (a client waiting for a stop that will never come hangs)
 * and the log at warning level, and neither may leave the application's
 * threads stopped behind a client that was told something else. */
#include "target/tgt_int.h"

#include <errno.h>
#include <stdio.h>

#include "sessions/sess.h"

/* A device that refuses is named with the driver's words; only when none
 * took the interrupt is it an error (no stop will come). */
int tgt_interrupt(void *ctx, char *err, size_t errlen)
{
    struct tgt *t = ctx;
    struct zd_error e;
    unsigned refused = 0;
    t->interrupts_pending = 0;
    for (unsigned k = 0; k < t->n; k++) {
        if (!sess_alive(t->m, k))
            continue;
        if (sess_interrupt_device(t->m, k, &e) == 0) {
            t->interrupts_pending++;
            continue;
        }
        if (!refused++ && errlen)
            snprintf(err, errlen, "p%u: %s", k + 1, e.msg);
        rsp_logf(&t->log, RSP_LOG_WARNING, "device [%s] refused the interrupt: %s",
                 sess_device(t->m, k)->pci_slot, e.msg);
    }
    return refused && !t->interrupts_pending ? -EIO : 0;
}

/* The reader gave up on a session whose event reads kept failing (zetdebug
 * retries for about 2.5 s). Taken for the application's end, the client
 * would be told W while the threads stay stopped by a session nobody
 * reads. Instead the session is detached now (held module loads are
 * acknowledged, the driver resumes the threads) and the client is told
 * why: as the answer of the resume that waits, or else of the next one
 * (the device stays listed until then, and is never reported exited). */
bool tgt_stream_failure(struct tgt *t, struct rsp_event *ev)
{
    char why[256];
    for (unsigned k = 0; k < t->n; k++) {
        struct zd_error e;
        const char *slot = sess_device(t->m, k)->pci_slot;
        if (!tgt_listed(t, k) || sess_alive(t->m, k) ||
            !sess_stream_failed(t->m, k, why, sizeof(why)) || t->stream_untold)
            continue;
        tgt_prefetch_pause(t); /* nothing read ahead in a session that ends */
        if (sess_detach(t->m, k, &e) != 0)
            rsp_logf(&t->log, RSP_LOG_WARNING,
                     "detaching from device [%s] failed, its threads may still be stopped: %s",
                     slot, e.msg);
        snprintf(t->stream_error, sizeof(t->stream_error),
                 "p%u: the debug events of device [%s] cannot be read (%s): detached from it, "
                 "the application runs on without the debugger",
                 k + 1, slot, why);
        rsp_logf(&t->log, RSP_LOG_WARNING, "%s", t->stream_error);
        if (t->resume_waits) {
            ev->error = t->stream_error;
            t->exit_told[k] = true; /* told: no longer listed */
        } else {
            t->stream_untold = true;
        }
        t->resume_waits = false;
        return t->exit_told[k];
    }
    return false;
}

/* rsp_target_ops.resume: a stream failure nobody was told of answers it
 * (and the device it named leaves the list); otherwise tgt_resume, and
 * whether its answer is still to come. */
int tgt_resume_checked(void *ctx, const struct rsp_resume *actions, size_t n, char *err,
                       size_t errlen)
{
    struct tgt *t = ctx;
    int rc;
    if (t->stream_untold) {
        t->stream_untold = false;
        for (unsigned k = 0; k < t->n; k++)
            if (tgt_listed(t, k) && !sess_alive(t->m, k) && sess_stream_failed(t->m, k, NULL, 0))
                t->exit_told[k] = true;
        tgt_say(err, errlen, t->stream_error);
        return -EIO;
    }
    rc = tgt_resume(ctx, actions, n, err, errlen);
    t->resume_waits = rc == 0 && !t->non_stop;
    return rc;
}
