/* SPDX-License-Identifier: MIT */
/* gtsim's executor (GTSIM_CONFIG exec=1, xehpc) driven directly, without
 * the loader: the vadd fixture computes c = a + b from the payload a
 * runtime gives it; at a breakpoint its registers hold the real argument
 * and sums; a store outside every allocation faults at that send with the
 * faulting lane's address; an instruction gtsim does not model stops the
 * thread with the illegal-opcode exception (cr0.1 bit 28), or, with no
 * debugger, ends the launch with -EFAULT at its address; inline_calls
 * runs its loop (cmp, jmpi, sel as min), and a breakpoint in that loop is
 * hit on every iteration. Skips, saying
 * why, without libiga64. */
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
#include "tests/gtsim/hw_stops.h"
#include "tests/lib/tap.h"

#define PLAN 24
#define ITEMS 96 /* three SIMD32 threads per group */
#define GROUPS 3
#define N (ITEMS * GROUPS)

/* The device memory a kernel may touch: the three buffers. */
struct memory {
    int32_t a[N], b[N], c[N];
};

static bool mem_ok(void *ctx, uint64_t addr, uint64_t len)
{
    struct memory *m = ctx;
    uint64_t lo = (uint64_t)(uintptr_t)m, hi = lo + sizeof(*m);
    return addr >= lo && addr + len <= hi && addr + len >= addr;
}

struct runner {
    pthread_t tid;
    struct gtsim_hw *hw;
    struct gtsim_hw_launch *launch;
    int rc;
};

static void *run_main(void *arg)
{
    struct runner *r = arg;
    r->rc = gtsim_hw_run(r->hw, r->launch);
    return NULL;
}

static struct gtsim_hw *make_hw(void)
{
    struct gtsim_hw_config c = {GTSIM_XEHPC, 1, 1, 2, 4, 4, 0, 2, false, true};
    char err[128];
    struct gtsim_hw *hw = gtsim_hw_create(&c, err, sizeof(err));
    if (!hw)
        tap_diag("gtsim_hw_create: %s", err);
    return hw;
}

/* Copies a fixture kernel's code into the heap; returns its address or 0. */
static uint64_t load_kernel(struct gtsim_hw *hw, const char *name, uint32_t *size,
                            uint32_t *local_id_size)
{
    char path[1024], err[256];
    const char *top = getenv("top_srcdir");
    struct gtsim_zebin *zb = NULL;
    size_t n = 0;
    uint64_t entry = 0;
    snprintf(path, sizeof(path), "%s/tests/kernels/fixtures/%s-xehpc.elf", top ? top : ".", name);
    void *img = tests_slurp(path, &n);
    if (!img || gtsim_zebin_parse(img, n, &zb, err, sizeof(err)) != 0) {
        free(img);
        return 0;
    }
    free(img);
    const struct gtsim_zebin_kernel *k = gtsim_zebin_find_kernel(zb, name);
    if (k && gtsim_hw_isa_alloc(hw, k->text_size, &entry) == 0) {
        gtsim_hw_isa_write(hw, entry, k->text, k->text_size);
        *size = (uint32_t)k->text_size;
        *local_id_size = k->local_id_size;
    }
    gtsim_zebin_free(zb);
    return entry;
}

/* The payload of vadd-xehpc's .ze_info: local_size at 12, a, b, c at 32,
 * 40, 48, enqueued_local_size at 64. */
static void init_launch(struct gtsim_hw_launch *l, uint64_t entry, uint32_t size, uint32_t lid,
                        struct memory *m, int32_t *c)
{
    uint64_t pa = (uint64_t)(uintptr_t)m->a, pb = (uint64_t)(uintptr_t)m->b;
    uint64_t pc = (uint64_t)(uintptr_t)c;
    uint32_t ls[3] = {ITEMS, 1, 1};
    memset(l, 0, sizeof(*l));
    snprintf(l->kernel.name, sizeof(l->kernel.name), "vadd");
    l->kernel.entry = entry;
    l->kernel.size = size;
    l->kernel.simd = 32;
    l->kernel.slm_size = 0;
    l->group_count[0] = GROUPS;
    l->group_count[1] = l->group_count[2] = 1;
    l->group_size[0] = ITEMS;
    l->group_size[1] = l->group_size[2] = 1;
    l->slice_count = 1;
    memcpy(l->cross_thread + 12, ls, 12);
    memcpy(l->cross_thread + 32, &pa, 8);
    memcpy(l->cross_thread + 40, &pb, 8);
    memcpy(l->cross_thread + 48, &pc, 8);
    memcpy(l->cross_thread + 64, ls, 12);
    l->cross_thread_size = 76;
    l->local_id_size = lid;
    l->mem_ok = mem_ok;
    l->mem_ctx = m;
}

