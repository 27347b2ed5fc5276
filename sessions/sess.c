/* SPDX-License-Identifier: MIT */
/* sessions: attach and detach, modules, faults and stats. The thread
 * table is in sess_threads.c, the event pump in sess_pump.c, the note
 * queue in sess_notes.c. */
#include "sessions/sess.h"

#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "regsets/regs.h"
#include "sessions/sess_impl.h"

void sess_options_from_env(struct sess_options *o)
{
    const char *no_sub = getenv("ZESTUB_NO_SUBDEVICE_ATTACH");
    const char *no_root = getenv("ZESTUB_NO_DEVICE_ATTACH");
    o->attach_subdevices = !(no_sub && *no_sub && strcmp(no_sub, "0") != 0);
    o->attach_roots = !(no_root && *no_root && strcmp(no_root, "0") != 0);
}

/* ---- attach / detach ----------------------------------------------------- */

static int add_session(struct sess_manager *m, size_t device, uint32_t pid, struct zd_error *err)
{
    const struct zd_device *d = zd_device_at(m->zd, device);
    struct session *s = &m->sessions[m->nsessions];
    int rc;

    memset(s, 0, sizeof(*s));
    s->interrupt_mark = UINT64_MAX; /* not interrupted yet */
    s->m = m;
    s->index = m->nsessions;
    s->device = device;
    s->dev = d;
    s->nthreads = d->nthreads;
    rc = zd_regsets(m->zd, device, s->regsets, MAX_REGSETS, &s->nregsets, err);
    if (rc)
        return rc;
    s->state = calloc(s->nthreads, 1);
    s->owed = calloc(s->nthreads, 1);
    s->marks = calloc(s->nthreads, 1);
    s->cache = calloc((size_t)s->nthreads * s->nregsets, sizeof(uint8_t *));
    s->layout = calloc(s->nthreads, 1);
    s->layouts = calloc(SESS_MAX_LAYOUTS, sizeof(*s->layouts));
    s->nlayouts = 1; /* [0]: the device's sets, kept in regsets */
    /* Without the loader's query, nothing is ever asked (or read to ask). */
    s->no_thread_query = !zd_has_thread_regsets(m->zd);
    if (!s->state || !s->cache || !s->owed || !s->marks || !s->layout || !s->layouts) {
        free(s->owed);
        free(s->marks);
        free(s->state);
        free(s->cache);
        free(s->layout);
        free(s->layouts);
        err->code = ZD_E_NOMEM;
        snprintf(err->msg, sizeof(err->msg), "out of memory for %u threads", s->nthreads);
        return ZD_E_NOMEM;
    }
    rc = zd_attach(m->zd, device, pid, &s->zs, err);
    if (rc) {
        free(s->state);
        free(s->owed);
        free(s->marks);
        free(s->cache);
        free(s->layout);
        free(s->layouts);
        return rc;
    }
    s->alive = true;
    m->nsessions++;
    return 0;
}

static void append_failure(struct zd_error *all, const struct zd_device *d,
                           const struct zd_error *e, bool *first)
{
    size_t len = strlen(all->msg);
    if (*first) {
        all->code = e->code;
        all->raw = e->raw;
        *first = false;
    }
    snprintf(all->msg + len, sizeof(all->msg) - len, "%sDevice %u [%s] : %s", len ? "\n" : "",
             d->index, d->pci_slot, e->msg);
}

int sess_attach(struct zd *zd, uint32_t pid, const struct sess_options *opt,
                struct sess_manager **out, struct zd_error *err)
{
    size_t n = zd_device_count(zd);
    struct sess_manager *m = calloc(1, sizeof(*m));
    bool first_failure = true, any_supported = false;

