/* SPDX-License-Identifier: MIT */
/* gtsim's work-group barrier (gtsim/README.md, "Hangs"), driven directly
 * on the slm fixture, whose barrier() is a gateway send followed by a
 * sync: without barrier_skip every group meets there and the launch
 * completes; with it the last thread of each group never signals, the
 * others wait at the sync (running, PC constant, interruptible, registers
 * readable once stopped, back to waiting when resumed) and the launch does
 * not complete. Then the same hang by execution alone (exec=1, xehpc, no
 * knob): barrier_skip.cl's last sub-group branches around barrier() and
 * ends, and the others wait at the sync the kernel itself reached. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gtsim/hw.h"
#include "gtsim/iga.h"
#include "gtsim/isa.h"
#include "gtsim/regfile.h"
#include "gtsim/zebin.h"
#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

#define GROUPS 2
#define THREADS_PER_GROUP 4

struct runner {
    pthread_t tid;
    struct gtsim_hw *hw;
    struct gtsim_hw_launch launch;
    int rc;
    volatile int done;
};

static void *run_main(void *arg)
{
    struct runner *r = arg;
    r->rc = gtsim_hw_run(r->hw, &r->launch);
    r->done = 1;
    return NULL;
}

static void on_stop(void *ctx, const struct gtsim_hw_stop *s)
{
    (void)ctx;
    (void)s;
}

/* Loads the fixture kernel `name` (slm or barrier_skip) into hw; fills the
 * launch and the offset (from the kernel's entry) of the sync that follows
 * the barrier's gateway send. */
static int load_waiting(struct gtsim_hw *hw, enum gtsim_platform p, const char *name,
                        struct gtsim_hw_launch *l, uint32_t *wait_off)
{
    char path[1024], err[256];
    const char *top = getenv("top_srcdir");
    struct gtsim_zebin *zb;
    const struct gtsim_zebin_kernel *k;
    size_t size = 0;
    bool signalled = false;
    void *img;
    snprintf(path, sizeof(path), "%s/tests/kernels/fixtures/%s-%s.elf", top ? top : ".", name,
             gtsim_platform_name(p));
    if (!(img = tests_slurp(path, &size)) || gtsim_zebin_parse(img, size, &zb, err, sizeof(err))) {
        tap_diag("cannot load %s", path);
        free(img);
        return -1;
    }
    free(img);
    memset(l, 0, sizeof(*l));
    k = gtsim_zebin_find_kernel(zb, name);
    if (!k || gtsim_hw_isa_alloc(hw, k->text_size, &l->kernel.entry) != 0) {
        gtsim_zebin_free(zb);
        return -1;
    }
    memcpy((void *)(uintptr_t)l->kernel.entry, k->text, k->text_size);
    snprintf(l->kernel.name, sizeof(l->kernel.name), "%s", name);
    l->kernel.size = (uint32_t)k->text_size;
    l->local_id_size = k->local_id_size;
    l->kernel.simd = k->simd_size;
    l->kernel.slm_size = 1024;
    gtsim_zebin_free(zb);
    *wait_off = UINT32_MAX;
    for (uint32_t off = 0; off < l->kernel.size && *wait_off == UINT32_MAX;) {
        struct gtsim_insn in;
        if (gtsim_isa_decode(p, (uint8_t *)(uintptr_t)l->kernel.entry + off, l->kernel.size - off,
                             &in))
            break;
        if (in.is_gateway && !in.is_eot)
            signalled = true;
        else if (signalled && in.opcode == GTSIM_OP_SYNC)
            *wait_off = off;
        off += in.length;
    }
    l->group_count[0] = GROUPS;
    l->group_count[1] = l->group_count[2] = 1;
    l->group_size[0] = THREADS_PER_GROUP * l->kernel.simd;
    l->group_size[1] = l->group_size[2] = 1;
    l->slice_count = 1;
    return *wait_off == UINT32_MAX ? -1 : 0;
}

static struct gtsim_hw *make_hw(enum gtsim_platform p, bool skip, bool exec)
{
    struct gtsim_hw_config c = {p, 1, 1, 2, 2, 4, 0, 2, skip, exec};
    char err[128];
    struct gtsim_hw *hw = gtsim_hw_create(&c, err, sizeof(err));
    if (!hw)
        tap_diag("gtsim_hw_create: %s", err);
    return hw;
}

static uint32_t ip_of(struct gtsim_hw *hw, uint32_t t)
{
    return gtsim_regfile_get32(gtsim_hw_layout(hw), gtsim_hw_thread_regs(hw, t), GTSIM_REGSET_CR, 0,
                               2);
}

