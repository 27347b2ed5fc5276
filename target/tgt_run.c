/* SPDX-License-Identifier: MIT */
/* Run control of the sessions target. All-stop: when a thread stops, every
 * other device is stopped before the stop is reported (one interrupt per
 * device), and only threads that were part of the resume are reported
 * (protocol 7); others that stopped for a reason of their own are held.
 * Range steps (vCont;r) continue in the server; an end-of-thread step is
 * reported U. Non-stop reports every stop as it comes. */
#include "target/tgt_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isa/isa.h"
#include "sessions/sess.h"

static bool hold_unreported(struct tgt *t);

/* The instruction at a stopped thread's PC (ISA_INSN_MAX bytes: enough
 * for either length). */
static bool insn_at_pc(struct tgt *t, unsigned k, uint32_t th, uint64_t *pc,
                       uint8_t insn[ISA_INSN_MAX])
{
    struct zd_error e;
    return sess_thread_pc(t->m, k, th, pc, &e) == 0 &&
           sess_read_memory(t->m, k, th, ZD_SPACE_DEFAULT, *pc, ISA_INSN_MAX, insn, &e) == 0;
}

static struct range_step *range_of(struct tgt *t, unsigned k, uint32_t th)
{
    for (size_t i = 0; i < t->nranges; i++)
        if (t->ranges[i].k == k && t->ranges[i].th == th)
            return &t->ranges[i];
    return NULL;
}

/* The thread's entry in t->unfinished, or NULL. */
static struct unfinished_step *unfinished_of(struct tgt *t, unsigned k, uint32_t th)
{
    for (unsigned i = 0; i < t->nunfinished; i++)
        if (t->unfinished[i].k == k && t->unfinished[i].th == th)
            return &t->unfinished[i];
    return NULL;
}

/* A resume action named the thread (step: s or r), or its stop was
 * reported (step false, range ignored). */
static void note_step(struct tgt *t, unsigned k, uint32_t th, bool step, bool range)
{
    struct unfinished_step *u = unfinished_of(t, k, th);
    const unsigned cap = sizeof(t->unfinished) / sizeof(t->unfinished[0]);
    if (u && !step) {
        *u = t->unfinished[--t->nunfinished];
        return;
    }
    if (!step)
        return;
    if (!u && t->nunfinished == cap)
        memmove(t->unfinished, t->unfinished + 1, --t->nunfinished * sizeof(*u));
    if (!u)
        u = &t->unfinished[t->nunfinished++];
    *u = (struct unfinished_step){k, th, range};
}

static bool add_range(struct tgt *t, unsigned k, uint32_t th, uint64_t start, uint64_t end)
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

static void drop_range(struct tgt *t, unsigned k, uint32_t th)
{
    struct range_step *r = range_of(t, k, th);
    if (r)
        *r = t->ranges[--t->nranges];
}

/* Queues an event that no device will send (see held_fd). */
static void queue_report(struct tgt *t, const struct rsp_event *ev, bool stop_all)
{
    uint64_t one = 1;
    t->report = *ev;
    t->held_report = true;
    t->report_stop_all = stop_all;
    if (write(t->held_fd, &one, sizeof(one)) < 0) {
        /* the counter cannot overflow with one write per report */
    }
}

/* Only a resumed thread is stopped by the client's interrupt (in
 * non-stop, only the client stops threads); the stop of an all-stop
 * attach is the same hardware interrupt, but nobody asked. */
bool tgt_stopped_by_client(struct tgt *t, unsigned k, uint32_t th)
{
    return sess_thread_reason(t->m, k, th) == ISA_STOP_INTERRUPT &&
           (t->non_stop || sess_thread_is_resumed(t->m, k, th));
}