    memset(err, 0, sizeof(*err));
    if (!m || !(m->sessions = calloc(n ? n : 1, sizeof(*m->sessions)))) {
        free(m);
        err->code = ZD_E_NOMEM;
        snprintf(err->msg, sizeof(err->msg), "out of memory");
        return ZD_E_NOMEM;
    }
    m->zd = zd;
    m->notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    pthread_mutex_init(&m->lock, NULL);
    {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&m->cv, &ca);
        pthread_condattr_destroy(&ca);
    }
    for (size_t i = 0; i < n; i++) {
        const struct zd_device *root = zd_device_at(zd, i);
        bool sub_attached = false;
        struct zd_error e;
        if (root->parent >= 0)
            continue;
        /* Sub-devices in preference to their root, like Intel's server. */
        for (size_t j = 0; opt->attach_subdevices && j < n; j++) {
            const struct zd_device *sub = zd_device_at(zd, j);
            if (sub->parent != (int)i || !sub->can_attach)
                continue;
            any_supported = true;
            if (add_session(m, j, pid, &e) == 0)
                sub_attached = true;
            else
                append_failure(err, sub, &e, &first_failure);
        }
        if (sub_attached || !opt->attach_roots || !root->can_attach)
            continue;
        any_supported = true;
        if (add_session(m, i, pid, &e) != 0)
            append_failure(err, root, &e, &first_failure);
    }
    if (m->nsessions == 0) {
        if (!any_supported) {
            err->code = ZD_E_NOT_SUPPORTED;
            snprintf(err->msg, sizeof(err->msg), "No supported devices found.");
        }
        sess_detach_all(m);
        return err->code ? err->code : ZD_E_OTHER;
    }
    /* Partial success: the failures stay in err->msg for the caller to show. */
    err->code = 0;
    m->pumps = calloc(m->nsessions, sizeof(*m->pumps));
    if (!m->pumps) {
        sess_detach_all(m);
        err->code = ZD_E_NOMEM;
        snprintf(err->msg, sizeof(err->msg), "out of memory");
        return ZD_E_NOMEM;
    }
    for (unsigned k = 0; k < m->nsessions; k++) {
        struct zd_error e;
        m->pumps[k].m = m;
        m->pumps[k].index = k;
        if (zd_start_reader(m->sessions[k].zs, sess_on_event, &m->pumps[k], &e) != 0) {
            *err = e;
            sess_detach_all(m);
            return e.code ? e.code : ZD_E_OTHER;
        }
    }
    *out = m;
    return 0;
}

/* Releases held modules (so the application never stays blocked in module
 * creation behind us) and detaches; the driver resumes the threads. */
static int close_session(struct sess_manager *m, struct session *s, struct zd_error *derr)
{
    struct zd_error e;
    struct module_rec *mods;
    size_t nmods;
    int rc;

    if (s->detached)
        return 0;
    /* The pump runs until zd_detach returns and frees a module's symbols
     * on MODULE_UNLOAD: take the list away from it first, and free the
     * symbols only once it can no longer be called. */
    pthread_mutex_lock(&m->lock);
    mods = s->modules;
    nmods = s->nmodules;
    s->modules = NULL;
    s->nmodules = s->cap_modules = 0;
    pthread_mutex_unlock(&m->lock);
    for (size_t i = 0; i < nmods; i++)
        if (!mods[i].acked)
            (void)zd_ack(s->zs, &mods[i].ev, &e);
    /* zd_detach joins the pump, which may need the lock: not held here.
     * Or, when the reader is inside a read, it hands the detach over
     * (ZD_E_PENDING) and the pump is never called again: the reader drops
     * what it reads and detaches. Either way nothing calls back after
     * this, so the symbols and the state can go. The late answer is the
     * zd handle's (zd_wait_detached, zd_on_detach_failure). */
    rc = zd_detach(s->zs, derr ? derr : &e);
    if (rc == ZD_E_PENDING)
        rc = 0;
    for (size_t i = 0; i < nmods; i++)
        sym_module_close(mods[i].sym);
    free(mods);
    pthread_mutex_lock(&m->lock);
    /* Modules the pump recorded after we took the list. */
    for (size_t i = 0; i < s->nmodules; i++)
        sym_module_close(s->modules[i].sym);
    s->nmodules = 0;
    s->zs = NULL;
    s->detached = true;
    s->alive = false;
    for (uint32_t t = 0; s->cache && t < s->nthreads; t++)
        sess_set_state(s, t, SESS_T_UNAVAILABLE);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

int sess_detach(struct sess_manager *m, unsigned session, struct zd_error *err)
{
    if (session >= m->nsessions)
        return ZD_E_INVALID;
    return close_session(m, &m->sessions[session], err);
}

void sess_detach_all(struct sess_manager *m)
{
    if (!m)
        return;
    for (unsigned k = 0; k < m->nsessions; k++) {
        struct session *s = &m->sessions[k];
        (void)close_session(m, s, NULL);
        for (uint32_t t = 0; s->cache && t < s->nthreads; t++)
            sess_drop_cache(s, t);
        free(s->cache);
        free(s->layout);
        free(s->layouts);
        free(s->sba);
        free(s->state);
        free(s->owed);
        free(s->marks);
        free(s->modules);
        free(s->faults);
    }
    free(m->pumps);
    free(m->notes);
    if (m->notify_fd >= 0)
        close(m->notify_fd);
    free(m->sessions);
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->cv);
    free(m);
}

/* ---- queries --------------------------------------------------------------- */

unsigned sess_count(struct sess_manager *m)
{
    return m->nsessions;
}

