/* SPDX-License-Identifier: MIT */
/* sessions: a thread's register layout. The driver may describe a stopped
 * thread's sets differently from the device's (API 1.5: the GRF count
 * follows the thread's large-GRF mode); register reads and the target
 * description of that thread must follow it. Layouts are kept once per
 * device (few distinct ones exist), a thread holds an index. */
#include <stdio.h>
#include <string.h>

#include "sessions/sess_impl.h"

static bool same_sets(const struct zd_regset *a, size_t na, const struct zd_regset *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (a[i].type != b[i].type || a[i].version != b[i].version || a[i].count != b[i].count ||
            a[i].byte_size != b[i].byte_size)
            return false;
    return true;
}

/* The index of these sets among the device's layouts, added if new; 0
 * (the device's) when there is no room left. */
static unsigned intern(struct session *s, const struct zd_regset *sets, size_t n)
{
    if (same_sets(sets, n, s->regsets, s->nregsets))
        return 0;
    for (unsigned i = 1; i < s->nlayouts; i++)
        if (same_sets(sets, n, s->layouts[i].sets, s->layouts[i].n))
            return i;
    if (s->nlayouts >= SESS_MAX_LAYOUTS)
        return 0;
    memcpy(s->layouts[s->nlayouts].sets, sets, n * sizeof(*sets));
    s->layouts[s->nlayouts].n = n;
    return s->nlayouts++;
}

/* Asks the driver for a stopped thread's sets. Lock held; dropped around
 * the device access. A new layout drops what the cache holds for the
 * thread: it was read with the old counts. */
static void check_layout(struct session *s, uint32_t thread)
{
    struct zd_regset sets[MAX_REGSETS];
    size_t n = 0;
    bool per_thread = false;
    struct zd_error e;
    unsigned li;
    int rc;

    pthread_mutex_unlock(&s->m->lock);
    rc = zd_thread_regsets(s->zs, sess_thread_id(s->m, s->index, thread), sets, MAX_REGSETS, &n,
                           &per_thread, &e);
    pthread_mutex_lock(&s->m->lock);
    if (!sess_state_stopped(s->state[thread]))
        return; /* it ran on meanwhile: ask at its next stop */
    if (rc == 0 && !per_thread) {
        s->no_thread_query = true;
        return;
    }
    li = rc == 0 ? intern(s, sets, n) : (s->layout[thread] & ~LAYOUT_CHECKED);
    if (li != (s->layout[thread] & ~LAYOUT_CHECKED))
        sess_drop_cache(s, thread);
    s->layout[thread] = (uint8_t)(li | LAYOUT_CHECKED);
}

const struct zd_regset *sess_thread_regsets(struct sess_manager *m, unsigned session,
                                            uint32_t thread, bool ask, size_t *n, unsigned *layout)
{
    struct session *s;
    const struct zd_regset *sets;
    unsigned li;

    *n = 0;
    *layout = 0;
    if (session >= m->nsessions || thread >= m->sessions[session].nthreads)
        return NULL;
    s = &m->sessions[session];
    pthread_mutex_lock(&m->lock);
    if (ask && s->layout && !s->no_thread_query && s->alive && !s->detached &&
        !(s->layout[thread] & LAYOUT_CHECKED)) {
        sess_resolve(s, thread); /* UNREAD: stopped or idle? */
        if (sess_state_stopped(s->state[thread]))
            check_layout(s, thread);
    }
    li = s->layout ? s->layout[thread] & ~LAYOUT_CHECKED : 0;
    if (li == 0 || li >= s->nlayouts) {
        li = 0;
        sets = s->regsets;
        *n = s->nregsets;
    } else {
        sets = s->layouts[li].sets;
        *n = s->layouts[li].n;
    }
    *layout = li;
    pthread_mutex_unlock(&m->lock);
    return sets;
}
