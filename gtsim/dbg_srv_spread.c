/* SPDX-License-Identifier: MIT */
/* GTSIM_CONFIG interrupt_spread_ms: the threads an interrupt halts reach
 * the system routine over a window instead of at once, as on hardware
 * where each thread finishes its instruction and saves its state at its
 * own pace (README.md, "Cost model"). gtsim still halts them at once, so
 * nothing runs on; what a debugger sees is the real driver's view of a
 * late thread: until its own moment a register or memory access of it
 * returns NOT_AVAILABLE, and the interrupt's one answer (README.md,
 * "Interrupts") is sent when the window is over. A thread's moment is a
 * hash of its index and the interrupt's number, so no memory per thread. */
#include <time.h>

#include "gtsim/dbg_srv_int.h"
#include "gtsim/gtsim.h"

uint64_t gtsim_srv_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t spread_ns(const struct srv_session *s)
{
    return (uint64_t)s->srv->drv->cfg.interrupt_spread_ms * 1000000u;
}

uint64_t gtsim_srv_spread_begin(struct srv_session *s)
{
    uint64_t w = spread_ns(s);
    if (!w)
        return 0;
    s->spread_t0_ns = gtsim_srv_now_ns();
    s->spread_epoch++;
    return s->spread_t0_ns + w;
}

/* When thread idx reaches its halt: a mixing hash (splitmix64's finaliser)
 * spread evenly over [t0, t0 + window). */
static uint64_t arrival_ns(const struct srv_session *s, uint32_t idx)
{
    uint64_t x = ((uint64_t)s->spread_epoch << 32) ^ idx;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return s->spread_t0_ns + x % spread_ns(s);
}

bool gtsim_srv_stop_is_late(struct srv_session *s, uint32_t idx)
{
    struct gtsim_hw *hw = s->root->hw;
    uint32_t cr0_1;
    if (!spread_ns(s) || !s->spread_t0_ns)
        return false;
    cr0_1 = gtsim_regfile_get32(gtsim_hw_layout(hw), gtsim_hw_thread_regs(hw, idx), GTSIM_REGSET_CR,
                                0, 1);
    /* Only a halt by the interrupt is late; a breakpoint stop was seen. */
    if (!(cr0_1 & GTSIM_CR0_1_EXTERNAL_HALT))
        return false;
    return gtsim_srv_now_ns() < arrival_ns(s, idx);
}

void gtsim_srv_publish(struct srv_session *s, uint32_t idx)
{
    struct gtsim_hw *hw = s->root->hw;
    if (gtsim_hw_thread_state(hw, idx) != GTSIM_T_STOPPED)
        return; /* the hardware keeps it unreadable */
    gtsim_hw_publish_locked(hw, idx, gtsim_srv_stop_is_late(s, idx) ? arrival_ns(s, idx) : 0);
}

bool gtsim_srv_publish_one(struct gtsim_hw *hw, uint32_t idx, uint32_t sidx, void *ctx)
{
    (void)hw;
    (void)sidx;
    gtsim_srv_publish(ctx, idx);
    return false;
}

void gtsim_srv_sleep_until(uint64_t t_ns)
{
    uint64_t now = gtsim_srv_now_ns();
    if (t_ns > now) {
        uint64_t d = t_ns - now;
        struct timespec ts = {(time_t)(d / 1000000000u), (long)(d % 1000000000u)};
        nanosleep(&ts, NULL);
    }
}
