/* SPDX-License-Identifier: MIT */
/* The mock device model. Host pids steer attach: 1 is "too early" on every
 * device, 2 "not permitted", 3 "too early" without the phrase (the server
 * must add it); anything else attaches both devices and stops them.
 *
 * monitor mock next KIND [P [T]]  what the next continue produces:
 *     none (run until ^C), swbreak P T, segv P T, unavail P T, library P
 *     (device P loads a module at 0x20000-0x21000 that waits for an ack),
 *     exit P (W1), kill P (X0b)
 * monitor mock acks               how many module loads were acknowledged
 * monitor mock lastresume         the actions of the last resume
 * monitor mock lastmem            the context of the last memory access
 * monitor mock tdesc P T ID       give a thread another target description
 * monitor mock state P T S        0 running, 1 stopped, 2 unavailable */
#include "tests/gdbstub/mock_target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdbstub/packet.h"
#include "regsets/regs.h"

#define NDEV 2
#define MAXT 8
#define MEM_BASE 0x10000u
#define MEM_SIZE 0x10000u
#define SLM_SIZE 0x1000u
#define NTDESC 3
#define REGBUF 20000 /* > the largest register file (17348 bytes) */

struct mthread {
    enum rsp_thread_state state;
    uint32_t tdesc;
    /* The tdesc the registers hold fill_regs's values for; 0 once a
     * register was written. An attach fills only what differs, so that
     * fuzz_rsp's thousands of attaches a second do not rewrite 376 KB each. */
    uint32_t filled_for;
    uint8_t regs[REGBUF];
};

struct mdev {
    bool attached;
    uint32_t nthreads;
    uint32_t dims[4]; /* slices, subslices, eus, threads */
    struct mthread t[MAXT];
    bool mem_filled; /* mem and slm hold the attach's values (none written since) */
    uint8_t mem[MEM_SIZE], slm[SLM_SIZE];
};

struct mock_target {
    struct mdev dev[NDEV];
    struct regs_catalog *cat[NTDESC + 1]; /* by tdesc id */
    /* each register's offset in a thread's image, by tdesc and register
     * number, and cr0 and isabase: found once, not at every access and
     * attach (fuzz_rsp attaches thousands of times a second) */
    size_t *reg_off[NTDESC + 1];
    const struct regs_reg *cr0[NTDESC + 1], *isabase[NTDESC + 1];
    uint32_t tdesc_pid[NTDESC + 1];
    int pipe[2];
    struct rsp_event queue[16];
    size_t nq;
    bool running;
    char next[16];
    uint32_t next_pid, next_tid;
    char lastresume[256], lastmem[128];
    /* one module per device at most; "library P" loads it */
    bool lib_loaded[NDEV], lib_waits[NDEV];
    unsigned acks;
};

/* Register sets as a driver would list them. */
static const struct zd_regset small_sets[] = {
    {REGS_GRF, 0, 128, 256, 32, true, true}, {REGS_CE, 0, 1, 32, 4, true, false},
    {REGS_SR, 0, 1, 128, 16, true, true},    {REGS_CR, 0, 1, 128, 16, true, true},
    {REGS_SBA, 0, 9, 64, 8, true, false},    {REGS_DBG, 0, 1, 64, 8, true, true},
};
#define PVC_SETS(grf)                                                                              \
    {                                                                                              \
        {REGS_GRF, 0, grf, 512, 64, true, true}, {REGS_ADDR, 0, 1, 256, 32, true, true},           \
            {REGS_FLAG, 0, 4, 32, 4, true, true}, {REGS_CE, 0, 1, 32, 4, true, false},             \
            {REGS_SR, 0, 1, 128, 16, true, true}, {REGS_CR, 0, 1, 128, 16, true, true},            \
            {REGS_TDR, 0, 1, 128, 16, true, false}, {REGS_ACC, 0, 4, 512, 64, true, true},         \
            {REGS_MME, 0, 8, 512, 64, true, true}, {REGS_SP, 0, 1, 128, 16, true, true},           \
            {REGS_SBA, 0, 9, 64, 8, true, false}, {REGS_DBG, 0, 1, 64, 8, true, true},             \
    }
