/* SPDX-License-Identifier: MIT */
/* A debug session's request streams, debugger side. The first carries
 * attach, detach and everything a debugger asks from one host thread;
 * a register or memory access made while it is busy goes on a further
 * stream, opened on demand (at most GTSIM_DBG_MAX_STREAMS in all), as
 * Intel's runtime takes no session lock for those (README.md, "Cost
 * model"). A stream has one request in flight; the thread that sends it
 * reads the reply itself. */
#ifndef GTSIM_DBG_REQ_H
#define GTSIM_DBG_REQ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "gtsim/dbg_proto.h"

struct gtsim_req_stream {
    pthread_mutex_t lock; /* one request in flight */
    int fd;
    struct gtsim_dbg_rx rx; /* what fd brought and is not read yet */
};

struct gtsim_req {
    struct gtsim_req_stream first;
    struct gtsim_req_stream extra[GTSIM_DBG_MAX_STREAMS - 1]; /* [0, nextra) are open */
    atomic_uint nextra;
    pthread_mutex_t open_lock; /* one opened at a time */
};

/* fd: the session's connection (the first stream), taken over. */
void gtsim_req_init(struct gtsim_req *q, int fd, uint32_t poll_us);
/* Ends every stream: a caller waiting for a reply wakes, the debuggee's
 * threads see the end. */
void gtsim_req_shut(struct gtsim_req *q);
/* Closes every stream's descriptor and frees what init made. */
void gtsim_req_fini(struct gtsim_req *q);
/* A stream, locked: the first when it is free or `spread` is false, else
 * a free further one (opened when all are busy), else the first once it
 * is free. */
struct gtsim_req_stream *gtsim_req_take(struct gtsim_req *q, bool spread);
void gtsim_req_give(struct gtsim_req_stream *st);
/* Sends a request (a then b, or a with descriptor pass_fd when >= 0) on
 * st, which the caller holds, and reads its reply: 0 with *result (and
 * out, outlen bytes of reply data when it succeeded), -EMSGSIZE when
 * nothing was sent, another negative errno when the stream ended. */
int gtsim_req_exchange(struct gtsim_req_stream *st, uint32_t type, const void *a, size_t alen,
                       const void *b, size_t blen, int pass_fd, ze_result_t *result, void *out,
                       size_t outlen);

#endif
