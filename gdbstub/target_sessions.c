/* SPDX-License-Identifier: MIT */
/* rsp_target_ops on sessions/. Device processes are numbered from 1 in
 * attach order; lwp n is hardware thread n-1 of its device. All-stop: when
 * a thread stops, every other device is stopped before the stop is
 * reported (one interrupt per device). */
#include "gdbstub/target_sessions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "regsets/regs.h"
#include "sessions/sess.h"

struct starget {
    struct zd *zd;
    struct sess_manager *m;
    struct regs_catalog **cats; /* one target description per device */
    uint8_t **stepping;         /* per device, per thread: resumed with a step */
    unsigned n;
    struct rsp_log log;
};

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
    ev->swbreak = r == REGS_STOP_BREAKPOINT && !t->stepping[k][thread];
    t->stepping[k][thread] = 0;
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
    if (rc) {
        say(err, errlen, e.msg);
        return rc == ZD_E_TOO_EARLY ? RSP_TARGET_TOO_EARLY : -EIO;
    }
    t->n = sess_count(t->m);
    t->cats = calloc(t->n, sizeof(*t->cats));
    t->stepping = calloc(t->n, sizeof(*t->stepping));
    for (unsigned k = 0; t->cats && t->stepping && k < t->n; k++) {
        size_t ns;
        const struct zd_regset *sets = sess_regsets(t->m, k, &ns);
        t->cats[k] = regs_catalog_new(sets, ns);
        t->stepping[k] = calloc(sess_thread_count(t->m, k), 1);
    }
    /* All-stop attach: stop every device, report a thread of the last. */
    sess_stop_all(t->m, &e);
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

static int t_resume(void *ctx, const struct rsp_resume *actions, size_t n, char *err, size_t errlen)
{
    struct starget *t = ctx;
    struct zd_error e;
    bool only_continue_all = true;
    for (size_t i = 0; i < n; i++)
        only_continue_all &=
            actions[i].kind == RSP_RESUME_CONTINUE && actions[i].pid == -1 && actions[i].tid == -1;
    /* The common case: one resume per device. */
    if (only_continue_all)
        return sess_resume_all(t->m, &e) == 0 ? 0 : (say(err, errlen, e.msg), -EIO);
    for (unsigned k = 0; k < t->n; k++) {
        if (!sess_alive(t->m, k))
            continue;
        for (uint32_t th = 0; th < sess_thread_count(t->m, k); th++) {
            const struct rsp_resume *a = NULL;
            enum sess_thread_state st = sess_thread_state(t->m, k, th);
            for (size_t i = 0; i < n && !a; i++)
                if (matches(&actions[i], k + 1, th + 1))
                    a = &actions[i];
            if (!a)
                continue;
            if (a->kind == RSP_RESUME_STOP) {
                if (st == SESS_T_RUNNING)
                    sess_interrupt_thread(t->m, k, th, &e);
                continue;
            }
            if (st != SESS_T_STOPPED && st != SESS_T_HELD)
                continue;
            t->stepping[k][th] = a->kind == RSP_RESUME_STEP;
            sess_resume_thread(t->m, k, th, a->kind == RSP_RESUME_STEP, &e);
        }
    }
    return 0;
}

static int t_interrupt(void *ctx, char *err, size_t errlen)
{
    struct starget *t = ctx;
    struct zd_error e;
    for (unsigned k = 0; k < t->n; k++)
        if (sess_alive(t->m, k))
            sess_interrupt_device(t->m, k, &e);
    return 0;
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
    return 0;
}

static int t_event_fd(void *ctx)
{
    struct starget *t = ctx;
    return t->m ? sess_notify_fd(t->m) : -1;
}

static int t_next_event(void *ctx, struct rsp_event *ev)
{
    struct starget *t = ctx;
    struct sess_note note;
    struct zd_error e;
    if (!t->m)
        return 0;
    while (sess_poll(t->m, &note) == 0) {
        switch (note.type) {
        case SESS_NOTE_STOPPED:
            if (note.thread == UINT32_MAX)
                continue;
            /* All-stop: everything stops before the report. */
            sess_stop_all(t->m, &e);
            stop_event(t, note.session, note.thread, ev);
            return 1;
        case SESS_NOTE_UNAVAILABLE:
            /* "Nothing to stop" for a whole device answers our own
             * device-wide interrupt, not a request of the client. */
            if (note.thread == UINT32_MAX)
                continue;
            memset(ev, 0, sizeof(*ev));
            ev->kind = RSP_EVENT_UNAVAILABLE;
            ev->pid = note.session + 1;
            ev->tid = note.thread == UINT32_MAX ? 0 : note.thread + 1;
            return 1;
        case SESS_NOTE_MODULE_LOAD:
            /* No in-memory-library support yet: acknowledge at once, as the
             * server must for clients without vAck. */
            rsp_logf(&t->log, RSP_LOG_INFO, "device process %u: module loaded at 0x%llx-0x%llx",
                     note.session + 1, (unsigned long long)note.module_begin,
                     (unsigned long long)note.module_end);
            if (note.need_ack &&
                sess_module_release(t->m, note.session, note.module_begin, note.module_end, &e))
                rsp_logf(&t->log, RSP_LOG_WARNING,
                         "device process %u: acknowledging a module load failed: %s",
                         note.session + 1, e.msg);
            continue;
        case SESS_NOTE_MODULE_UNLOAD:
            rsp_logf(&t->log, RSP_LOG_INFO, "device process %u: module unloaded at 0x%llx",
                     note.session + 1, (unsigned long long)note.module_begin);
            continue;
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

static void t_client_gone(void *ctx)
{
    struct starget *t = ctx;
    struct zd_error e;
    if (!t->m)
        return;
    if (sess_resume_all(t->m, &e))
        rsp_logf(&t->log, RSP_LOG_WARNING, "resuming every thread failed: %s", e.msg);
    sess_detach_all(t->m);
    t->m = NULL;
    for (unsigned k = 0; k < t->n; k++) {
        regs_catalog_free(t->cats[k]);
        free(t->stepping[k]);
    }
    free(t->cats);
    free(t->stepping);
    t->cats = NULL;
    t->stepping = NULL;
    t->n = 0;
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
    .monitor = NULL,
};

int rsp_sessions_target_new(struct rsp_target *out, char *err, size_t errlen)
{
    struct starget *t = calloc(1, sizeof(*t));
    struct zd_error e;
    if (!t) {
        say(err, errlen, "out of memory");
        return -ENOMEM;
    }
    if (zd_open(&t->zd, &e) != 0) {
        say(err, errlen, e.msg);
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
    free(t);
    tgt->ctx = NULL;
}

void rsp_sessions_target_set_log(struct rsp_target *tgt, const struct rsp_log *log)
{
    struct starget *t = tgt->ctx;
    if (t && log)
        t->log = *log;
}
