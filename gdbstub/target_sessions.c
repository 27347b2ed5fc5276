/* SPDX-License-Identifier: MIT */
/* rsp_target_ops on sessions/. Device processes are numbered from 1 in
 * attach order; lwp n is hardware thread n-1 of its device. All-stop: when
 * a thread stops, every other device is stopped before the stop is
 * reported (one interrupt per device). */
#include "gdbstub/target_sessions.h"

#include "gdbstub/packet.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "gdbstub/target_monitor.h"
#include "gdbstub/target_xpti.h"
#include "regsets/regs.h"
#include "sessions/sess.h"

struct starget {
    struct zd *zd;
    struct sess_manager *m;
    struct regs_catalog **cats; /* one target description per device */
    uint8_t **flags;            /* per device, per thread: TF_* */
    unsigned n;
    struct rsp_log log;
    /* The event fd the server polls: an epoll set of the sessions' note fd
     * and held_fd, an eventfd that says `report` is to be sent without a
     * device event: a held thread instead of a resume, or the end of a
     * thread that was asked to step its end-of-thread instruction. */
    int ep_fd, held_fd;
    bool non_stop;     /* QNonStop:1: no stop-all anywhere */
    uint32_t host_pid; /* of the attached application */
    /* Devices a client's interrupt (^C) went to that have not answered
     * with a stop: when all answer "nothing to stop", the interrupt must
     * still end the resume, or GDB would wait forever. */
    unsigned interrupts_pending;
    struct rsp_xpti *xpti;     /* the application's XPTI table, from attach to detach */
    rsp_sessions_dump_fn dump; /* monitor dump, provided by the caller */
    void *dump_arg;
    bool held_report, report_stop_all;
    struct rsp_event report;
    /* Threads range stepping in the current resume (few at a time). */
    struct range_step *ranges;
    size_t nranges, cap_ranges;
};

struct range_step {
    unsigned k;
    uint32_t th;
    uint64_t start, end;
};

/* Per-thread flags. Protocol 7: only threads that were part of the resume
 * count for its stop reply. A thread that was not (stopped by our own
 * stop-all, or left stopped by a scheduler-locked resume) and stopped for a
 * reason of its own (breakpoint, fault) is HELD: reported, instead of
 * resumed, when a later resume includes it. Its interrupt stops are ours
 * and dropped. */
enum {
    TF_STEPPING = 1, /* resumed with a step: the breakpoint bit is not a breakpoint */
    TF_RESUMED = 2,  /* part of the last resume */
    TF_HELD = 4,     /* stopped with an unreported event of its own */
    TF_REPORTED = 8, /* its stop was reported and it was not resumed since */
};

/* The instruction at a stopped thread's PC (16 bytes: enough for either
 * length). */
static bool insn_at_pc(struct starget *t, unsigned k, uint32_t th, uint64_t *pc, uint8_t insn[16])
{
    struct zd_error e;
    return sess_thread_pc(t->m, k, th, pc, &e) == 0 &&
           sess_read_memory(t->m, k, th, ZD_SPACE_DEFAULT, *pc, 16, insn, &e) == 0;
}

static struct range_step *range_of(struct starget *t, unsigned k, uint32_t th)
{
    for (size_t i = 0; i < t->nranges; i++)
        if (t->ranges[i].k == k && t->ranges[i].th == th)
            return &t->ranges[i];
    return NULL;
}

static bool add_range(struct starget *t, unsigned k, uint32_t th, uint64_t start, uint64_t end)
{
    if (t->nranges == t->cap_ranges) {
        size_t cap = t->cap_ranges ? 2 * t->cap_ranges : 8;
        struct range_step *n = realloc(t->ranges, cap * sizeof(*n));
        if (!n)
            return false;
        t->ranges = n;
        t->cap_ranges = cap;
    }
    t->ranges[t->nranges++] = (struct range_step){k, th, start, end};
    return true;
}

static void drop_range(struct starget *t, unsigned k, uint32_t th)
{
    struct range_step *r = range_of(t, k, th);
    if (r)
        *r = t->ranges[--t->nranges];
}

/* Queues an event that no device will send (see held_fd). */
static void queue_report(struct starget *t, const struct rsp_event *ev, bool stop_all)
{
    uint64_t one = 1;
    t->report = *ev;
    t->held_report = true;
    t->report_stop_all = stop_all;
    if (write(t->held_fd, &one, sizeof(one)) < 0) {
        /* the counter cannot overflow with one write per report */
    }
}

