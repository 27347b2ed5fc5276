/* SPDX-License-Identifier: MIT */
/* Debuggee side of program debug. One listening Unix socket per process
 * (private directory 0700, socket 0600, peer uid checked as ptrace would);
 * one thread per attached debugger connection; one dispatcher thread that
 * turns hardware stops into events.
 *
 * Lock order: srv->lock, then a device's hw lock, then srv->mail_lock; a
 * session's write_lock is a leaf. The hardware's stop hook runs under the
 * hw lock, so it only appends to the mailbox. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "gtsim/dbg_proto.h"
#include "gtsim/dbg_server.h"
#include "gtsim/gtsim.h"
#include "gtsim/regfile.h"

#define ALL UINT32_MAX

struct pending_ack {
    struct pending_ack *next;
    struct gtsim_module *module;
    zet_debug_event_t ev;
};

struct srv_session {
    struct srv_session *next;
    struct gtsim_dbg_server *srv;
    int fd;
    pthread_mutex_t write_lock;
    struct gtsim_device *device; /* root or tile */
    struct gtsim_device *root;
    uint32_t slice_first, slice_count;
    bool attached;
    uint64_t last_fault; /* PAGE_FAULT is reported once per address */
    struct pending_ack *acks;
};

struct mail {
    struct gtsim_device *root;
    struct gtsim_hw_stop stop;
};

struct gtsim_dbg_server {
    struct gtsim_driver *drv;
    int listen_fd;
    char path[108];
    pthread_mutex_t lock; /* sessions, modules, queue counts, acks */
    pthread_cond_t cv;    /* an ack arrived or a session went away */
    struct srv_session *sessions;
    struct gtsim_module **modules;
    size_t nmodules, cap_modules;
    uint32_t *queues; /* live command queues per root device */

    pthread_mutex_t mail_lock;
    pthread_cond_t mail_cv;
    struct mail *mail;
    size_t nmail, cap_mail;
};

/* Set once by gtsim_dbg_server_start under the driver's init lock. */
static struct gtsim_dbg_server *the_server;

static struct gtsim_device *root_of(struct gtsim_device *d)
{
    return d->root ? d->root : d;
}

static void send_event(struct srv_session *s, const zet_debug_event_t *ev)
{
    pthread_mutex_lock(&s->write_lock);
    /* A failed send means the debugger is gone; its connection thread
     * notices the end of stream and cleans up. */
    (void)gtsim_dbg_send(s->fd, GTSIM_DBG_EVENT, ev, sizeof(*ev), NULL, 0);
    pthread_mutex_unlock(&s->write_lock);
}

static void reply(struct srv_session *s, ze_result_t r, const void *data, size_t len)
{
    struct gtsim_dbg_reply rep = {(int32_t)r, 0};
    pthread_mutex_lock(&s->write_lock);
    (void)gtsim_dbg_send(s->fd, GTSIM_DBG_REPLY, &rep, sizeof(rep), data, len);
    pthread_mutex_unlock(&s->write_lock);
}

/* Does session s see device d's work (d on the same root, and d is s's
 * device, or one of them is the root)? */
static bool covers(const struct srv_session *s, const struct gtsim_device *d)
{
    return s->attached && s->root == root_of((struct gtsim_device *)d) &&
           (s->device == d || !s->device->root || !d->root);
}

static void module_event(struct gtsim_module *m, zet_debug_event_type_t type,
                         zet_debug_event_flags_t flags, zet_debug_event_t *ev)
{
    memset(ev, 0, sizeof(*ev));
    ev->type = type;
    ev->flags = flags;
    ev->info.module.format = ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF;
    ev->info.module.moduleBegin = (uint64_t)(uintptr_t)m->debug_image;
    ev->info.module.moduleEnd = (uint64_t)(uintptr_t)m->debug_image + m->debug_size;
    ev->info.module.load = m->load;
}

/* ---- hardware stops -> events ---------------------------------------- */

