/* SPDX-License-Identifier: MIT */
/* The stops gtsim's hardware reports (gtsim_hw's on_stop callback),
 * collected for a test's own thread to wait on: the tests that drive
 * gtsim/hw.c directly share this. */
#ifndef ZESTUB_TESTS_GTSIM_HW_STOPS_H
#define ZESTUB_TESTS_GTSIM_HW_STOPS_H

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "gtsim/hw.h"

struct stops {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    struct gtsim_hw_stop ev[64];
    unsigned n;
};

static inline void on_stop(void *ctx, const struct gtsim_hw_stop *s)
{
    struct stops *st = ctx;
    pthread_mutex_lock(&st->lock);
    if (st->n < 64)
        st->ev[st->n++] = *s;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->lock);
}

/* Waits up to 10 s for the stop number `want` (1-based). */
static inline int wait_stop(struct stops *st, unsigned want, struct gtsim_hw_stop *out)
{
    struct timespec dl;
    int rc = 0;
    memset(out, 0, sizeof(*out)); /* defined even when the stop never comes */
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 10;
    pthread_mutex_lock(&st->lock);
    while (st->n < want && rc == 0)
        rc = pthread_cond_timedwait(&st->cv, &st->lock, &dl);
    if (st->n >= want)
        *out = st->ev[want - 1];
    pthread_mutex_unlock(&st->lock);
    return st->n >= want ? 0 : -ETIMEDOUT;
}

#endif