static void stop_all_and_hold(struct starget *t);
static bool hold_unreported(struct starget *t);

static void say(char *err, size_t errlen, const char *msg)
{
    if (errlen)
        snprintf(err, errlen, "%s", msg);
}

static bool valid(struct starget *t, uint32_t pid, uint32_t tid)
{
    return pid >= 1 && pid <= t->n && sess_alive(t->m, pid - 1) &&
           (tid == 0 || tid <= sess_thread_count(t->m, pid - 1));
}

/* A stop event for the thread, with its reason decoded from cr0. */
static void stop_event(struct starget *t, unsigned k, uint32_t thread, struct rsp_event *ev)
{
    enum regs_stop_reason r = sess_thread_reason(t->m, k, thread);
    memset(ev, 0, sizeof(*ev));
    ev->kind = RSP_EVENT_STOP;
    ev->pid = k + 1;
    ev->tid = thread + 1;
    ev->signal = regs_stop_signal(r);
    /* A step ends with the breakpoint status bit too: not a breakpoint. */
    ev->swbreak = r == REGS_STOP_BREAKPOINT && !(t->flags[k][thread] & TF_STEPPING);
    t->flags[k][thread] &= (uint8_t) ~(TF_STEPPING | TF_HELD);
    t->flags[k][thread] |= TF_REPORTED;
}

static int t_attach(void *ctx, uint32_t host_pid, struct rsp_event *stop, char *err, size_t errlen)
{
    struct starget *t = ctx;
    struct sess_options opt;
    struct zd_error e;
    int rc;

    if (t->m) {
        say(err, errlen, "Already attached.");
        return -EBUSY;
    }
    sess_options_from_env(&opt);
    rc = sess_attach(t->zd, host_pid, &opt, &t->m, &e);
    t->host_pid = host_pid;
    if (rc) {
        say(err, errlen, e.msg);
        return rc == ZD_E_TOO_EARLY ? RSP_TARGET_TOO_EARLY : -EIO;
    }
    t->n = sess_count(t->m);
    t->xpti = rsp_xpti_new(host_pid);
    t->cats = calloc(t->n, sizeof(*t->cats));
    t->flags = calloc(t->n, sizeof(*t->flags));
    for (unsigned k = 0; t->cats && t->flags && k < t->n; k++) {
        size_t ns;
        const struct zd_regset *sets = sess_regsets(t->m, k, &ns);
        t->cats[k] = regs_catalog_new(sets, ns);
        t->flags[k] = calloc(sess_thread_count(t->m, k), 1);
    }
    {
        struct epoll_event ev = {.events = EPOLLIN};
        ev.data.fd = sess_notify_fd(t->m);
        epoll_ctl(t->ep_fd, EPOLL_CTL_ADD, ev.data.fd, &ev);
    }
    if (t->non_stop) {
        /* Non-stop attach stops nothing: GDB asks for the stops it wants;
         * every thread counts as running (resumed) for GDB. */
        for (unsigned k = 0; k < t->n; k++)
            for (uint32_t th = 0; t->flags && t->flags[k] && th < sess_thread_count(t->m, k); th++)
                t->flags[k][th] = TF_RESUMED;
        memset(stop, 0, sizeof(*stop));
        return 0;
    }
    /* All-stop attach: stop every device, report a thread of the last. */
    stop_all_and_hold(t);
    rsp_xpti_stopped(t->xpti);
    memset(stop, 0, sizeof(*stop));
    stop->kind = RSP_EVENT_UNAVAILABLE;
    stop->pid = t->n;
    stop->tid = 1;
    for (uint32_t th = 0; th < sess_thread_count(t->m, t->n - 1); th++)
        if (sess_thread_state(t->m, t->n - 1, th) == SESS_T_STOPPED) {
            stop_event(t, t->n - 1, th, stop);
            break;
        }
    return 0;
}

static size_t t_process_count(void *ctx)
{
    struct starget *t = ctx;
    size_t n = 0;
    for (unsigned k = 0; k < t->n; k++)
        n += sess_alive(t->m, k);
    return n;
}

static int t_process_at(void *ctx, size_t i, struct rsp_process_info *out)
{
    struct starget *t = ctx;
    for (unsigned k = 0; k < t->n; k++) {
        if (!sess_alive(t->m, k))
            continue;
        if (i-- == 0) {
            out->pid = k + 1;
            out->nthreads = sess_thread_count(t->m, k);
            return 0;
        }
    }
    return -ENOENT;
}