static void on_hw_stop(void *ctx, const struct gtsim_hw_stop *stop)
{
    struct gtsim_dbg_server *srv = the_server;
    pthread_mutex_lock(&srv->mail_lock);
    if (srv->nmail == srv->cap_mail) {
        size_t cap = srv->cap_mail ? srv->cap_mail * 2 : 256;
        struct mail *n = realloc(srv->mail, cap * sizeof(*n));
        if (!n) {
            /* Dropping a stop would leave a thread stopped unseen; the
             * debugger's interrupt-all recovers it. Nothing better to do
             * without memory. */
            pthread_mutex_unlock(&srv->mail_lock);
            return;
        }
        srv->mail = n;
        srv->cap_mail = cap;
    }
    srv->mail[srv->nmail].root = ctx;
    srv->mail[srv->nmail].stop = *stop;
    srv->nmail++;
    pthread_cond_signal(&srv->mail_cv);
    pthread_mutex_unlock(&srv->mail_lock);
}

static struct srv_session *owner_of(struct gtsim_dbg_server *srv, struct gtsim_device *root,
                                    uint32_t slice)
{
    for (struct srv_session *s = srv->sessions; s; s = s->next)
        if (s->attached && s->root == root && slice >= s->slice_first &&
            slice < s->slice_first + s->slice_count)
            return s;
    return NULL;
}

static void *dispatcher_main(void *arg)
{
    struct gtsim_dbg_server *srv = arg;
    for (;;) {
        struct mail *batch;
        size_t n;
        pthread_mutex_lock(&srv->mail_lock);
        while (srv->nmail == 0)
            pthread_cond_wait(&srv->mail_cv, &srv->mail_lock);
        batch = srv->mail;
        n = srv->nmail;
        srv->mail = NULL;
        srv->nmail = srv->cap_mail = 0;
        pthread_mutex_unlock(&srv->mail_lock);

        pthread_mutex_lock(&srv->lock);
        for (size_t i = 0; i < n; i++) {
            struct gtsim_device *root = batch[i].root;
            uint32_t sl, ss, eu, th;
            struct srv_session *s;
            zet_debug_event_t ev = {0};
            gtsim_hw_thread_coords(root->hw, batch[i].stop.thread, &sl, &ss, &eu, &th);
            s = owner_of(srv, root, sl);
            if (!s)
                continue; /* its session detached meanwhile; detach resumed it */
            if (batch[i].stop.reason == GTSIM_STOP_PAGE_FAULT &&
                batch[i].stop.fault_address != s->last_fault) {
                s->last_fault = batch[i].stop.fault_address;
                ev.type = ZET_DEBUG_EVENT_TYPE_PAGE_FAULT;
                ev.info.page_fault.address = batch[i].stop.fault_address;
                ev.info.page_fault.mask = ~(uint64_t)0xfff;
                ev.info.page_fault.reason = ZET_DEBUG_PAGE_FAULT_REASON_MAPPING_ERROR;
                send_event(s, &ev);
                memset(&ev, 0, sizeof(ev));
            }
            ev.type = ZET_DEBUG_EVENT_TYPE_THREAD_STOPPED;
            ev.info.thread.thread.slice = sl - s->slice_first;
            ev.info.thread.thread.subslice = ss;
            ev.info.thread.thread.eu = eu;
            ev.info.thread.thread.thread = th;
            send_event(s, &ev);
        }
        pthread_mutex_unlock(&srv->lock);
        free(batch);
    }
    return NULL;
}

/* ---- thread selection -------------------------------------------------- */

static bool is_all(const ze_device_thread_t *t)
{
    return t->slice == ALL && t->subslice == ALL && t->eu == ALL && t->thread == ALL;
}

static bool is_single(const ze_device_thread_t *t)
{
    return t->slice != ALL && t->subslice != ALL && t->eu != ALL && t->thread != ALL;
}

static bool thread_in_range(const struct srv_session *s, const ze_device_thread_t *t)
{
    const struct gtsim_hw_config *c = gtsim_hw_config(s->root->hw);
    return (t->slice == ALL || t->slice < s->slice_count) &&
           (t->subslice == ALL || t->subslice < c->subslices) && (t->eu == ALL || t->eu < c->eus) &&
           (t->thread == ALL || t->thread < c->threads);
}

