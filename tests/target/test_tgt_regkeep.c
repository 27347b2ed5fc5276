/* SPDX-License-Identifier: MIT */
/* The client's register reads keep a bounded part of the per-stop cache
 * (target/tgt_regkeep.c): a client that reads r0 of every stopped thread,
 * as Intel's GDB does for `info threads`, leaves at most TGT_KEPT_SETS
 * GRFs cached. Seen through the driver calls, counted here as in
 * test_tgt_breakcycle: the walk reads each thread's GRF once; a second
 * read of the last thread costs nothing (kept); a second read of the first
 * thread costs one zetDebugReadRegisters (forgotten) and gives the same
 * value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/tgt_int.h"
#include "tests/lib/tap.h"
#include "tests/target/tgt_walk.h"

#define REG_BYTES WALK_REG_BYTES

/* GRF reads of both host threads: a reader ahead of the walk (tgt_prefetch.c)
 * reads for the client. */
static unsigned long grf_reads(void)
{
    return walk_grf_main + walk_grf_other;
}

int main(int argc, char **argv)
{
    struct rsp_target t;
    struct conf_app app;
    struct rsp_process_info pi;
    static uint8_t first[REG_BYTES], again[REG_BYTES], last[REG_BYTES];
    char err[256] = "";
    uint32_t first_tid = 0, last_tid = 0;
    unsigned read = 0;
    unsigned long walk, mark, after_last, after_first;

    setenv("GTSIM_CONFIG", "platform=xehpc,subslices=16,eus=16,threads=8,pace=2", 1);
    conf_init(argc, argv, 300);
    tap_plan(5);
    walk_start(&t, &app, &pi);

    mark = grf_reads();
    for (uint32_t tid = 1; tid <= pi.nthreads; tid++) {
        uint8_t r0[REG_BYTES] = {0};
        if (walk_read_r0(&t, tid, r0) != 0)
            continue;
        if (!first_tid) {
            first_tid = tid;
            memcpy(first, r0, sizeof(first));
        }
        last_tid = tid;
        read++;
    }
    walk = grf_reads() - mark;
    tap_ok(read > TGT_KEPT_SETS + 64, "more stopped threads than sets kept: %u read, %u kept", read,
           TGT_KEPT_SETS);
    tap_ok(walk == read, "the walk read each thread's GRF once: %lu reads for %u threads", walk,
           read);
    mark = grf_reads();
    after_last = walk_read_r0(&t, last_tid, last) == 0 ? grf_reads() - mark : 999;
    tap_ok(after_last == 0, "the last thread's GRF is still cached (%lu reads)", after_last);
    mark = grf_reads();
    after_first = walk_read_r0(&t, first_tid, again) == 0 ? grf_reads() - mark : 999;
    tap_ok(after_first == 1, "the first thread's GRF was let go: read again once (%lu reads)",
           after_first);
    tap_ok(after_first == 1 && memcmp(first, again, sizeof(first)) == 0,
           "and it gives the same r0");

    (void)walk_finish(&t, &app, err, sizeof(err));
    return tap_done();
}