/* A stop event for the thread, with its reason decoded from cr0. */
void tgt_stop_event(struct tgt *t, unsigned k, uint32_t thread, struct rsp_event *ev)
{
    enum isa_stop_reason r = sess_thread_reason(t->m, k, thread);
    memset(ev, 0, sizeof(*ev));
    ev->kind = RSP_EVENT_STOP;
    ev->pid = k + 1;
    ev->tid = thread + 1;
    ev->signal = isa_stop_signal(r);
    ev->interrupted = tgt_stopped_by_client(t, k, thread);
    note_step(t, k, thread, false, false);
    /* A step ends with the breakpoint status bit too: not a breakpoint. */
    ev->swbreak = isa_stop_is_breakpoint_hit(r, sess_thread_is_stepping(t->m, k, thread));
    sess_thread_mark_reported(t->m, k, thread);
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

static uint32_t next_held(struct tgt *t, unsigned k, uint32_t from)
{
    return sess_thread_next(t->m, k, from, SESS_STATE_BIT(SESS_T_HELD), 0);
}

/* A held thread the resume would include: it is reported instead of
 * anything being resumed (protocol 7). */
static bool find_held(struct tgt *t, const struct rsp_resume *actions, size_t n, unsigned *hk,
                      uint32_t *hth)
{
    for (unsigned k = 0; k < t->n; k++) {
        if (!sess_alive(t->m, k))
            continue;
        uint32_t count = sess_thread_count(t->m, k);
        for (uint32_t th = 0; (th = next_held(t, k, th)) < count; th++) {
            const struct rsp_resume *a = action_for(actions, n, k, th);
            if (a && a->kind != RSP_RESUME_STOP) {
                *hk = k;
                *hth = th;
                return true;
            }
        }
    }
    return false;
}

/* A held breakpoint hit whose breakpoint the client has removed since
 * (the bit is no longer in the instruction at the thread's PC): nobody
 * wants that stop any more, so it is forgotten and the thread resumes
 * with the others, as Intel's gdbserver drops such pending events
 * (protocol 5). Otherwise, after a `delete`, the client would get one
 * stop per held thread at a breakpoint it no longer has. A step's end
 * also shows as a breakpoint stop: a thread with a step under way keeps
 * its report. Only a thread whose instruction the client wrote since is
 * read (tgt_code_writes.c), once per instruction: a resume after no write
 * reads nothing (issue 36: reading every held thread was quadratic). */
static void drop_gone_breakpoints(struct tgt *t, const struct rsp_resume *actions, size_t n)
{
    if (!tgt_code_any_written(t))
        return;
    for (unsigned k = 0; k < t->n; k++) {
        bool known = false, bit = true; /* the last instruction read, at last_pc */
        uint64_t last_pc = 0;
        uint32_t count = sess_thread_count(t->m, k);
        for (uint32_t th = 0; sess_alive(t->m, k) && (th = next_held(t, k, th)) < count; th++) {
            const struct rsp_resume *a = action_for(actions, n, k, th);
            uint64_t pc;
            uint8_t insn[ISA_INSN_MAX];
            struct zd_error e;
            if (!a || a->kind == RSP_RESUME_STOP || unfinished_of(t, k, th) || range_of(t, k, th) ||
                sess_thread_is_stepping(t->m, k, th) ||
                sess_thread_reason(t->m, k, th) != ISA_STOP_BREAKPOINT ||
                sess_thread_pc(t->m, k, th, &pc, &e) != 0 || !tgt_code_written_at(t, k, pc))
                continue;
            if (!known || pc != last_pc) {
                if (!insn_at_pc(t, k, th, &pc, insn))
                    continue;
                known = true;
                last_pc = pc;
                bit = isa_insn_breakpoint(insn);
                if (bit)
                    tgt_code_intact_at(t, k, pc, isa_insn_length(insn));
            }
            if (bit)
                continue;
            rsp_logf(&t->log, RSP_LOG_DEBUG,
                     "p%u.%u: held breakpoint stop at 0x%llx dropped: the breakpoint is gone",
                     k + 1, th + 1, (unsigned long long)pc);
            sess_thread_mark_reported(t->m, k, th);
        }
    }
}

/* Threads may have stopped on their own since the last report (the
 * devices keep running across a library report, and events arrive late):
 * their notes are still queued, but resuming them now would step over
 * their breakpoint silently. True when a held thread the resume includes
 * is reported instead. */
static bool report_held_instead(struct tgt *t, const struct rsp_resume *actions, size_t n)
{
    struct rsp_event ev;
    unsigned hk;
    uint32_t hth;

    hold_unreported(t);
    drop_gone_breakpoints(t, actions, n);
    if (!find_held(t, actions, n, &hk, &hth))
        return false;
    rsp_logf(&t->log, RSP_LOG_DEBUG, "p%u.%u was held: reported instead of a resume", hk + 1,
             hth + 1);
    tgt_stop_event(t, hk, hth, &ev);
    /* All-stop: threads may still run (after a library report). */
    queue_report(t, &ev, !t->non_stop);
    return true;
}

/* The threads a vCont steps by name (s or r), recorded as unfinished steps
 * when a held thread is reported instead of the resume: GDB believes them
 * stepping all the same, and keeps that step until their own stop is
 * reported (issue 22: an interrupt naming one was taken for its step). */
static void note_named_steps(struct tgt *t, const struct rsp_resume *actions, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct rsp_resume *a = &actions[i];
        if ((a->kind == RSP_RESUME_STEP || a->kind == RSP_RESUME_RANGE) && a->pid > 0 &&
            a->pid <= (int64_t)t->n && a->tid > 0 &&
            a->tid <= (int64_t)sess_thread_count(t->m, (unsigned)a->pid - 1))
            note_step(t, (unsigned)a->pid - 1, (uint32_t)a->tid - 1, true,
                      a->kind == RSP_RESUME_RANGE);
    }
}