static const struct zd_regset pvc_sets[] = PVC_SETS(256);
static const struct zd_regset pvc128_sets[] = PVC_SETS(128);

static int make_offsets(struct mock_target *m, uint32_t tdesc)
{
    const struct regs_catalog *c = m->cat[tdesc];
    size_t n = regs_catalog_count(c), off = 0;
    m->reg_off[tdesc] = malloc((n + 1) * sizeof(size_t));
    m->cr0[tdesc] = regs_catalog_find(c, "cr0");
    m->isabase[tdesc] = regs_catalog_find(c, "isabase");
    if (!m->reg_off[tdesc] || !m->cr0[tdesc] || !m->isabase[tdesc])
        return -1;
    for (size_t i = 0; i <= n; i++) {
        m->reg_off[tdesc][i] = off;
        off += i < n ? regs_catalog_at(c, i)->byte_size : 0;
    }
    return 0;
}

static void fill_regs(struct mock_target *m, uint32_t pid, uint32_t tid)
{
    struct mthread *t = &m->dev[pid - 1].t[tid - 1];
    for (size_t i = 0; i < REGBUF; i++)
        t->regs[i] = (uint8_t)(i * 7 + tid * 13 + pid);
    /* cr0: IP 0x100 * tid, no exception bits; isabase 0x800000. */
    {
        const struct regs_reg *cr0 = m->cr0[t->tdesc], *isa = m->isabase[t->tdesc];
        uint8_t *p = t->regs + m->reg_off[t->tdesc][cr0->regnum];
        memset(p, 0, cr0->byte_size);
        isa_cr0_set_dword(p, 2, 0x100 * tid);
        p = t->regs + m->reg_off[t->tdesc][isa->regnum];
        memset(p, 0, 8);
        p[2] = 0x80;
    }
    t->filled_for = t->tdesc;
}

