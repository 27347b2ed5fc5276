/* SPDX-License-Identifier: MIT */
/* Drives gtsim's execution model directly (no loader): real vadd code from
 * the fixtures runs on simulated hardware threads; breakpoints, suppress,
 * single-step, interrupts and page faults behave as the debug side needs. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gtsim/hw.h"
#include "gtsim/isa.h"
#include "gtsim/regfile.h"
#include "gtsim/zebin.h"
#include "tests/lib/slurp.h"
#include "tests/gtsim/hw_stops.h"
#include "tests/lib/tap.h"

struct runner {
    pthread_t tid;
    struct gtsim_hw *hw;
    struct gtsim_hw_launch launch;
    int rc;
};

static void *run_main(void *arg)
{
    struct runner *r = arg;
    r->rc = gtsim_hw_run(r->hw, &r->launch);
    return NULL;
}

struct fixture {
    enum gtsim_platform p;
    uint64_t entry; /* device address of vadd in the hw's heap */
    uint32_t size, simd;
    uint32_t offs[256]; /* instruction boundaries, relative to entry */
    uint32_t lens[256];
    unsigned n, first_send;
};

/* vadd's first load of its arguments' memory, per platform (iga64 -d
 * -Xprint-pc on .text.vadd of each fixture): gen12lp has no payload loads,
 * Xe-HPG three block reads and Xe-HPC four LSC loads of it first. */
static const uint32_t first_access[GTSIM_PLATFORM_COUNT] = {
    [GTSIM_GEN12LP] = 0x78,
    [GTSIM_XEHPG] = 0x170,
    [GTSIM_XEHPC] = 0x130,
};

static struct gtsim_hw *make_hw(enum gtsim_platform p, uint64_t pace)
{
    struct gtsim_hw_config c = {p, 1, 1, 2, 2, 4, pace, 2, false, false};
    char err[128];
    struct gtsim_hw *hw = gtsim_hw_create(&c, err, sizeof(err));
    if (!hw)
        tap_diag("gtsim_hw_create: %s", err);
    return hw;
}

static int load_vadd(struct gtsim_hw *hw, enum gtsim_platform p, struct fixture *fx)
{
    char path[1024], err[256];
    const char *top = getenv("top_srcdir");
    struct gtsim_zebin *zb;
    const struct gtsim_zebin_kernel *k;
    size_t size = 0;
    void *img;

    snprintf(path, sizeof(path), "%s/tests/kernels/fixtures/vadd-%s.elf", top ? top : ".",
             gtsim_platform_name(p));
    img = tests_slurp(path, &size);
    if (!img) {
        tap_diag("cannot read %s", path);
        return -1;
    }
    if (gtsim_zebin_parse(img, size, &zb, err, sizeof(err)) != 0) {
        tap_diag("%s: %s", path, err);
        free(img);
        return -1;
    }
    free(img);
    k = gtsim_zebin_find_kernel(zb, "vadd");
    if (!k || gtsim_hw_isa_alloc(hw, k->text_size, &fx->entry) != 0) {
        gtsim_zebin_free(zb);
        return -1;
    }
    memcpy((void *)(uintptr_t)fx->entry, k->text, k->text_size);
    fx->p = p;
    fx->size = (uint32_t)k->text_size;
    fx->simd = k->simd_size;
    fx->n = 0;
    fx->first_send = 0;
    for (uint32_t off = 0; off < fx->size && fx->n < 256;) {
        struct gtsim_insn in;
        if (gtsim_isa_decode(p, (uint8_t *)(uintptr_t)fx->entry + off, fx->size - off, &in))
            break;
        if (in.is_send && !in.is_eot && !fx->first_send)
            fx->first_send = fx->n;
        fx->offs[fx->n] = off;
        fx->lens[fx->n++] = in.length;
        if (in.is_eot)
            break;
        off += in.length;
    }
    gtsim_zebin_free(zb);
    return 0;
}

