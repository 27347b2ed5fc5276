/* SPDX-License-Identifier: MIT */
/* How a feature (libraries and vAck, non-stop, Z0 breakpoints, thread
 * lists) plugs into the loop without the loop naming it: each fills one
 * struct rsp_feature (every hook optional) and features.c lists them. No
 * .c of its own: the features and features.c include it. */
#ifndef ZESTUB_GDBSTUB_HOOKS_H
#define ZESTUB_GDBSTUB_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

struct rsp_event;
struct rsp_server;

/* What a feature makes of a target event, in table order. */
enum rsp_verdict {
    RSP_EVENT_PASS = 0, /* not mine: the next feature, then the all-stop reply */
    RSP_EVENT_DROP,     /* nothing to tell the client */
    RSP_EVENT_TAKEN,    /* reported by the feature (a non-stop notification) */
};

struct rsp_feature {
    const char *name;
    /* A client connected: forget what the last one negotiated. */
    void (*reset)(struct rsp_server *s);
    /* The connection ends, before the target's client_gone. */
    void (*client_gone)(struct rsp_server *s);
    /* Device process pid is about to be detached (D). */
    void (*detaching)(struct rsp_server *s, uint32_t pid);
    /* The loop reads target events while one of these says so (besides
     * while an all-stop resume is outstanding). */
    bool (*wants_events)(const struct rsp_server *s);
    /* An event from the target; negative: the connection failed. */
    int (*on_event)(struct rsp_server *s, const struct rsp_event *ev);
    /* Milliseconds until expire has work (-1: none), and that work. */
    int (*timeout_ms)(struct rsp_server *s);
    void (*expire)(struct rsp_server *s);
    /* rsp_server_free: release what the feature allocated. */
    void (*release)(struct rsp_server *s);
};

#endif