/* Whether one device-wide resume serves device process k: a wildcard
 * continue covers every thread of k that no earlier action names, and the
 * named ones only continue or step (their cr0 is prepared first; Intel's
 * gdbserver batches the same way). GDB sends vCont;c:pP.-1 when it resumes
 * only the current inferior (Intel's GDB's `continue`) and vCont;s:pP.T;c
 * for a step with the others running; a resume per thread would cost one
 * driver call for each stopped thread. Non-stop: only a continue of the
 * whole process, as a client there resumes threads on their own. */
static bool batches_device(const struct rsp_resume *actions, size_t n, unsigned k, bool non_stop)
{
    for (size_t i = 0; i < n; i++) {
        const struct rsp_resume *a = &actions[i];
        if (a->pid != -1 && a->pid != (int64_t)k + 1)
            continue;
        if (a->tid == -1 || a->tid == 0)
            return a->kind == RSP_RESUME_CONTINUE;
        if (non_stop || (a->kind != RSP_RESUME_CONTINUE && a->kind != RSP_RESUME_STEP &&
                         a->kind != RSP_RESUME_RANGE))
            return false;
    }
    return false;
}

/* One resume in progress, thread by thread. */
struct resume_run {
    struct tgt *t;
    const struct rsp_resume *actions;
    size_t n;
    size_t resumed; /* threads that run again */
    unsigned eot_k; /* the last thread sent to its end instead of a step */
    uint32_t eot_th;
    /* The first failure, for the client. The rest of the resume still
     * happens: the threads it reaches run as the client asked. */
    int rc;
    char *err;
    size_t errlen;
};

/* A device call of the resume returned rc. The application being gone
 * (its DETACHED event answers with W) and "nothing to stop / resume"
 * (the thread is not where the model thought, and ends up running or
 * idle as asked) are not failures; anything else is. */
static void check(struct resume_run *r, unsigned k, uint32_t th, int rc, const struct zd_error *e)
{
    if (rc == 0)
        return;
    if (e->code == ZD_E_LOST || e->code == ZD_E_UNAVAILABLE) {
        rsp_logf(&r->t->log, RSP_LOG_DEBUG, "p%u.%u: %s", k + 1, th + 1, e->msg);
        return;
    }
    rsp_logf(&r->t->log, RSP_LOG_WARNING, "resume of p%u.%u failed: %s", k + 1, th + 1, e->msg);
    if (r->rc == 0) {
        r->rc = -EIO;
        if (r->errlen)
            snprintf(r->err, r->errlen, "p%u.%u: %s", k + 1, th + 1, e->msg);
    }
}