static void init_launch(struct gtsim_hw_launch *l, const struct fixture *fx, uint32_t groups,
                        uint32_t items)
{
    memset(l, 0, sizeof(*l));
    snprintf(l->kernel.name, sizeof(l->kernel.name), "vadd");
    l->kernel.entry = fx->entry;
    l->kernel.size = fx->size;
    l->kernel.simd = fx->simd;
    l->kernel.slm_size = 1024;
    l->group_count[0] = groups;
    l->group_count[1] = l->group_count[2] = 1;
    l->group_size[0] = items;
    l->group_size[1] = l->group_size[2] = 1;
    l->slice_first = 0;
    l->slice_count = 1;
}

static uint32_t cr0(struct gtsim_hw *hw, uint32_t t, uint32_t dw)
{
    return gtsim_regfile_get32(gtsim_hw_layout(hw), gtsim_hw_thread_regs(hw, t), GTSIM_REGSET_CR, 0,
                               dw);
}

static void set_cr0(struct gtsim_hw *hw, uint32_t t, uint32_t dw, uint32_t v)
{
    gtsim_regfile_set32(gtsim_hw_layout(hw), gtsim_hw_thread_regs(hw, t), GTSIM_REGSET_CR, 0, dw,
                        v);
}

static void test_plain_run(enum gtsim_platform p)
{
    struct gtsim_hw *hw = make_hw(p, 0);
    struct fixture fx;
    struct gtsim_hw_launch l;
    const char *name = gtsim_platform_name(p);
    if (!hw || load_vadd(hw, p, &fx)) {
        tap_ok(0, "%s: set up vadd", name);
        gtsim_hw_destroy(hw);
        return;
    }
    tap_ok(fx.n > 4 && fx.first_send > 0, "%s: vadd has %u instructions, first send #%u", name,
           fx.n, fx.first_send);
    /* 37 groups of 3 threads each on 16 hardware threads: dispatch must wait
     * for threads to free up. */
    init_launch(&l, &fx, 37, fx.simd * 3);
    tap_ok(gtsim_hw_run(hw, &l) == 0, "%s: launch completes", name);
    tap_ok(l.groups_dispatched == 37 && l.groups_done == 37 && l.live_threads == 0,
           "%s: every work-group dispatched and retired (%llu/%llu)", name,
           (unsigned long long)l.groups_done, (unsigned long long)l.groups_total);
    tap_ok(l.threads_per_group == 3, "%s: ceil(G/S) hardware threads per group", name);

    /* A partial group: 1.5 SIMD widths take two threads, the second half-masked. */
    init_launch(&l, &fx, 1, fx.simd + fx.simd / 2);
    tap_ok(gtsim_hw_run(hw, &l) == 0 && l.threads_per_group == 2, "%s: partial group", name);

    /* Register contents of a dispatched thread (kept after it ends). */
    {
        const struct gtsim_regfile_layout *lay = gtsim_hw_layout(hw);
        uint8_t *regs = gtsim_hw_thread_regs(hw, 0);
        uint64_t isabase = 0;
        uint8_t *r = gtsim_regfile_reg(lay, regs, GTSIM_REGSET_SBA, GTSIM_SBA_INSTRUCTION);
        memcpy(&isabase, r, 8);
        tap_ok(isabase == gtsim_hw_isa_base(hw), "%s: SBA isabase is the heap base", name);
        tap_ok(gtsim_regfile_get32(lay, regs, GTSIM_REGSET_CE, 0, 0) ==
                   (fx.simd >= 32 ? 0xffffffffu : (1u << fx.simd) - 1),
               "%s: ce is the SIMD%u mask", name, fx.simd);
    }
    gtsim_hw_destroy(hw);
}

static void test_fault_no_debugger(enum gtsim_platform p)
{
    struct gtsim_hw *hw = make_hw(p, 0);
    struct fixture fx;
    struct gtsim_hw_launch l;
    const char *name = gtsim_platform_name(p);
    if (!hw || load_vadd(hw, p, &fx)) {
        tap_ok(0, "%s: set up vadd", name);
        gtsim_hw_destroy(hw);
        return;
    }
    init_launch(&l, &fx, 4, fx.simd);
    l.has_bad_pointer = true;
    l.bad_pointer = 0xdead0000ull;
    tap_ok(gtsim_hw_run(hw, &l) == -EFAULT, "%s: fault without a debugger fails the launch", name);
    tap_ok(l.fault_address == 0xdead0000ull, "%s: fault address recorded (0x%llx)", name,
           (unsigned long long)l.fault_address);
    gtsim_hw_destroy(hw);
}

