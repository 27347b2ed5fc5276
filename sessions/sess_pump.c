/* SPDX-License-Identifier: MIT */
/* sessions: the event pump. Runs on zetdebug's reader thread of each
 * session and turns each zet event into a state change and a note for the
 * layer above, one function per event kind. The acknowledge policy lives
 * here too: module loads wait for sess_module_release, everything else is
 * acknowledged once recorded. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "sessions/sess_impl.h"

/* One event on its way through the pump. The handlers run under the
 * manager's lock; device calls (reading a module's ELF, acknowledging) are
 * made outside it, before and after. */
struct pump_event {
    struct sess_manager *m;
    struct session *s;
    const struct zd_event *ev;
    struct sess_note note;
    struct sym_module *sym; /* MODULE_LOAD: its symbols, read beforehand */
    bool ack_now;           /* acknowledge ev once recorded */
    bool ack_held;          /* ... and held_load, a load nobody released */
    struct zd_event held_load;
};

/* False when out of memory: the module is then not tracked (and must be
 * acknowledged at once, or the application would wait forever). */
static bool add_module(struct session *s, const struct zd_event *ev, struct sym_module *sym)
{
    if (s->nmodules == s->cap_modules) {
        size_t cap = s->cap_modules ? s->cap_modules * 2 : 8;
        struct module_rec *n = realloc(s->modules, cap * sizeof(*n));
        if (!n) {
            sym_module_close(sym);
            return false;
        }
        s->modules = n;
        s->cap_modules = cap;
    }
    s->modules[s->nmodules].ev = *ev;
    s->modules[s->nmodules].acked = !ev->need_ack;
    s->modules[s->nmodules].sym = sym;
    s->nmodules++;
    return true;
}

/* Reads the module's ELF from the device and indexes its symbols. A module
 * whose ELF cannot be read or parsed is still tracked, without symbols. */
static struct sym_module *load_symbols(struct session *s, const struct zd_event *ev)
{
    size_t size = (size_t)(ev->module_end - ev->module_begin);
    struct sym_module *sym = NULL;
    struct zd_error err;
    char msg[128];
    void *buf;

    if (ev->module_end <= ev->module_begin || size > (256u << 20) || !(buf = malloc(size)))
        return NULL;
    if (zd_read_memory(s->zs, zd_thread_all(), ZD_SPACE_DEFAULT, ev->module_begin, size, buf,
                       &err) == 0)
        (void)sym_module_open(buf, size, &sym, msg, sizeof(msg));
    free(buf);
    return sym;
}

static void push(struct pump_event *p, enum sess_note_type type, uint32_t thread)
{
    p->note.type = type;
    p->note.thread = thread;
    sess_push_note(p->m, &p->note);
}

/* The answer to an interrupt of the whole device (the driver's one event
 * with the requested id, compute-runtime's DebugSessionImp): STOPPED means
 * it stopped at least one thread, but not which. Every thread that was not
 * known stopped is then stopped or idle: unread until something reads it.
 * UNAVAILABLE means it stopped none: threads thought running are idle.
 * Per-thread stops of the same moment (breakpoints...) have their own
 * events, before or after this one. */
static void on_device_answer(struct session *s, bool stopped)
{
    for (uint32_t t = 0; t < s->nthreads; t++) {
        uint8_t st = s->state[t];
        if (stopped && (st == SESS_T_RUNNING || st == SESS_T_UNAVAILABLE))
            s->state[t] = SESS_T_UNREAD;
        else if (!stopped && st == SESS_T_RUNNING)
            sess_set_state(s, t, SESS_T_UNAVAILABLE);
    }
    s->answers++;
}

/* THREAD_STOPPED and THREAD_UNAVAILABLE: a thread's state changes, or a
 * device's interrupt was answered; sess_settle and sess_stop_all learn that
 * the device answered. */
static void on_thread(struct pump_event *p)
{
    struct session *s = p->s;
    bool stop = p->ev->type == ZD_EV_THREAD_STOPPED;
    enum sess_note_type type = stop ? SESS_NOTE_STOPPED : SESS_NOTE_UNAVAILABLE;
    uint32_t t;

    s->stop_events++;
    pthread_cond_broadcast(&p->m->cv); /* sess_settle, sess_stop_all */
    if (!sess_thread_valid(s, p->ev->thread)) {
        on_device_answer(s, stop);
        p->note.answer = s->answers;
        push(p, type, UINT32_MAX);
        return;
    }
    t = sess_thread_index(s, p->ev->thread);
    if (stop && s->owed[t]) {
        s->owed[t] = 0; /* the event of a stop already counted */
    } else if (stop && !sess_state_stopped(s->state[t])) {
        /* Also an unread thread: a stop of its own (or the answer to an
         * interrupt of this one thread). */
        sess_set_state(s, t, SESS_T_STOPPED);
        push(p, type, t);
    } else if (!stop && (s->state[t] == SESS_T_RUNNING || s->state[t] == SESS_T_UNREAD)) {
        sess_set_state(s, t, SESS_T_UNAVAILABLE);
        push(p, type, t);
    }
}