/* A step (or range step) of a stopped thread; in a batch (the device is
 * resumed at once afterwards) only its cr0 is prepared. */
static void step_thread(struct resume_run *r, unsigned k, uint32_t th, const struct rsp_resume *a,
                        bool batched)
{
    struct tgt *t = r->t;
    struct zd_error e;
    uint64_t pc;
    uint8_t insn[ISA_INSN_MAX];

    if (insn_at_pc(t, k, th, &pc, insn) && isa_insn_is_eot(insn)) {
        /* Protocol 1.3: no step is armed for an end-of-thread send; the
         * thread runs its end and is reported U. */
        sess_thread_end_step(t->m, k, th);
        if (!batched) /* else the device's resume continues it */
            check(r, k, th, sess_resume_thread(t->m, k, th, false, &e), &e);
        r->eot_k = k;
        r->eot_th = th;
        return;
    }
    if (a->kind == RSP_RESUME_RANGE && !add_range(t, k, th, a->start, a->end))
        rsp_logf(&t->log, RSP_LOG_WARNING, "out of memory: p%u.%u steps once", k + 1, th + 1);
    check(r, k, th,
          batched ? sess_prepare_step(t->m, k, th, &e) : sess_resume_thread(t->m, k, th, true, &e),
          &e);
}

/* The thread's part in the resume, recorded in sessions (which stops are
 * reported, which breakpoint bits are a step's); then its action, which in
 * a batch (its device resumed at once afterwards) is only a step's
 * preparation. Running and
 * unavailable threads an action covers count as resumed too: GDB considers
 * them running, and a later stop of theirs (a breakpoint once work
 * arrives) must be reported. */
static void resume_thread(struct resume_run *r, unsigned k, uint32_t th, bool batched)
{
    struct tgt *t = r->t;
    const struct rsp_resume *a = action_for(r->actions, r->n, k, th);
    /* Known state only: a thread stopped by the interrupt that nobody read
     * counts as stopped; reading every one would cost a register read each
     * (its own resume reads it when it is resumed alone). */
    enum sess_thread_state st = sess_thread_state_known(t->m, k, th, NULL);
    bool covered = a && a->kind != RSP_RESUME_STOP;
    bool resumes = covered && sess_state_stopped(st);
    bool step = resumes && (a->kind == RSP_RESUME_STEP || a->kind == RSP_RESUME_RANGE);
    struct zd_error e;

    sess_thread_join_resume(t->m, k, th,
                            !covered   ? SESS_RESUME_NONE
                            : !resumes ? SESS_RESUME_COVERED
                            : step     ? SESS_RESUME_STEP
                                       : SESS_RESUME_CONTINUE);
    if (a && a->tid > 0) /* named, not a wildcard */
        note_step(t, k, th, step, a->kind == RSP_RESUME_RANGE);
    if (batched) {
        r->resumed += resumes;
        if (step)
            step_thread(r, k, th, a, true);
        return;
    }
    if (a && a->kind == RSP_RESUME_STOP) {
        if (st == SESS_T_RUNNING)
            check(r, k, th, sess_interrupt_thread(t->m, k, th, &e), &e);
        return;
    }
    if (!resumes)
        return;
    r->resumed++;
    if (step)
        step_thread(r, k, th, a, false);
    else
        check(r, k, th, sess_resume_thread(t->m, k, th, false, &e), &e);
}

/* The common case: one resume for device process k (also when only the
 * threads prepared for a step resume: `prepared`). */
static int resume_device(struct resume_run *r, unsigned k, bool prepared)
{
    struct zd_error e;
    if (sess_resume_device(r->t->m, k, prepared, &e) == 0)
        return 0;
    /* The application is gone (it ended while GDB was stopped): its
     * DETACHED event answers this resume with W, not an error. */
    if (e.code == ZD_E_LOST)
        return 0;
    if (r->rc == 0) {
        r->rc = -EIO;
        tgt_say(r->err, r->errlen, e.msg);
    }
    return r->rc;
}