static void test_debug(enum gtsim_platform p)
{
    struct gtsim_hw *hw = make_hw(p, 0);
    struct stops st = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {{0}}, 0};
    struct runner r;
    struct fixture fx;
    struct gtsim_hw_stop s;
    const char *name = gtsim_platform_name(p);
    uint64_t ipbase;
    unsigned bpi;
    uint8_t *bp;

    if (!hw || load_vadd(hw, p, &fx)) {
        tap_ok(0, "%s: set up vadd", name);
        gtsim_hw_destroy(hw);
        return;
    }
    gtsim_hw_set_debugger(hw, on_stop, &st);
    ipbase = fx.entry - gtsim_hw_isa_base(hw);
    bpi = 2; /* an ALU instruction before the first send */
    bp = (uint8_t *)(uintptr_t)fx.entry + fx.offs[bpi];
    gtsim_isa_set_breakpoint(bp, true);

    r.hw = hw;
    init_launch(&r.launch, &fx, 1, fx.simd);
    pthread_create(&r.tid, NULL, run_main, &r);

    /* 1: the breakpoint bit stops the thread before the instruction. */
    if (tap_ok(wait_stop(&st, 1, &s) == 0, "%s: breakpoint stop reported", name)) {
        gtsim_hw_lock(hw);
        tap_ok(s.reason == GTSIM_STOP_BREAKPOINT, "%s: reason is breakpoint", name);
        tap_ok(cr0(hw, s.thread, 2) == ipbase + fx.offs[bpi],
               "%s: cr0.2 = 0x%x is the breakpoint's offset 0x%llx", name, cr0(hw, s.thread, 2),
               (unsigned long long)(ipbase + fx.offs[bpi]));
        tap_ok(cr0(hw, s.thread, 1) & GTSIM_CR0_1_BREAKPOINT, "%s: cr0.1 bit 31 set", name);
        /* 2: resuming without suppress hits the same breakpoint again. */
        set_cr0(hw, s.thread, 1, cr0(hw, s.thread, 1) & ~GTSIM_CR0_1_BREAKPOINT);
        tap_ok(gtsim_hw_resume_locked(hw, s.thread) == 0, "%s: resume", name);
        gtsim_hw_unlock(hw);
    }
    if (tap_ok(wait_stop(&st, 2, &s) == 0 && s.reason == GTSIM_STOP_BREAKPOINT,
               "%s: without suppress the same breakpoint stops again", name)) {
        gtsim_hw_lock(hw);
        tap_ok(cr0(hw, s.thread, 2) == ipbase + fx.offs[bpi], "%s: still at the breakpoint", name);
        /* 3: suppress + breakpoint status = step over the breakpoint. */
        set_cr0(hw, s.thread, 0, cr0(hw, s.thread, 0) | GTSIM_CR0_0_BP_SUPPRESS);
        gtsim_hw_resume_locked(hw, s.thread); /* bit 31 still set: single step */
        gtsim_hw_unlock(hw);
    }
    if (tap_ok(wait_stop(&st, 3, &s) == 0 && s.reason == GTSIM_STOP_STEP,
               "%s: single step reported", name)) {
        gtsim_hw_lock(hw);
        tap_ok(cr0(hw, s.thread, 2) == ipbase + fx.offs[bpi + 1],
               "%s: step ends at the next instruction", name);
        tap_ok(!(cr0(hw, s.thread, 0) & GTSIM_CR0_0_BP_SUPPRESS),
               "%s: suppress is consumed by the breakpoint", name);
        set_cr0(hw, s.thread, 1, cr0(hw, s.thread, 1) & ~GTSIM_CR0_1_BREAKPOINT);
        gtsim_hw_resume_locked(hw, s.thread);
        gtsim_hw_unlock(hw);
    }
    pthread_join(r.tid, NULL);
    tap_ok(r.rc == 0 && st.n == 3, "%s: thread runs to its end (%u stops)", name, st.n);
    gtsim_isa_set_breakpoint(bp, false);

    /* Page fault with a debugger: walking, the thread stops at its first
     * access of global memory, vadd's load of a[i]: after the payload
     * loads (their address in r127), where iga64 puts it on the fixture. */
    st.n = 0;
    init_launch(&r.launch, &fx, 1, fx.simd);
    r.launch.has_bad_pointer = true;
    r.launch.bad_pointer = 0xbad000ull;
    pthread_create(&r.tid, NULL, run_main, &r);
    if (tap_ok(wait_stop(&st, 1, &s) == 0 && s.reason == GTSIM_STOP_PAGE_FAULT,
               "%s: page fault stop reported", name)) {
        gtsim_hw_lock(hw);
        tap_ok(s.fault_address == 0xbad000ull, "%s: fault address", name);
        tap_ok(cr0(hw, s.thread, 1) & GTSIM_CR0_1_PAGE_FAULT, "%s: cr0.1 bit 16 set", name);
        tap_ok(cr0(hw, s.thread, 2) == ipbase + first_access[p],
               "%s: stopped at vadd's first load of a[i], +0x%x (cr0.2 0x%x, ipbase 0x%llx)", name,
               first_access[p], cr0(hw, s.thread, 2), (unsigned long long)ipbase);
        set_cr0(hw, s.thread, 1, 0);
        gtsim_hw_resume_locked(hw, s.thread);
        gtsim_hw_unlock(hw);
    }
    pthread_join(r.tid, NULL);
    tap_ok(r.rc == 0, "%s: faulted thread finishes after resume", name);
    gtsim_hw_destroy(hw);
}