/* Threads running with their IP at `ip`, and threads idle. */
static void census(struct gtsim_hw *hw, uint32_t ip, unsigned *waiting, unsigned *idle,
                   uint32_t *first)
{
    *waiting = *idle = 0;
    *first = UINT32_MAX;
    for (uint32_t t = 0; t < gtsim_hw_thread_count(hw); t++) {
        enum gtsim_thread_state st = gtsim_hw_thread_state(hw, t);
        *idle += st == GTSIM_T_IDLE;
        if (st == GTSIM_T_RUNNING && ip_of(hw, t) == ip) {
            if (*first == UINT32_MAX)
                *first = t;
            (*waiting)++;
        }
    }
}

static void test_completes(enum gtsim_platform p)
{
    const char *name = gtsim_platform_name(p);
    struct gtsim_hw *hw = make_hw(p, false, false);
    struct runner r = {.hw = hw};
    uint32_t off;
    if (!hw || load_waiting(hw, p, "slm", &r.launch, &off)) {
        tap_ok(0, "%s: slm without barrier_skip completes", name);
        gtsim_hw_destroy(hw);
        return;
    }
    r.rc = gtsim_hw_run(hw, &r.launch);
    tap_ok(r.rc == 0 && r.launch.groups_done == GROUPS, "%s: slm without barrier_skip completes",
           name);
    gtsim_hw_destroy(hw);
}

/* Polls (at most 10 s) until every thread that can arrive waits. */
static bool wait_for_waiters(struct gtsim_hw *hw, uint32_t ip, unsigned want, uint32_t *first)
{
    unsigned waiting = 0, idle = 0;
    for (int i = 0; i < 1000 && waiting < want; i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        gtsim_hw_lock(hw);
        census(hw, ip, &waiting, &idle, first);
        gtsim_hw_unlock(hw);
    }
    return waiting == want;
}

/* A stopped waiter: interrupted with its registers readable, back to
 * waiting at the same IP once resumed. */
static void check_interrupt(struct gtsim_hw *hw, const char *name, uint32_t t, uint32_t ip)
{
    gtsim_hw_lock(hw);
    tap_ok(gtsim_hw_interrupt_locked(hw, t) == 0 && gtsim_hw_thread_state(hw, t) == GTSIM_T_STOPPED,
           "%s: a waiting thread can be interrupted", name);
    tap_ok(gtsim_hw_thread_regs(hw, t) && ip_of(hw, t) == ip,
           "%s: its registers say it stopped at the barrier's sync", name);
    tap_ok(gtsim_hw_resume_locked(hw, t) == 0, "%s: it can be resumed", name);
    gtsim_hw_unlock(hw);
}

static void test_hang(enum gtsim_platform p)
{
    const char *name = gtsim_platform_name(p);
    struct gtsim_hw *hw = make_hw(p, true, false);
    struct runner *r = calloc(1, sizeof(*r));
    unsigned waiting, idle;
    uint32_t off, ip, first;
    if (!hw || !r || load_waiting(hw, p, "slm", &r->launch, &off)) {
        for (int i = 0; i < 7; i++)
            tap_ok(0, "%s: set up slm", name);
        return;
    }
    gtsim_hw_set_debugger(hw, on_stop, NULL);
    r->hw = hw;
    ip = (uint32_t)(r->launch.kernel.entry - gtsim_hw_isa_base(hw)) + off;
    pthread_create(&r->tid, NULL, run_main, r);
    tap_ok(wait_for_waiters(hw, ip, GROUPS * (THREADS_PER_GROUP - 1), &first),
           "%s: all but the last thread of each group wait at the sync (offset 0x%x)", name, off);
    gtsim_hw_lock(hw);
    census(hw, ip, &waiting, &idle, &first);
    gtsim_hw_unlock(hw);
    tap_ok(idle == gtsim_hw_thread_count(hw) - GROUPS * (THREADS_PER_GROUP - 1),
           "%s: the stragglers ended, nothing else runs", name);
    check_interrupt(hw, name, first, ip);
    tap_ok(wait_for_waiters(hw, ip, GROUPS * (THREADS_PER_GROUP - 1), &first),
           "%s: the resumed thread waits at the sync again", name);
    tap_ok(!r->done, "%s: the launch has not completed", name);
    /* The launch never returns: its thread and hw are left to the exit. */
    pthread_detach(r->tid);
}

