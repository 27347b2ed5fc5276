/* SPDX-License-Identifier: MIT */
/* rsp_target_ops on sessions/. Device processes are numbered from 1 in
 * attach order; lwp n is hardware thread n-1 of its device. The run
 * control (resume, interrupt, the event stream) is in tgt_run.c, the
 * monitor commands in tgt_monitor_table.c. */
#include "target/tgt_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "target/tgt_xpti.h"
#include "report/device_desc.h"
#include "regsets/regs.h"
#include "sessions/sess.h"

static bool valid(struct tgt *t, uint32_t pid, uint32_t tid)
{
    return pid >= 1 && pid <= t->n && sess_alive(t->m, pid - 1) &&
           (tid == 0 || tid <= sess_thread_count(t->m, pid - 1));
}

/* A device whose application ended: fills err and returns true. */
static bool ended(struct tgt *t, uint32_t pid, char *err, size_t errlen)
{
    if (!t->m || pid < 1 || pid > t->n || !sess_exited(t->m, pid - 1))
        return false;
    if (errlen)
        snprintf(err, errlen, "device process %u has exited", (unsigned)pid);
    return true;
}

/* A memory access that failed because the process is gone: the driver
 * says "device lost" a moment before sessions/ hears of the exit (GDB's
 * `next` past a kernel's end reads right then). Said as the exit, as
 * ended() says it, when the application has ended: -ESRCH; else the
 * driver's words: -EIO. */
static int failed_access(struct tgt *t, uint32_t pid, const struct zd_error *e, char *err,
                         size_t errlen)
{
    struct zd_proc p;
    if (e->code == ZD_E_LOST &&
        (ended(t, pid, err, errlen) ||
         (t->host_pid && zd_proc_probe(t->host_pid, &p) != -ENOMEM && (!p.exists || p.exited)))) {
        if (errlen)
            snprintf(err, errlen, "device process %u has exited", (unsigned)pid);
        return -ESRCH;
    }
    tgt_say(err, errlen, e->msg);
    return -EIO;
}

static void release_manager(struct tgt *t);

/* On the caller's thread, or on a reader thread (late_detach_failed): reads
 * only what is set before the first attach (the device list, the log's
 * settings); rsp_logf writes each line whole. */
static void log_detach_refused(struct tgt *t, size_t device, const struct zd_error *e)
{
    rsp_logf(&t->log, RSP_LOG_WARNING,
             "the driver refused to detach from device [%s] (%s); the session is closed all the "
             "same, but its threads may still be stopped",
             zd_device_at(t->zd, device)->pci_slot, e->msg);
}

/* zd_on_detach_failure's callback: a detach handed to an event reader
 * (the client was answered at once) that the driver refused. */
static void late_detach_failed(void *ctx, size_t device, const struct zd_error *e)
{
    log_detach_refused(ctx, device, e);
}

static size_t t_process_count(void *ctx);