struct mock_target *mock_target_new(void)
{
    struct mock_target *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->cat[1] = regs_catalog_new(small_sets, sizeof(small_sets) / sizeof(small_sets[0]));
    m->cat[2] = regs_catalog_new(pvc_sets, sizeof(pvc_sets) / sizeof(pvc_sets[0]));
    m->cat[3] = regs_catalog_new(pvc128_sets, sizeof(pvc128_sets) / sizeof(pvc128_sets[0]));
    m->tdesc_pid[1] = 1;
    m->tdesc_pid[2] = m->tdesc_pid[3] = 2;
    if (!m->cat[1] || !m->cat[2] || !m->cat[3] || make_offsets(m, 1) < 0 ||
        make_offsets(m, 2) < 0 || make_offsets(m, 3) < 0 ||
        pipe2(m->pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
        mock_target_free(m);
        return NULL;
    }
    snprintf(m->next, sizeof(m->next), "none");
    return m;
}

void mock_target_free(struct mock_target *m)
{
    if (!m)
        return;
    for (int i = 0; i <= NTDESC; i++) {
        regs_catalog_free(m->cat[i]);
        free(m->reg_off[i]);
    }
    if (m->pipe[0] > 0) {
        close(m->pipe[0]);
        close(m->pipe[1]);
    }
    free(m);
}

void mock_target_reset(struct mock_target *m)
{
    for (int i = 0; i < NDEV; i++) {
        m->dev[i].attached = false;
        m->lib_loaded[i] = m->lib_waits[i] = false;
    }
    m->nq = 0;
    while (read(m->pipe[0], &(char){0}, 1) > 0)
        ;
    m->running = false;
    snprintf(m->next, sizeof(m->next), "none");
    m->next_pid = m->next_tid = 0;
    m->lastresume[0] = m->lastmem[0] = 0;
    m->acks = 0;
}

unsigned mock_target_attached_count(const struct mock_target *m)
{
    unsigned n = 0;
    for (int i = 0; i < NDEV; i++)
        n += m->dev[i].attached;
    return n;
}

static struct mdev *dev_of(struct mock_target *m, uint32_t pid)
{
    return pid >= 1 && pid <= NDEV && m->dev[pid - 1].attached ? &m->dev[pid - 1] : NULL;
}

static struct mthread *thread_of(struct mock_target *m, uint32_t pid, uint32_t tid)
{
    struct mdev *d = dev_of(m, pid);
    return d && tid >= 1 && tid <= d->nthreads ? &d->t[tid - 1] : NULL;
}

static void push(struct mock_target *m, struct rsp_event ev)
{
    if (m->nq == sizeof(m->queue) / sizeof(m->queue[0]))
        return;
    m->queue[m->nq++] = ev;
    if (write(m->pipe[1], "e", 1) < 0) {
        /* the pipe is far from full: one byte per queued event */
    }
}

static void stop_all(struct mock_target *m)
{
    for (uint32_t p = 1; p <= NDEV; p++)
        for (uint32_t t = 1; dev_of(m, p) && t <= m->dev[p - 1].nthreads; t++)
            if (m->dev[p - 1].t[t - 1].state == RSP_THREAD_RUNNING)
                m->dev[p - 1].t[t - 1].state = RSP_THREAD_STOPPED;
    m->running = false;
}

static int m_attach(void *ctx, uint32_t host_pid, struct rsp_event *stop, char *err, size_t errlen)
{
    struct mock_target *m = ctx;
    static const uint32_t dims[NDEV][4] = {{1, 2, 2, 2}, {1, 1, 1, 4}};

    switch (host_pid) {
    case 1:
        snprintf(err, errlen,
                 "Failed to attach to any device.\nDevice 1 [Mock GPU A] : attempting to attach "
                 "too early\nDevice 2 [Mock GPU B] : attempting to attach too early");
        return RSP_TARGET_TOO_EARLY;
    case 2:
        snprintf(err, errlen,
                 "Failed to attach to any device.\nDevice 1 [Mock GPU A] : "
                 "attaching is not permitted");
        return -EPERM;
    case 3:
        snprintf(err, errlen, "Failed to attach to any device.");
        return RSP_TARGET_TOO_EARLY;
    }
    for (uint32_t p = 1; p <= NDEV; p++) {
        struct mdev *d = &m->dev[p - 1];
        memcpy(d->dims, dims[p - 1], sizeof(d->dims));
        d->nthreads = dims[p - 1][0] * dims[p - 1][1] * dims[p - 1][2] * dims[p - 1][3];
        d->attached = true;
        /* What nothing wrote since the last fill still holds its values. */
        if (!d->mem_filled) {
            for (uint32_t i = 0; i < MEM_SIZE; i++)
                d->mem[i] = (uint8_t)(i ^ p);
            memset(d->slm, 0xa0 + p, SLM_SIZE);
            d->mem_filled = true;
        }
        for (uint32_t t = 1; t <= d->nthreads; t++) {
            d->t[t - 1].state = RSP_THREAD_STOPPED;
            d->t[t - 1].tdesc = p == 1 ? 1 : 2;
            if (d->t[t - 1].filled_for != d->t[t - 1].tdesc)
                fill_regs(m, p, t);
        }
    }
    m->dev[0].t[2].state = RSP_THREAD_UNAVAILABLE; /* p1.3 */
    m->running = false;
    memset(stop, 0, sizeof(*stop));
    stop->kind = RSP_EVENT_STOP;
    stop->pid = 2; /* the last device attached reports */
    stop->tid = 1;
    stop->signal = 5;
    return 0;
}

static size_t m_process_count(void *ctx)
{
    struct mock_target *m = ctx;
    size_t n = 0;
    for (int i = 0; i < NDEV; i++)
        n += m->dev[i].attached;
    return n;
}

static int m_process_at(void *ctx, size_t i, struct rsp_process_info *out)
{
    struct mock_target *m = ctx;
    for (uint32_t p = 1; p <= NDEV; p++) {
        if (!m->dev[p - 1].attached)
            continue;
        if (i-- == 0) {
            out->pid = p;
            out->nthreads = m->dev[p - 1].nthreads;
            return 0;
        }
    }
    return -ENOENT;
}

static int m_thread_info(void *ctx, uint32_t pid, uint32_t tid, struct rsp_thread_info *out)
{
    struct mock_target *m = ctx;
    struct mthread *t = thread_of(m, pid, tid);
    const uint32_t *d;
    uint32_t i;

    if (!t)
        return -ENOENT;
    d = m->dev[pid - 1].dims;
    i = tid - 1;
    out->state = t->state;
    out->tdesc = t->tdesc;
    out->thread = i % d[3];
    out->eu = i / d[3] % d[2];
    out->subslice = i / (d[3] * d[2]) % d[1];
    out->slice = i / (d[3] * d[2] * d[1]);
    return 0;
}

static int m_tdesc(void *ctx, uint32_t id, struct rsp_tdesc *out)
{
    struct mock_target *m = ctx;
    if (id < 1 || id > NTDESC)
        return -ENOENT;
    out->regs = m->cat[id];
    out->pid = m->tdesc_pid[id];
    return 0;
}

static int m_device_info(void *ctx, uint32_t pid, struct rsp_device_info *out)
{
    memset(out, 0, sizeof(*out));
    out->vendor_id = 0x8086;
    out->device_id = pid == 1 ? 0x56a0 : 0x0bd5;
    snprintf(out->name, sizeof(out->name), "Mock GPU %s <&\"test\">", pid == 1 ? "A" : "B");
    snprintf(out->pci_slot, sizeof(out->pci_slot), "0000:%02x:00.0", 0x3a + pid);
    for (int i = 0; i < 16; i++)
        out->uuid[i] = (uint8_t)i;
    out->has_uuid = true;
    out->total_cores = pid == 1 ? 4 : 1;
    out->total_threads = pid == 1 ? 8 : 4;
    out->subdevice_id = pid == 1 ? -1 : 0;
    return 0;
}

static int reg_access(struct mock_target *m, uint32_t pid, uint32_t tid, uint32_t regnum,
                      size_t size, uint8_t **where)
{
    struct mthread *t = thread_of(m, pid, tid);
    const struct regs_catalog *c;
    const struct regs_reg *r;

    if (!t)
        return -ENOENT;
    if (t->state != RSP_THREAD_STOPPED)
        return RSP_TARGET_UNAVAILABLE;
    c = m->cat[t->tdesc];
    r = regs_catalog_at(c, regnum);
    if (!r || r->byte_size != size)
        return -EINVAL;
    *where = t->regs + m->reg_off[t->tdesc][regnum];
    return 0;
}

static int m_read_register(void *ctx, uint32_t pid, uint32_t tid, uint32_t regnum, uint8_t *buf,
                           size_t size, char *err, size_t errlen)
{
    uint8_t *p;
    int rc = reg_access(ctx, pid, tid, regnum, size, &p);
    if (rc == 0)
        memcpy(buf, p, size);
    return rc;
}

static int m_write_register(void *ctx, uint32_t pid, uint32_t tid, uint32_t regnum,
                            const uint8_t *buf, size_t size, char *err, size_t errlen)
{
    uint8_t *p;
    int rc = reg_access(ctx, pid, tid, regnum, size, &p);
    if (rc == RSP_TARGET_UNAVAILABLE)
        return -EAGAIN;
    if (rc == 0) {
        memcpy(p, buf, size);
        thread_of(ctx, pid, tid)->filled_for = 0;
    }
    return rc;
}

static int mem_span(struct mock_target *m, const struct rsp_mem_ref *ref, size_t len, uint8_t **p,
                    size_t *n)
{
    struct mdev *d = dev_of(m, ref->pid);
    uint64_t base = ref->space == 1 ? 0 : MEM_BASE, size = ref->space == 1 ? SLM_SIZE : MEM_SIZE;

    snprintf(m->lastmem, sizeof(m->lastmem), "pid=%u tid=%u space=%u addr=0x%llx",
             (unsigned)ref->pid, (unsigned)ref->tid, (unsigned)ref->space,
             (unsigned long long)ref->addr);
    if (!d || ref->space > 1 || (ref->space == 1 && ref->tid == 0))
        return -EINVAL;
    if (ref->addr < base || ref->addr >= base + size)
        return -EFAULT;
    *p = (ref->space == 1 ? d->slm : d->mem) + (ref->addr - base);
    *n = size - (ref->addr - base);
    if (*n > len)
        *n = len;
    return 0;
}

static int m_read_memory(void *ctx, const struct rsp_mem_ref *ref, uint8_t *buf, size_t len,
                         size_t *done, char *err, size_t errlen)
{
    uint8_t *p;
    size_t n;
    int rc = mem_span(ctx, ref, len, &p, &n);
    if (rc < 0) {
        snprintf(err, errlen, "no memory at 0x%llx", (unsigned long long)ref->addr);
        return rc;
    }
    memcpy(buf, p, n);
    *done = n;
    return 0;
}

static int m_write_memory(void *ctx, const struct rsp_mem_ref *ref, const uint8_t *buf, size_t len,
                          char *err, size_t errlen)
{
    uint8_t *p;
    size_t n;
    int rc = mem_span(ctx, ref, len, &p, &n);
    if (rc == 0 && n < len)
        rc = -EFAULT;
    if (rc < 0) {
        snprintf(err, errlen, "no memory at 0x%llx", (unsigned long long)ref->addr);
        return rc;
    }
    memcpy(p, buf, n);
    dev_of(ctx, ref->pid)->mem_filled = false;
    return 0;
}

/* Z0 as the Intel GT target does it: the breakpoint control bit of the
 * instruction at addr, in the device's default-space memory. */
static int m_read_insn(void *ctx, uint32_t pid, uint64_t addr, uint8_t insn[16], size_t *len,
                       char *err, size_t errlen)
{
    struct rsp_mem_ref ref = {.pid = pid, .tid = 0, .space = 0, .addr = addr};
    size_t done = 0;
    if (m_read_memory(ctx, &ref, insn, 16, &done, err, errlen) < 0 || done < 8 ||
        done < isa_insn_length(insn)) {
        snprintf(err, errlen, "no code at 0x%llx", (unsigned long long)addr);
        return -EFAULT;
    }
    *len = isa_insn_length(insn);
    return 0;
}

static int m_write_insn(void *ctx, uint32_t pid, uint64_t addr, const uint8_t *insn, size_t len,
                        char *err, size_t errlen)
{
    struct rsp_mem_ref ref = {.pid = pid, .tid = 0, .space = 0, .addr = addr};
    return m_write_memory(ctx, &ref, insn, len, err, errlen);
}

static int m_insert_sw_breakpoint(void *ctx, uint32_t pid, uint64_t addr, bool *was_set, char *err,
                                  size_t errlen)
{
    uint8_t insn[16], back[16];
    size_t len, blen;
    if (m_read_insn(ctx, pid, addr, insn, &len, err, errlen) < 0)
        return -EFAULT;
    *was_set = isa_insn_breakpoint(insn);
    if (*was_set)
        return 0;
    isa_insn_set_breakpoint(insn, true);
    if (m_write_insn(ctx, pid, addr, insn, len, err, errlen) < 0 ||
        m_read_insn(ctx, pid, addr, back, &blen, err, errlen) < 0 || !isa_insn_breakpoint(back))
        return -EFAULT;
    return 0;
}

static int m_remove_sw_breakpoint(void *ctx, uint32_t pid, uint64_t addr, char *err, size_t errlen)
{
    uint8_t insn[16];
    size_t len;
    if (m_read_insn(ctx, pid, addr, insn, &len, err, errlen) < 0)
        return -EFAULT;
    if (!isa_insn_breakpoint(insn))
        return 0;
    isa_insn_set_breakpoint(insn, false);
    return m_write_insn(ctx, pid, addr, insn, len, err, errlen);
}

/* PC = isabase + cr0 IP, from the thread's registers. */
static int m_thread_pc(void *ctx, uint32_t pid, uint32_t tid, uint64_t *pc, char *err,
                       size_t errlen)
{
    struct mock_target *m = ctx;
    struct rsp_thread_info ti;
    const struct regs_reg *cr0, *isa;
    uint8_t cr0v[64], base[8] = {0};
    uint64_t b = 0;
    int rc;

    if (m_thread_info(ctx, pid, tid, &ti) < 0)
        return -EINVAL;
    cr0 = regs_catalog_find(m->cat[ti.tdesc], "cr0");
    isa = regs_catalog_find(m->cat[ti.tdesc], "isabase");
    if (!cr0 || !isa || cr0->byte_size > sizeof(cr0v) || isa->byte_size > sizeof(base))
        return -EINVAL;
    rc = m_read_register(ctx, pid, tid, cr0->regnum, cr0v, cr0->byte_size, err, errlen);
    if (rc == 0)
        rc = m_read_register(ctx, pid, tid, isa->regnum, base, isa->byte_size, err, errlen);
    if (rc != 0)
        return rc;
    for (unsigned i = 0; i < sizeof(base); i++)
        b |= (uint64_t)base[i] << (8 * i);
    *pc = isa_pc(cr0v, b);
    return 0;
}

static int m_resume(void *ctx, const struct rsp_resume *a, size_t n, char *err, size_t errlen)
{
    struct mock_target *m = ctx;
    size_t off = 0;
    const struct rsp_resume *step = NULL;
    bool cont = false;
    struct rsp_event ev;

    m->lastresume[0] = 0;
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(m->lastresume + off, sizeof(m->lastresume) - off, "%s%c:%lld.%lld",
                         i ? ";" : "", "cstr"[a[i].kind], (long long)a[i].pid, (long long)a[i].tid);
        if (w < 0 || (size_t)w >= sizeof(m->lastresume) - off)
            break;
        off += (size_t)w;
        if (a[i].kind == RSP_RESUME_STEP && !step)
            step = &a[i];
        cont = cont || a[i].kind == RSP_RESUME_CONTINUE;
    }
    if (!step && !cont)
        return 0; /* stop requests only: everything is stopped already */
    for (uint32_t p = 1; p <= NDEV; p++)
        for (uint32_t t = 1; dev_of(m, p) && t <= m->dev[p - 1].nthreads; t++)
            if (m->dev[p - 1].t[t - 1].state == RSP_THREAD_STOPPED)
                m->dev[p - 1].t[t - 1].state = RSP_THREAD_RUNNING;
    m->running = true;
    memset(&ev, 0, sizeof(ev));
    if (step && step->pid > 0 && step->tid > 0) {
        stop_all(m);
        ev.kind = RSP_EVENT_STOP;
        ev.pid = (uint32_t)step->pid;
        ev.tid = (uint32_t)step->tid;
        ev.signal = 5;
        push(m, ev);
        return 0;
    }
    ev.pid = m->next_pid;
    ev.tid = m->next_tid;
    if (strcmp(m->next, "swbreak") == 0 || strcmp(m->next, "segv") == 0) {
        stop_all(m);
        ev.kind = RSP_EVENT_STOP;
        ev.swbreak = m->next[1] == 'w';
        ev.signal = ev.swbreak ? 5 : 11;
    } else if (strcmp(m->next, "unavail") == 0) {
        stop_all(m);
        ev.kind = RSP_EVENT_UNAVAILABLE;
    } else if (strcmp(m->next, "library") == 0) {
        /* A library change stops nothing (protocol 4): still running. */
        ev.kind = RSP_EVENT_LIBRARY;
        if (dev_of(m, ev.pid))
            m->lib_loaded[ev.pid - 1] = m->lib_waits[ev.pid - 1] = true;
    } else if (strcmp(m->next, "exit") == 0 || strcmp(m->next, "kill") == 0) {
        stop_all(m);
        if (dev_of(m, ev.pid))
            m->dev[ev.pid - 1].attached = false;
        ev.kind = m->next[0] == 'e' ? RSP_EVENT_EXITED : RSP_EVENT_KILLED;
        ev.code = 1;
        ev.signal = 11;
    } else
        return 0; /* "none": runs until interrupted */
    snprintf(m->next, sizeof(m->next), "none");
    push(m, ev);
    return 0;
}

