/* SPDX-License-Identifier: MIT */
/* zetdebug's detach handed to the reader, over the scripted driver
 * (zd_fake_driver.c): its event reads can be held at a gate, so a test
 * knows the reader is inside zetDebugReadEvent when it calls zd_detach.
 * A zetdebug that joined a held reader would hang; the gate's watchdog
 * opens it after 5 s, so the test fails instead. No times are asserted. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "tests/lib/tap.h"
#include "tests/zetdebug/zd_fake_driver.h"
#include "tests/zetdebug/zd_seen.h"
#include "zetdebug/zd.h"

/* Attaches with the gate shut, starts the reader and waits until it is
 * inside a read; then zd_detach must hand the detach over. Returns the
 * zd_detach answer, -100 when the read never came. */
static int detach_during_read(struct zd *zd, struct seen *w, struct zd_error *e)
{
    fake_gate(true);
    if (zd_attach(zd, 0, 42, &w->s, e) != 0 || zd_start_reader(w->s, seen_event, w, e) != 0 ||
        !fake_gate_reached()) {
        fake_gate(false);
        return -100;
    }
    return zd_detach(w->s, e);
}

/* What the late-failure callback was given. */
struct late {
    pthread_mutex_t lock;
    unsigned n;
    size_t device;
    struct zd_error e;
};

static void on_late(void *ctx, size_t device, const struct zd_error *e)
{
    struct late *l = ctx;
    pthread_mutex_lock(&l->lock);
    l->n++;
    l->device = device;
    l->e = *e;
    pthread_mutex_unlock(&l->lock);
}

static void test_handoff(struct zd *zd)
{
    struct seen w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct zd_stats before, after;
    struct zd_error e;
    unsigned during;
    int rc;

    /* A module load that needs an acknowledgement is what the held read
     * returns: read after the hand-off, it is dropped (the detach
     * releases it), never delivered. */
    pthread_mutex_lock(&F.lock);
    F.next = 0;
    F.acks = 0;
    F.detaches = 0;
    fake_script(0, ZE_RESULT_SUCCESS, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, true);
    pthread_mutex_unlock(&F.lock);
    zd_get_stats(zd, &before);
    rc = detach_during_read(zd, &w, &e);
    during = fake_detaches();
    tap_ok(rc == ZD_E_PENDING && e.code == ZD_E_PENDING && during == 0,
           "zd_detach during a read: handed to the reader (%s), zetDebugDetach not called while "
           "the read is in progress (%u calls): %s",
           zd_err_name(rc), during, e.msg);
    fake_gate(false);
    rc = zd_wait_detached(zd, &e);
    zd_get_stats(zd, &after);
    tap_ok(rc == 0 && fake_detaches() == 1 && after.detach - before.detach == 1,
           "zd_wait_detached: the reader detached once, counted (%u calls, rc %d)", fake_detaches(),
           rc);
    tap_ok(w.n == 0 && F.next == 1 && F.acks == 0,
           "the event its read returned (%u read) never reached the callback (%u calls) nor was "
           "acknowledged",
           F.next, w.n);
}

static void test_handoff_failure(struct zd *zd)
{
    struct seen w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct late l = {.lock = PTHREAD_MUTEX_INITIALIZER};
    struct zd_error e;
    int rc;

    zd_on_detach_failure(zd, on_late, &l);
    pthread_mutex_lock(&F.lock);
    F.nscript = F.next = 0;
    F.detaches = 0;
    F.detach_r = ZE_RESULT_ERROR_UNKNOWN;
    pthread_mutex_unlock(&F.lock);
    rc = detach_during_read(zd, &w, &e);
    tap_ok(rc == ZD_E_PENDING, "a second hand-off (%s)", zd_err_name(rc));
    fake_gate(false);
    rc = zd_wait_detached(zd, &e);
    tap_ok(rc == ZD_E_OTHER && fake_detaches() == 1 &&
               strncmp(e.msg, "detaching: unknown driver error", 31) == 0,
           "the driver's late refusal is zd_wait_detached's answer: %s", e.msg);
    tap_ok(l.n == 1 && l.device == 0 && l.e.code == ZD_E_OTHER && strcmp(l.e.msg, e.msg) == 0,
           "and was given to the late-failure callback, with the device (%u calls)", l.n);
    tap_ok(zd_wait_detached(zd, &e) == 0, "given once: the next zd_wait_detached answers 0");

    F.detach_r = ZE_RESULT_ERROR_DEVICE_LOST;
    rc = detach_during_read(zd, &w, &e);
    fake_gate(false);
    tap_ok(rc == ZD_E_PENDING && zd_wait_detached(zd, &e) == 0 && l.n == 1 && fake_detaches() == 2,
           "a lost device at the late detach is a success: no failure, no callback");
    F.detach_r = ZE_RESULT_SUCCESS;
    zd_on_detach_failure(zd, NULL, NULL);
}