static int t_thread_info(void *ctx, uint32_t pid, uint32_t tid, struct rsp_thread_info *out)
{
    struct starget *t = ctx;
    struct zd_thread id;
    if (!valid(t, pid, tid) || tid == 0)
        return -ENOENT;
    switch (sess_thread_state(t->m, pid - 1, tid - 1)) {
    case SESS_T_STOPPED:
    case SESS_T_HELD:
        out->state = RSP_THREAD_STOPPED;
        break;
    case SESS_T_UNAVAILABLE:
        out->state = RSP_THREAD_UNAVAILABLE;
        break;
    default:
        out->state = RSP_THREAD_RUNNING;
        break;
    }
    out->tdesc = pid; /* one description per device */
    id = sess_thread_id(t->m, pid - 1, tid - 1);
    out->slice = id.slice;
    out->subslice = id.subslice;
    out->eu = id.eu;
    out->thread = id.thread;
    return 0;
}

static int t_tdesc(void *ctx, uint32_t id, struct rsp_tdesc *out)
{
    struct starget *t = ctx;
    if (id < 1 || id > t->n || !t->cats[id - 1])
        return -ENOENT;
    out->regs = t->cats[id - 1];
    out->pid = id;
    return 0;
}

static int t_device_info(void *ctx, uint32_t pid, struct rsp_device_info *out)
{
    struct starget *t = ctx;
    const struct zd_device *d;
    if (pid < 1 || pid > t->n)
        return -ENOENT;
    d = sess_device(t->m, pid - 1);
    memset(out, 0, sizeof(*out));
    out->vendor_id = (uint16_t)d->vendor_id;
    out->device_id = (uint16_t)d->device_id;
    snprintf(out->name, sizeof(out->name), "%.127s", d->name);
    snprintf(out->pci_slot, sizeof(out->pci_slot), "%s", d->pci_slot);
    memcpy(out->uuid, d->uuid, sizeof(out->uuid));
    out->has_uuid = true;
    out->total_cores = d->slices * d->subslices * d->eus;
    out->total_threads = d->nthreads;
    out->subdevice_id = d->parent >= 0 ? (int32_t)d->subdevice_id : -1;
    return 0;
}

static const struct regs_reg *reg_of(struct starget *t, uint32_t pid, uint32_t regnum)
{
    return pid >= 1 && pid <= t->n && t->cats[pid - 1] ? regs_catalog_at(t->cats[pid - 1], regnum)
                                                       : NULL;
}

static int t_read_register(void *ctx, uint32_t pid, uint32_t tid, uint32_t regnum, uint8_t *buf,
                           size_t size, char *err, size_t errlen)
{
    struct starget *t = ctx;
    const struct regs_reg *r = reg_of(t, pid, regnum);
    const uint8_t *data;
    size_t got;
    struct zd_error e;
    if (!r || !valid(t, pid, tid) || tid == 0) {
        say(err, errlen, "no such register or thread");
        return -EINVAL;
    }
    if (sess_read_regset(t->m, pid - 1, tid - 1, r->regset_type, &data, &got, &e) != 0)
        return RSP_TARGET_UNAVAILABLE;
    if ((size_t)(r->index + 1) * r->byte_size > got || size < r->byte_size)
        return -EINVAL;
    memcpy(buf, data + (size_t)r->index * r->byte_size, r->byte_size);
    return 0;
}

static int t_write_register(void *ctx, uint32_t pid, uint32_t tid, uint32_t regnum,
                            const uint8_t *buf, size_t size, char *err, size_t errlen)
{
    struct starget *t = ctx;
    const struct regs_reg *r = reg_of(t, pid, regnum);
    struct zd_error e;
    if (!r || !valid(t, pid, tid) || tid == 0 || size != r->byte_size) {
        say(err, errlen, "no such register or thread");
        return -EINVAL;
    }
    if (sess_write_registers(t->m, pid - 1, tid - 1, r->regset_type, r->index, 1, buf, &e) != 0) {
        say(err, errlen, e.msg);
        return -EIO;
    }
    return 0;
}

static int t_read_memory(void *ctx, const struct rsp_mem_ref *ref, uint8_t *buf, size_t len,
                         size_t *done, char *err, size_t errlen)
{
    struct starget *t = ctx;
    struct zd_error e;
    *done = 0;
    if (!valid(t, ref->pid, ref->tid)) {
        say(err, errlen, "no such process or thread");
        return -EINVAL;
    }
    if (sess_read_memory(t->m, ref->pid - 1, ref->tid ? ref->tid - 1 : UINT32_MAX,
                         ref->space ? ZD_SPACE_SLM : ZD_SPACE_DEFAULT, ref->addr, len, buf,
                         &e) != 0) {
        say(err, errlen, e.msg);
        return -EIO;
    }
    *done = len;
    return 0;
}

