/* SPDX-License-Identifier: MIT */
/* Modules as in-memory libraries (protocol 4): the library event, the list
 * (qXfer:libraries:read), vAck, and the acknowledgement timeout.
 *
 * A module load that waits for an acknowledgement keeps the application
 * blocked in zeModuleCreate until GDB has read the module and planted its
 * breakpoints; GDB says so with vAck just before its next resume. A client
 * that cannot acknowledge (it did not announce vAck:in-memory-library+) gets
 * every load acknowledged at once. A client that announced it but never
 * acknowledges must not wedge the application: after
 * cfg.library_ack_timeout_ms the server acknowledges by itself and says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gdbstub/h_library.h"
#include "gdbstub/handlers.h"
#include "gdbstub/hooks.h"
#include "gdbstub/offers.h"
#include "gdbstub/server_state.h"
#include "gdbstub/threadid.h"

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void forget(struct rsp_server *s, size_t i)
{
    s->acks[i] = s->acks[--s->nacks];
}

static bool waiting_known(const struct rsp_server *s, uint32_t pid, uint64_t b, uint64_t e)
{
    for (size_t i = 0; i < s->nacks; i++)
        if (s->acks[i].pid == pid && s->acks[i].begin == b && s->acks[i].end == e)
            return true;
    return false;
}

/* Starts the clock for every load of pid that waits and is not timed yet. */
static void time_waiting(struct rsp_server *s, uint32_t pid)
{
    const struct rsp_libraries_ops *o = s->target.ops->libraries;
    struct rsp_library lib;
    for (size_t i = 0; o->library_at(s->target.ctx, pid, i, &lib) == 0; i++) {
        struct rsp_pending_ack *n;
        if (!lib.needs_ack || waiting_known(s, pid, lib.begin, lib.end))
            continue;
        if (s->nacks == s->cap_acks) {
            size_t cap = s->cap_acks ? 2 * s->cap_acks : 8;
            n = realloc(s->acks, cap * sizeof(*n));
            if (!n)
                return; /* untimed: acknowledged on vAck or detach */
            s->acks = n;
            s->cap_acks = cap;
        }
        s->acks[s->nacks++] = (struct rsp_pending_ack){
            .pid = pid, .begin = lib.begin, .end = lib.end, .since_ms = now_ms()};
    }
}

static void ack(struct rsp_server *s, uint32_t pid, uint64_t b, uint64_t e, const char *why)
{
    char err[RSP_ERR_LEN] = "";
    if (s->target.ops->libraries->ack_library(s->target.ctx, pid, b, e, err, sizeof(err)) < 0)
        rsp_logf(&s->cfg.log, RSP_LOG_WARNING,
                 "device process %u: acknowledging module 0x%llx-0x%llx failed: %s", (unsigned)pid,
                 (unsigned long long)b, (unsigned long long)e, err);
    else
        rsp_logf(&s->cfg.log, RSP_LOG_INFO, "device process %u: module 0x%llx-0x%llx %s",
                 (unsigned)pid, (unsigned long long)b, (unsigned long long)e, why);
}

/* A LIBRARY event: acknowledges at once what the client cannot, or starts
 * the timeout clock; dropped unless the client is to be told. The
 * breakpoint feature has planted the reloaded module's breakpoints. */
static int library_event(struct rsp_server *s, const struct rsp_event *ev)
{
    uint32_t pid = ev->pid;
    if (ev->kind != RSP_EVENT_LIBRARY)
        return RSP_EVENT_PASS;
    if (!rsp_offered(s, RSP_OFFER_LIBRARIES))
        return RSP_EVENT_DROP;
    if (rsp_offered(s, RSP_OFFER_VACK)) {
        time_waiting(s, pid);
        return RSP_EVENT_PASS;
    }
    /* The client cannot acknowledge: nothing may wait for it. */
    rsp_libraries_ack_waiting(s, pid, "acknowledged at once (the client has no vAck)");
    return rsp_offered(s, RSP_OFFER_LIBRARY_LIST) ? RSP_EVENT_PASS : RSP_EVENT_DROP;
}

void rsp_libraries_ack_waiting(struct rsp_server *s, uint32_t pid, const char *why)
{
    struct rsp_library lib;
    for (size_t i = 0; s->target.ops->libraries->library_at(s->target.ctx, pid, i, &lib) == 0; i++)
        if (lib.needs_ack)
            ack(s, pid, lib.begin, lib.end, why);
}

/* Milliseconds until the next acknowledgement timeout (-1: none). */
static int timeout_ms(struct rsp_server *s)
{
    uint64_t now = now_ms(), limit = s->cfg.library_ack_timeout_ms, soonest = UINT64_MAX;
    if (!limit || !s->nacks)
        return -1;
    for (size_t i = 0; i < s->nacks; i++) {
        uint64_t due = s->acks[i].since_ms + limit;
        soonest = due < soonest ? due : soonest;
    }
    return soonest <= now ? 0 : (int)(soonest - now > 60000 ? 60000 : soonest - now);
}

static bool still_waiting(struct rsp_server *s, uint32_t pid, uint64_t b, uint64_t e)
{
    struct rsp_library lib;
    for (size_t i = 0; s->target.ops->libraries->library_at(s->target.ctx, pid, i, &lib) == 0; i++)
        if (lib.begin == b && lib.end == e && lib.needs_ack)
            return true;
    return false;
}

