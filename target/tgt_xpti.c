/* SPDX-License-Identifier: MIT */
#include "target/tgt_xpti.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sessions/sess.h"
#include "sessions/sess_where.h"
#include "sessions/sess_xpti.h"
#include "symbols/symbols.h"

/* Names per (device, PC) per stop: thousands of threads stop at a handful
 * of PCs, so a small direct-mapped cache saves the symbol lookups. */
#define NAME_SLOTS 256
#define NAME_LEN 128
/* A name needs the thread's PC, and the first PC read of a stop is a
 * device read (about 70 us each on gtsim): GDB lists the threads after
 * every stop, so a device with more stopped threads than this gets no
 * names rather than seconds of reads per stop (`monitor threads` still
 * groups them). */
#define NAME_MAX_STOPPED 4096
#define RETRY_NS 1000000000ull

struct name_slot {
    uint64_t gen; /* xp->gen + 1 when filled; 0: empty */
    unsigned session;
    uint64_t pc;
    char name[NAME_LEN]; /* "" : no name for that PC */
};

struct tgt_xpti {
    uint32_t pid;
    struct sess_xpti *x;
    char note[320];
    uint64_t stops, tried_stop; /* stop counter; its value at the last look */
    uint64_t gen;               /* names change: a stop, or the table found */
    uint64_t last_try_ns, stop_ns;
    struct name_slot names[NAME_SLOTS];
    /* Per device: stopped threads at stop number stopped_at[k] (+1). */
    unsigned ndev;
    uint32_t *stopped;
    uint64_t *stopped_at;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct tgt_xpti *tgt_xpti_new(uint32_t host_pid)
{
    struct tgt_xpti *xp = calloc(1, sizeof(*xp));
    if (!xp)
        return NULL;
    xp->pid = host_pid;
    if (snprintf(xp->note, sizeof(xp->note), "XPTI table of pid %u not looked for yet",
                 (unsigned)host_pid) < 0)
        xp->note[0] = 0;
    return xp;
}

void tgt_xpti_free(struct tgt_xpti *xp)
{
    if (!xp)
        return;
    sess_xpti_close(xp->x);
    free(xp->stopped);
    free(xp->stopped_at);
    free(xp);
}

void tgt_xpti_stopped(struct tgt_xpti *xp)
{
    if (!xp)
        return;
    xp->stops++;
    xp->gen++; /* empties the name cache */
    xp->stop_ns = now_ns();
    sess_xpti_new_stop(xp->x);
}

struct sess_xpti *tgt_xpti_table(struct tgt_xpti *xp, bool now)
{
    uint64_t t;
    if (!xp || xp->x)
        return xp ? xp->x : NULL;
    t = now_ns();
    /* Every qXfer:threads asks for every stopped thread: the /proc scan
     * must not follow it. */
    if (!now && (xp->tried_stop == xp->stops || t - xp->last_try_ns < RETRY_NS))
        return NULL;
    xp->tried_stop = xp->stops;
    xp->last_try_ns = t;
    xp->x = sess_xpti_open(xp->pid, xp->note, sizeof(xp->note));
    if (xp->x)
        xp->gen++; /* names may now carry submitting lines */
    return xp->x;
}

const char *tgt_xpti_note(const struct tgt_xpti *xp)
{
    return xp ? xp->note : "no XPTI table: nothing is attached";
}

uint32_t tgt_xpti_pid(const struct tgt_xpti *xp)
{
    return xp ? xp->pid : 0;
}

uint64_t tgt_xpti_stop_ns(const struct tgt_xpti *xp)
{
    return xp ? xp->stop_ns : 0;
}

const struct sess_xpti_submission *tgt_xpti_submission(struct tgt_xpti *xp, struct sess_manager *m,
                                                       unsigned session, const char *kernel)
{
    struct sess_xpti *x = tgt_xpti_table(xp, false);
    return x ? sess_xpti_submission(x, m, session, kernel, xp->stop_ns) : NULL;
}

const struct xtab_site *tgt_xpti_common_site(const struct sess_xpti_submission *s)
{
    if (!s || s->ncand == 0 || s->ncand < s->total)
        return NULL;
    for (size_t i = 1; i < s->ncand; i++)
        if (s->cand[i].site != s->cand[0].site)
            return NULL;
    return s->cand[0].site;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Writes the name of the code at pc into buf ("" when it has none). */
static void make_name(struct tgt_xpti *xp, struct sess_manager *m, unsigned session, uint64_t pc,
                      char *buf, size_t len)
{
    struct sess_where w;
    const struct sym_location *loc = &w.loc;
    const struct xtab_site *site;
    int n;

    buf[0] = 0;
    if (sess_where_pc(m, session, pc, &w) != 0)
        return;
    if (loc->has_line)
        n = snprintf(buf, len, "%s @ %s:%u", loc->kernel, base_name(loc->file),
                     (unsigned)loc->line);
    else
        n = snprintf(buf, len, "%s", loc->kernel);
    if (n < 0 || (size_t)n >= len)
        return; /* truncated: still a useful prefix */
    site = tgt_xpti_common_site(tgt_xpti_submission(xp, m, session, loc->kernel));
    if (site && site->file[0] &&
        snprintf(buf + n, len - (size_t)n, " (%s:%u)", base_name(site->file),
                 (unsigned)site->line) < 0)
        buf[n] = 0;
}

/* Whether the device has few enough stopped threads to name them; counted
 * once per stop, as this is asked for every thread of a list. */
static bool few_stopped(struct tgt_xpti *xp, struct sess_manager *m, unsigned session)
{
    if (session >= xp->ndev) {
        unsigned n = sess_count(m) > session ? sess_count(m) : session + 1;
        uint32_t *st = realloc(xp->stopped, n * sizeof(*st));
        uint64_t *at;
        if (!st)
            return false;
        xp->stopped = st;
        if (!(at = realloc(xp->stopped_at, n * sizeof(*at))))
            return false;
        xp->stopped_at = at;
        memset(at + xp->ndev, 0, (n - xp->ndev) * sizeof(*at));
        xp->ndev = n;
    }
    if (xp->stopped_at[session] != xp->stops + 1) {
        uint32_t n = 0, nth = sess_thread_count(m, session);
        for (uint32_t th = 0; th < nth; th++) {
            enum sess_thread_state st = sess_thread_state_known(m, session, th, NULL);
            n += st == SESS_T_STOPPED || st == SESS_T_HELD;
        }
        xp->stopped[session] = n;
        xp->stopped_at[session] = xp->stops + 1;
    }
    return xp->stopped[session] <= NAME_MAX_STOPPED;
}

int tgt_xpti_thread_name(struct tgt_xpti *xp, struct sess_manager *m, unsigned session,
                         uint32_t thread, char *buf, size_t len)
{
    enum sess_thread_state st = sess_thread_state_known(m, session, thread, NULL);
    struct zd_error e;
    struct name_slot *slot;
    uint64_t pc;

    /* Without xp (no memory at attach) there is no per-stop cache to
     * bound the cost: no names. */
    if (!xp || !len || (st != SESS_T_STOPPED && st != SESS_T_HELD) ||
        !few_stopped(xp, m, session) || sess_thread_pc(m, session, thread, &pc, &e) != 0)
        return -ENOENT;
    slot = &xp->names[(pc >> 3 ^ pc >> 11 ^ session * 0x9e37u) % NAME_SLOTS];
    if (slot->gen != xp->gen + 1 || slot->session != session || slot->pc != pc) {
        make_name(xp, m, session, pc, slot->name, sizeof(slot->name));
        /* +1: a slot filled before the first stop is still not "empty". */
        slot->gen = xp->gen + 1;
        slot->session = session;
        slot->pc = pc;
    }
    if (!slot->name[0])
        return -ENOENT;
    if (snprintf(buf, len, "%s", slot->name) < 0)
        return -ENOENT;
    return 0;
}