static int m_interrupt(void *ctx, char *err, size_t errlen)
{
    struct mock_target *m = ctx;
    struct rsp_event ev;
    if (!m->running)
        return 0;
    stop_all(m);
    memset(&ev, 0, sizeof(ev));
    ev.kind = RSP_EVENT_STOP;
    ev.pid = dev_of(m, 1) ? 1 : 2;
    ev.tid = 1;
    ev.signal = 5;
    push(m, ev);
    return 0;
}

static int m_detach(void *ctx, uint32_t pid, char *err, size_t errlen)
{
    struct mock_target *m = ctx;
    struct mdev *d = dev_of(m, pid);
    if (!d)
        return -ENOENT;
    d->attached = false;
    fprintf(stderr, "Detached from device [0000:%02x:00.0]\n", 0x3a + pid);
    return 0;
}

static int m_event_fd(void *ctx)
{
    return ((struct mock_target *)ctx)->pipe[0];
}

static int m_next_event(void *ctx, struct rsp_event *ev)
{
    struct mock_target *m = ctx;
    char c;
    if (m->nq == 0)
        return 0;
    if (read(m->pipe[0], &c, 1) < 0) {
        /* level-triggered: a missing byte only delays nothing here */
    }
    *ev = m->queue[0];
    memmove(m->queue, m->queue + 1, (m->nq - 1) * sizeof(m->queue[0]));
    m->nq--;
    return 1;
}