static int t_attach(void *ctx, uint32_t host_pid, struct rsp_event *stop, char *err, size_t errlen)
{
    struct tgt *t = ctx;
    struct sess_options opt;
    struct zd_error e;
    bool settled;
    int rc;

    if (t->m && t_process_count(t) == 0)
        release_manager(t); /* every device ended or was detached */
    if (t->m) {
        tgt_say(err, errlen, "Already attached.");
        return -EBUSY;
    }
    sess_options_from_env(&opt);
    (void)zd_wait_detached(t->zd, NULL); /* a detach not yet made keeps the device busy */
    rc = sess_attach(t->zd, host_pid, &opt, &t->m, &e);
    t->host_pid = host_pid;
    if (rc) {
        tgt_say(err, errlen, e.msg);
        return rc == ZD_E_TOO_EARLY ? RSP_TARGET_TOO_EARLY : -EIO;
    }
    t->n = sess_count(t->m);
    t->exit_told = calloc(t->n, sizeof(*t->exit_told));
    t->xpti = tgt_xpti_new(host_pid);
    t->cats = calloc(t->n, sizeof(*t->cats));
    for (unsigned k = 0; t->cats && k < t->n; k++) {
        size_t ns;
        const struct zd_regset *sets = sess_regsets(t->m, k, &ns);
        t->cats[k] = regs_catalog_new(sets, ns);
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
            for (uint32_t th = 0; th < sess_thread_count(t->m, k); th++)
                sess_thread_join_resume(t->m, k, th, SESS_RESUME_COVERED);
        memset(stop, 0, sizeof(*stop));
        return 0;
    }
    /* All-stop attach: stop every device, report a thread of the last.
     * The modules loaded before the attach are replayed as events ahead of
     * the interrupt's answer: wait for it, so the first thread list names
     * threads and the first library list has every module. */
    tgt_stop_all_and_hold_err(t, &e);
    settled = sess_settle(t->m, 2000) == 0;
    if (e.code != 0)
        /* The driver refused the interrupt (sess_stop_all retried it):
         * that, not a slow answer, is what the user must read. */
        rsp_logf(&t->log, RSP_LOG_WARNING,
                 "the attach could not stop the device: %s; its threads are listed as "
                 "running",
                 e.msg);
    else if (!settled)
        rsp_logf(&t->log, RSP_LOG_WARNING,
                 "a device did not answer the attach interrupt within 2 s: modules "
                 "loaded before the attach may be listed late");
    tgt_xpti_stopped(t->xpti);
    memset(stop, 0, sizeof(*stop));
    stop->kind = RSP_EVENT_UNAVAILABLE;
    stop->pid = t->n;
    stop->tid = 1;
    for (uint32_t th = 0; th < sess_thread_count(t->m, t->n - 1); th++)
        if (sess_state_stopped(sess_thread_state(t->m, t->n - 1, th))) {
            tgt_stop_event(t, t->n - 1, th, stop);
            break;
        }
    return 0;
}

static size_t t_process_count(void *ctx)
{
    struct tgt *t = ctx;
    size_t n = 0;
    for (unsigned k = 0; t->m && k < t->n; k++)
        n += tgt_listed(t, k);
    return n;
}

static int t_process_at(void *ctx, size_t i, struct rsp_process_info *out)
{
    struct tgt *t = ctx;
    for (unsigned k = 0; k < t->n; k++) {
        if (!tgt_listed(t, k))
            continue;
        if (i-- == 0) {
            out->pid = k + 1;
            out->nthreads = sess_thread_count(t->m, k);
            return 0;
        }
    }
    return -ENOENT;
}

static enum rsp_thread_state client_state(enum sess_thread_state st)
{
    switch (st) {
    case SESS_T_STOPPED:
    case SESS_T_HELD:
        return RSP_THREAD_STOPPED;
    case SESS_T_UNAVAILABLE:
        return RSP_THREAD_UNAVAILABLE;
    default:
        return RSP_THREAD_RUNNING;
    }
}

static int t_thread_info(void *ctx, uint32_t pid, uint32_t tid, struct rsp_thread_info *out)
{
    struct tgt *t = ctx;
    struct zd_thread id;
    if (pid < 1 || pid > t->n || !tgt_listed(t, pid - 1) || tid == 0 ||
        tid > sess_thread_count(t->m, pid - 1))
        return -ENOENT;
    /* A device listed until its exit is reported: nothing of it can be
     * read any more. */
    /* Known state: listing every thread must not read every thread. One
     * the interrupt may have stopped counts as stopped until read (reading
     * it, for a name or a register, tells if it was idle). */
    out->state = sess_alive(t->m, pid - 1)
                     ? client_state(sess_thread_state_known(t->m, pid - 1, tid - 1, NULL))
                     : RSP_THREAD_UNAVAILABLE;
    /* The device's description, or the thread's own when the driver says
     * its register sets differ (asked once per stop: tgt_tdesc.c). */
    out->tdesc = sess_alive(t->m, pid - 1) ? tgt_thread_tdesc(t, pid - 1, tid - 1, true) : pid;
    id = sess_thread_id(t->m, pid - 1, tid - 1);
    out->slice = id.slice;
    out->subslice = id.subslice;
    out->eu = id.eu;
    out->thread = id.thread;
    return 0;
}