/* The device memory the executed kernel may write: its out buffer. */
static int32_t exec_out[GROUPS * THREADS_PER_GROUP * 32];

static bool exec_mem_ok(void *ctx, uint64_t addr, uint64_t len)
{
    (void)ctx;
    uint64_t lo = (uint64_t)(uintptr_t)exec_out, hi = lo + sizeof(exec_out);
    return addr >= lo && addr + len <= hi && addr + len >= addr;
}

#define EXEC_CHECKS 7

/* barrier_skip.cl executed: no knob; the kernel's own branch (the last
 * sub-group of each group skips barrier()) makes the hang. Payload of
 * barrier_skip-xehpc's .ze_info: out at 32, local_size at 12 and 48,
 * enqueued_local_size at 64. */
static void test_hang_executed(void)
{
    const char *why = NULL, *name = "exec=1 barrier_skip";
    if (!gtsim_iga_available(&why)) {
        for (int i = 0; i < EXEC_CHECKS; i++)
            tap_skip(why);
        return;
    }
    struct gtsim_hw *hw = make_hw(GTSIM_XEHPC, false, true);
    struct runner *r = calloc(1, sizeof(*r));
    unsigned waiting, idle;
    uint32_t off, ip, first;
    if (!hw || !r || load_waiting(hw, GTSIM_XEHPC, "barrier_skip", &r->launch, &off) ||
        !gtsim_hw_executes(hw) || r->launch.kernel.simd != 32) {
        for (int i = 0; i < EXEC_CHECKS; i++)
            tap_ok(0, "%s: set up (an executing xehpc device, the SIMD32 fixture)", name);
        return;
    }
    uint32_t ls[3] = {THREADS_PER_GROUP * 32, 1, 1};
    uint64_t out = (uint64_t)(uintptr_t)exec_out;
    struct gtsim_hw_launch *l = &r->launch;
    memset(exec_out, 0xff, sizeof(exec_out));
    memcpy(l->cross_thread + 12, ls, 12);
    memcpy(l->cross_thread + 32, &out, 8);
    memcpy(l->cross_thread + 48, ls, 12);
    memcpy(l->cross_thread + 64, ls, 12);
    l->cross_thread_size = 76;
    l->mem_ok = exec_mem_ok;
    gtsim_hw_set_debugger(hw, on_stop, NULL);
    r->hw = hw;
    ip = (uint32_t)(l->kernel.entry - gtsim_hw_isa_base(hw)) + off;
    pthread_create(&r->tid, NULL, run_main, r);
    tap_ok(wait_for_waiters(hw, ip, GROUPS * (THREADS_PER_GROUP - 1), &first),
           "%s: the first three sub-groups of each group wait at the sync (offset 0x%x)", name,
           off);
    gtsim_hw_lock(hw);
    census(hw, ip, &waiting, &idle, &first);
    gtsim_hw_unlock(hw);
    tap_ok(idle == gtsim_hw_thread_count(hw) - GROUPS * (THREADS_PER_GROUP - 1),
           "%s: the sub-groups that skipped the barrier ended, nothing else runs", name);
    unsigned skipped_wrote = 0, waiters_wrote = 0;
    for (unsigned g = 0; g < GROUPS; g++)
        for (unsigned i = 0; i < THREADS_PER_GROUP * 32; i++) {
            bool written = exec_out[g * THREADS_PER_GROUP * 32 + i] != -1;
            if (i >= (THREADS_PER_GROUP - 1) * 32)
                skipped_wrote += written;
            else
                waiters_wrote += written;
        }
    tap_ok(skipped_wrote == GROUPS * 32 && waiters_wrote == 0,
           "%s: only the skipping sub-groups got past the barrier and stored (%u of %u, %u "
           "others)",
           name, skipped_wrote, GROUPS * 32, waiters_wrote);
    check_interrupt(hw, name, first, ip);
    /* check_interrupt makes 3 checks: with the three above and this one,
     * EXEC_CHECKS. */
    tap_ok(!r->done && wait_for_waiters(hw, ip, GROUPS * (THREADS_PER_GROUP - 1), &first),
           "%s: the resumed thread waits again; the launch has not completed", name);
    pthread_detach(r->tid);
}

int main(void)
{
    tap_plan(GTSIM_PLATFORM_COUNT * (1 + 7) + EXEC_CHECKS);
    for (int p = 0; p < GTSIM_PLATFORM_COUNT; p++) {
        test_completes((enum gtsim_platform)p);
        test_hang((enum gtsim_platform)p);
    }
    test_hang_executed();
    return tap_done();
}