/* Calls fn for every hardware thread t selects; hw lock held by caller. */
static unsigned for_each_thread(struct srv_session *s, const ze_device_thread_t *t,
                                bool (*fn)(struct gtsim_hw *, uint32_t))
{
    const struct gtsim_hw_config *c = gtsim_hw_config(s->root->hw);
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
                    hits += fn(s->root->hw, idx);
                }
            }
        }
    }
    return hits;
}

static bool interrupt_one(struct gtsim_hw *hw, uint32_t idx)
{
    return gtsim_hw_interrupt_locked(hw, idx) == 0;
}

static bool resume_one(struct gtsim_hw *hw, uint32_t idx)
{
    return gtsim_hw_resume_locked(hw, idx) == 0;
}

/* Detach: let go of a stopped thread as if the debugger continued it. */
static bool release_one(struct gtsim_hw *hw, uint32_t idx)
{
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

static int thread_index(struct srv_session *s, const ze_device_thread_t *t, uint32_t *idx)
{
    if (!is_single(t) || !thread_in_range(s, t))
        return -1;
    *idx = gtsim_hw_thread_index(s->root->hw, t->slice + s->slice_first, t->subslice, t->eu,
                                 t->thread);
    return 0;
}

/* ---- requests ------------------------------------------------------------ */

static void do_interrupt(struct srv_session *s, const struct gtsim_dbg_thread_req *rq)
{
    struct gtsim_hw *hw = s->root->hw;
    ze_result_t r = ZE_RESULT_SUCCESS;
    unsigned hits;
    bool unavailable = false;

    if (!thread_in_range(s, &rq->thread)) {
        reply(s, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
        return;
    }
    gtsim_hw_lock(hw);
    if (is_single(&rq->thread)) {
        uint32_t idx;
        thread_index(s, &rq->thread, &idx);
        switch (gtsim_hw_thread_state(hw, idx)) {
        case GTSIM_T_STOPPED:
            r = ZE_RESULT_ERROR_NOT_AVAILABLE;
            break;
        case GTSIM_T_IDLE:
            unavailable = true;
            break;
        case GTSIM_T_RUNNING:
            gtsim_hw_interrupt_locked(hw, idx);
            break;
        }
    } else {
        hits = for_each_thread(s, &rq->thread, interrupt_one);
        unavailable = hits == 0;
    }
    gtsim_hw_unlock(hw);
    reply(s, r, NULL, 0);
    if (unavailable) {
        zet_debug_event_t ev = {.type = ZET_DEBUG_EVENT_TYPE_THREAD_UNAVAILABLE};
        ev.info.thread.thread = rq->thread;
        send_event(s, &ev);
    }
}

static void do_resume(struct srv_session *s, const struct gtsim_dbg_thread_req *rq)
{
    struct gtsim_hw *hw = s->root->hw;
    unsigned hits;
    if (!thread_in_range(s, &rq->thread)) {
        reply(s, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
        return;
    }
    gtsim_hw_lock(hw);
    hits = for_each_thread(s, &rq->thread, resume_one);
    /* Reply before the resumed threads can run: once they do, the launch
     * may end and the application exit before a later reply is written, and
     * the debugger would see DEVICE_LOST for a resume that worked (a real
     * driver's resume completes in the kernel, whatever the process does
     * next). A reply already written is still read after the process is
     * gone; write_lock is a leaf, so taking it under the hw lock is safe. */
    reply(s, hits ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_NOT_AVAILABLE, NULL, 0);
    gtsim_hw_unlock(hw);
}

/* Where a default-space access may go: live allocations, this device's
 * instruction heap, and (read-only) the modules' debug zebins. */
static ze_result_t check_default(struct srv_session *s, uint64_t addr, uint64_t size, bool write,
                                 bool *is_isa)
{
    struct gtsim_dbg_server *srv = s->srv;
    *is_isa = false;
    if (size == 0 || addr + size < addr)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (gtsim_hw_isa_contains(s->root->hw, addr, size)) {
        *is_isa = true;
        return ZE_RESULT_SUCCESS;
    }
    if (gtsim_mem_is_valid(srv->drv, addr, size))
        return ZE_RESULT_SUCCESS;
    for (size_t i = 0; i < srv->nmodules; i++) {
        uint64_t b = (uint64_t)(uintptr_t)srv->modules[i]->debug_image;
        uint64_t e = b + srv->modules[i]->debug_size;
        if (addr >= b && addr < e)
            return write || addr + size > e ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_SUCCESS;
    }
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

static void do_memory(struct srv_session *s, const struct gtsim_dbg_mem_req *rq,
                      const uint8_t *data, bool write)
{
    struct gtsim_hw *hw = s->root->hw;
    uint8_t *buf = NULL;
    ze_result_t r = ZE_RESULT_SUCCESS;
    bool isa;
    uint32_t idx = 0;

    if (rq->size == 0 || rq->size > GTSIM_DBG_MAX_XFER) {
        reply(s, ZE_RESULT_ERROR_INVALID_SIZE, NULL, 0);
        return;
    }
    if (!write && !(buf = malloc(rq->size))) {
        reply(s, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, NULL, 0);
        return;
    }
    pthread_mutex_lock(&s->srv->lock); /* keeps the module list stable */
    gtsim_hw_lock(hw);
    if (!is_all(&rq->thread) && thread_index(s, &rq->thread, &idx) != 0)
        r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    else if (!is_all(&rq->thread) && gtsim_hw_thread_state(hw, idx) != GTSIM_T_STOPPED)
        r = ZE_RESULT_ERROR_NOT_AVAILABLE;
    else if (rq->space == ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT) {
        r = check_default(s, rq->address, rq->size, write, &isa);
        if (r == ZE_RESULT_SUCCESS && isa) {
            /* Under the hw lock, so a breakpoint bit lands between two
             * instruction fetches. A tile session sees its tile's copy of
             * the code; a root session writes all copies. */
            uint32_t tile = s->device->root ? s->device->subdevice_id : 0;
            if (write && !s->device->root)
                gtsim_hw_isa_write(hw, rq->address, data, rq->size);
            else if (write)
                memcpy(gtsim_hw_isa_copy(hw, tile, rq->address), data, rq->size);
            else
                memcpy(buf, gtsim_hw_isa_copy(hw, tile, rq->address), rq->size);
        } else if (r == ZE_RESULT_SUCCESS) {
            if (write)
                memcpy((void *)(uintptr_t)rq->address, data, rq->size);
            else
                memcpy(buf, (const void *)(uintptr_t)rq->address, rq->size);
        }
    } else if (rq->space == ZET_DEBUG_MEMORY_SPACE_TYPE_SLM) {
        uint32_t slm_size;
        uint8_t *slm;
        uint64_t off = rq->address & ~(1ull << 28);
        if (is_all(&rq->thread) || !(rq->address & (1ull << 28))) {
            r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
        } else {
            slm = gtsim_hw_thread_slm(hw, idx, &slm_size);
            if (!slm || off > slm_size || rq->size > slm_size - off)
                r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
            else if (write)
                memcpy(slm + off, data, rq->size);
            else
                memcpy(buf, slm + off, rq->size);
        }
    } else {
        r = ZE_RESULT_ERROR_INVALID_ENUMERATION;
    }
    gtsim_hw_unlock(hw);
    pthread_mutex_unlock(&s->srv->lock);
    reply(s, r, r == ZE_RESULT_SUCCESS ? buf : NULL, r == ZE_RESULT_SUCCESS && buf ? rq->size : 0);
    free(buf);
}

static void do_registers(struct srv_session *s, const struct gtsim_dbg_reg_req *rq,
                         const uint8_t *data, size_t data_len, bool write)
{
    struct gtsim_hw *hw = s->root->hw;
    const struct gtsim_regfile_layout *lay = gtsim_hw_layout(hw);
    const struct gtsim_regset_desc *d = gtsim_regfile_find(lay, rq->type);
    uint8_t *buf = NULL;
    size_t bytes = 0;
    ze_result_t r = ZE_RESULT_SUCCESS;
    uint32_t idx;

    if (!d || thread_index(s, &rq->thread, &idx) != 0 || rq->count == 0 || rq->start >= d->count ||
        rq->count > d->count - rq->start)
        r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    else if (write && !d->writable)
        r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (r == ZE_RESULT_SUCCESS) {
        bytes = (size_t)rq->count * (d->bits / 8);
        if (write && data_len != bytes)
            r = ZE_RESULT_ERROR_INVALID_SIZE;
        else if (!write && !(buf = malloc(bytes)))
            r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (r == ZE_RESULT_SUCCESS) {
        gtsim_hw_lock(hw);
        if (gtsim_hw_thread_state(hw, idx) != GTSIM_T_STOPPED) {
            r = ZE_RESULT_ERROR_NOT_AVAILABLE;
        } else {
            uint8_t *reg =
                gtsim_regfile_reg(lay, gtsim_hw_thread_regs(hw, idx), rq->type, rq->start);
            if (write)
                memcpy(reg, data, bytes);
            else
                memcpy(buf, reg, bytes);
        }
        gtsim_hw_unlock(hw);
    }
    reply(s, r, r == ZE_RESULT_SUCCESS ? buf : NULL, r == ZE_RESULT_SUCCESS && buf ? bytes : 0);
    free(buf);
}

static void do_ack(struct srv_session *s, const zet_debug_event_t *ev)
{
    struct gtsim_dbg_server *srv = s->srv;
    ze_result_t r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&srv->lock);
    for (struct pending_ack **pp = &s->acks; *pp; pp = &(*pp)->next) {
        struct pending_ack *a = *pp;
        if (a->ev.type == ev->type &&
            a->ev.info.module.moduleBegin == ev->info.module.moduleBegin &&
            a->ev.info.module.moduleEnd == ev->info.module.moduleEnd) {
            *pp = a->next;
            free(a);
            r = ZE_RESULT_SUCCESS;
            pthread_cond_broadcast(&srv->cv);
            break;
        }
    }
    /* Reply before unlocking, for the reason do_resume gives: the module
     * creation waiting on srv->lock may otherwise run the application to
     * its exit before the acknowledgement is answered. */
    reply(s, r, NULL, 0);
    pthread_mutex_unlock(&srv->lock);
}

/* ---- attach / detach --------------------------------------------------- */

static ze_result_t attach(struct srv_session *s, const struct gtsim_dbg_attach *rq)
{
    struct gtsim_dbg_server *srv = s->srv;
    struct gtsim_driver *drv = srv->drv;
    struct gtsim_device *root, *dev;

    if (!drv->debugging_enabled)
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    if (rq->config_id != gtsim_dbg_config_id(&drv->cfg)) {
        fprintf(stderr, "gtsim: a debugger with a different GTSIM_CONFIG tried to attach; "
                        "both processes must simulate the same hardware\n");
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    }
    if (rq->ordinal >= drv->ndevices)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    root = drv->devices[rq->ordinal];
    if (rq->tile >= 0 && (uint32_t)rq->tile >= root->nsub)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (rq->tile >= 0 && !drv->cfg.tile_attach)
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    dev = rq->tile >= 0 ? root->sub[rq->tile] : root;
    /* One debugger per device; a root session and tile sessions exclude
     * each other (level-zero-facts.md section 8). */
    for (struct srv_session *o = srv->sessions; o; o = o->next)
        if (o != s && o->attached && o->root == root &&
            (o->device == dev || !o->device->root || !dev->root))
            return ZE_RESULT_ERROR_NOT_AVAILABLE;
    s->device = dev;
    s->root = root;
    s->slice_first = dev->slice_first;
    s->slice_count = dev->slice_count;
    s->attached = true;
    gtsim_hw_lock(root->hw);
    gtsim_hw_set_stop_hook_locked(root->hw, on_hw_stop, root);
    gtsim_hw_set_slice_debug_locked(root->hw, s->slice_first, s->slice_count, true);
    gtsim_hw_unlock(root->hw);
    return ZE_RESULT_SUCCESS;
}

/* Events a debugger gets right after attaching: what already happened. */
static void replay_state(struct srv_session *s)
{
    struct gtsim_dbg_server *srv = s->srv;
    zet_debug_event_t ev;
    if (srv->queues[s->root->ordinal] > 0) {
        memset(&ev, 0, sizeof(ev));
        ev.type = ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY;
        send_event(s, &ev);
    }
    for (size_t i = 0; i < srv->nmodules; i++)
        if (covers(s, srv->modules[i]->device)) {
            module_event(srv->modules[i], ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, 0, &ev);
            send_event(s, &ev);
        }
}

/* answer: the debugger asked (zetDebugDetach) and is owed a reply. It is
 * written before the threads can run on, for the reason do_resume gives. */
static void detach(struct srv_session *s, bool answer)
{
    struct gtsim_dbg_server *srv = s->srv;
    struct gtsim_hw *hw;
    ze_device_thread_t all = {ALL, ALL, ALL, ALL};

    pthread_mutex_lock(&srv->lock);
    for (struct srv_session **pp = &srv->sessions; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    while (s->acks) {
        struct pending_ack *a = s->acks;
        s->acks = a->next;
        free(a);
    }
    if (s->attached) {
        hw = s->root->hw;
        gtsim_hw_lock(hw);
        gtsim_hw_set_slice_debug_locked(hw, s->slice_first, s->slice_count, false);
        for_each_thread(s, &all, release_one);
        s->attached = false;
        if (answer) {
            reply(s, ZE_RESULT_SUCCESS, NULL, 0);
            answer = false;
        }
        gtsim_hw_unlock(hw);
    }
    if (answer)
        reply(s, ZE_RESULT_SUCCESS, NULL, 0);
    pthread_cond_broadcast(&srv->cv); /* module creation waiting on us */
    pthread_mutex_unlock(&srv->lock);
}

static void *session_main(void *arg)
{
    struct srv_session *s = arg;
    struct gtsim_dbg_server *srv = s->srv;
    struct gtsim_dbg_hdr h;
    void *p;

    while (gtsim_dbg_recv(s->fd, &h, &p) == 0) {
        bool done = false;
        switch (h.type) {
        case GTSIM_DBG_ATTACH:
            if (h.len != sizeof(struct gtsim_dbg_attach) || s->attached) {
                reply(s, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
            } else {
                ze_result_t r;
                pthread_mutex_lock(&srv->lock);
                r = attach(s, p);
                reply(s, r, NULL, 0);
                if (r == ZE_RESULT_SUCCESS)
                    replay_state(s);
                pthread_mutex_unlock(&srv->lock);
            }
            break;
        case GTSIM_DBG_DETACH:
            detach(s, true);
            done = true;
            break;
        case GTSIM_DBG_ACK:
            if (h.len == sizeof(zet_debug_event_t) && s->attached)
                do_ack(s, p);
            else
                reply(s, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
            break;
        case GTSIM_DBG_INTERRUPT:
        case GTSIM_DBG_RESUME:
            if (h.len != sizeof(struct gtsim_dbg_thread_req) || !s->attached)
                reply(s, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
            else if (h.type == GTSIM_DBG_INTERRUPT)
                do_interrupt(s, p);
            else
                do_resume(s, p);
            break;
        case GTSIM_DBG_READ_MEM:
        case GTSIM_DBG_WRITE_MEM: {
            const struct gtsim_dbg_mem_req *rq = p;
            bool write = h.type == GTSIM_DBG_WRITE_MEM;
            if (h.len < sizeof(*rq) || !s->attached || (write && h.len - sizeof(*rq) != rq->size))
                reply(s, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
            else
                do_memory(s, rq, (const uint8_t *)p + sizeof(*rq), write);
            break;
        }
        case GTSIM_DBG_READ_REGS:
        case GTSIM_DBG_WRITE_REGS:
            if (h.len < sizeof(struct gtsim_dbg_reg_req) || !s->attached)
                reply(s, ZE_RESULT_ERROR_INVALID_ARGUMENT, NULL, 0);
            else
                do_registers(s, p, (const uint8_t *)p + sizeof(struct gtsim_dbg_reg_req),
                             h.len - sizeof(struct gtsim_dbg_reg_req),
                             h.type == GTSIM_DBG_WRITE_REGS);
            break;
        default:
            reply(s, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, NULL, 0);
            break;
        }
        free(p);
        if (done)
            break;
    }
    /* End of stream without DETACH: the debugger died. Never leave its
     * threads stopped or a module creation blocked behind it. */
    detach(s, false);
    close(s->fd);
    pthread_mutex_destroy(&s->write_lock);
    free(s);
    return NULL;
}

static void *accept_main(void *arg)
{
    struct gtsim_dbg_server *srv = arg;
    for (;;) {
        struct ucred cred;
        socklen_t len = sizeof(cred);
        pthread_t tid;
        int fd = accept4(srv->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return NULL;
        }
        /* The same rule as ptrace: only our own user, or root. */
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
            (cred.uid != getuid() && cred.uid != 0)) {
            struct gtsim_dbg_reply rep = {(int32_t)ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS, 0};
            (void)gtsim_dbg_send(fd, GTSIM_DBG_REPLY, &rep, sizeof(rep), NULL, 0);
            close(fd);
            continue;
        }
        struct srv_session *s = calloc(1, sizeof(*s));
        if (!s) {
            close(fd);
            continue;
        }
        s->srv = srv;
        s->fd = fd;
        s->last_fault = ~(uint64_t)0;
        pthread_mutex_init(&s->write_lock, NULL);
        pthread_mutex_lock(&srv->lock);
        s->next = srv->sessions;
        srv->sessions = s;
        pthread_mutex_unlock(&srv->lock);
        if (pthread_create(&tid, NULL, session_main, s) != 0) {
            detach(s, false);
            close(fd);
            free(s);
            continue;
        }
        pthread_detach(tid);
    }
}

static void remove_socket(void)
{
    if (the_server)
        unlink(the_server->path);
}

static int open_endpoint(struct gtsim_dbg_server *srv, char *err, size_t errlen)
{
    char dir[80];
    struct stat st;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd;

    if (gtsim_dbg_runtime_dir(getuid(), dir, sizeof(dir)) ||
        gtsim_dbg_socket_path(getpid(), getuid(), srv->path, sizeof(srv->path))) {
        snprintf(err, errlen, "runtime directory name too long");
        return -1;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    /* Refuse a directory someone else could have prepared for us. */
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
        (st.st_mode & 077)) {
        snprintf(err, errlen, "%s is not a private directory of this user", dir);
        return -1;
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", srv->path);
    unlink(srv->path); /* a stale socket of an earlier process with our pid */
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || chmod(srv->path, 0600) != 0 ||
        listen(fd, 8) != 0) {
        snprintf(err, errlen, "cannot listen on %s: %s", srv->path, strerror(errno));
        close(fd);
        return -1;
    }
    srv->listen_fd = fd;
    return 0;
}

void gtsim_dbg_server_start(struct gtsim_driver *drv)
{
    struct gtsim_dbg_server *srv = calloc(1, sizeof(*srv));
    char err[256];
    pthread_t tid;

    if (!srv || !(srv->queues = calloc(drv->ndevices, sizeof(uint32_t)))) {
        free(srv);
        return;
    }
    srv->drv = drv;
    pthread_mutex_init(&srv->lock, NULL);
    pthread_cond_init(&srv->cv, NULL);
    pthread_mutex_init(&srv->mail_lock, NULL);
    pthread_cond_init(&srv->mail_cv, NULL);
    if (open_endpoint(srv, err, sizeof(err)) != 0) {
        if (drv->debugging_enabled)
            fprintf(stderr, "gtsim: program debugging is unavailable: %s\n", err);
        free(srv->queues);
        free(srv);
        return;
    }
    the_server = srv;
    atexit(remove_socket);
    if (pthread_create(&tid, NULL, dispatcher_main, srv) == 0)
        pthread_detach(tid);
    if (pthread_create(&tid, NULL, accept_main, srv) == 0)
        pthread_detach(tid);
}

/* ---- host API hooks ------------------------------------------------------ */

void gtsim_dbg_module_created(struct gtsim_module *m)
{
    struct gtsim_dbg_server *srv = the_server;
    zet_debug_event_t ev;
    bool waiting;

    if (!srv)
        return;
    module_event(m, ZET_DEBUG_EVENT_TYPE_MODULE_LOAD, ZET_DEBUG_EVENT_FLAG_NEED_ACK, &ev);
    pthread_mutex_lock(&srv->lock);
    if (srv->nmodules == srv->cap_modules) {
        size_t cap = srv->cap_modules ? srv->cap_modules * 2 : 16;
        struct gtsim_module **n = realloc(srv->modules, cap * sizeof(*n));
        if (n) {
            srv->modules = n;
            srv->cap_modules = cap;
        }
    }
    if (srv->nmodules < srv->cap_modules)
        srv->modules[srv->nmodules++] = m;
    for (struct srv_session *s = srv->sessions; s; s = s->next) {
        struct pending_ack *a;
        if (!covers(s, m->device) || !(a = calloc(1, sizeof(*a))))
            continue;
        a->module = m;
        a->ev = ev;
        a->next = s->acks;
        s->acks = a;
        send_event(s, &ev);
    }
    /* Like the real driver, module creation waits until the debugger has
     * had its chance to plant breakpoints. */
    do {
        waiting = false;
        for (struct srv_session *s = srv->sessions; s; s = s->next)
            for (struct pending_ack *a = s->acks; a; a = a->next)
                waiting |= a->module == m;
        if (waiting)
            pthread_cond_wait(&srv->cv, &srv->lock);
    } while (waiting);
    pthread_mutex_unlock(&srv->lock);
}

void gtsim_dbg_module_destroyed(struct gtsim_module *m)
{
    struct gtsim_dbg_server *srv = the_server;
    zet_debug_event_t ev;
    if (!srv)
        return;
    module_event(m, ZET_DEBUG_EVENT_TYPE_MODULE_UNLOAD, 0, &ev);
    pthread_mutex_lock(&srv->lock);
    for (size_t i = 0; i < srv->nmodules; i++)
        if (srv->modules[i] == m) {
            srv->modules[i] = srv->modules[--srv->nmodules];
            break;
        }
    for (struct srv_session *s = srv->sessions; s; s = s->next)
        if (covers(s, m->device))
            send_event(s, &ev);
    pthread_mutex_unlock(&srv->lock);
}

static void queue_change(struct gtsim_device *d, int delta)
{
    struct gtsim_dbg_server *srv = the_server;
    struct gtsim_device *root = root_of(d);
    zet_debug_event_t ev = {0};
    uint32_t *n;
    if (!srv)
        return;
    pthread_mutex_lock(&srv->lock);
    n = &srv->queues[root->ordinal];
    if (delta > 0 && (*n)++ == 0)
        ev.type = ZET_DEBUG_EVENT_TYPE_PROCESS_ENTRY;
    else if (delta < 0 && *n > 0 && --(*n) == 0)
        ev.type = ZET_DEBUG_EVENT_TYPE_PROCESS_EXIT;
    if (ev.type != ZET_DEBUG_EVENT_TYPE_INVALID)
        for (struct srv_session *s = srv->sessions; s; s = s->next)
            if (s->attached && s->root == root)
                send_event(s, &ev);
    pthread_mutex_unlock(&srv->lock);
}

void gtsim_dbg_queue_created(struct gtsim_device *d)
{
    queue_change(d, +1);
}

void gtsim_dbg_queue_destroyed(struct gtsim_device *d)
{
    queue_change(d, -1);
}