static int t_tdesc(void *ctx, uint32_t id, struct rsp_tdesc *out)
{
    struct tgt *t = ctx;
    uint32_t pid = 0;
    const struct regs_catalog *c = tgt_tdesc_catalog(t, id, &pid);
    if (!c)
        return -ENOENT;
    out->regs = c;
    out->pid = pid;
    return 0;
}

static int t_device_info(void *ctx, uint32_t pid, struct rsp_device_info *out)
{
    struct tgt *t = ctx;
    struct regs_tdesc_device td;
    char name[128];
    if (pid < 1 || pid > t->n)
        return -ENOENT;
    /* The same <device> element as the cores' (report/device_desc.c). */
    report_device_desc(sess_device(t->m, pid - 1), &td, name, sizeof(name));
    memset(out, 0, sizeof(*out));
    out->vendor_id = td.vendor_id;
    out->device_id = td.device_id;
    snprintf(out->name, sizeof(out->name), "%s", td.name);
    snprintf(out->pci_slot, sizeof(out->pci_slot), "%s", td.pci_slot);
    memcpy(out->uuid, td.uuid, sizeof(out->uuid));
    out->has_uuid = true;
    out->total_cores = td.total_cores;
    out->total_threads = td.total_threads;
    out->subdevice_id = td.subdevice_id;
    return 0;
}

/* Register regnum of the thread's description (its own when its sets
 * differ from the device's), as the client numbered it: the one
 * thread_info last told, not asked again (the server asks thread_info
 * before every register packet, so a packet sees one layout). */
static const struct regs_reg *reg_of(struct tgt *t, uint32_t pid, uint32_t tid, uint32_t regnum)
{
    uint32_t owner = 0;
    const struct regs_catalog *c;
    if (!t->m || pid < 1 || pid > t->n || tid == 0 || tid > sess_thread_count(t->m, pid - 1))
        return NULL;
    c = tgt_tdesc_catalog(t, tgt_thread_tdesc(t, pid - 1, tid - 1, false), &owner);
    return c && owner == pid ? regs_catalog_at(c, regnum) : NULL;
}

static int t_read_register(void *ctx, uint32_t pid, uint32_t tid, uint32_t regnum, uint8_t *buf,
                           size_t size, char *err, size_t errlen)
{
    struct tgt *t = ctx;
    const struct regs_reg *r = reg_of(t, pid, tid, regnum);
    const uint8_t *data;
    size_t got;
    struct zd_error e;
    bool had;
    if (ended(t, pid, err, errlen))
        return -ESRCH;
    if (!r || !valid(t, pid, tid) || tid == 0) {
        tgt_say(err, errlen, "no such register or thread");
        return -EINVAL;
    }
    tgt_prefetch_before_read(t, pid - 1, tid - 1);
    had = sess_regset_cached(t->m, pid - 1, tid - 1, r->regset_type);
    if (sess_read_regset(t->m, pid - 1, tid - 1, r->regset_type, &data, &got, &e) != 0)
        return RSP_TARGET_UNAVAILABLE;
    /* Filled by this read, or ahead of it for it: counted as the client's. */
    if ((!had || tgt_prefetch_claim(t, pid - 1, tid - 1, r->regset_type)) &&
        got >= TGT_KEPT_MIN_BYTES)
        tgt_keep_regset(t, pid - 1, tid - 1, r->regset_type);
    if ((size_t)(r->index + 1) * r->byte_size > got || size < r->byte_size)
        return -EINVAL;
    memcpy(buf, data + (size_t)r->index * r->byte_size, r->byte_size);
    return 0;
}