const struct zd_device *sess_device(struct sess_manager *m, unsigned session)
{
    return session < m->nsessions ? m->sessions[session].dev : NULL;
}

bool sess_alive(struct sess_manager *m, unsigned session)
{
    bool alive;
    pthread_mutex_lock(&m->lock);
    alive = session < m->nsessions && m->sessions[session].alive;
    pthread_mutex_unlock(&m->lock);
    return alive;
}

bool sess_exited(struct sess_manager *m, unsigned session)
{
    bool exited;
    pthread_mutex_lock(&m->lock);
    exited = session < m->nsessions && m->sessions[session].exited;
    pthread_mutex_unlock(&m->lock);
    return exited;
}

/* Acknowledges a module load, retrying a failed acknowledgement (an ioctl
 * error: the load stays held in the application until one succeeds). When
 * it keeps failing the module is left unacknowledged, so the detach
 * acknowledges it again rather than leave the application blocked. */
static int ack_module(struct sess_manager *m, struct session *s, const struct zd_event *ev,
                      struct zd_error *err)
{
    const struct timespec pause = {0, 20 * 1000000L};
    int rc = zd_ack(s->zs, ev, err);
    for (int i = 0; rc != 0 && rc != ZD_E_LOST && i < 3; i++) {
        nanosleep(&pause, NULL);
        rc = zd_ack(s->zs, ev, err);
    }
    if (rc == 0 || rc == ZD_E_LOST)
        return rc;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < s->nmodules; i++)
        if (s->modules[i].ev.module_begin == ev->module_begin &&
            s->modules[i].ev.module_end == ev->module_end)
            s->modules[i].acked = false;
    pthread_mutex_unlock(&m->lock);
    return rc;
}

int sess_module_release(struct sess_manager *m, unsigned session, uint64_t begin, uint64_t end,
                        struct zd_error *err)
{
    struct session *s;
    struct zd_event ev;
    bool found = false;
    if (session >= m->nsessions)
        return ZD_E_INVALID;
    s = &m->sessions[session];
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < s->nmodules; i++)
        if (s->modules[i].ev.module_begin == begin && s->modules[i].ev.module_end == end &&
            !s->modules[i].acked) {
            s->modules[i].acked = true;
            ev = s->modules[i].ev;
            found = true;
            break;
        }
    pthread_mutex_unlock(&m->lock);
    return found ? ack_module(m, s, &ev, err) : 0;
}

size_t sess_module_count(struct sess_manager *m, unsigned session)
{
    size_t n;
    if (session >= m->nsessions)
        return 0;
    pthread_mutex_lock(&m->lock);
    n = m->sessions[session].nmodules;
    pthread_mutex_unlock(&m->lock);
    return n;
}

int sess_module_at(struct sess_manager *m, unsigned session, size_t i, struct sess_module_info *out)
{
    int rc = ZD_E_INVALID;
    if (session >= m->nsessions)
        return rc;
    pthread_mutex_lock(&m->lock);
    if (i < m->sessions[session].nmodules) {
        const struct module_rec *r = &m->sessions[session].modules[i];
        out->begin = r->ev.module_begin;
        out->end = r->ev.module_end;
        out->load = r->ev.module_load;
        out->need_ack = r->ev.need_ack;
        out->acked = r->acked;
        out->has_symbols = r->sym != NULL;
        rc = 0;
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

const struct sym_module *sess_module_symbols(struct sess_manager *m, unsigned session, size_t i)
{
    const struct sym_module *sym = NULL;
    if (session >= m->nsessions)
        return NULL;
    pthread_mutex_lock(&m->lock);
    if (i < m->sessions[session].nmodules)
        sym = m->sessions[session].modules[i].sym;
    pthread_mutex_unlock(&m->lock);
    return sym;
}

void sess_get_stats(struct sess_manager *m, struct sess_stats *out)
{
    pthread_mutex_lock(&m->lock);
    *out = m->stats;
    pthread_mutex_unlock(&m->lock);
}

size_t sess_fault_count(struct sess_manager *m, unsigned session)
{
    size_t n;
    pthread_mutex_lock(&m->lock);
    n = session < m->nsessions ? m->sessions[session].nfaults : 0;
    pthread_mutex_unlock(&m->lock);
    return n;
}

int sess_fault_at(struct sess_manager *m, unsigned session, size_t i, uint64_t *address,
                  enum zd_fault_reason *reason)
{
    int rc = ZD_E_INVALID;
    pthread_mutex_lock(&m->lock);
    if (session < m->nsessions && i < m->sessions[session].nfaults) {
        *address = m->sessions[session].faults[i].address;
        *reason = m->sessions[session].faults[i].reason;
        rc = 0;
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}
