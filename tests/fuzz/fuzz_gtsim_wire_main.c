/* SPDX-License-Identifier: MIT */
/* The plain program of fuzz_gtsim_wire (the libFuzzer build leaves this
 * file out): `main` replays the files named on its command line (or the
 * checked-in corpus), then mutations of sound debugger sessions (TAP, one
 * check per promise of fuzz_gtsim_wire.h); `fuzz_gtsim_wire --write-seeds
 * DIR` writes those sessions as a corpus. The attach message carries the
 * simulated hardware's fingerprint: the program sets GTSIM_CONFIG=tiles=2
 * for itself (gtsim_wire_world.h), so that the checked-in seeds attach. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtsim/dbg_proto.h"
#include "gtsim/gtsim.h"
#include "tests/fuzz/fuzz_gtsim_wire.h"
#include "tests/fuzz/plain.h"
#include "tests/fuzz/gtsim_wire_world.h"
#include "tests/lib/slurp.h"
#include "tests/lib/tap.h"

/* Bounded so that `make check` under ASan stays well under a minute. */
#define MUTATIONS 5000
#define SEEDS 3

/* What the last session did (of gtsim_wire_check_session's two, the one
 * that ran last). */
static const struct gtsim_wire_last *const last = &gtsim_wire_last;

struct msgbuf {
    uint8_t *b;
    size_t n, cap;
};

/* Starts m with its control byte (the first byte of every input). */
static void start(struct msgbuf *m, uint8_t ctl)
{
    if (!m->cap && !(m->b = malloc(m->cap = 256)))
        tap_bail("out of memory");
    m->b[0] = ctl;
    m->n = 1;
}

static void add(struct msgbuf *m, uint32_t type, const void *body, size_t len, const void *data,
                size_t dlen)
{
    struct gtsim_dbg_hdr h = {type, (uint32_t)(len + dlen)};
    size_t need = m->n + sizeof(h) + len + dlen;
    if (need > m->cap) {
        m->cap = need * 2;
        m->b = realloc(m->b, m->cap);
        if (!m->b)
            tap_bail("out of memory");
    }
    memcpy(m->b + m->n, &h, sizeof(h));
    if (len)
        memcpy(m->b + m->n + sizeof(h), body, len);
    if (dlen)
        memcpy(m->b + m->n + sizeof(h) + len, data, dlen);
    m->n = need;
}

static const ze_device_thread_t all_threads = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};

static void add_attach(struct msgbuf *m, int32_t tile)
{
    struct gtsim_dbg_attach a = {
        .ordinal = 0, .tile = tile, .config_id = gtsim_wire_world.config_id};
    add(m, GTSIM_DBG_ATTACH, &a, sizeof(a), NULL, 0);
}

static void add_mem(struct msgbuf *m, uint32_t type, uint64_t addr, uint64_t size, uint32_t space)
{
    static uint8_t data[256];
    struct gtsim_dbg_mem_req r = {
        .thread = all_threads, .space = space, .address = addr, .size = size};
    memset(data, 0xa5, sizeof(data));
    add(m, type, &r, sizeof(r), data, type == GTSIM_DBG_WRITE_MEM && size <= 256 ? size : 0);
}

/* Sound sessions: 0 memory and the module's image, 1 run control,
 * registers and an acknowledgement, 2 a tile session. */
static void make_seed(int which, struct msgbuf *m)
{
    uint64_t buf = gtsim_wire_symbolic(TAG_BUFFER, 0), img = gtsim_wire_symbolic(TAG_IMAGE, 0);
    struct gtsim_dbg_thread_req t = {.thread = all_threads};
    struct gtsim_dbg_reg_req rr = {.thread = {0, 0, 0, 0}, .type = 1, .start = 0, .count = 1};
    zet_debug_event_t ev = {.type = ZET_DEBUG_EVENT_TYPE_MODULE_LOAD};
    start(m, CTL_SOUND);
    add_attach(m, which == 2 ? 0 : -1);
    if (which == 0) {
        add_mem(m, GTSIM_DBG_READ_MEM, buf, 64, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT);
        add_mem(m, GTSIM_DBG_WRITE_MEM, buf + 64, 16, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT);
        add_mem(m, GTSIM_DBG_READ_MEM, img, 64, ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT);
        add_mem(m, GTSIM_DBG_READ_MEM, gtsim_wire_symbolic(TAG_ISA, 0), 32,
                ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT);
        add_mem(m, GTSIM_DBG_READ_MEM, 1ull << 28, 16, ZET_DEBUG_MEMORY_SPACE_TYPE_SLM);
    } else {
        add(m, GTSIM_DBG_INTERRUPT, &t, sizeof(t), NULL, 0);
        add(m, GTSIM_DBG_RESUME, &t, sizeof(t), NULL, 0);
        add(m, GTSIM_DBG_READ_REGS, &rr, sizeof(rr), NULL, 0);
        add(m, GTSIM_DBG_WRITE_REGS, &rr, sizeof(rr), "\1\2\3\4", 4);
        ev.info.module.moduleBegin =
            gtsim_wire_world.module ? (uint64_t)(uintptr_t)gtsim_wire_world.module->debug_image : 0;
        add(m, GTSIM_DBG_ACK, &ev, sizeof(ev), NULL, 0);
    }
    add(m, GTSIM_DBG_DETACH, NULL, 0, NULL, 0);
}

