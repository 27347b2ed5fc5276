/* SPDX-License-Identifier: MIT */
/* What a zetdebug reader delivered, for the tests over the scripted
 * driver: seen_event is the reader's callback (it also tries zd_detach on
 * its own session, which must be refused), seen_wait waits for events. */
#ifndef ZESTUB_TESTS_ZETDEBUG_ZD_SEEN_H
#define ZESTUB_TESTS_ZETDEBUG_ZD_SEEN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "zetdebug/zd.h"

struct seen {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct zd_session *s;
    enum zd_event_type types[16];
    uint32_t reasons[16];
    unsigned n;
    int detach_rc;
};

void seen_event(void *ctx, const struct zd_event *ev);
/* Waits (10 s at most) until n events were delivered; whether they were. */
bool seen_wait(struct seen *w, unsigned n);

#endif