int tgt_resume(void *ctx, const struct rsp_resume *actions, size_t n, char *err, size_t errlen)
{
    struct tgt *t = ctx;
    struct resume_run r = {
        .t = t, .actions = actions, .n = n, .eot_th = UINT32_MAX, .err = err, .errlen = errlen};

    t->interrupts_pending = 0;
    if (!t->non_stop && tgt_exit_pending(t))
        return 0;
    /* Before the ranges go: a range-stepping thread whose step ended after
     * the last report is still known by its range, and is not held for a
     * step's end GDB would take for one inside the range (issue 22). */
    if (report_held_instead(t, actions, n)) {
        t->nranges = 0;
        note_named_steps(t, actions, n);
        return 0;
    }
    t->nranges = 0; /* a new resume cancels the range steps of the last */
    for (unsigned k = 0; k < t->n; k++) {
        bool batched = batches_device(actions, n, k, t->non_stop);
        size_t before = r.resumed;
        if (!sess_alive(t->m, k))
            continue;
        for (uint32_t th = 0; th < sess_thread_count(t->m, k); th++)
            resume_thread(&r, k, th, batched);
        if (batched)
            resume_device(&r, k, r.resumed > before);
    }
    if (r.eot_th != UINT32_MAX) {
        struct rsp_event ev = {
            .kind = RSP_EVENT_UNAVAILABLE, .pid = r.eot_k + 1, .tid = r.eot_th + 1};
        /* All-stop: whatever else was resumed stops before the report. */
        queue_report(t, &ev, r.resumed > 1 && !t->non_stop);
    }
    return r.rc;
}

/* All-stop: an interrupt's stop never names a thread with an unfinished
 * step. Told SIGTRAP (as Intel's GDB was until it got SIGINT too), GDB
 * takes such a stop for the step's end and, the PC still in the step's
 * range, steps on silently: the user's ^C is lost (issue 22). With SIGINT
 * it would stop, but the guard stays for any client that still gets a
 * SIGTRAP-like stop for an interrupt (the gdbserver dialect). Another
 * resumed thread stopped by the interrupt is named instead. When every one
 * has such a step, one stepped by a single instruction (s) is preferred to
 * one stepping a range (r): GDB ends a stepi wherever the PC is, while a
 * PC inside a range makes it step on. */
static void avoid_unfinished_step(struct tgt *t, unsigned *pk, uint32_t *pth)
{
    const struct unfinished_step *mine = unfinished_of(t, *pk, *pth);
    bool want_single = mine && mine->range;

    if (t->non_stop || !mine)
        return;
    for (unsigned k = 0; k < t->n; k++) {
        for (uint32_t th = 0; sess_alive(t->m, k) && th < sess_thread_count(t->m, k); th++) {
            const struct unfinished_step *u = unfinished_of(t, k, th);
            if ((u && (!want_single || u->range)) ||
                sess_thread_state(t->m, k, th) != SESS_T_STOPPED ||
                !sess_thread_is_resumed(t->m, k, th) ||
                sess_thread_reason(t->m, k, th) != ISA_STOP_INTERRUPT)
                continue;
            *pk = k;
            *pth = th;
            if (!u)
                return;
            want_single = false; /* one stepping a single instruction: keep looking */
        }
    }
}

/* Every device answered the client's interrupt with "nothing to stop"
 * (no kernel runs): all-stop still owes GDB a stop. A thread that is
 * stopped anyway is reported; else thread 1 of the last device, as U. */
static void interrupt_answer(struct tgt *t, struct rsp_event *ev)
{
    tgt_stop_all_and_hold(t);
    for (unsigned k = t->n; k-- > 0;) {
        if (!sess_alive(t->m, k))
            continue;
        for (uint32_t th = 0; th < sess_thread_count(t->m, k); th++)
            if (sess_state_stopped(sess_thread_state(t->m, k, th))) {
                unsigned pk = k;
                avoid_unfinished_step(t, &pk, &th);
                tgt_stop_event(t, pk, th, ev);
                return;
            }
        memset(ev, 0, sizeof(*ev));
        ev->kind = RSP_EVENT_UNAVAILABLE;
        ev->pid = k + 1;
        ev->tid = 1;
        return;
    }
}

