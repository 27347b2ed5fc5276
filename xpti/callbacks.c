/* SPDX-License-Identifier: MIT */
#include "xpti/callbacks.h"

#include <stdlib.h>

_Atomic(xpti_callback_fn) cbs_hot[256][256];

void cbs_init(struct callbacks *c)
{
    pthread_mutex_init(&c->lock, NULL);
    for (size_t i = 0; i < 256; i++)
        atomic_init(&c->stream[i], NULL);
    c->retired = NULL;
    c->hot = false;
}

/* What cbs_hot holds for a slot of page 0 while tracing is on. */
static xpti_callback_fn hot_entry(const struct cb_slot *slot)
{
    const struct cb_list *l = atomic_load_explicit(&slot->active, memory_order_relaxed);
    return l && l->direct ? l->fn[0] : NULL;
}

/* Under lock: one stream's row of cbs_hot from its registrations (or NULL
 * throughout when tracing is off or the stream is gone). */
static void hot_row(struct callbacks *c, size_t stream, const struct cb_stream *s)
{
    for (size_t t = 0; t < 256; t++)
        atomic_store_explicit(&cbs_hot[stream][t],
                              c->hot && s ? hot_entry(&s->page0.slot[t]) : NULL,
                              memory_order_release);
}

void cbs_set_hot(struct callbacks *c, bool on)
{
    pthread_mutex_lock(&c->lock);
    c->hot = on;
    for (size_t i = 0; i < 256; i++) {
        const struct cb_stream *s = atomic_load_explicit(&c->stream[i], memory_order_relaxed);
        if (s)
            hot_row(c, i, s);
    }
    pthread_mutex_unlock(&c->lock);
}

static void free_page_contents(struct cb_page *p)
{
    for (size_t i = 0; i < 256; i++) {
        free((void *)atomic_load_explicit(&p->slot[i].active, memory_order_relaxed));
        free(p->slot[i].regs);
    }
}

static void free_stream(struct cb_stream *s)
{
    free_page_contents(&s->page0);
    for (size_t pi = 1; pi < 256; pi++) {
        struct cb_page *p = atomic_load_explicit(&s->page[pi], memory_order_relaxed);
        if (!p)
            continue;
        free_page_contents(p);
        free(p);
    }
    free(s);
}

/* Page pi of a stream: the embedded first page, else page[pi]. */
static struct cb_page *page_of(struct cb_stream *s, size_t pi)
{
    return pi == 0 ? &s->page0 : atomic_load_explicit(&s->page[pi], memory_order_relaxed);
}

void cbs_clear(struct callbacks *c)
{
    for (size_t i = 0; i < 256; i++) {
        struct cb_stream *s = atomic_load_explicit(&c->stream[i], memory_order_relaxed);
        if (s) {
            hot_row(c, i, NULL); /* before the callbacks' lists go */
            free_stream(s);
        }
        atomic_store_explicit(&c->stream[i], NULL, memory_order_relaxed);
    }
    while (c->retired) {
        struct cb_list *l = c->retired;
        c->retired = l->retired_next;
        free(l);
    }
}

void cbs_destroy(struct callbacks *c)
{
    cbs_clear(c);
    pthread_mutex_destroy(&c->lock);
}

/* Called with c->lock held; creates the stream and page on demand. */
static struct cb_slot *slot_of(struct callbacks *c, uint8_t stream, uint16_t type, bool create)
{
    struct cb_stream *s = atomic_load_explicit(&c->stream[stream], memory_order_relaxed);
    if (!s) {
        if (!create || !(s = calloc(1, sizeof(*s))))
            return NULL;
        atomic_store_explicit(&c->stream[stream], s, memory_order_release);
    }
    struct cb_page *p = page_of(s, type >> 8);
    if (!p) {
        if (!create || !(p = calloc(1, sizeof(*p))))
            return NULL;
        atomic_store_explicit(&s->page[type >> 8], p, memory_order_release);
    }
    struct cb_slot *slot = &p->slot[type & 0xff];
    slot->never_direct = type == XPTI_TP_TASK_END;
    return slot;
}

/* Rebuild the slot's snapshot from its registrations and publish it (and,
 * for a type below 256 while tracing is on, its cbs_hot entry). */