static int write_seeds(const char *dir)
{
    struct msgbuf m = {0};
    int ok = gtsim_wire_world_init() == 0;
    for (int i = 0; ok && i < SEEDS; i++) {
        char path[1024];
        FILE *f = NULL;
        make_seed(i, &m);
        if (snprintf(path, sizeof(path), "%s/session-%d", dir, i) < (int)sizeof(path))
            f = fopen(path, "wb");
        ok = f && fwrite(m.b, 1, m.n, f) == m.n;
        if (f)
            ok &= fclose(f) == 0;
    }
    free(m.b);
    return ok ? 0 : 1;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    return fuzz_xorshift(&rng);
}

/* A value a hostile debugger would try in a length, type, address or id. */
static uint64_t hostile(void)
{
    static const uint64_t v[] = {0,
                                 1,
                                 UINT32_MAX,
                                 UINT64_MAX,
                                 GTSIM_DBG_MAX_PAYLOAD,
                                 GTSIM_DBG_MAX_PAYLOAD + 1,
                                 GTSIM_DBG_MAX_XFER,
                                 1ull << 28,
                                 0x7fffffff,
                                 GTSIM_DBG_DETACH,
                                 GTSIM_DBG_WRITE_MEM};
    return next_random() % 4 ? v[next_random() % (sizeof(v) / sizeof(v[0]))] : next_random();
}

/* One mutation of a sound session into out; returns its length. */
static size_t mutate(uint8_t *out, size_t cap, const struct msgbuf *s)
{
    size_t n = s->n < cap ? s->n : cap;
    memcpy(out, s->b, n);
    /* Which messages bring descriptors: none, two at once, or with others. */
    if (n && next_random() % 8 == 0)
        out[0] = (uint8_t)next_random();
    int edits = 1 + (int)(next_random() % 6);
    for (int k = 0; k < edits && n; k++) {
        size_t at = next_random() % n;
        uint64_t v = hostile();
        size_t w = (size_t)1 << (next_random() % 4);
        switch (next_random() % 4) {
        case 0:
            out[at] ^= (uint8_t)(1u << (next_random() % 8));
            break;
        case 1: /* a field overwritten, aligned as the structs are */
            at &= ~(w - 1);
            if (at + w <= n)
                memcpy(out + at, &v, w);
            break;
        case 2: /* a run duplicated: requests repeated, or split in two */
            if (n < cap) {
                size_t len = 1 + next_random() % 64;
                len = len > cap - n ? cap - n : len;
                len = len > n - at ? n - at : len;
                memmove(out + at + len, out + at, n - at);
                n += len;
            }
            break;
        default: /* a cut */
            n = at;
            break;
        }
    }
    return n;
}

/* After everything, a sound debugger still attaches, gets the module's
 * load on its event stream, reads back what a hostile one may have written
 * (the buffer holds 0x5a or 0xa5 bytes), and detaches. */
static int still_serves(void)
{
    struct msgbuf m = {0};
    start(&m, CTL_SOUND);
    add_attach(&m, -1);
    add_mem(&m, GTSIM_DBG_READ_MEM, gtsim_wire_symbolic(TAG_BUFFER, 0), 16,
            ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT);
    add(&m, GTSIM_DBG_DETACH, NULL, 0, NULL, 0);
    unsigned bad = gtsim_wire_check_session(m.b, m.n);
    free(m.b);
    return bad == 0 && last->replies == 3 && last->first_result == ZE_RESULT_SUCCESS &&
           last->events >= 1;
}

/* The sound sessions: each attaches, gets the module's load on its event
 * stream, reaches memory and keeps every promise. Returns the longest. */
