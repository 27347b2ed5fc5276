/* SPDX-License-Identifier: MIT */
#include "tests/zetdebug/zd_seen.h"

#include <time.h>

void seen_event(void *ctx, const struct zd_event *ev)
{
    struct seen *w = ctx;
    struct zd_error e;
    int rc = zd_detach(w->s, &e); /* refused: it would join itself */
    pthread_mutex_lock(&w->lock);
    w->detach_rc = rc;
    if (w->n < 16) {
        w->reasons[w->n] = ev->detach_reason;
        w->types[w->n++] = ev->type;
    }
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

bool seen_wait(struct seen *w, unsigned n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&w->lock);
    while (w->n < n && pthread_cond_timedwait(&w->cond, &w->lock, &until) == 0) {
    }
    n = w->n >= n;
    pthread_mutex_unlock(&w->lock);
    return n;
}