static void expire(struct rsp_server *s)
{
    uint64_t now = now_ms(), limit = s->cfg.library_ack_timeout_ms;
    if (!limit)
        return;
    for (size_t i = 0; i < s->nacks;) {
        struct rsp_pending_ack a = s->acks[i];
        if (a.since_ms + limit > now) {
            i++;
            continue;
        }
        forget(s, i);
        if (!still_waiting(s, a.pid, a.begin, a.end))
            continue; /* acknowledged through another device, or unloaded */
        rsp_logf(&s->cfg.log, RSP_LOG_WARNING,
                 "device process %u: no vAck for module 0x%llx-0x%llx after %llu ms: "
                 "acknowledging it so that the application goes on",
                 (unsigned)a.pid, (unsigned long long)a.begin, (unsigned long long)a.end,
                 (unsigned long long)limit);
        ack(s, a.pid, a.begin, a.end, "acknowledged after the timeout");
    }
}

static void reset(struct rsp_server *s)
{
    s->client_libraries = s->client_vack = false;
    s->nacks = 0;
}

static void release(struct rsp_server *s)
{
    free(s->acks);
    s->acks = NULL;
    s->nacks = s->cap_acks = 0;
}

const struct rsp_feature rsp_feature_libraries = {
    .name = "in-memory libraries",
    .reset = reset,
    .on_event = library_event,
    .timeout_ms = timeout_ms,
    .expire = expire,
    .release = release,
};

int rsp_libraries_xml(struct rsp_server *s, uint32_t pid, struct rsp_buf *out)
{
    const struct rsp_libraries_ops *o = s->target.ops->libraries;
    struct rsp_library lib;
    size_t n = o->library_count(s->target.ctx, pid);
    bool any_ack = false;

    for (size_t i = 0; o->library_at(s->target.ctx, pid, i, &lib) == 0; i++)
        any_ack = any_ack || lib.needs_ack;
    /* 1.0: nothing in memory; 1.1: in-memory entries; 1.2: acks wanted. */
    rsp_buf_printf(out, "<library-list version=\"%s\">\n", any_ack ? "1.2" : n ? "1.1" : "1.0");
    for (size_t i = 0; o->library_at(s->target.ctx, pid, i, &lib) == 0; i++)
        rsp_buf_printf(out,
                       "<in-memory-library begin=\"0x%llx\" end=\"0x%llx\"%s>"
                       "<segment address=\"0x%llx\"/></in-memory-library>\n",
                       (unsigned long long)lib.begin, (unsigned long long)lib.end,
                       lib.needs_ack ? " ack=\"yes\"" : "", (unsigned long long)lib.load);
    rsp_buf_puts(out, "</library-list>\n");
    return 0;
}

/* "in-memory-library:BEGIN,END" with or without 0x. */
static bool parse_one(const char *p, const char *end, uint64_t *b, uint64_t *e)
{
    static const char kind[] = "in-memory-library:";
    size_t kl = sizeof(kind) - 1;
    if ((size_t)(end - p) < kl || memcmp(p, kind, kl) != 0)
        return false;
    p += kl;
    if (end - p > 2 && p[0] == '0' && p[1] == 'x')
        p += 2;
    if (!rsp_parse_hex(&p, end, b) || p >= end || *p != ',')
        return false;
    p++;
    if (end - p > 2 && p[0] == '0' && p[1] == 'x')
        p += 2;
    return rsp_parse_hex(&p, end, e) && p == end;
}

enum rsp_hresult rsp_h_vack(struct rsp_server *s, const char *arg, size_t len)
{
    const char *p = arg, *end = arg + len;
    uint32_t pid = 0, tid;

    /* Answered only with a libraries table (offers.c). The Hg process first: identical modules may
     * wait on several devices. */
    if (!rsp_resolve_thread(s, s->g, &pid, &tid))
        pid = 0;
    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *one_end = semi ? semi : end;
        uint64_t b, e;
        char err[RSP_ERR_LEN] = "";
        if (!parse_one(p, one_end, &b, &e)) {
            char text[96];
            snprintf(text, sizeof(text), "junk in vAck: '%.*s'",
                     (int)((one_end - p) > 60 ? 60 : (one_end - p)), p);
            rsp_reply_etext(&s->reply, text);
            return RSP_H_REPLY;
        }
        for (size_t i = 0; i < s->nacks; i++)
            if (s->acks[i].begin == b && s->acks[i].end == e && (!pid || s->acks[i].pid == pid)) {
                forget(s, i);
                break;
            }
        if (s->target.ops->libraries->ack_library(s->target.ctx, pid, b, e, err, sizeof(err)) < 0 &&
            (!pid ||
             s->target.ops->libraries->ack_library(s->target.ctx, 0, b, e, err, sizeof(err)) < 0))
            /* Already acknowledged (timeout) or unloaded: nothing waits. */
            rsp_logf(&s->cfg.log, RSP_LOG_INFO, "vAck for module 0x%llx-0x%llx: %s",
                     (unsigned long long)b, (unsigned long long)e, err);
        else
            rsp_logf(&s->cfg.log, RSP_LOG_INFO, "module 0x%llx-0x%llx acknowledged by the client",
                     (unsigned long long)b, (unsigned long long)e);
        p = one_end + (semi ? 1 : 0);
    }
    rsp_reply_ok(&s->reply);
    return RSP_H_REPLY;
}
