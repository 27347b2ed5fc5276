/* SPDX-License-Identifier: MIT */
/* gtsim/ssa.h in one process: the debuggee's side publishes, a view of a
 * second descriptor of the same memfd reads, as a debugger would after
 * attach. A stopped thread reads what was written to its slot; a thread
 * not stopped, or readable only later (a late halt), is -EAGAIN until its
 * moment; republishing the same readiness keeps the word, a resume
 * changes it; a view whose layout differs from the memfd's is refused.
 * The reader's check after its copy is seen from another thread that
 * resumes and stops a thread while reads run: no read ever returns a
 * slot in the middle of a change. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gtsim/ssa.h"
#include "tests/lib/tap.h"

#define THREADS 8
#define SLOT 256

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct gtsim_dbg_ssa_info info_of(const struct gtsim_ssa *s)
{
    return (struct gtsim_dbg_ssa_info){1, THREADS, SLOT, s->bytes, 0, 1};
}

/* The race: the writer flips thread 3 between a stopped state whose slot
 * is all 0x11 and one whose slot is all 0x22, marking it unreadable (as a
 * resume does) before it changes the slot. */
struct race {
    struct gtsim_ssa *s;
    atomic_bool stop;
};

static void *flipper(void *arg)
{
    struct race *r = arg;
    uint8_t v = 0x11;
    while (!atomic_load(&r->stop)) {
        gtsim_ssa_publish(r->s, 3, false, 0);
        v = v == 0x11 ? 0x22 : 0x11;
        for (int i = 0; i < SLOT; i++) /* byte by byte: a torn copy would show */
            ((volatile uint8_t *)r->s->regs)[3 * SLOT + i] = v;
        gtsim_ssa_publish(r->s, 3, true, 0);
        for (volatile int k = 0; k < 2000; k++) /* stopped a moment */
            ;
    }
    return NULL;
}

int main(void)
{
    struct gtsim_ssa s;
    struct gtsim_ssa_view v, bad;
    struct gtsim_dbg_ssa_info info;
    uint8_t buf[SLOT];
    uint64_t w;
    int fd, rc, torn = 0, reads = 0, eagain = 0;

    tap_plan(10);
    if (gtsim_ssa_create(&s, THREADS, SLOT) != 0)
        tap_bail("no memfd (memfd_create failed): nothing to test");
    info = info_of(&s);
    fd = fcntl(s.fd, F_DUPFD_CLOEXEC, 0);
    tap_ok(gtsim_ssa_view_open(&v, fd, &info, THREADS, SLOT) == 0 && v.fd >= 0,
           "a view of the memfd opens with the layout both sides compute");

    memcpy(s.regs + 2 * SLOT + 16, "registers", 10);
    rc = gtsim_ssa_read(&v, 2, 16, buf, 10);
    tap_ok(rc == -EAGAIN, "a thread never published (not stopped): -EAGAIN (%d)", rc);
    gtsim_ssa_publish(&s, 2, true, 0);
    rc = gtsim_ssa_read(&v, 2, 16, buf, 10);
    tap_ok(rc == 0 && memcmp(buf, "registers", 10) == 0,
           "stopped and published: reads what its slot holds (%d)", rc);
    w = atomic_load(&s.table[2]);
    gtsim_ssa_publish(&s, 2, true, 0);
    tap_ok(atomic_load(&s.table[2]) == w,
           "publishing the same readiness again keeps the word (a reader meanwhile is fine)");
    gtsim_ssa_publish(&s, 2, false, 0);
    rc = gtsim_ssa_read(&v, 2, 16, buf, 10);
    tap_ok(rc == -EAGAIN && atomic_load(&s.table[2]) != w, "resumed: a new word, and -EAGAIN (%d)",
           rc);

    gtsim_ssa_publish(&s, 5, true, mono_ns() + 200000000u);
    rc = gtsim_ssa_read(&v, 5, 0, buf, 8);
    tap_ok(rc == -EAGAIN, "stopped, halting 200 ms from now (late): -EAGAIN (%d)", rc);
    struct timespec nap = {0, 250000000};
    nanosleep(&nap, NULL);
    rc = gtsim_ssa_read(&v, 5, 0, buf, 8);
    tap_ok(rc == 0, "250 ms later it reads (%d)", rc);

    rc = gtsim_ssa_read(&v, THREADS, 0, buf, 8) == -EINVAL &&
         gtsim_ssa_read(&v, 1, SLOT - 4, buf, 8) == -EINVAL;
    tap_ok(rc, "a thread past the table, or a range past the slot: -EINVAL");

    info.slot_size = SLOT * 2;
    fd = fcntl(s.fd, F_DUPFD_CLOEXEC, 0);
    tap_ok(gtsim_ssa_view_open(&bad, fd, &info, THREADS, SLOT * 2) != 0 && bad.fd < 0,
           "a view whose slot size is not the memfd's is refused (the fallback)");

    {
        struct race r = {&s, false};
        pthread_t t;
        uint64_t end = mono_ns() + 500000000u;
        memset(s.regs + 3 * SLOT, 0x11, SLOT);
        gtsim_ssa_publish(&s, 3, true, 0);
        pthread_create(&t, NULL, flipper, &r);
        while (mono_ns() < end) {
            rc = gtsim_ssa_read(&v, 3, 0, buf, SLOT);
            if (rc == -EAGAIN) {
                eagain++;
                continue;
            }
            reads++;
            for (int i = 1; i < SLOT; i++)
                torn += buf[i] != buf[0];
        }
        atomic_store(&r.stop, true);
        pthread_join(t, NULL);
        tap_ok(torn == 0 && reads > 0,
               "reads racing with resumes: %d whole slots, %d NOT_AVAILABLE, %d torn bytes", reads,
               eagain, torn);
    }
    gtsim_ssa_view_close(&v);
    gtsim_ssa_destroy(&s);
    return tap_done();
}