static int t_write_memory(void *ctx, const struct rsp_mem_ref *ref, const uint8_t *buf, size_t len,
                          char *err, size_t errlen)
{
    struct starget *t = ctx;
    struct zd_error e;
    if (!valid(t, ref->pid, ref->tid)) {
        say(err, errlen, "no such process or thread");
        return -EINVAL;
    }
    if (sess_write_memory(t->m, ref->pid - 1, ref->tid ? ref->tid - 1 : UINT32_MAX,
                          ref->space ? ZD_SPACE_SLM : ZD_SPACE_DEFAULT, ref->addr, len, buf,
                          &e) != 0) {
        say(err, errlen, e.msg);
        return -EIO;
    }
    return 0;
}

static bool matches(const struct rsp_resume *a, uint32_t pid, uint32_t tid)
{
    return (a->pid == -1 || a->pid == (int64_t)pid) &&
           (a->tid == -1 || a->tid == 0 || a->tid == (int64_t)tid);
}

/* The first action of a vCont that applies to the thread, or NULL. */
static const struct rsp_resume *action_for(const struct rsp_resume *actions, size_t n, unsigned k,
                                           uint32_t th)
{
    for (size_t i = 0; i < n; i++)
        if (matches(&actions[i], k + 1, th + 1))
            return &actions[i];
    return NULL;
}

/* A held thread the resume would include: it is reported instead of
 * anything being resumed (protocol 7). */
static bool find_held(struct starget *t, const struct rsp_resume *actions, size_t n, unsigned *hk,
                      uint32_t *hth)
{
    for (unsigned k = 0; k < t->n; k++) {
        if (!sess_alive(t->m, k))
            continue;
        for (uint32_t th = 0; th < sess_thread_count(t->m, k); th++) {
            const struct rsp_resume *a;
            if (!(t->flags[k][th] & TF_HELD) || sess_thread_state(t->m, k, th) != SESS_T_STOPPED)
                continue;
            a = action_for(actions, n, k, th);
            if (a && a->kind != RSP_RESUME_STOP) {
                *hk = k;
                *hth = th;
                return true;
            }
        }
    }
    return false;
}