static void fill(struct memory *m)
{
    for (int i = 0; i < N; i++) {
        m->a[i] = i * 3 - 100;
        m->b[i] = 7 * i + 1;
        m->c[i] = -1;
    }
}

static int wrong(const struct memory *m)
{
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += m->c[i] != m->a[i] + m->b[i];
    return bad;
}

static uint32_t reg32(struct gtsim_hw *hw, uint32_t t, enum gtsim_regset_type set, uint32_t r,
                      uint32_t dw)
{
    return gtsim_regfile_get32(gtsim_hw_layout(hw), gtsim_hw_thread_regs(hw, t), set, r, dw);
}

static void set_reg32(struct gtsim_hw *hw, uint32_t t, enum gtsim_regset_type set, uint32_t r,
                      uint32_t dw, uint32_t v)
{
    gtsim_regfile_set32(gtsim_hw_layout(hw), gtsim_hw_thread_regs(hw, t), set, r, dw, v);
}

/* slm.cl: each item writes tile[lid % 64] and scratch[lid] (the local
 * pointer argument, after the static 256 bytes), waits at the barrier, then
 * reads what two other items of its group (other threads among them)
 * wrote. Payload of slm-xehpc's .ze_info: local_size at 12 and 64,
 * scratch at 32 (its SLM offset), in at 40, out at 48, enqueued_local_size
 * at 76. */
static void check_slm(struct gtsim_hw *hw)
{
    enum { LSZ = 64, NG = 3 };
    static struct memory m; /* in = a, out = c */
    static struct gtsim_hw_launch l;
    uint32_t size = 0, lid = 0;
    uint64_t entry = load_kernel(hw, "slm", &size, &lid);
    uint64_t pin = (uint64_t)(uintptr_t)m.a, pout = (uint64_t)(uintptr_t)m.c, scratch = 256;
    uint32_t ls[3] = {LSZ, 1, 1};

    fill(&m);
    memset(&l, 0, sizeof(l));
    snprintf(l.kernel.name, sizeof(l.kernel.name), "slm");
    l.kernel.entry = entry;
    l.kernel.size = size;
    l.kernel.simd = 32;
    l.kernel.slm_size = 256 + LSZ * 4;
    l.group_count[0] = NG;
    l.group_count[1] = l.group_count[2] = 1;
    l.group_size[0] = LSZ;
    l.group_size[1] = l.group_size[2] = 1;
    l.slice_count = 1;
    memcpy(l.cross_thread + 12, ls, 12);
    memcpy(l.cross_thread + 32, &scratch, 8);
    memcpy(l.cross_thread + 40, &pin, 8);
    memcpy(l.cross_thread + 48, &pout, 8);
    memcpy(l.cross_thread + 64, ls, 12);
    memcpy(l.cross_thread + 76, ls, 12);
    l.cross_thread_size = 88;
    l.local_id_size = lid;
    l.mem_ok = mem_ok;
    l.mem_ctx = &m;
    int rc = entry ? gtsim_hw_run(hw, &l) : -1;
    tap_ok(rc == 0, "slm: %d work-groups of %d (two threads each) complete", NG, LSZ);
    int bad = 0;
    for (int g = 0; g < NG; g++)
        for (int i = 0; i < LSZ; i++)
            bad += m.c[g * LSZ + i] != m.a[g * LSZ + (i + 1) % 64] + 2 * m.a[g * LSZ + LSZ - 1 - i];
    tap_ok(rc == 0 && bad == 0,
           "slm: every item read what others of its group wrote to SLM before the barrier "
           "(%d wrong)",
           bad);
}