static size_t check_seeds(struct msgbuf *seeds)
{
    unsigned seed_bad = 0, attached = 0;
    size_t cap = 0;
    for (int i = 0; i < SEEDS; i++) {
        make_seed(i, &seeds[i]);
        unsigned bad = gtsim_wire_check_session(seeds[i].b, seeds[i].n);
        seed_bad |= bad;
        /* Seed 0's attach, four memory requests (buffer, image, ISA) and
         * detach succeed; the others' attach and detach. */
        attached += last->first_result == ZE_RESULT_SUCCESS && last->successes >= (i ? 2u : 6u) &&
                    last->events >= 1;
        if (bad || last->first_result != ZE_RESULT_SUCCESS)
            tap_diag("seed %d: broken promises %#x, attach answered %#x, %u successes, %ld "
                     "events",
                     i, bad, last->first_result, last->successes, last->events);
        cap = seeds[i].n > cap ? seeds[i].n : cap;
    }
    tap_ok(gtsim_wire_world.module && seed_bad == 0 && attached == SEEDS,
           "%d sound sessions attach, get the module's load as an event, reach memory (module "
           "loaded: %s), keep every promise",
           SEEDS, gtsim_wire_world.module ? "yes" : "no");
    return cap;
}

/* Seed 0 with its ATTACH bringing no descriptor is refused and served on
 * (its other requests answered, as for any debugger not attached); with
 * two descriptors it attaches, and the one not kept is closed. */
static void check_descriptors(const struct msgbuf *seed0)
{
    uint8_t *b = malloc(seed0->n);
    unsigned bad_bare, bad_two;
    bool bare_refused, two_attach;
    if (!b)
        tap_bail("out of memory");
    memcpy(b, seed0->b, seed0->n);
    b[0] = 0;
    bad_bare = gtsim_wire_check_session(b, seed0->n);
    bare_refused = last->bare_refused && last->successes == 1 && last->events == 0;
    b[0] = CTL_SOUND | CTL_TWO;
    bad_two = gtsim_wire_check_session(b, seed0->n);
    two_attach = last->first_result == ZE_RESULT_SUCCESS && last->events >= 1;
    free(b);
    tap_ok(!bad_bare && bare_refused && !bad_two && two_attach,
           "an ATTACH without an event descriptor is refused (INVALID_ARGUMENT) and the session "
           "served on (%s, broken promises %#x); with two it attaches and closes the other "
           "(%s, %#x)",
           bare_refused ? "yes" : "no", bad_bare, two_attach ? "yes" : "no", bad_two);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
        return write_seeds(argv[2]);
    /* Plan: one check per replayed file (or one for the checked-in corpus),
     * the seeds, descriptors, one per promise, attaches reached, refusals
     * reached, and still serving. */
    tap_plan((argc > 1 ? argc - 1 : 1) + 2 + P_COUNT + 3);
    if (gtsim_wire_world_init() != 0)
        tap_bail("cannot set up the gtsim debuggee in this process");
    fuzz_replay_args(argc, argv, gtsim_wire_check_session);
    if (argc == 1)
        fuzz_replay_corpus("gtsim_wire", SEEDS, gtsim_wire_check_session);
    struct msgbuf seeds[SEEDS] = {{0}};
    size_t cap = check_seeds(seeds) + 4096;
    check_descriptors(&seeds[0]);
    uint8_t *b = malloc(cap);
    unsigned violations[P_COUNT] = {0}, hostile_attached = 0, bare_refused = 0;
    for (int i = 0; b && i < MUTATIONS; i++) {
        const struct msgbuf *s = &seeds[next_random() % SEEDS];
        size_t n = mutate(b, cap, s);
        unsigned bad = gtsim_wire_check_session(b, n);
        hostile_attached += last->first_result == ZE_RESULT_SUCCESS;
        bare_refused += last->bare_refused;
        for (int p = 0; p < P_COUNT; p++)
            if ((bad >> p) & 1 && violations[p]++ == 0)
                tap_diag("mutation %d (%zu bytes) broke: %s", i, n, gtsim_wire_promise_name[p]);
    }
    for (int p = 0; p < P_COUNT; p++)
        tap_ok(b && violations[p] == 0, "%s (%u of %d sessions broke it)",
               gtsim_wire_promise_name[p], violations[p], MUTATIONS);
    tap_ok(hostile_attached > 0 && hostile_attached < MUTATIONS,
           "some mutated sessions attach, some do not (%u of %d attach)", hostile_attached,
           MUTATIONS);
    tap_ok(bare_refused > 0,
           "some mutated sessions begin with an ATTACH without a descriptor, refused (%u of %d)",
           bare_refused, MUTATIONS);
    tap_ok(still_serves(), "afterwards a sound debugger attaches, reads and detaches");
    for (int i = 0; i < SEEDS; i++)
        free(seeds[i].b);
    free(b);
    gtsim_wire_check_free();
    return tap_failed_ ? 1 : 0;
}