static int t_resume(void *ctx, const struct rsp_resume *actions, size_t n, char *err, size_t errlen)
{
    struct starget *t = ctx;
    struct zd_error e;
    bool only_continue_all = true;

    unsigned hk, eot_k = 0;
    uint32_t hth, eot_th = UINT32_MAX;
    size_t resumed = 0;

    t->nranges = 0; /* a new resume cancels the range steps of the last */
    t->interrupts_pending = 0;
    /* Threads may have stopped on their own since the last report (the
     * devices keep running across a library report, and events arrive
     * late): their notes are still queued, but resuming them now would
     * step over their breakpoint silently. */
    hold_unreported(t);
    if (find_held(t, actions, n, &hk, &hth)) {
        struct rsp_event ev;
        rsp_logf(&t->log, RSP_LOG_DEBUG, "p%u.%u was held: reported instead of a resume", hk + 1,
                 hth + 1);
        stop_event(t, hk, hth, &ev);
        /* All-stop: threads may still run (after a library report). */
        queue_report(t, &ev, !t->non_stop);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        only_continue_all &=
            actions[i].kind == RSP_RESUME_CONTINUE && actions[i].pid == -1 && actions[i].tid == -1;
    for (unsigned k = 0; k < t->n; k++) {
        if (!sess_alive(t->m, k))
            continue;
        for (uint32_t th = 0; th < sess_thread_count(t->m, k); th++) {
            const struct rsp_resume *a = action_for(actions, n, k, th);
            enum sess_thread_state st = sess_thread_state(t->m, k, th);
            /* Running and unavailable threads an action covers count as
             * resumed too: GDB considers them running, and a later stop of
             * theirs (a breakpoint once work arrives) must be reported. */
            bool covered = a && a->kind != RSP_RESUME_STOP;
            bool resumes = covered && (st == SESS_T_STOPPED || st == SESS_T_HELD);
            t->flags[k][th] =
                (uint8_t)((t->flags[k][th] & (TF_HELD | (resumes ? 0 : TF_REPORTED))) |
                          (covered ? TF_RESUMED : 0) |
                          (resumes && (a->kind == RSP_RESUME_STEP || a->kind == RSP_RESUME_RANGE)
                               ? TF_STEPPING
                               : 0));
            if (only_continue_all)
                continue;
            if (a && a->kind == RSP_RESUME_STOP) {
                if (st == SESS_T_RUNNING)
                    sess_interrupt_thread(t->m, k, th, &e);
                continue;
            }
            if (!resumes)
                continue;
            resumed++;
            if (a->kind == RSP_RESUME_STEP || a->kind == RSP_RESUME_RANGE) {
                uint64_t pc;
                uint8_t insn[16];
                if (insn_at_pc(t, k, th, &pc, insn) && regs_insn_is_eot(insn)) {
                    /* Protocol 1.3: no step is armed for an end-of-thread
                     * send; the thread runs its end and is reported U. */
                    t->flags[k][th] &= (uint8_t)~TF_STEPPING;
                    sess_resume_thread(t->m, k, th, false, &e);
                    eot_k = k;
                    eot_th = th;
                    continue;
                }
                if (a->kind == RSP_RESUME_RANGE && !add_range(t, k, th, a->start, a->end))
                    rsp_logf(&t->log, RSP_LOG_WARNING, "out of memory: p%u.%u steps once", k + 1,
                             th + 1);
                sess_resume_thread(t->m, k, th, true, &e);
            } else
                sess_resume_thread(t->m, k, th, false, &e);
        }
    }
    if (eot_th != UINT32_MAX) {
        struct rsp_event ev = {.kind = RSP_EVENT_UNAVAILABLE, .pid = eot_k + 1, .tid = eot_th + 1};
        /* All-stop: whatever else was resumed stops before the report. */
        queue_report(t, &ev, resumed > 1 && !t->non_stop);
    }
    /* The common case: one resume per device. */
    if (only_continue_all) {
        if (sess_resume_all(t->m, &e) == 0)
            return 0;
        /* The application is gone (it ended while GDB was stopped): its
         * DETACHED event answers this resume with W, not an error. */
        if (e.code == ZD_E_LOST)
            return 0;
        say(err, errlen, e.msg);
        return -EIO;
    }
    return 0;
}

static int t_interrupt(void *ctx, char *err, size_t errlen)
{
    struct starget *t = ctx;
    struct zd_error e;
    t->interrupts_pending = 0;
    for (unsigned k = 0; k < t->n; k++)
        if (sess_alive(t->m, k) && sess_interrupt_device(t->m, k, &e) == 0)
            t->interrupts_pending++;
    return 0;
}

/* Every device answered the client's interrupt with "nothing to stop"
 * (no kernel runs): all-stop still owes GDB a stop. A thread that is
 * stopped anyway is reported; else thread 1 of the last device, as U. */
static void interrupt_answer(struct starget *t, struct rsp_event *ev)
{
    stop_all_and_hold(t);
    for (unsigned k = t->n; k-- > 0;) {
        if (!sess_alive(t->m, k))
            continue;
        for (uint32_t th = 0; th < sess_thread_count(t->m, k); th++)
            if (sess_thread_state(t->m, k, th) == SESS_T_STOPPED) {
                stop_event(t, k, th, ev);
                return;
            }
        memset(ev, 0, sizeof(*ev));
        ev->kind = RSP_EVENT_UNAVAILABLE;
        ev->pid = k + 1;
        ev->tid = 1;
        return;
    }
}

static int t_detach(void *ctx, uint32_t pid, char *err, size_t errlen)
{
    struct starget *t = ctx;
    struct zd_error e;
    if (pid < 1 || pid > t->n || !sess_alive(t->m, pid - 1)) {
        say(err, errlen, "no such process");
        return -ENOENT;
    }
    (void)e;
    /* The driver resumes the session's threads on detach. */
    sess_detach(t->m, pid - 1);
    fprintf(stderr, "Detached from device [%s]\n", sess_device(t->m, pid - 1)->pci_slot);
    if (t_process_count(t) == 0) {
        rsp_xpti_free(t->xpti); /* the last device: nothing to join with */
        t->xpti = NULL;
    }
    return 0;
}

static int t_event_fd(void *ctx)
{
    struct starget *t = ctx;
    return t->m ? t->ep_fd : -1;
}

/* A range-stepping thread stopped: steps it again, without a report, while
 * its PC stays in the range and it stopped only for the step (protocol 5).
 * True when it was stepped again (or sent to its end: then its U is
 * queued). */
static bool range_step_on(struct starget *t, unsigned k, uint32_t th)
{
    struct range_step *r = range_of(t, k, th);
    struct zd_error e;
    uint64_t pc;
    uint8_t insn[16];

    if (sess_thread_reason(t->m, k, th) != REGS_STOP_BREAKPOINT ||
        !insn_at_pc(t, k, th, &pc, insn) || pc < r->start || pc >= r->end ||
        regs_insn_breakpoint(insn)) {
        /* Left the range, a breakpoint of the client's, or another stop:
         * reported as a step. */
        drop_range(t, k, th);
        return false;
    }
    if (regs_insn_is_eot(insn)) {
        struct rsp_event ev = {.kind = RSP_EVENT_UNAVAILABLE, .pid = k + 1, .tid = th + 1};
        drop_range(t, k, th);
        t->flags[k][th] &= (uint8_t)~TF_STEPPING;
        sess_resume_thread(t->m, k, th, false, &e);
        queue_report(t, &ev, !t->non_stop);
        return true;
    }
    return sess_resume_thread(t->m, k, th, true, &e) == 0;
}

static bool own_reason(enum regs_stop_reason r)
{
    return r != REGS_STOP_INTERRUPT && r != REGS_STOP_UNKNOWN;
}

/* All-stop: stops every device. A thread found stopped for a reason of its
 * own (a breakpoint it hit while the others were being stopped, a fault, a
 * step that completed) has an event GDB must see: it is held and reported
 * at the next resume that includes it, never resumed past silently. Its
 * THREAD_STOPPED may already have been absorbed by the probe. */
static bool hold_unreported(struct starget *t)
{
    bool any = false;
    for (unsigned k = 0; k < t->n; k++) {
        if (!sess_alive(t->m, k))
            continue;
        for (uint32_t th = 0; th < sess_thread_count(t->m, k); th++)
            if (!(t->flags[k][th] & (TF_REPORTED | TF_HELD)) &&
                sess_thread_state(t->m, k, th) == SESS_T_STOPPED &&
                own_reason(sess_thread_reason(t->m, k, th))) {
                t->flags[k][th] |= TF_HELD;
                any = true;
            }
    }
    return any;
}

static void stop_all_and_hold(struct starget *t)
{
    struct zd_error e;
    sess_stop_all(t->m, &e);
    hold_unreported(t);
}

static int next_event(struct starget *t, struct rsp_event *ev)
{
    struct sess_note note;
    if (!t->m)
        return 0;
    if (t->held_report) {
        uint64_t v;
        if (read(t->held_fd, &v, sizeof(v)) < 0) {
            /* already drained: the report below is what matters */
        }
        t->held_report = false;
        if (t->report_stop_all)
            stop_all_and_hold(t);
        *ev = t->report;
        return 1;
    }
    while (sess_poll(t->m, &note) == 0) {
        switch (note.type) {
        case SESS_NOTE_STOPPED:
            if (note.thread == UINT32_MAX)
                continue;
            /* (Non-stop reports every stop: a thread stops alone, and one
             * GDB asked to stop with vCont;t was not resumed.) */
            if (!t->non_stop && !(t->flags[note.session][note.thread] & TF_RESUMED)) {
                /* Not part of the resume (protocol 7): ours, or held. */
                if (own_reason(sess_thread_reason(t->m, note.session, note.thread)))
                    t->flags[note.session][note.thread] |= TF_HELD;
                rsp_logf(&t->log, RSP_LOG_DEBUG, "p%u.%u stopped outside the resume: %s",
                         note.session + 1, note.thread + 1,
                         t->flags[note.session][note.thread] & TF_HELD ? "held" : "dropped");
                continue;
            }
            if (range_of(t, note.session, note.thread) &&
                range_step_on(t, note.session, note.thread))
                continue;
            rsp_logf(&t->log, RSP_LOG_DEBUG, "p%u.%u stopped", note.session + 1, note.thread + 1);
            t->interrupts_pending = 0;
            /* All-stop: everything stops before the report. */
            if (!t->non_stop)
                stop_all_and_hold(t);
            stop_event(t, note.session, note.thread, ev);
            return 1;
        case SESS_NOTE_UNAVAILABLE:
            /* "Nothing to stop" for a whole device answers a device-wide
             * interrupt: ours (stop-all), or the client's ^C, which must
             * end in a stop once every device has answered. */
            if (note.thread == UINT32_MAX) {
                if (t->interrupts_pending && --t->interrupts_pending == 0 && !t->non_stop) {
                    interrupt_answer(t, ev);
                    return 1;
                }
                continue;
            }
            memset(ev, 0, sizeof(*ev));
            ev->kind = RSP_EVENT_UNAVAILABLE;
            ev->pid = note.session + 1;
            ev->tid = note.thread == UINT32_MAX ? 0 : note.thread + 1;
            return 1;
        case SESS_NOTE_MODULE_LOAD:
            /* The server decides when it is acknowledged (vAck, or at once
             * for clients without in-memory libraries). Loads that need no
             * acknowledgement (known before attach) are only listed. */
            rsp_logf(&t->log, RSP_LOG_INFO, "device process %u: module loaded at 0x%llx-0x%llx%s",
                     note.session + 1, (unsigned long long)note.module_begin,
                     (unsigned long long)note.module_end,
                     note.need_ack ? ", waiting for its acknowledgement" : "");
            if (!note.need_ack)
                continue;
            memset(ev, 0, sizeof(*ev));
            ev->kind = RSP_EVENT_LIBRARY;
            ev->pid = note.session + 1;
            return 1;
        case SESS_NOTE_MODULE_UNLOAD:
            rsp_logf(&t->log, RSP_LOG_INFO, "device process %u: module unloaded at 0x%llx",
                     note.session + 1, (unsigned long long)note.module_begin);
            memset(ev, 0, sizeof(*ev));
            ev->kind = RSP_EVENT_LIBRARY;
            ev->pid = note.session + 1;
            return 1;
        case SESS_NOTE_DETACHED:
            rsp_logf(&t->log, RSP_LOG_INFO,
                     "device process %u: the application is gone from the device",
                     note.session + 1);
            memset(ev, 0, sizeof(*ev));
            ev->kind = RSP_EVENT_EXITED;
            ev->pid = note.session + 1;
            ev->code = 1; /* HOST_EXIT */
            return 1;
        default:
            continue;
        }
    }
    return 0;
}

static int t_next_event(void *ctx, struct rsp_event *ev)
{
    struct starget *t = ctx;
    int rc = next_event(t, ev);
    /* A reported stop: XPTI answers (running tasks, thread names) are of
     * this stop from now on. */
    if (rc == 1 && (ev->kind == RSP_EVENT_STOP || ev->kind == RSP_EVENT_UNAVAILABLE))
        rsp_xpti_stopped(t->xpti);
    return rc;
}

static size_t t_library_count(void *ctx, uint32_t pid)
{
    struct starget *t = ctx;
    return pid >= 1 && pid <= t->n && sess_alive(t->m, pid - 1) ? sess_module_count(t->m, pid - 1)
                                                                : 0;
}

static int t_library_at(void *ctx, uint32_t pid, size_t i, struct rsp_library *out)
{
    struct starget *t = ctx;
    struct sess_module_info mi;
    if (pid < 1 || pid > t->n || !sess_alive(t->m, pid - 1) ||
        sess_module_at(t->m, pid - 1, i, &mi) != 0)
        return -ENOENT;
    out->begin = mi.begin;
    out->end = mi.end;
    out->load = mi.load;
    out->needs_ack = mi.need_ack && !mi.acked;
    return 0;
}

static int t_ack_library(void *ctx, uint32_t pid, uint64_t begin, uint64_t end, char *err,
                         size_t errlen)
{
    struct starget *t = ctx;
    struct zd_error e;
    for (unsigned k = 0; k < t->n; k++) {
        struct rsp_library lib;
        bool waiting = false;
        if ((pid && k + 1 != pid) || !sess_alive(t->m, k))
            continue;
        /* Identical modules can be loaded on several sub-devices: only one
         * that still waits matches. */
        for (size_t i = 0; !waiting && t_library_at(t, k + 1, i, &lib) == 0; i++)
            waiting = lib.needs_ack && lib.begin == begin && lib.end == end;
        if (!waiting)
            continue;
        if (sess_module_release(t->m, k, begin, end, &e) != 0) {
            say(err, errlen, e.msg);
            return -EIO;
        }
        return 0;
    }
    say(err, errlen, "no module load waits for that acknowledgement");
    return -ENOENT;
}

static void t_client_gone(void *ctx)
{
    struct starget *t = ctx;
    struct zd_error e;
    if (!t->m)
        return;
    if (sess_resume_all(t->m, &e))
        rsp_logf(&t->log, RSP_LOG_WARNING, "resuming every thread failed: %s", e.msg);
    epoll_ctl(t->ep_fd, EPOLL_CTL_DEL, sess_notify_fd(t->m), NULL);
    sess_detach_all(t->m);
    t->m = NULL;
    rsp_xpti_free(t->xpti);
    t->xpti = NULL;
    for (unsigned k = 0; k < t->n; k++) {
        regs_catalog_free(t->cats[k]);
        free(t->flags[k]);
    }
    free(t->cats);
    free(t->flags);
    t->cats = NULL;
    t->flags = NULL;
    t->held_report = false;
    t->nranges = 0;
    t->n = 0;
}

static void t_set_non_stop(void *ctx, bool on)
{
    ((struct starget *)ctx)->non_stop = on;
}

static int t_monitor(void *ctx, const char *cmd, struct rsp_buf *out)
{
    struct starget *t = ctx;
    int rc;
    /* monitor dump: the dump of `zestub dump`, whose format the caller
     * (cli/) owns, of the threads stopped now. */
    if (t->dump && (strcmp(cmd, "dump") == 0 || strncmp(cmd, "dump ", 5) == 0)) {
        if (!t->m) {
            rsp_buf_puts(out, "nothing is attached: no dump\n");
            return -EIO;
        }
        return t->dump(t->dump_arg, t->m, t->zd, t->host_pid, cmd[4] ? cmd + 5 : "", out);
    }
    rc = rsp_sessions_monitor(t->m, t->xpti, cmd, out);
    if (t->dump && strcmp(cmd, "help") == 0)
        rsp_buf_puts(out, "  dump [--json] [--registers none|expedited|all] -- the threads "
                          "stopped now, as zestub dump prints them\n");
    return rc;
}

static int t_thread_name(void *ctx, uint32_t pid, uint32_t tid, char *buf, size_t len)
{
    struct starget *t = ctx;
    if (!valid(t, pid, tid) || tid == 0)
        return -ENOENT;
    return rsp_xpti_thread_name(t->xpti, t->m, pid - 1, tid - 1, buf, len);
}

static const struct rsp_target_ops ops = {
    .attach = t_attach,
    .process_count = t_process_count,
    .process_at = t_process_at,
    .thread_info = t_thread_info,
    .tdesc = t_tdesc,
    .device_info = t_device_info,
    .read_register = t_read_register,
    .write_register = t_write_register,
    .read_memory = t_read_memory,
    .write_memory = t_write_memory,
    .resume = t_resume,
    .interrupt = t_interrupt,
    .detach = t_detach,
    .event_fd = t_event_fd,
    .next_event = t_next_event,
    .client_gone = t_client_gone,
    .library_count = t_library_count,
    .library_at = t_library_at,
    .ack_library = t_ack_library,
    .monitor = t_monitor,
    .set_non_stop = t_set_non_stop,
    .thread_name = t_thread_name,
};

int rsp_sessions_target_new(struct rsp_target *out, char *err, size_t errlen)
{
    struct starget *t = calloc(1, sizeof(*t));
    struct zd_error e;
    if (!t) {
        say(err, errlen, "out of memory");
        return -ENOMEM;
    }
    t->ep_fd = epoll_create1(EPOLL_CLOEXEC);
    t->held_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (t->ep_fd < 0 || t->held_fd < 0 ||
        epoll_ctl(t->ep_fd, EPOLL_CTL_ADD, t->held_fd,
                  &(struct epoll_event){.events = EPOLLIN, .data.fd = t->held_fd}) < 0) {
        say(err, errlen, "epoll/eventfd: out of file descriptors");
        if (t->ep_fd >= 0)
            close(t->ep_fd);
        if (t->held_fd >= 0)
            close(t->held_fd);
        free(t);
        return -EMFILE;
    }
    if (zd_open(&t->zd, &e) != 0) {
        say(err, errlen, e.msg);
        close(t->ep_fd);
        close(t->held_fd);
        free(t);
        return -ENODEV;
    }
    out->ops = &ops;
    out->ctx = t;
    return 0;
}

void rsp_sessions_target_free(struct rsp_target *tgt)
{
    struct starget *t = tgt->ctx;
    if (!t)
        return;
    t_client_gone(t);
    zd_close(t->zd);
    close(t->ep_fd);
    close(t->held_fd);
    free(t->ranges);
    free(t);
    tgt->ctx = NULL;
}

void rsp_sessions_target_set_log(struct rsp_target *tgt, const struct rsp_log *log)
{
    struct starget *t = tgt->ctx;
    if (t && log)
        t->log = *log;
}

void rsp_sessions_target_set_dump(struct rsp_target *tgt, rsp_sessions_dump_fn fn, void *arg)
{
    struct starget *t = tgt->ctx;
    if (t) {
        t->dump = fn;
        t->dump_arg = arg;
    }
}