/* oob.cl in bounds: p[offset + gid] = value for 2 groups of 32, with a
 * 64-bit offset and a by-value int. Payload of oob-xehpc's .ze_info: p at
 * 32, offset at 40, value at 48, local_size 12, enqueued_local_size 52. */
static void check_oob(struct gtsim_hw *hw)
{
    static struct memory m;
    static struct gtsim_hw_launch l;
    uint32_t size = 0, lid = 0, ls[3] = {32, 1, 1};
    uint64_t entry = load_kernel(hw, "oob", &size, &lid);
    uint64_t p = (uint64_t)(uintptr_t)m.c;
    int64_t offset = 17;
    int32_t value = -123456;

    fill(&m);
    memset(&l, 0, sizeof(l));
    snprintf(l.kernel.name, sizeof(l.kernel.name), "oob");
    l.kernel.entry = entry;
    l.kernel.size = size;
    l.kernel.simd = 32;
    l.group_count[0] = 2;
    l.group_count[1] = l.group_count[2] = 1;
    l.group_size[0] = 32;
    l.group_size[1] = l.group_size[2] = 1;
    l.slice_count = 1;
    memcpy(l.cross_thread + 12, ls, 12);
    memcpy(l.cross_thread + 32, &p, 8);
    memcpy(l.cross_thread + 40, &offset, 8);
    memcpy(l.cross_thread + 48, &value, 4);
    memcpy(l.cross_thread + 52, ls, 12);
    l.cross_thread_size = 64;
    l.local_id_size = lid;
    l.mem_ok = mem_ok;
    l.mem_ctx = &m;
    int rc = entry ? gtsim_hw_run(hw, &l) : -1;
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += m.c[i] != (i >= 17 && i < 17 + 64 ? value : -1);
    tap_ok(rc == 0 && bad == 0,
           "oob in bounds: p[17 + gid] = value for 64 items, nothing else (%d wrong)", bad);
}

/* inline_calls.cl: out[i] = sum over k < n of clampv(in[i+k]^2 + k, -1000,
 * 1000), a loop whose trip count is an argument (cmp, jmpi back), and a
 * clamp IGC made an unsigned min (sel (lt)). Payload of
 * inline_calls-xehpc's .ze_info: in at 32, out at 40, n at 48, local_size
 * 12, enqueued_local_size 52. Two groups of 32; n = 0 skips the loop. */
static int run_inline_calls(struct gtsim_hw *hw, struct memory *m, int32_t n, uint32_t groups,
                            const uint32_t code[3])
{
    static struct gtsim_hw_launch l;
    uint32_t size = code[1], lid = code[2], ls[3] = {32, 1, 1};
    uint64_t entry = (uint64_t)code[0] + gtsim_hw_isa_base(hw);
    uint64_t in = (uint64_t)(uintptr_t)m->a, out = (uint64_t)(uintptr_t)m->c;
    memset(&l, 0, sizeof(l));
    snprintf(l.kernel.name, sizeof(l.kernel.name), "inline_calls");
    l.kernel.entry = entry;
    l.kernel.size = size;
    l.kernel.simd = 32;
    l.group_count[0] = groups;
    l.group_count[1] = l.group_count[2] = 1;
    l.group_size[0] = 32;
    l.group_size[1] = l.group_size[2] = 1;
    l.slice_count = 1;
    memcpy(l.cross_thread + 12, ls, 12);
    memcpy(l.cross_thread + 32, &in, 8);
    memcpy(l.cross_thread + 40, &out, 8);
    memcpy(l.cross_thread + 48, &n, 4);
    memcpy(l.cross_thread + 52, ls, 12);
    l.cross_thread_size = 64;
    l.local_id_size = lid;
    l.mem_ok = mem_ok;
    l.mem_ctx = m;
    return entry ? gtsim_hw_run(hw, &l) : -1;
}