static int t_write_register(void *ctx, uint32_t pid, uint32_t tid, uint32_t regnum,
                            const uint8_t *buf, size_t size, char *err, size_t errlen)
{
    struct tgt *t = ctx;
    const struct regs_reg *r = reg_of(t, pid, tid, regnum);
    struct zd_error e;
    if (ended(t, pid, err, errlen))
        return -ESRCH;
    if (!r || !valid(t, pid, tid) || tid == 0 || size != r->byte_size) {
        tgt_say(err, errlen, "no such register or thread");
        return -EINVAL;
    }
    if (sess_write_registers(t->m, pid - 1, tid - 1, r->regset_type, r->index, 1, buf, &e) != 0) {
        tgt_say(err, errlen, e.msg);
        return -EIO;
    }
    return 0;
}

/* 0 when ref names a live process and an existing thread (or its "all"
 * thread), else the error both memory ops give. */
static int mem_ref_usable(struct tgt *t, const struct rsp_mem_ref *ref, char *err, size_t errlen)
{
    if (ended(t, ref->pid, err, errlen))
        return -ESRCH;
    if (!valid(t, ref->pid, ref->tid)) {
        tgt_say(err, errlen, "no such process or thread");
        return -EINVAL;
    }
    return 0;
}

static int t_read_memory(void *ctx, const struct rsp_mem_ref *ref, uint8_t *buf, size_t len,
                         size_t *done, char *err, size_t errlen)
{
    struct tgt *t = ctx;
    struct zd_error e;
    int rc;
    *done = 0;
    if ((rc = mem_ref_usable(t, ref, err, errlen)) != 0)
        return rc;
    if (sess_read_memory(t->m, ref->pid - 1, ref->tid ? ref->tid - 1 : UINT32_MAX,
                         ref->space ? ZD_SPACE_SLM : ZD_SPACE_DEFAULT, ref->addr, len, buf,
                         &e) != 0)
        return failed_access(t, ref->pid, &e, err, errlen);
    *done = len;
    return 0;
}

static int t_write_memory(void *ctx, const struct rsp_mem_ref *ref, const uint8_t *buf, size_t len,
                          char *err, size_t errlen)
{
    struct tgt *t = ctx;
    struct zd_error e;
    int rc;
    if ((rc = mem_ref_usable(t, ref, err, errlen)) != 0)
        return rc;
    if (!ref->space) { /* code, perhaps */
        if ((rc = tgt_check_code_write(t, ref->pid, ref->addr, buf, len, err, errlen)) != 0)
            return rc;
        tgt_code_written(t, ref->pid - 1, ref->addr, len); /* a breakpoint bit may go */
    }
    if (sess_write_memory(t->m, ref->pid - 1, ref->tid ? ref->tid - 1 : UINT32_MAX,
                          ref->space ? ZD_SPACE_SLM : ZD_SPACE_DEFAULT, ref->addr, len, buf,
                          &e) != 0)
        return failed_access(t, ref->pid, &e, err, errlen);
    return 0;
}

static int t_detach(void *ctx, uint32_t pid, char *err, size_t errlen)
{
    struct tgt *t = ctx;
    char why[64];
    tgt_prefetch_pause(t); /* nothing read ahead in a session that ends */
    if (t->m && ended(t, pid, why, sizeof(why))) {
        /* As gdbserver: detaching from a process that is gone succeeds;
         * the client is no longer owed its exit. */
        if (!t->exit_told[pid - 1])
            (void)sess_detach(t->m, pid - 1, NULL); /* gone: nothing left to free */
        t->exit_told[pid - 1] = true;
        rsp_logf(&t->log, RSP_LOG_INFO, "detach: %s", why);
        return 0;
    }
    if (!t->m || pid < 1 || pid > t->n || !sess_alive(t->m, pid - 1)) {
        tgt_say(err, errlen, "no such process");
        return -ENOENT;
    }
    /* The driver resumes the session's threads on detach. A refusal is
     * said on stderr, but the client still gets OK: the session is closed
     * whatever the driver answered (Intel's runtime frees it in any case),
     * and an error would leave GDB believing it is still attached. When
     * the event reader is inside a read, the detach is handed to it and
     * made within its slice: a refusal then comes through
     * late_detach_failed, with the same words. */
    {
        struct zd_error e;
        if (sess_detach(t->m, pid - 1, &e) != 0)
            log_detach_refused(t, (size_t)sess_device(t->m, pid - 1)->index, &e);
    }
    fprintf(stderr, "Detached from device [%s]\n", sess_device(t->m, pid - 1)->pci_slot);
    if (t_process_count(t) == 0) {
        tgt_xpti_free(t->xpti); /* the last device: nothing to join with */
        t->xpti = NULL;
    }
    return 0;
}

