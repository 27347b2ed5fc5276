/* SPDX-License-Identifier: MIT */
/* vRun for Intel's GDB. Its `run` reads the PC of the new program's thread
 * before it resumes anything (infcmd.c run_command_1, unprotected), and a
 * device has no thread with a PC before its first kernel: a vRun answered
 * at once (U, as vAttach answers when no kernel runs) makes `run` fail with
 * "Cannot compute PC". So the reply waits, as gdbserver's vRun waits for
 * the new process's first stop: every module the program loads meanwhile
 * is acknowledged by the server (it is in the library list GDB reads right
 * after the reply, before it resumes, so GDB still plants the breakpoints
 * it has for it), the first instruction of each of its kernels gets a
 * breakpoint bit, and the first thread to reach one is the stop that
 * answers the vRun; the bits are removed before the reply. Other threads
 * that reached an entry meanwhile are held, and their stops are dropped at
 * the next resume because the bit is gone (target/tgt_run.c). */
#include "gdbstub/h_run_entry.h"

#include <stdlib.h>

#include "gdbstub/h_library.h"
#include "gdbstub/offers.h"
#include "gdbstub/server_state.h"

struct entry_bp {
    uint32_t pid;
    uint64_t addr;
};

struct rsp_run_entry {
    struct entry_bp *planted; /* entries whose bit the server set */
    size_t n;
};

static void forget(struct rsp_server *s, bool remove)
{
    struct rsp_run_entry *r = s->run_entry;
    char err[RSP_ERR_LEN];
    if (!r)
        return;
    for (size_t i = 0; remove && i < r->n; i++)
        if (s->target.ops->sw_breakpoints->remove(s->target.ctx, r->planted[i].pid,
                                                  r->planted[i].addr, err, sizeof(err)) < 0)
            rsp_logf(&s->cfg.log, RSP_LOG_WARNING,
                     "vRun: the entry breakpoint at 0x%llx could not be removed: %s",
                     (unsigned long long)r->planted[i].addr, err);
    free(r->planted);
    free(r);
    s->run_entry = NULL;
}

static bool planted(const struct rsp_run_entry *r, uint32_t pid, uint64_t addr)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->planted[i].pid == pid && r->planted[i].addr == addr)
            return true;
    return false;
}

/* A bit on the first instruction of every kernel device process pid has
 * loaded so far. */
static void plant(struct rsp_server *s, uint32_t pid)
{
    struct rsp_run_entry *r = s->run_entry;
    const struct rsp_sw_breakpoints_ops *o = s->target.ops->sw_breakpoints;
    size_t n = o->kernel_entries(s->target.ctx, pid, NULL, 0);
    uint64_t *all = calloc(n ? n : 1, sizeof(*all));
    struct entry_bp *grown = realloc(r->planted, (r->n + n + 1) * sizeof(*grown));
    char err[RSP_ERR_LEN];

    if (grown)
        r->planted = grown;
    if (!all || !grown) {
        free(all);
        rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "vRun: out of memory for entry breakpoints");
        return;
    }
    n = o->kernel_entries(s->target.ctx, pid, all, n);
    for (size_t i = 0; i < n; i++) {
        bool was_set = false;
        if (planted(r, pid, all[i]))
            continue;
        if (o->insert(s->target.ctx, pid, all[i], &was_set, err, sizeof(err)) < 0)
            rsp_logf(&s->cfg.log, RSP_LOG_WARNING, "vRun: no entry breakpoint at 0x%llx: %s",
                     (unsigned long long)all[i], err);
        else if (!was_set) /* a bit of the program's own stays */
            r->planted[r->n++] = (struct entry_bp){pid, all[i]};
    }
    free(all);
}

static int on_event(struct rsp_server *s, const struct rsp_event *ev)
{
    if (!s->run_entry)
        return RSP_EVENT_PASS;
    if (ev->kind == RSP_EVENT_LIBRARY) {
        plant(s, ev->pid);
        rsp_libraries_ack_waiting(s, ev->pid,
                                  "acknowledged by the server: vRun runs to the first kernel");
        return RSP_EVENT_DROP;
    }
    /* The first stop (an entry, or anything else the program did first)
     * or its end answers the vRun. */
    forget(s, ev->kind != RSP_EVENT_EXITED);
    return RSP_EVENT_PASS;
}

static void client_gone(struct rsp_server *s)
{
    forget(s, true);
}

static void detaching(struct rsp_server *s, uint32_t pid)
{
    (void)pid; /* the vRun is over either way */
    forget(s, true);
}

static void release(struct rsp_server *s)
{
    forget(s, false);
}

const struct rsp_feature rsp_feature_run_entry = {
    .name = "vRun to the first kernel",
    .client_gone = client_gone,
    .detaching = detaching,
    .on_event = on_event,
    .release = release,
};

enum rsp_hresult rsp_run_to_entry(struct rsp_server *s)
{
    struct rsp_process_info p;
    struct rsp_resume all = {.kind = RSP_RESUME_CONTINUE, .pid = -1, .tid = -1};
    enum rsp_hresult h;
    const struct rsp_target_ops *o = s->target.ops;

    if (!rsp_offered(s, RSP_OFFER_RUN_TO_ENTRY))
        return RSP_H_REPLY; /* the attach's own stop answers */
    forget(s, true);
    if (!(s->run_entry = calloc(1, sizeof(*s->run_entry))))
        return RSP_H_REPLY;
    /* Modules the program loaded before the attach. */
    for (size_t i = 0; o->process_at(s->target.ctx, i, &p) == 0; i++)
        plant(s, p.pid);
    rsp_buf_clear(&s->reply);
    h = rsp_resume_start(s, &all, 1);
    if (h == RSP_H_REPLY)
        forget(s, true);
    return h;
}