static void check_inline_calls(struct gtsim_hw *hw)
{
    static struct memory m;
    int bad = 0, big = 0;
    uint32_t code[3] = {0, 0, 0}; /* offset in the heap, size, local id size */
    uint64_t entry = load_kernel(hw, "inline_calls", &code[1], &code[2]);
    code[0] = (uint32_t)(entry - gtsim_hw_isa_base(hw));
    fill(&m); /* in[j] = 3j - 100: squares from 1 to ~33,000 */
    int rc = entry ? run_inline_calls(hw, &m, 5, 2, code) : -1;
    for (int i = 0; i < 64; i++) {
        int32_t acc = 0;
        for (int k = 0; k < 5; k++) {
            int32_t s = m.a[i + k] * m.a[i + k] + k;
            acc += s < -1000 ? -1000 : s > 1000 ? 1000 : s;
            big += s > 1000;
        }
        bad += m.c[i] != acc;
    }
    bad += m.c[64] != -1;
    tap_ok(rc == 0 && bad == 0 && big > 0,
           "inline_calls, n = 5: the loop runs 5 times per item, clamped sums right "
           "(%d wrong, %d terms clamped)",
           bad, big);
    fill(&m);
    rc = entry ? run_inline_calls(hw, &m, 0, 2, code) : -1;
    bad = 0;
    for (int i = 0; i < 64; i++)
        bad += m.c[i] != 0;
    tap_ok(rc == 0 && bad == 0, "inline_calls, n = 0: the jmpi skips the loop, out = 0 (%d wrong)",
           bad);
}

struct loop_run {
    pthread_t tid;
    struct gtsim_hw *hw;
    struct memory *m;
    uint32_t code[3];
    int rc;
};

static void *loop_main(void *arg)
{
    struct loop_run *r = arg;
    r->rc = run_inline_calls(r->hw, r->m, 3, 1, r->code);
    return NULL;
}

/* A breakpoint inside inline_calls' loop (its head, the add3 at 0x130) is
 * hit once per iteration, with the loop counter (r2.1) at that iteration;
 * each resume sets cr0.0's suppress bit, as a debugger does, so the
 * instruction runs once before the breakpoint can stop it again. One
 * work-group of 32: one thread, n = 3. */
static void check_loop_breakpoint(struct gtsim_hw *hw)
{
    static struct memory m;
    struct stops st = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {{0}}, 0};
    struct gtsim_hw_stop s;
    unsigned hits = 0, wrong_k = 0;
    struct loop_run r = {0, hw, &m, {0, 0, 0}, -1};
    uint64_t entry = load_kernel(hw, "inline_calls", &r.code[1], &r.code[2]);
    uint32_t head = (uint32_t)(entry + 0x130 - gtsim_hw_isa_base(hw));

    r.code[0] = (uint32_t)(entry - gtsim_hw_isa_base(hw));
    fill(&m);
    gtsim_isa_set_breakpoint((uint8_t *)(uintptr_t)(entry + 0x130), true);
    gtsim_hw_set_debugger(hw, on_stop, &st);
    if (entry)
        pthread_create(&r.tid, NULL, loop_main, &r);
    /* The third stop is the last: the launch then ends, no 10 s wait. */
    while (hits < 3 && wait_stop(&st, hits + 1, &s) == 0) {
        gtsim_hw_lock(hw);
        uint32_t ip = reg32(hw, s.thread, GTSIM_REGSET_CR, 0, 2);
        wrong_k += s.reason != GTSIM_STOP_BREAKPOINT || ip != head ||
                   reg32(hw, s.thread, GTSIM_REGSET_GRF, 2, 1) != hits;
        set_reg32(hw, s.thread, GTSIM_REGSET_CR, 0, 1,
                  reg32(hw, s.thread, GTSIM_REGSET_CR, 0, 1) & ~GTSIM_CR0_1_BREAKPOINT);
        set_reg32(hw, s.thread, GTSIM_REGSET_CR, 0, 0,
                  reg32(hw, s.thread, GTSIM_REGSET_CR, 0, 0) | GTSIM_CR0_0_BP_SUPPRESS);
        gtsim_hw_resume_locked(hw, s.thread);
        gtsim_hw_unlock(hw);
        hits++;
    }
    if (entry)
        pthread_join(r.tid, NULL);
    gtsim_hw_set_debugger(hw, NULL, NULL);
    tap_ok(hits == 3 && st.n == 3 && wrong_k == 0,
           "a breakpoint in inline_calls' loop (n = 3) stops its thread at each iteration with "
           "the counter at 0, 1, 2 (%u stops, %u wrong)",
           st.n, wrong_k);
    tap_ok(r.rc == 0 && m.c[0] != -1, "resumed each time, the launch completes");
}