static void m_client_gone(void *ctx)
{
    struct mock_target *m = ctx;
    unsigned n = 0;
    for (int i = 0; i < NDEV; i++) {
        n += m->dev[i].attached;
        m->dev[i].attached = false;
    }
    m->running = false;
    m->nq = 0;
    while (read(m->pipe[0], &(char){0}, 1) > 0)
        ;
    fprintf(stderr, "mock: client gone, detached %u device(s)\n", n);
}

static size_t m_library_count(void *ctx, uint32_t pid)
{
    struct mock_target *m = ctx;
    return dev_of(m, pid) && m->lib_loaded[pid - 1] ? 1 : 0;
}

static int m_library_at(void *ctx, uint32_t pid, size_t i, struct rsp_library *out)
{
    struct mock_target *m = ctx;
    if (i >= m_library_count(ctx, pid))
        return -ENOENT;
    out->begin = 0x20000;
    out->end = 0x21000;
    out->load = 0x800000;
    out->needs_ack = m->lib_waits[pid - 1];
    return 0;
}

static int m_ack_library(void *ctx, uint32_t pid, uint64_t begin, uint64_t end, char *err,
                         size_t errlen)
{
    struct mock_target *m = ctx;
    for (uint32_t p = 1; p <= NDEV; p++) {
        if ((pid && p != pid) || !dev_of(m, p) || !m->lib_waits[p - 1] || begin != 0x20000 ||
            end != 0x21000)
            continue;
        m->lib_waits[p - 1] = false;
        m->acks++;
        return 0;
    }
    snprintf(err, errlen, "nothing waits");
    return -ENOENT;
}