/* A callback in progress: zd_detach joins it (it may be using the
 * caller's state), and the callback cannot join readers itself. */
struct slow {
    struct zd *zd;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool entered, done;
    int wait_rc;
};

static void on_slow(void *ctx, const struct zd_event *ev)
{
    struct slow *w = ctx;
    const struct timespec pause = {0, 50 * 1000000L};
    struct zd_error e;
    (void)ev;
    pthread_mutex_lock(&w->lock);
    w->entered = true;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    w->wait_rc = zd_wait_detached(w->zd, &e);
    nanosleep(&pause, NULL);
    pthread_mutex_lock(&w->lock);
    w->done = true;
    pthread_mutex_unlock(&w->lock);
}

static void test_detach_in_callback(struct zd *zd)
{
    struct slow w = {.zd = zd, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct zd_session *s = NULL;
    struct zd_error e;
    bool done;
    int rc;

    pthread_mutex_lock(&F.lock);
    F.next = 0;
    F.detaches = 0;
    fake_script(0, ZE_RESULT_SUCCESS, ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY, false);
    pthread_mutex_unlock(&F.lock);
    if (zd_attach(zd, 0, 42, &s, &e) != 0 || zd_start_reader(s, on_slow, &w, &e) != 0) {
        tap_ok(0, "reader for a slow callback: %s", e.msg);
        return;
    }
    pthread_mutex_lock(&w.lock);
    while (!w.entered)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    rc = zd_detach(s, &e);
    pthread_mutex_lock(&w.lock);
    done = w.done;
    pthread_mutex_unlock(&w.lock);
    tap_ok(rc == 0 && done && fake_detaches() == 1,
           "zd_detach while the callback runs joins it, then detaches (%s)", zd_err_name(rc));
    tap_ok(w.wait_rc == ZD_E_INVALID, "zd_wait_detached from a callback is refused");
}

/* zd_close with a detach still handed off: it joins the reader, which
 * detaches first (ASan and valgrind see the session freed). */
static void test_close_joins(struct zd *zd)
{
    struct seen w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct zd_error e;
    int rc;

    pthread_mutex_lock(&F.lock);
    F.nscript = F.next = 0;
    F.detaches = 0;
    pthread_mutex_unlock(&F.lock);
    rc = detach_during_read(zd, &w, &e);
    fake_gate(false);
    zd_close(zd);
    tap_ok(rc == ZD_E_PENDING && fake_detaches() == 1 && w.n == 0,
           "zd_close waits for a handed-off detach (%u calls)", fake_detaches());
}

int main(void)
{
    struct fdev dev[1];
    struct zd *zd = NULL;
    struct zd_error e = {0};

    tap_plan(3 + 5 + 2 + 1);
    F.ndrivers = 1;
    dev[0] = fake_gpu();
    F.devs = dev;
    F.ndev = 1;
    if (zd_open(&zd, &e) != 0)
        tap_bail(e.msg);
    test_handoff(zd);
    test_handoff_failure(zd);
    test_detach_in_callback(zd);
    test_close_joins(zd); /* closes zd */
    return tap_done();
}
