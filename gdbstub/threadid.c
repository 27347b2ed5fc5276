/* SPDX-License-Identifier: MIT */
#include "gdbstub/threadid.h"

static bool parse_id(const char **p, const char *end, int64_t *out)
{
    uint64_t v;
    if (*p < end && **p == '-') {
        if (*p + 1 < end && (*p)[1] == '1') {
            *p += 2;
            *out = -1;
            return true;
        }
        return false;
    }
    if (!rsp_parse_hex(p, end, &v) || v > INT32_MAX)
        return false;
    *out = (int64_t)v;
    return true;
}

int64_t rsp_pid_to_wire(const struct rsp_server *s, int64_t pid)
{
    return s->alias_dev && pid == s->alias_dev ? s->alias_host : pid;
}

int64_t rsp_pid_from_wire(const struct rsp_server *s, int64_t pid)
{
    if (!s->alias_dev)
        return pid;
    if (pid == s->alias_host)
        return s->alias_dev;
    return pid == s->alias_dev ? INT32_MAX : pid; /* hidden behind the alias */
}

bool rsp_parse_ptid(const struct rsp_server *s, const char **p, const char *end,
                    struct rsp_ptid *out)
{
    const char *q = *p;
    if (q < end && *q == 'p') {
        q++;
        if (!parse_id(&q, end, &out->pid))
            return false;
        if (out->pid > 0)
            out->pid = rsp_pid_from_wire(s, out->pid);
        out->tid = -1; /* "pP": every thread of P */
        if (q < end && *q == '.') {
            q++;
            if (!parse_id(&q, end, &out->tid))
                return false;
        }
    } else {
        if (!parse_id(&q, end, &out->tid))
            return false;
        /* A bare id: -1 all, 0 any, N thread N of the current process. */
        out->pid = out->tid == -1 ? -1 : 0;
    }
    *p = q;
    return true;
}

void rsp_put_ptid(const struct rsp_server *s, struct rsp_buf *b, int64_t pid, int64_t tid)
{
    rsp_buf_putc(b, 'p');
    if (pid < 0)
        rsp_buf_puts(b, "-1");
    else
        rsp_buf_num(b, (unsigned long long)rsp_pid_to_wire(s, pid), 16);
    if (tid < 0) {
        rsp_buf_puts(b, ".-1");
    } else {
        rsp_buf_putc(b, '.');
        rsp_buf_num(b, (unsigned long long)tid, 16);
    }
}

bool rsp_find_process(struct rsp_server *s, uint32_t pid, struct rsp_process_info *out)
{
    const struct rsp_target_ops *o = s->target.ops;
    size_t n = o->process_count(s->target.ctx);
    for (size_t i = 0; i < n; i++) {
        struct rsp_process_info pi;
        if (o->process_at(s->target.ctx, i, &pi) == 0 && pi.pid == pid) {
            if (out)
                *out = pi;
            return true;
        }
    }
    return false;
}

static bool first_process(struct rsp_server *s, struct rsp_process_info *out)
{
    const struct rsp_target_ops *o = s->target.ops;
    return o->process_count(s->target.ctx) > 0 && o->process_at(s->target.ctx, 0, out) == 0;
}

bool rsp_event_names_thread(const struct rsp_event *ev)
{
    return ev->kind == RSP_EVENT_STOP || ev->kind == RSP_EVENT_UNAVAILABLE;
}

bool rsp_resolve_thread(struct rsp_server *s, struct rsp_ptid want, uint32_t *pid, uint32_t *tid)
{
    const struct rsp_target_ops *o = s->target.ops;
    struct rsp_process_info pi;
    bool last = s->have_stop && rsp_event_names_thread(&s->last_stop);

    if (want.pid > 0) {
        if (!rsp_find_process(s, (uint32_t)want.pid, &pi))
            return false;
    } else if (last && rsp_find_process(s, s->last_stop.pid, &pi)) {
        /* any process: the one that reported last */
    } else if (!first_process(s, &pi))
        return false;
    *pid = pi.pid;
    if (want.tid > 0) {
        if ((uint64_t)want.tid > pi.nthreads)
            return false;
        *tid = (uint32_t)want.tid;
        return true;
    }
    if (pi.nthreads == 0)
        return false;
    if (last && s->last_stop.pid == pi.pid && s->last_stop.tid >= 1 &&
        s->last_stop.tid <= pi.nthreads) {
        *tid = s->last_stop.tid;
        return true;
    }
    /* Any thread: prefer one whose registers can be read. */
    for (uint32_t t = 1; t <= pi.nthreads; t++) {
        struct rsp_thread_info ti;
        if (o->thread_info(s->target.ctx, pi.pid, t, &ti) == 0 && ti.state == RSP_THREAD_STOPPED) {
            *tid = t;
            return true;
        }
    }
    *tid = 1;
    return true;
}

bool rsp_ptid_valid(struct rsp_server *s, struct rsp_ptid p)
{
    struct rsp_process_info pi;
    if (p.pid == -1)
        return p.tid <= 0 && s->target.ops->process_count(s->target.ctx) > 0;
    if (p.pid == 0) {
        uint32_t pid, tid;
        return rsp_resolve_thread(s, p, &pid, &tid);
    }
    if (!rsp_find_process(s, (uint32_t)p.pid, &pi))
        return false;
    return p.tid <= 0 || (uint64_t)p.tid <= pi.nthreads;
}

uint64_t rsp_count_threads(struct rsp_server *s)
{
    const struct rsp_target_ops *o = s->target.ops;
    size_t n = o->process_count(s->target.ctx);
    uint64_t threads = 0;
    for (size_t i = 0; i < n; i++) {
        struct rsp_process_info pi;
        if (o->process_at(s->target.ctx, i, &pi) == 0)
            threads += pi.nthreads;
    }
    return threads;
}
