/* SPDX-License-Identifier: MIT */
/* Which hardware threads a ze_device_thread_t of a session selects. */
#include "gtsim/regfile.h"

#include "gtsim/dbg_srv_int.h"

bool gtsim_srv_is_all(const ze_device_thread_t *t)
{
    return t->slice == ALL && t->subslice == ALL && t->eu == ALL && t->thread == ALL;
}

bool gtsim_srv_is_single(const ze_device_thread_t *t)
{
    return t->slice != ALL && t->subslice != ALL && t->eu != ALL && t->thread != ALL;
}

bool gtsim_srv_thread_in_range(const struct srv_session *s, const ze_device_thread_t *t)
{
    const struct gtsim_hw_config *c = gtsim_hw_config(s->root->hw);
    return (t->slice == ALL || t->slice < s->slice_count) &&
           (t->subslice == ALL || t->subslice < c->subslices) && (t->eu == ALL || t->eu < c->eus) &&
           (t->thread == ALL || t->thread < c->threads);
}

uint32_t gtsim_srv_session_threads(const struct srv_session *s)
{
    const struct gtsim_hw_config *c = gtsim_hw_config(s->root->hw);
    return s->slice_count * c->subslices * c->eus * c->threads;
}

unsigned gtsim_srv_for_each_thread(struct srv_session *s, const ze_device_thread_t *t,
                                   bool (*fn)(struct gtsim_hw *, uint32_t idx, uint32_t sidx,
                                              void *ctx),
                                   void *ctx)
{
    const struct gtsim_hw_config *c = gtsim_hw_config(s->root->hw);
    /* Slices are the outermost index, so a session's threads are one run. */
    uint32_t base = gtsim_hw_thread_index(s->root->hw, s->slice_first, 0, 0, 0);
    unsigned hits = 0;
    for (uint32_t sl = 0; sl < s->slice_count; sl++) {
        if (t->slice != ALL && t->slice != sl)
            continue;
        for (uint32_t ss = 0; ss < c->subslices; ss++) {
            if (t->subslice != ALL && t->subslice != ss)
                continue;
            for (uint32_t eu = 0; eu < c->eus; eu++) {
                if (t->eu != ALL && t->eu != eu)
                    continue;
                for (uint32_t th = 0; th < c->threads; th++) {
                    if (t->thread != ALL && t->thread != th)
                        continue;
                    uint32_t idx =
                        gtsim_hw_thread_index(s->root->hw, sl + s->slice_first, ss, eu, th);
                    hits += fn(s->root->hw, idx, idx - base, ctx);
                }
            }
        }
    }
    return hits;
}

bool gtsim_srv_release_one(struct gtsim_hw *hw, uint32_t idx, uint32_t sidx, void *ctx)
{
    (void)sidx;
    (void)ctx;
    const struct gtsim_regfile_layout *lay = gtsim_hw_layout(hw);
    uint8_t *regs;
    if (gtsim_hw_thread_state(hw, idx) != GTSIM_T_STOPPED)
        return false;
    regs = gtsim_hw_thread_regs(hw, idx);
    gtsim_regfile_set32(lay, regs, GTSIM_REGSET_CR, 0, 1,
                        gtsim_regfile_get32(lay, regs, GTSIM_REGSET_CR, 0, 1) &
                            ~(GTSIM_CR0_1_BREAKPOINT | GTSIM_CR0_1_EXTERNAL_HALT |
                              GTSIM_CR0_1_FORCE_EXCEPTION | GTSIM_CR0_1_PAGE_FAULT));
    return gtsim_hw_resume_locked(hw, idx) == 0;
}

int gtsim_srv_thread_index(struct srv_session *s, const ze_device_thread_t *t, uint32_t *idx)
{
    if (!gtsim_srv_is_single(t) || !gtsim_srv_thread_in_range(s, t))
        return -1;
    *idx = gtsim_hw_thread_index(s->root->hw, t->slice + s->slice_first, t->subslice, t->eu,
                                 t->thread);
    return 0;
}