/* monitor mock ARGS: cmd is ARGS. */
static int m_mock(void *ctx, const char *cmd, struct rsp_buf *out)
{
    struct mock_target *m = ctx;
    char kind[16];
    unsigned p = 0, t = 0, v = 0;

    if (strcmp(cmd, "lastresume") == 0) {
        rsp_buf_printf(out, "%s\n", m->lastresume);
        return 0;
    }
    if (strcmp(cmd, "lastmem") == 0) {
        rsp_buf_printf(out, "%s\n", m->lastmem);
        return 0;
    }
    if (strcmp(cmd, "acks") == 0) {
        rsp_buf_printf(out, "%u\n", m->acks);
        return 0;
    }
    if (sscanf(cmd, "next %15s %u %u", kind, &p, &t) >= 1) {
        snprintf(m->next, sizeof(m->next), "%s", kind);
        m->next_pid = p;
        m->next_tid = t;
        return 0;
    }
    if (sscanf(cmd, "tdesc %u %u %u", &p, &t, &v) == 3 && thread_of(m, p, t) && v >= 2 &&
        v <= NTDESC && p == 2) {
        thread_of(m, p, t)->tdesc = v;
        fill_regs(m, p, t);
        return 0;
    }
    if (sscanf(cmd, "state %u %u %u", &p, &t, &v) == 3 && thread_of(m, p, t) && v <= 2) {
        thread_of(m, p, t)->state = (enum rsp_thread_state)v;
        return 0;
    }
    rsp_buf_printf(out, "bad mock command '%s'\n", cmd);
    return -EINVAL;
}

