/* SPDX-License-Identifier: MIT */
/* Reading ahead of a client that walks the stopped threads
 * (target/tgt_prefetch.c), seen through the driver calls, counted here by
 * the host thread that makes them: a walk over 2,048 stopped threads that
 * reads each one's r0 (as Intel's GDB's `info threads` reads each one's
 * expedited registers), pausing between threads as GDB does to print a
 * row, has most GRFs read by the reader ahead and none read twice; the
 * client gets the same r0 either way; the cache holds no more GRFs than
 * the client's reads keep plus the window ahead; a jump (not a walk)
 * starts no reading ahead; the reader is stopped before the session ends
 * (the detach and the free, under ASan in CI). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "regsets/regs.h"
#include "sessions/sess.h"
#include "target/tgt_int.h"
#include "tests/lib/tap.h"
#include "tests/target/tgt_walk.h"

#define REG_BYTES WALK_REG_BYTES
#define WINDOW 64 /* tgt_prefetch.c's PF_AHEAD */

static void nap_us(long us)
{
    nanosleep(&(struct timespec){0, us * 1000L}, NULL);
}

int main(int argc, char **argv)
{
    const unsigned groups = WALK_GROUPS;
    struct rsp_target t;
    struct conf_app app;
    struct rsp_process_info pi;
    static uint8_t r0s[WALK_GROUPS][REG_BYTES];
    uint8_t again[REG_BYTES];
    char err[256] = "";
    unsigned read = 0, cached = 0, same = 0;
    unsigned long before;

    setenv("GTSIM_CONFIG", "platform=xehpc,subslices=16,eus=16,threads=8,pace=2", 1);
    unsetenv("ZESTUB_READ_AHEAD");
    conf_init(argc, argv, 300);
    tap_plan(7);
    walk_start(&t, &app, &pi);

    /* The walk, 200 us a row. */
    for (uint32_t tid = 1; tid <= pi.nthreads; tid++) {
        if (walk_read_r0(&t, tid, r0s[tid - 1]) == 0)
            read++;
        nap_us(200);
    }
    tap_ok(read == groups, "the walk read r0 of every stopped thread: %u of %u", read, groups);
    tap_ok(walk_grf_main + walk_grf_other == read, "no GRF read twice: %lu reads for %u threads",
           (unsigned long)(walk_grf_main + walk_grf_other), read);
    tap_ok(walk_grf_other >= read / 2,
           "most were read ahead of the client: %lu by the reader, %lu by the client",
           (unsigned long)walk_grf_other, (unsigned long)walk_grf_main);
    for (uint32_t th = 0; th < pi.nthreads; th++)
        cached += sess_regset_cached(((struct tgt *)t.ctx)->m, 0, th, REGS_GRF);
    tap_ok(cached <= TGT_KEPT_SETS + WINDOW,
           "GRFs left in the cache: %u (at most the %u the client keeps and the window of %u)",
           cached, TGT_KEPT_SETS, WINDOW);

    /* Thread 1 again, then 1,000: a jump, nothing read ahead. */
    for (uint32_t tid = 1; tid <= 1000; tid += 999) {
        if (walk_read_r0(&t, tid, again) == 0 && memcmp(again, r0s[tid - 1], REG_BYTES) == 0)
            same++;
    }
    before = walk_grf_other;
    nap_us(50000);
    tap_ok(same == 2, "threads read again give the same r0 (%u of 2)", same);
    tap_ok(walk_grf_other == before, "after a jump nothing is read ahead (%lu reads)",
           (unsigned long)(walk_grf_other - before));
    /* A walk from there, then the detach right away: the reader is
     * stopped first (ASan in CI would see a read into a closed session). */
    for (uint32_t tid = 1001; tid <= 1004; tid++)
        (void)walk_read_r0(&t, tid, again);
    tap_ok(walk_finish(&t, &app, err, sizeof(err)) == 0, "detach while reading ahead: %s", err);
    return tap_done();
}
