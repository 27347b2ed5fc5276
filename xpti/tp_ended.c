/* SPDX-License-Identifier: MIT */
/* Each key's instances whose task has ended, oldest first. The SYCL runtime
 * makes a tracepoint instance per kernel submission and never releases it;
 * this list is what lets the registry recycle those instances once their
 * task is over (tpreg_task_ended), keeping the newest TP_ENDED_KEEP per key
 * so a reader that still holds a recently ended event finds it intact. */
#include "xpti/tracepoints.h"

/* Links are pool references (0: none), 4 bytes in each instance instead
 * of 8. */
static struct tp_inst *at(struct tp_pool *pool, uint32_t ref)
{
    return ref ? tp_pool_at(pool, ref) : NULL;
}

struct tp_inst *tp_ended_add(struct tp_pool *pool, struct tp_key *k, struct tp_inst *inst)
{
    if (inst->ended)
        return NULL; /* ended again (an event reused for several tasks) */
    inst->ended = true;
    inst->ended_next = 0;
    inst->ended_prev = k->ended_newest;
    if (k->ended_newest)
        at(pool, k->ended_newest)->ended_next = inst->ref;
    else
        k->ended_oldest = inst->ref;
    k->ended_newest = inst->ref;
    return ++k->ended_count > TP_ENDED_KEEP ? at(pool, k->ended_oldest) : NULL;
}

void tp_ended_unlink(struct tp_pool *pool, struct tp_key *k, struct tp_inst *inst)
{
    if (!inst->ended)
        return;
    if (inst->ended_prev)
        at(pool, inst->ended_prev)->ended_next = inst->ended_next;
    else
        k->ended_oldest = inst->ended_next;
    if (inst->ended_next)
        at(pool, inst->ended_next)->ended_prev = inst->ended_prev;
    else
        k->ended_newest = inst->ended_prev;
    inst->ended = false;
    inst->ended_prev = inst->ended_next = 0;
    k->ended_count--;
}