static int t_event_fd(void *ctx)
{
    struct tgt *t = ctx;
    return t->m ? t->ep_fd : -1;
}

static int t_next_event(void *ctx, struct rsp_event *ev)
{
    struct tgt *t = ctx;
    int rc;
    /* Before any exit is reported: a failed stream is not the end. */
    if (t->m && tgt_stream_failure(t, ev))
        return -EIO;
    rc = tgt_next_event(t, ev);
    if (rc == 1)
        t->resume_waits = false; /* answered */
    /* A reported stop: XPTI answers (running tasks, thread names) are of
     * this stop from now on. */
    if (rc == 1 && (ev->kind == RSP_EVENT_STOP || ev->kind == RSP_EVENT_UNAVAILABLE))
        tgt_xpti_stopped(t->xpti);
    return rc;
}

static size_t t_library_count(void *ctx, uint32_t pid)
{
    struct tgt *t = ctx;
    return pid >= 1 && pid <= t->n && sess_alive(t->m, pid - 1) ? sess_module_count(t->m, pid - 1)
                                                                : 0;
}

static int t_library_at(void *ctx, uint32_t pid, size_t i, struct rsp_library *out)
{
    struct tgt *t = ctx;
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
    struct tgt *t = ctx;
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
            tgt_say(err, errlen, e.msg);
            return -EIO;
        }
        return 0;
    }
    tgt_say(err, errlen, "no module load waits for that acknowledgement");
    return -ENOENT;
}

static void t_client(void *ctx, bool confined, uint32_t uid)
{
    struct tgt *t = ctx;
    t->client_confined = confined;
    t->client_uid = uid;
}

static void t_client_gone(void *ctx)
{
    struct tgt *t = ctx;
    struct zd_error e;
    if (!t->m)
        return;
    if (sess_resume_all(t->m, &e))
        rsp_logf(&t->log, RSP_LOG_WARNING, "resuming every thread failed: %s", e.msg);
    release_manager(t);
}

/* Detaches every device and forgets them. A device the driver would not
 * let go of is said in the log: its threads may be left stopped. */
static void release_manager(struct tgt *t)
{
    tgt_prefetch_free(t);
    epoll_ctl(t->ep_fd, EPOLL_CTL_DEL, sess_notify_fd(t->m), NULL);
    for (unsigned k = 0; k < sess_count(t->m); k++) {
        struct zd_error e;
        if (sess_alive(t->m, k) && sess_detach(t->m, k, &e) != 0)
            rsp_logf(&t->log, RSP_LOG_WARNING,
                     "detaching from device [%s] failed, its threads may still be stopped: %s",
                     sess_device(t->m, k)->pci_slot, e.msg);
    }
    sess_detach_all(t->m);
    /* Detaches handed to readers are made before the release is done (a
     * refusal is logged by late_detach_failed), so none is left behind a
     * server that exits or serves the next client. */
    (void)zd_wait_detached(t->zd, NULL);
    t->m = NULL;
    tgt_kept_clear(t);
    tgt_xpti_free(t->xpti);
    t->xpti = NULL;
    for (unsigned k = 0; t->cats && k < t->n; k++)
        regs_catalog_free(t->cats[k]);
    free(t->cats);
    t->cats = NULL;
    tgt_tdesc_clear(t);
    free(t->exit_told);
    t->exit_told = NULL;
    if (t->held_report) {
        uint64_t v;
        if (read(t->held_fd, &v, sizeof(v)) < 0) {
            /* already drained */
        }
    }
    t->held_report = false;
    t->nranges = 0;
    tgt_code_forget(t);
    t->n = 0;
}

