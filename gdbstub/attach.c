/* SPDX-License-Identifier: MIT */
#include "gdbstub/attach.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gdbstub/output.h"
#include "gdbstub/progress.h"
#include "gdbstub/server_state.h"
#include "gdbstub/stopreply.h"
#include "gdbstub/threadid.h"

/* Intel's GDB reads a failed vAttach as E02<text> (protocol 12.3); GDB 13
 * and other clients take anything but "Enn" or "E.<text>" for success and
 * then crash looking for the thread they think they attached to. */
void rsp_reply_attach_error(const struct rsp_server *s, struct rsp_buf *reply, const char *text)
{
    if (s->client_intelgt) {
        rsp_reply_e02(reply, text);
        return;
    }
    rsp_buf_clear(reply);
    rsp_buf_puts(reply, "E.");
    /* As in E02: the per-device lines keep their newlines, nothing that
     * breaks framing or reaches the user's terminal as a control byte. */
    for (; *text; text++) {
        uint8_t c = (uint8_t)*text;
        bool bad = c != '\n' && (strchr("$#}*", c) || c < 0x20 || c > 0x7e);
        rsp_buf_putc(reply, bad ? '?' : (char)c);
    }
}

/* What stands in the way of attaching a second time: one process at a
 * time is served. Starts with "Already attached", the phrase gdbserver
 * uses. */
static void already_attached(const struct rsp_server *s, uint32_t host_pid, char *text, size_t len)
{
    uint32_t have = s->attached_host;
    if (!have)
        snprintf(text, len, "Already attached: detach first.");
    else if (have == host_pid)
        snprintf(text, len, "Already attached to process %u.", (unsigned)have);
    else if (kill((pid_t)host_pid, 0) < 0 && errno == ESRCH)
        snprintf(text, len, "Already attached to process %u; process %u does not exist.",
                 (unsigned)have, (unsigned)host_pid);
    else
        snprintf(text, len,
                 "Already attached to process %u: one process is debugged at a time; "
                 "detach it first to attach to process %u.",
                 (unsigned)have, (unsigned)host_pid);
}

int rsp_do_attach(struct rsp_server *s, uint32_t host_pid, struct rsp_buf *reply)
{
    const struct rsp_target_ops *o = s->target.ops;
    struct rsp_event ev;
    char text[2048];
    struct rsp_buf msg;
    struct rsp_progress progress;
    int rc;

    if (o->process_count(s->target.ctx) > 0) {
        already_attached(s, host_pid, text, sizeof(text));
        rsp_reply_attach_error(s, reply, text);
        return -EALREADY;
    }
    memset(&ev, 0, sizeof(ev));
    text[0] = 0;
    rsp_progress_begin(&progress, &s->cfg.log, "attach and stop");
    rc = o->attach(s->target.ctx, host_pid, &ev, text, sizeof(text));
    if (rc < 0) {
        /* One error reply, always naming the retryable case with the
         * phrase Intel's auto-attach script looks for. */
        rsp_buf_init(&msg);
        rsp_buf_puts(&msg, text[0] ? text : "Failed to attach to any device.");
        if (rc == RSP_TARGET_TOO_EARLY && !strstr(text, "attempting to attach too early"))
            rsp_buf_puts(&msg, "\nattempting to attach too early");
        rsp_reply_attach_error(s, reply, msg.oom ? "Failed to attach." : msg.data);
        /* Without a client (the command line's --attach) the caller
         * reports it: logged here too, it was printed twice. */
        if (s->conn)
            rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "attach to process %u failed: %s",
                     (unsigned)host_pid, msg.oom ? "out of memory" : msg.data);
        rsp_buf_free(&msg);
        return rc;
    }
    s->attached_host = host_pid;
    s->run_host = 0; /* vRun sets it again for the program it started */
    rsp_progress_end(&progress, rsp_count_threads(s), "threads");
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "attached to process %u: %zu device process(es)",
             (unsigned)host_pid, o->process_count(s->target.ctx));
    if (!s->client_intelgt && s->conn && !rsp_find_process(s, host_pid, NULL)) {
        s->alias_dev = ev.pid;
        s->alias_host = host_pid;
    }
    if (s->non_stop) { /* GDB asks for the stops it wants (vCont;t) */
        rsp_reply_ok(reply);
        return 0;
    }
    rsp_note_stop(s, &ev);
    rsp_stop_reply(s, &ev, reply);
    return 0;
}

int rsp_interrupt(struct rsp_server *s)
{
    char e[RSP_ERR_LEN] = "";
    /* In all-stop a ^C while stopped has nothing to stop (gdbserver ignores
     * it too); the stop it causes arrives as an ordinary event. */
    if (!s->running)
        return 0;
    rsp_logf(&s->cfg.log, RSP_LOG_INFO, "interrupt: stopping every device");
    if (s->target.ops->interrupt(s->target.ctx, e, sizeof(e)) == 0)
        return 0;
    rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "interrupt failed: %s", e[0] ? e : "no reason given");
    if (s->non_stop)
        return 0; /* vCtrlC answers it; a ^C there has no resume waiting */
    /* No stop will come, and GDB waits for one (a second ^C only asks the
     * user whether to give up). The resume is answered with the driver's
     * words, for every client (GDB prints any E reply to a resume as
     * "Remote failure reply: ..." whether it announced error-message+ or
     * not), and takes the program for stopped; the threads run on, a
     * later resume or D finds them as they are. */
    s->running = false;
    rsp_reply_etext(&s->reply, e[0] ? e : "the interrupt failed");
    return rsp_send_packet(s, s->reply.data, s->reply.len) < 0 ? -EPIPE : 0;
}