static void on_module_load(struct pump_event *p)
{
    const struct zd_event *ev = p->ev;
    /* An empty module is acknowledged at once and otherwise ignored, as
     * Intel's server does (its unload finds nothing). */
    if (ev->module_begin >= ev->module_end) {
        sym_module_close(p->sym);
        return;
    }
    if (!add_module(p->s, ev, p->sym))
        return; /* acknowledged at once */
    /* Held: the layer above acknowledges when it knows the module. */
    p->ack_now = false;
    p->note.module_begin = ev->module_begin;
    p->note.module_end = ev->module_end;
    p->note.module_load = ev->module_load;
    p->note.need_ack = ev->need_ack;
    push(p, SESS_NOTE_MODULE_LOAD, 0);
}

static void on_module_unload(struct pump_event *p)
{
    struct session *s = p->s;
    const struct zd_event *ev = p->ev;
    for (size_t i = 0; i < s->nmodules; i++) {
        struct module_rec *r = &s->modules[i];
        if (r->ev.module_begin != ev->module_begin || r->ev.module_end != ev->module_end)
            continue;
        if (!r->acked) { /* never leave the application blocked */
            p->held_load = r->ev;
            p->ack_held = true;
        }
        sym_module_close(r->sym);
        s->modules[i] = s->modules[--s->nmodules];
        break;
    }
    p->note.module_begin = ev->module_begin;
    p->note.module_end = ev->module_end;
    p->note.module_load = ev->module_load;
    push(p, SESS_NOTE_MODULE_UNLOAD, 0);
}

static void on_page_fault(struct pump_event *p)
{
    struct session *s = p->s;
    if (s->nfaults == s->cap_faults) {
        size_t cap = s->cap_faults ? s->cap_faults * 2 : 8;
        struct fault_rec *n = realloc(s->faults, cap * sizeof(*n));
        if (n) {
            s->faults = n;
            s->cap_faults = cap;
        }
    }
    if (s->nfaults < s->cap_faults) {
        s->faults[s->nfaults].address = p->ev->fault_address;
        s->faults[s->nfaults].reason = p->ev->fault_reason;
        s->nfaults++;
    }
    p->note.fault_address = p->ev->fault_address;
    p->note.fault_reason = p->ev->fault_reason;
    push(p, SESS_NOTE_PAGE_FAULT, 0);
}

static void on_process_entry(struct pump_event *p)
{
    push(p, SESS_NOTE_PROCESS_ENTRY, 0);
}

static void on_process_exit(struct pump_event *p)
{
    push(p, SESS_NOTE_PROCESS_EXIT, 0);
}

/* A DETACHED the reader made up because reads kept failing is not the
 * application's end: the words are kept so the layer above can tell the
 * truth and detach (which the reader thread cannot do). */
static void on_detached(struct pump_event *p)
{
    const struct zd_error *e = p->ev->read_error;
    if (e && !p->s->exited)
        snprintf(p->s->stream_error, sizeof(p->s->stream_error), "%s",
                 e->msg[0] ? e->msg : "reading a debug event failed");
    sess_mark_exited(p->m, p->s);
}

bool sess_stream_failed(struct sess_manager *m, unsigned session, char *why, size_t len)
{
    bool failed;
    pthread_mutex_lock(&m->lock);
    failed = session < m->nsessions && m->sessions[session].stream_error[0];
    if (failed && len)
        snprintf(why, len, "%s", m->sessions[session].stream_error);
    pthread_mutex_unlock(&m->lock);
    return failed;
}

static void (*const handlers[])(struct pump_event *) = {
    [ZD_EV_DETACHED] = on_detached,           [ZD_EV_PROCESS_ENTRY] = on_process_entry,
    [ZD_EV_PROCESS_EXIT] = on_process_exit,   [ZD_EV_MODULE_LOAD] = on_module_load,
    [ZD_EV_MODULE_UNLOAD] = on_module_unload, [ZD_EV_THREAD_STOPPED] = on_thread,
    [ZD_EV_THREAD_UNAVAILABLE] = on_thread,   [ZD_EV_PAGE_FAULT] = on_page_fault,
};

void sess_on_event(void *ctx, const struct zd_event *ev)
{
    struct pump_ctx *pc = ctx;
    struct pump_event p = {.m = pc->m, .s = &pc->m->sessions[pc->index], .ev = ev};
    struct zd_error err;

    p.note.session = pc->index;
    p.ack_now = ev->need_ack;
    if (ev->type == ZD_EV_MODULE_LOAD)
        p.sym = load_symbols(p.s, ev); /* device access: outside the lock */
    pthread_mutex_lock(&p.m->lock);
    if ((size_t)ev->type < sizeof(handlers) / sizeof(handlers[0]) && handlers[ev->type])
        handlers[ev->type](&p);
    pthread_mutex_unlock(&p.m->lock);
    /* Device calls happen outside the lock. Everything but module loads is
     * acknowledged once recorded. */
    if (p.ack_held)
        (void)zd_ack(p.s->zs, &p.held_load, &err);
    if (p.ack_now)
        (void)zd_ack(p.s->zs, ev, &err);
}