static bool publish(struct callbacks *c, uint8_t stream, struct cb_stream *s, struct cb_slot *slot)
{
    size_t n = 0;
    for (size_t i = 0; i < slot->nregs; i++)
        n += slot->regs[i].active;
    struct cb_list *l = NULL;
    if (n) {
        l = malloc(sizeof(*l) + n * sizeof(l->fn[0]));
        if (!l)
            return false;
        l->n = 0;
        for (size_t i = 0; i < slot->nregs; i++)
            if (slot->regs[i].active)
                l->fn[l->n++] = slot->regs[i].fn;
        l->direct = n == 1 && !slot->never_direct;
    }
    struct cb_list *old =
        (struct cb_list *)atomic_exchange_explicit(&slot->active, l, memory_order_acq_rel);
    if (slot >= s->page0.slot && slot < s->page0.slot + 256)
        atomic_store_explicit(&cbs_hot[stream][slot - s->page0.slot],
                              c->hot && l && l->direct ? l->fn[0] : NULL, memory_order_release);
    if (old) {
        old->retired_next = c->retired;
        c->retired = old;
    }
    return true;
}

static struct cb_reg *find_reg(struct cb_slot *slot, xpti_callback_fn fn)
{
    for (size_t i = 0; i < slot->nregs; i++)
        if (slot->regs[i].fn == fn)
            return &slot->regs[i];
    return NULL;
}

static xpti_result_t set_active(struct callbacks *c, uint8_t stream, struct cb_slot *slot,
                                struct cb_reg *reg, bool active)
{
    struct cb_stream *s = atomic_load_explicit(&c->stream[stream], memory_order_relaxed);
    reg->active = active;
    if (!publish(c, stream, s, slot)) {
        reg->active = !active;
        return XPTI_RESULT_FAIL;
    }
    if (active)
        atomic_fetch_add_explicit(&s->active_count, 1, memory_order_relaxed);
    else
        atomic_fetch_sub_explicit(&s->active_count, 1, memory_order_relaxed);
    return XPTI_RESULT_SUCCESS;
}

xpti_result_t cbs_register(struct callbacks *c, uint8_t stream, uint16_t type, xpti_callback_fn fn)
{
    xpti_result_t rc = XPTI_RESULT_FAIL;
    pthread_mutex_lock(&c->lock);
    struct cb_slot *slot = slot_of(c, stream, type, true);
    if (!slot)
        goto out;
    struct cb_reg *reg = find_reg(slot, fn);
    if (reg) {
        if (reg->active) {
            rc = XPTI_RESULT_DUPLICATE;
        } else {
            rc = set_active(c, stream, slot, reg, true);
            if (rc == XPTI_RESULT_SUCCESS)
                rc = XPTI_RESULT_UNDELETE;
        }
        goto out;
    }
    if (slot->nregs == slot->cap) {
        uint32_t cap = slot->cap ? 2 * slot->cap : 4;
        struct cb_reg *regs = realloc(slot->regs, cap * sizeof(*regs));
        if (!regs)
            goto out;
        slot->regs = regs;
        slot->cap = cap;
    }
    slot->regs[slot->nregs++] = (struct cb_reg){.fn = fn, .active = false};
    rc = set_active(c, stream, slot, &slot->regs[slot->nregs - 1], true);
    if (rc == XPTI_RESULT_SUCCESS)
        atomic_load_explicit(&c->stream[stream], memory_order_relaxed)->ever_registered = true;
    else
        slot->nregs--;
out:
    pthread_mutex_unlock(&c->lock);
    return rc;
}

xpti_result_t cbs_unregister(struct callbacks *c, uint8_t stream, uint16_t type,
                             xpti_callback_fn fn)
{
    xpti_result_t rc = XPTI_RESULT_NOTFOUND;
    pthread_mutex_lock(&c->lock);
    struct cb_slot *slot = slot_of(c, stream, type, false);
    struct cb_reg *reg = slot ? find_reg(slot, fn) : NULL;
    if (reg)
        rc = reg->active ? set_active(c, stream, slot, reg, false) : XPTI_RESULT_DUPLICATE;
    pthread_mutex_unlock(&c->lock);
    return rc;
}

bool cbs_disable_stream(struct callbacks *c, uint8_t stream)
{
    pthread_mutex_lock(&c->lock);
    struct cb_stream *s = atomic_load_explicit(&c->stream[stream], memory_order_relaxed);
    bool ever = s && s->ever_registered;
    for (size_t pi = 0; s && pi < 256; pi++) {
        struct cb_page *p = page_of(s, pi);
        for (size_t i = 0; p && i < 256; i++)
            for (size_t r = 0; r < p->slot[i].nregs; r++)
                if (p->slot[i].regs[r].active)
                    set_active(c, stream, &p->slot[i], &p->slot[i].regs[r], false);
    }
    pthread_mutex_unlock(&c->lock);
    return ever;
}

bool cbs_stream_active(const struct callbacks *c, uint8_t stream)
{
    const struct cb_stream *s = atomic_load_explicit(&c->stream[stream], memory_order_acquire);
    return s && atomic_load_explicit(&s->active_count, memory_order_relaxed) > 0;
}