static void test_interrupt(enum gtsim_platform p)
{
    /* 50 instructions per second: long enough to catch the thread running. */
    struct gtsim_hw *hw = make_hw(p, 50);
    struct stops st = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {{0}}, 0};
    struct runner r;
    struct fixture fx;
    struct gtsim_hw_stop s;
    const char *name = gtsim_platform_name(p);
    int rc = -1;

    if (!hw || load_vadd(hw, p, &fx)) {
        tap_ok(0, "%s: set up vadd", name);
        gtsim_hw_destroy(hw);
        return;
    }
    gtsim_hw_set_debugger(hw, on_stop, &st);
    r.hw = hw;
    init_launch(&r.launch, &fx, 1, fx.simd);
    pthread_create(&r.tid, NULL, run_main, &r);
    for (int i = 0; i < 200 && rc != 0; i++) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
        gtsim_hw_lock(hw);
        rc = gtsim_hw_interrupt_locked(hw, 0);
        gtsim_hw_unlock(hw);
    }
    tap_ok(rc == 0, "%s: a running thread can be interrupted", name);
    if (tap_ok(wait_stop(&st, 1, &s) == 0 && s.reason == GTSIM_STOP_INTERRUPT,
               "%s: interrupt stop reported", name)) {
        gtsim_hw_lock(hw);
        tap_ok(cr0(hw, s.thread, 1) & GTSIM_CR0_1_EXTERNAL_HALT, "%s: cr0.1 bit 30 set", name);
        tap_ok(gtsim_hw_thread_state(hw, s.thread) == GTSIM_T_STOPPED, "%s: thread stopped", name);
        tap_ok(gtsim_hw_interrupt_locked(hw, s.thread) == -EAGAIN,
               "%s: interrupting a stopped thread is refused", name);
        set_cr0(hw, s.thread, 1, 0);
        gtsim_hw_resume_locked(hw, s.thread);
        gtsim_hw_unlock(hw);
    }
    pthread_join(r.tid, NULL);
    tap_ok(r.rc == 0, "%s: interrupted thread finishes", name);
    gtsim_hw_destroy(hw);
}

int main(void)
{
    /* Per platform: 7 plain-run, 2 fault, 16 debug and 6 interrupt checks. */
    tap_plan(GTSIM_PLATFORM_COUNT * (7 + 2 + 16 + 6));
    for (int p = 0; p < GTSIM_PLATFORM_COUNT; p++) {
        test_plain_run((enum gtsim_platform)p);
        test_fault_no_debugger((enum gtsim_platform)p);
        test_debug((enum gtsim_platform)p);
        test_interrupt((enum gtsim_platform)p);
    }
    return tap_done();
}
