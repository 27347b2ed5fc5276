/* SPDX-License-Identifier: MIT */
/* How much of the sessions' per-stop register cache the client's reads
 * keep. The cache holds a set from its first read to the thread's resume,
 * which is right for a debugger that comes back to a thread, but a client
 * that walks every thread (Intel's GDB reads each thread's expedited
 * registers, r0 and r127 among them, for `info threads`) would leave a GRF
 * of every thread behind: ~8 KiB each, half a GiB at 65,536 threads. Only
 * the last TGT_KEPT_SETS big sets the client filled stay; an older one is
 * read from the device again if asked for (one call; a stopped thread's
 * registers do not change meanwhile, and writes go to the device). Small
 * sets (cr0, sr0, ce: what run control and the stop replies read) always
 * stay. The client's reads copy what they need before the next read, so
 * no pointer into a forgotten set is held. */
#include "sessions/sess.h"
#include "target/tgt_int.h"

void tgt_keep_regset(struct tgt *t, unsigned k, uint32_t th, uint32_t type)
{
    struct kept_set *slot = &t->kept[t->kept_next];
    if (t->nkept == TGT_KEPT_SETS)
        sess_forget_regset(t->m, slot->k, slot->th, slot->type);
    else
        t->nkept++;
    *slot = (struct kept_set){.k = k, .th = th, .type = type};
    t->kept_next = (t->kept_next + 1) % TGT_KEPT_SETS;
}

void tgt_kept_clear(struct tgt *t)
{
    t->nkept = 0;
    t->kept_next = 0;
}