/* A device answered the client's interrupt with "stopped some threads"
 * (not which): all-stop reports one of them, a thread of the resume the
 * interrupt found running (read in order until one is stopped: an idle
 * one costs a read once); else whatever interrupt_answer finds. */
static void interrupted_answer(struct tgt *t, struct rsp_event *ev)
{
    tgt_stop_all_and_hold(t);
    for (unsigned k = 0; k < t->n; k++) {
        if (!sess_alive(t->m, k))
            continue;
        for (uint32_t th = 0; th < sess_thread_count(t->m, k); th++)
            if (sess_thread_is_resumed(t->m, k, th) && !sess_thread_is_reported(t->m, k, th) &&
                sess_state_stopped(sess_thread_state(t->m, k, th))) {
                unsigned pk = k;
                uint32_t pth = th;
                /* Never a thread GDB still steps (issue 22). */
                avoid_unfinished_step(t, &pk, &pth);
                tgt_stop_event(t, pk, pth, ev);
                return;
            }
    }
    interrupt_answer(t, ev);
}

/* A range-stepping thread stopped: steps it again, without a report, while
 * its PC stays in the range and it stopped only for the step (protocol 5).
 * True when it was stepped again (or sent to its end: then its U is
 * queued). */
static bool range_step_on(struct tgt *t, unsigned k, uint32_t th)
{
    struct range_step *r = range_of(t, k, th);
    struct zd_error e;
    uint64_t pc;
    uint8_t insn[ISA_INSN_MAX];

    if (sess_thread_reason(t->m, k, th) != ISA_STOP_BREAKPOINT ||
        !insn_at_pc(t, k, th, &pc, insn) || pc < r->start || pc >= r->end ||
        isa_insn_breakpoint(insn)) {
        /* Left the range, a breakpoint of the client's, or another stop:
         * reported as a step. */
        drop_range(t, k, th);
        return false;
    }
    if (isa_insn_is_eot(insn)) {
        struct rsp_event ev = {.kind = RSP_EVENT_UNAVAILABLE, .pid = k + 1, .tid = th + 1};
        drop_range(t, k, th);
        sess_thread_end_step(t->m, k, th);
        /* Reported U either way: the client asked for the step. */
        if (sess_resume_thread(t->m, k, th, false, &e) != 0)
            rsp_logf(&t->log, RSP_LOG_WARNING, "p%u.%u: running its end failed: %s", k + 1, th + 1,
                     e.msg);
        queue_report(t, &ev, !t->non_stop);
        return true;
    }
    return sess_resume_thread(t->m, k, th, true, &e) == 0;
}

/* A range-stepping thread whose last step ended inside its range, not on
 * a breakpoint or the thread's end, when everything stops for another
 * thread: its range step is not over. Held, it would be reported at the
 * next resume as that step's end, which GDB takes for a step inside the
 * range and steps on (a ^C lost, issue 22); it stops where it is, its
 * range forgotten (GDB steps it again if it still wants to) and its stop
 * taken as told. True then. */
static bool stop_range_step(struct tgt *t, unsigned k, uint32_t th)
{
    struct range_step *r = range_of(t, k, th);
    uint64_t pc;
    uint8_t insn[ISA_INSN_MAX];
    if (!r || sess_thread_reason(t->m, k, th) != ISA_STOP_BREAKPOINT ||
        !insn_at_pc(t, k, th, &pc, insn) || pc < r->start || pc >= r->end ||
        isa_insn_breakpoint(insn) || isa_insn_is_eot(insn))
        return false;
    drop_range(t, k, th);
    /* Its stop is owed to no one: never held, at this resume or the next. */
    sess_thread_mark_reported(t->m, k, th);
    return true;
}

/* All-stop: stops every device. A thread found stopped for a reason of its
 * own (a breakpoint it hit while the others were being stopped, a fault, a
 * step that completed) has an event GDB must see: it is held and reported
 * at the next resume that includes it, never resumed past silently. Its
 * THREAD_STOPPED may already have been absorbed by the probe. */