static bool t_process_exited(void *ctx, uint32_t pid)
{
    struct tgt *t = ctx;
    return ended(t, pid, NULL, 0);
}

static void t_set_non_stop(void *ctx, bool on)
{
    ((struct tgt *)ctx)->non_stop = on;
}

static int t_thread_name(void *ctx, uint32_t pid, uint32_t tid, char *buf, size_t len)
{
    struct tgt *t = ctx;
    if (!valid(t, pid, tid) || tid == 0)
        return -ENOENT;
    return tgt_xpti_thread_name(t->xpti, t->m, pid - 1, tid - 1, buf, len);
}

static const struct rsp_libraries_ops libraries = {
    .library_count = t_library_count,
    .library_at = t_library_at,
    .ack_library = t_ack_library,
};

static const struct rsp_sw_breakpoints_ops sw_breakpoints = {
    .insert = tgt_insert_sw_breakpoint,
    .remove = tgt_remove_sw_breakpoint,
    .thread_pc = tgt_thread_pc,
    .kernel_entries = tgt_kernel_entries,
};

static const struct rsp_non_stop_ops non_stop = {.set_non_stop = t_set_non_stop};
static const struct rsp_monitor_ops monitor = {.commands = tgt_monitor_commands};
static const struct rsp_thread_names_ops thread_names = {.thread_name = t_thread_name};
static const struct rsp_siginfo_ops siginfo = {.thread_siginfo = tgt_thread_siginfo};
static const struct rsp_exits_ops exits = {.process_exited = t_process_exited};

/* Every capability but programs, which tgt_target_set_launcher adds: each
 * target has its own copy (struct tgt's ops). */
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
    .resume = tgt_resume_checked,
    .interrupt = tgt_interrupt,
    .detach = t_detach,
    .event_fd = t_event_fd,
    .next_event = t_next_event,
    .client_gone = t_client_gone,
    .client = t_client,
    .libraries = &libraries,
    .sw_breakpoints = &sw_breakpoints,
    .non_stop = &non_stop,
    .monitor = &monitor,
    .thread_names = &thread_names,
    .siginfo = &siginfo,
    .exits = &exits,
};

int tgt_target_new(struct rsp_target *out, char *err, size_t errlen)
{
    struct tgt *t = calloc(1, sizeof(*t));
    struct zd_error e;
    if (!t) {
        tgt_say(err, errlen, "out of memory");
        return -ENOMEM;
    }
    t->ep_fd = epoll_create1(EPOLL_CLOEXEC);
    t->held_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (t->ep_fd < 0 || t->held_fd < 0 ||
        epoll_ctl(t->ep_fd, EPOLL_CTL_ADD, t->held_fd,
                  &(struct epoll_event){.events = EPOLLIN, .data.fd = t->held_fd}) < 0) {
        tgt_say(err, errlen, "epoll/eventfd: out of file descriptors");
        if (t->ep_fd >= 0)
            close(t->ep_fd);
        if (t->held_fd >= 0)
            close(t->held_fd);
        free(t);
        return -EMFILE;
    }
    if (zd_open(&t->zd, &e) != 0) {
        tgt_say(err, errlen, e.msg);
        close(t->ep_fd);
        close(t->held_fd);
        free(t);
        return -ENODEV;
    }
    zd_on_detach_failure(t->zd, late_detach_failed, t);
    t->ops = ops;
    out->ops = &t->ops;
    out->ctx = t;
    return 0;
}

void tgt_target_free(struct rsp_target *tgt)
{
    struct tgt *t = tgt->ctx;
    if (!t)
        return;
    t_client_gone(t);
    zd_close(t->zd);
    close(t->ep_fd);
    close(t->held_fd);
    free(t->ranges);
    tgt_code_forget(t);
    free(t);
    tgt->ctx = NULL;
}

void tgt_target_set_log(struct rsp_target *tgt, const struct rsp_log *log)
{
    struct tgt *t = tgt->ctx;
    if (t && log)
        t->log = *log;
}