int main(void)
{
    const char *why = NULL;
    static struct memory m;
    static struct gtsim_hw_launch l;
    struct stops st = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {{0}}, 0};
    struct gtsim_hw_stop s;
    uint32_t size = 0, lid = 0;

    tap_plan(PLAN);
    if (!gtsim_iga_available(&why)) {
        for (int i = 0; i < PLAN; i++)
            tap_skip(why);
        return tap_done();
    }
    struct gtsim_hw *hw = make_hw();
    uint64_t entry = hw ? load_kernel(hw, "vadd", &size, &lid) : 0;
    if (!tap_ok(entry && gtsim_hw_executes(hw), "xehpc hardware with exec=1 executes"))
        return tap_done();
    tap_ok(lid == 192, "vadd's per-thread local ids: 192 bytes per SIMD32 thread (.ze_info)");
    uint32_t isabase_off = (uint32_t)(entry - gtsim_hw_isa_base(hw));

    /* 1. Without a debugger: the sums. */
    fill(&m);
    init_launch(&l, entry, size, lid, &m, m.c);
    int rc = gtsim_hw_run(hw, &l);
    tap_ok(rc == 0 && wrong(&m) == 0, "vadd: %d work-groups of %d compute c = a + b (%d wrong)",
           GROUPS, ITEMS, wrong(&m));

    /* 2. A breakpoint on the store: registers hold what the program made. */
    fill(&m);
    init_launch(&l, entry, size, lid, &m, m.c);
    uint8_t *store = (uint8_t *)(uintptr_t)(entry + 0x170);
    gtsim_isa_set_breakpoint(store, true);
    gtsim_hw_set_debugger(hw, on_stop, &st);
    struct runner r = {0, hw, &l, -1};
    pthread_create(&r.tid, NULL, run_main, &r);
    int got = wait_stop(&st, 1, &s);
    tap_ok(got == 0 && s.reason == GTSIM_STOP_BREAKPOINT, "a breakpoint on vadd's store stops");
    gtsim_hw_lock(hw);
    uint32_t t = s.thread;
    uint32_t ip = reg32(hw, t, GTSIM_REGSET_CR, 0, 2);
    uint32_t group = reg32(hw, t, GTSIM_REGSET_GRF, 0, 1);
    uint32_t local = reg32(hw, t, GTSIM_REGSET_GRF, 0, 2);
    uint64_t arg_a =
        (uint64_t)reg32(hw, t, GTSIM_REGSET_GRF, 4, 9) << 32 | reg32(hw, t, GTSIM_REGSET_GRF, 4, 8);
    tap_ok(ip == isabase_off + 0x170, "it stopped at the store (IP 0x%x)", ip - isabase_off);
    tap_ok(arg_a == (uint64_t)(uintptr_t)m.a, "r4.4:q holds the argument a (0x%llx)",
           (unsigned long long)arg_a);
    int badsum = 0;
    for (uint32_t lane = 0; lane < 32; lane++) {
        uint32_t i = group * ITEMS + local * 32 + lane;
        badsum +=
            (int32_t)reg32(hw, t, GTSIM_REGSET_GRF, 20 + lane / 16, lane % 16) != m.a[i] + m.b[i];
    }
    tap_ok(badsum == 0, "r20-r21 hold the 32 lanes' sums of thread %u.%u (%d wrong)", group, local,
           badsum);
    gtsim_isa_set_breakpoint(store, false);
    for (uint32_t i = 0; i < gtsim_hw_thread_count(hw); i++) {
        if (gtsim_hw_thread_state(hw, i) != GTSIM_T_STOPPED)
            continue;
        set_reg32(hw, i, GTSIM_REGSET_CR, 0, 1,
                  reg32(hw, i, GTSIM_REGSET_CR, 0, 1) & ~GTSIM_CR0_1_BREAKPOINT);
        gtsim_hw_resume_locked(hw, i);
    }
    gtsim_hw_unlock(hw);
    /* Threads that reached the store after the bit was cleared never stopped. */
    pthread_join(r.tid, NULL);
    tap_ok(r.rc == 0 && wrong(&m) == 0, "resumed, the launch completes with c = a + b (%d wrong)",
           wrong(&m));

    /* 3. A store outside every allocation faults at that send. */
    static int32_t elsewhere[N];
    fill(&m);
    st.n = 0;
    init_launch(&l, entry, size, lid, &m, elsewhere);
    l.group_count[0] = 1;
    l.group_size[0] = 32;
    r = (struct runner){0, hw, &l, -1};
    pthread_create(&r.tid, NULL, run_main, &r);
    got = wait_stop(&st, 1, &s);
    tap_ok(got == 0 && s.reason == GTSIM_STOP_PAGE_FAULT, "the store to a foreign address faults");
    tap_ok(s.fault_address == (uint64_t)(uintptr_t)elsewhere,
           "the fault names lane 0's address (0x%llx)", (unsigned long long)s.fault_address);
    gtsim_hw_lock(hw);
    ip = reg32(hw, s.thread, GTSIM_REGSET_CR, 0, 2);
    tap_ok(ip == isabase_off + 0x170 &&
               (reg32(hw, s.thread, GTSIM_REGSET_CR, 0, 1) & GTSIM_CR0_1_PAGE_FAULT),
           "IP at the store (0x%x), cr0.1 bit 16 set", ip - isabase_off);
    tap_ok(elsewhere[0] == 0, "nothing was written there");
    gtsim_hw_resume_locked(hw, s.thread);
    gtsim_hw_unlock(hw);
    pthread_join(r.tid, NULL);
    tap_ok(r.rc == 0 && st.n == 1 && elsewhere[0] == 0,
           "resumed, the thread ends without the store and without a second fault");

    /* 4. An instruction gtsim does not model: the add at 0x30 made an avg. */
    uint8_t saved = ((uint8_t *)(uintptr_t)entry)[0x30];
    uint8_t avg = (uint8_t)((saved & 0x80) | 0x42);
    gtsim_hw_isa_write(hw, entry + 0x30, &avg, 1);
    st.n = 0;
    fill(&m);
    init_launch(&l, entry, size, lid, &m, m.c);
    l.group_count[0] = 1;
    l.group_size[0] = 32;
    r = (struct runner){0, hw, &l, -1};
    pthread_create(&r.tid, NULL, run_main, &r);
    got = wait_stop(&st, 1, &s);
    tap_ok(got == 0 && s.reason == GTSIM_STOP_ILLEGAL, "an avg (not modelled) stops the thread");
    gtsim_hw_lock(hw);
    ip = reg32(hw, s.thread, GTSIM_REGSET_CR, 0, 2);
    tap_ok(ip == isabase_off + 0x30 &&
               (reg32(hw, s.thread, GTSIM_REGSET_CR, 0, 1) & GTSIM_CR0_1_ILLEGAL_OPCODE),
           "IP at the avg (0x%x), cr0.1 bit 28 (illegal opcode) set", ip - isabase_off);
    gtsim_hw_unlock(hw);
    gtsim_hw_set_debugger(hw, NULL, NULL); /* the stopped thread: detach resumes nothing here */
    gtsim_hw_lock(hw);
    gtsim_hw_resume_locked(hw, s.thread); /* no debugger now: it ends the launch */
    gtsim_hw_unlock(hw);
    pthread_join(r.tid, NULL);
    tap_ok(r.rc == -EFAULT && l.fault_illegal && l.fault_address == entry + 0x30,
           "without a debugger the launch fails (-EFAULT) at the avg's address");
    tap_ok(m.c[0] == -1, "and computed nothing");

    check_slm(hw);
    check_oob(hw);
    check_inline_calls(hw);
    check_loop_breakpoint(hw);
    gtsim_hw_destroy(hw);
    return tap_done();
}