static bool hold_unreported(struct tgt *t)
{
    bool any = false;
    for (unsigned k = 0; k < t->n; k++) {
        if (!sess_alive(t->m, k))
            continue;
        uint32_t count = sess_thread_count(t->m, k);
        /* A thread nobody read stopped for the interrupt (the driver
         * reports a stop of a thread's own with an event of its own, which
         * makes it known stopped): nothing to hold, nothing to read. */
        for (uint32_t th = 0;
             (th = sess_thread_next(t->m, k, th, SESS_STATE_BIT(SESS_T_STOPPED),
                                    SESS_NEXT_READ | SESS_NEXT_UNREPORTED)) < count;
             th++)
            if (isa_stop_is_own(sess_thread_reason(t->m, k, th)) && !stop_range_step(t, k, th) &&
                sess_thread_hold(t->m, k, th))
                any = true;
    }
    return any;
}

void tgt_stop_all_and_hold_err(struct tgt *t, struct zd_error *err)
{
    sess_stop_all(t->m, err);
    hold_unreported(t);
}

void tgt_stop_all_and_hold(struct tgt *t)
{
    struct zd_error e;
    tgt_stop_all_and_hold_err(t, &e);
}

/* The event queued without a device event (held_fd): a held thread
 * reported instead of a resume, or a thread sent to its end. */
static void take_queued_report(struct tgt *t, struct rsp_event *ev)
{
    uint64_t v;
    if (read(t->held_fd, &v, sizeof(v)) < 0) {
        /* already drained: the report below is what matters */
    }
    t->held_report = false;
    if (t->report_stop_all)
        tgt_stop_all_and_hold(t);
    *ev = t->report;
}

static void process_event(struct rsp_event *ev, enum rsp_event_kind kind, unsigned k)
{
    memset(ev, 0, sizeof(*ev));
    ev->kind = kind;
    ev->pid = k + 1;
}

/* A device answered an interrupt with "stopped some threads", without
 * saying which (the driver's answer). Ours (stop-all) needs nothing more.
 * The client's ^C is answered here: all-stop reports one stopped thread
 * (found by reading threads in order, an idle one once); non-stop reports
 * every stopped thread, so each is read now and queued as a stop note. */
static int on_device_stopped(struct tgt *t, const struct sess_note *note, struct rsp_event *ev)
{
    if (!t->interrupts_pending)
        return 0;
    t->interrupts_pending = 0;
    if (t->non_stop) {
        sess_report_unread(t->m, note->session);
        return 0;
    }
    interrupted_answer(t, ev);
    return 1;
}

/* A thread stopped: 1 and ev filled when its stop is reported. */
static int on_stopped(struct tgt *t, const struct sess_note *note, struct rsp_event *ev)
{
    unsigned k = note->session;
    uint32_t th = note->thread;

    if (th == UINT32_MAX)
        return on_device_stopped(t, note, ev);
    /* (Non-stop reports every stop: a thread stops alone, and one GDB
     * asked to stop with vCont;t was not resumed.) */
    if (!t->non_stop && !sess_thread_is_resumed(t->m, k, th)) {
        /* Not part of the resume (protocol 7): ours, or held. */
        if (isa_stop_is_own(sess_thread_reason(t->m, k, th)))
            sess_thread_hold(t->m, k, th);
        rsp_logf(&t->log, RSP_LOG_DEBUG, "p%u.%u stopped outside the resume: %s", k + 1, th + 1,
                 sess_thread_state(t->m, k, th) == SESS_T_HELD ? "held" : "dropped");
        return 0;
    }
    /* A range step goes on, unless the client's interrupt is on its way:
     * stepped again now, the thread would run after the device stopped,
     * and its step's end would come after the interrupt's answer. It stops
     * where it is, inside its range, and the answer names another thread. */
    if (range_of(t, k, th) &&
        (t->interrupts_pending ? stop_range_step(t, k, th) : range_step_on(t, k, th)))
        return 0;
    rsp_logf(&t->log, RSP_LOG_DEBUG, "p%u.%u stopped", k + 1, th + 1);
    t->interrupts_pending = 0;
    /* All-stop: everything stops before the report. */
    if (!t->non_stop)
        tgt_stop_all_and_hold(t);
    /* The client's interrupt: the stop it gets. A step that ended (or left
     * its range) is reported as itself. */
    if (sess_thread_reason(t->m, k, th) == ISA_STOP_INTERRUPT)
        avoid_unfinished_step(t, &k, &th);
    tgt_stop_event(t, k, th, ev);
    return 1;
}