static const struct rsp_monitor_cmd mock_commands[] = {
    {"mock", "mock ...", "steer the mock target (tests only)", false, m_mock},
};

static const struct rsp_monitor_cmd *m_monitor_commands(void *ctx, size_t *n)
{
    (void)ctx;
    *n = 1;
    return mock_commands;
}

/* The mock's module has no kernels: nothing for vRun's entry breakpoints
 * (the mock starts no programs anyway). */
static size_t m_kernel_entries(void *ctx, uint32_t pid, uint64_t *addrs, size_t max)
{
    (void)ctx, (void)pid, (void)addrs, (void)max;
    return 0;
}

static const struct rsp_monitor_ops monitor = {.commands = m_monitor_commands};
static const struct rsp_libraries_ops libraries = {
    .library_count = m_library_count,
    .library_at = m_library_at,
    .ack_library = m_ack_library,
};
static const struct rsp_sw_breakpoints_ops sw_breakpoints = {
    .insert = m_insert_sw_breakpoint,
    .remove = m_remove_sw_breakpoint,
    .thread_pc = m_thread_pc,
    .kernel_entries = m_kernel_entries,
};

/* No programs, non-stop, thread names, siginfo or exits: the server must do without them. */
static const struct rsp_target_ops ops = {
    .attach = m_attach,
    .process_count = m_process_count,
    .process_at = m_process_at,
    .thread_info = m_thread_info,
    .tdesc = m_tdesc,
    .device_info = m_device_info,
    .read_register = m_read_register,
    .write_register = m_write_register,
    .read_memory = m_read_memory,
    .write_memory = m_write_memory,
    .resume = m_resume,
    .interrupt = m_interrupt,
    .detach = m_detach,
    .event_fd = m_event_fd,
    .next_event = m_next_event,
    .client_gone = m_client_gone,
    .monitor = &monitor,
    .libraries = &libraries,
    .sw_breakpoints = &sw_breakpoints,
};

const struct rsp_target_ops *mock_target_ops(void)
{
    return &ops;
}