/* A thread, or a whole device, had nothing to stop. */
static int on_unavailable(struct tgt *t, const struct sess_note *note, struct rsp_event *ev)
{
    /* "Nothing to stop" for a whole device answers a device-wide
     * interrupt: ours (stop-all), or the client's ^C, which must end in a
     * stop once every device has answered. */
    if (note->thread == UINT32_MAX) {
        if (t->interrupts_pending && --t->interrupts_pending == 0 && !t->non_stop) {
            interrupt_answer(t, ev);
            return 1;
        }
        return 0;
    }
    process_event(ev, RSP_EVENT_UNAVAILABLE, note->session);
    ev->tid = note->thread + 1;
    return 1;
}

static int on_module_load(struct tgt *t, const struct sess_note *note, struct rsp_event *ev)
{
    /* The server decides when it is acknowledged (vAck, or at once for
     * clients without in-memory libraries). Loads that need no
     * acknowledgement (known before attach) are only listed. */
    rsp_logf(&t->log, RSP_LOG_INFO, "device process %u: module loaded at 0x%llx-0x%llx%s",
             note->session + 1, (unsigned long long)note->module_begin,
             (unsigned long long)note->module_end,
             note->need_ack ? ", waiting for its acknowledgement" : "");
    if (!note->need_ack)
        return 0;
    process_event(ev, RSP_EVENT_LIBRARY, note->session);
    return 1;
}

static int on_module_unload(struct tgt *t, const struct sess_note *note, struct rsp_event *ev)
{
    rsp_logf(&t->log, RSP_LOG_INFO, "device process %u: module unloaded at 0x%llx",
             note->session + 1, (unsigned long long)note->module_begin);
    process_event(ev, RSP_EVENT_LIBRARY, note->session);
    return 1;
}

static int on_detached(struct tgt *t, const struct sess_note *note, struct rsp_event *ev)
{
    (void)note; /* any device that ended since the last look, in order */
    return tgt_report_exit(t, ev);
}

int tgt_next_event(struct tgt *t, struct rsp_event *ev)
{
    struct sess_note note;
    if (!t->m)
        return 0;
    if (t->held_report) {
        take_queued_report(t, ev);
        if (!sess_exited(t->m, ev->pid - 1))
            return 1;
    }
    while (sess_poll(t->m, &note) == 0) {
        int (*on)(struct tgt *, const struct sess_note *, struct rsp_event *) = NULL;
        /* A device whose application ended says nothing more, except the
         * unload of a module that came before the end and has not been
         * told: GDB hears of it before the exit, whichever order the two
         * reached this loop in (both can be queued by then on a loaded
         * machine). */
        if (note.type != SESS_NOTE_DETACHED && sess_exited(t->m, note.session) &&
            !(note.type == SESS_NOTE_MODULE_UNLOAD && tgt_exit_untold(t, note.session)))
            continue;
        switch (note.type) {
        case SESS_NOTE_STOPPED:
            on = on_stopped;
            break;
        case SESS_NOTE_UNAVAILABLE:
            on = on_unavailable;
            break;
        case SESS_NOTE_MODULE_LOAD:
            on = on_module_load;
            break;
        case SESS_NOTE_MODULE_UNLOAD:
            on = on_module_unload;
            break;
        case SESS_NOTE_DETACHED:
            on = on_detached;
            break;
        default: /* page faults, process entry and exit: nothing to report */
            break;
        }
        if (on && on(t, &note, ev))
            return 1;
    }
    /* An end no note announced (a device lost when a thread was probed). */
    return tgt_report_exit(t, ev) ? 1 : 0;
}
