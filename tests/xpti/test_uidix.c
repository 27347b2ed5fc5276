/* SPDX-License-Identifier: MIT */
/* The id index (xpti/uidix.c) on its own, with ids chosen to share tags and
 * home slots: real ids almost never do, so the API tests barely reach the
 * probe runs, the wrap-around at the table's end or the backward shift of
 * a removal. A reference model (a plain array of what should be present)
 * is checked against every lookup. */
#include <stdbool.h>
#include <stdint.h>

#include <stdio.h>
#include <string.h>

#include "tests/lib/tap.h"
#include "xpti/arena.h"
#include "xpti/uidix.h"

enum { MAX = 4096 };

/* The model: ids[ref] is the id stored under ref, 0 when none. */
static uint64_t ids[MAX + 1];

static bool model_match(uint32_t ref, uint64_t id, const void *ctx)
{
    (void)ctx;
    return ref <= MAX && ids[ref] == id;
}

/* Ids with one of only `tags` distinct high halves, distinct low halves.
 * The tag is scrambled: sequential tags would land on evenly spread home
 * slots and never form the touching runs a removal has to shift across. */
static uint64_t id_of(uint32_t ref, uint32_t tags)
{
    uint64_t z = (uint64_t)ref * 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9u;
    z ^= z >> 29;
    return (uint64_t)(1 + z % tags) << 32 | ref;
}

/* Every reference the model holds is found under its id, and ids the model
 * does not hold are not. */
static bool agrees(const struct uidix *ix, uint32_t n, uint32_t tags)
{
    for (uint32_t ref = 1; ref <= n; ref++) {
        uint64_t id = id_of(ref, tags);
        uint32_t got = uidix_find(ix, id, model_match, NULL);
        if (ids[ref] ? got != ref : got != 0)
            return false;
    }
    return uidix_find(ix, id_of(n + 1, tags), model_match, NULL) == 0;
}

static bool claim(struct uidix *ix, uint32_t ref, uint32_t tags)
{
    uint64_t id = id_of(ref, tags);
    ids[ref] = id;
    return uidix_claim(ix, id, ref, model_match, NULL) == 0;
}

/* mem NULL: tables from malloc; else from that arena (the registry's way). */
static void run(uint32_t n, uint32_t tags, const char *what, struct arena *mem)
{
    struct uidix ix;
    if (!tap_ok(uidix_init_in(&ix, 4, mem) == 0, "%s: init", what))
        return;
    for (uint32_t ref = 0; ref <= MAX; ref++)
        ids[ref] = 0;
    bool ok = true;
    for (uint32_t ref = 1; ref <= n; ref++)
        ok = ok && claim(&ix, ref, tags);
    tap_ok(ok && agrees(&ix, n, tags), "%s: %u claimed through several growths, all found", what,
           n);
    /* Claiming a taken id again is refused and changes nothing. */
    tap_ok(uidix_claim(&ix, id_of(n / 2, tags), 9999, model_match, NULL) == 1 &&
               agrees(&ix, n, tags),
           "%s: a taken id is refused", what);
    /* Remove every third, then every other of the rest: runs shift back,
     * across the table's end too, and nothing else gets lost. */
    for (uint32_t ref = 1; ref <= n; ref += 3) {
        uidix_remove(&ix, ids[ref], ref);
        ids[ref] = 0;
    }
    bool after_thirds = agrees(&ix, n, tags);
    for (uint32_t ref = 2; ref <= n; ref += 2) {
        if (ids[ref]) {
            uidix_remove(&ix, ids[ref], ref);
            ids[ref] = 0;
        }
    }
    tap_ok(after_thirds && agrees(&ix, n, tags), "%s: removals keep every other entry findable",
           what);
    /* Removing what is absent does nothing. */
    uidix_remove(&ix, id_of(1, tags), 1);
    uidix_remove(&ix, id_of(n + 7, tags), n + 7);
    tap_ok(agrees(&ix, n, tags), "%s: removing absent entries changes nothing", what);
    /* Claim the removed ones again: the holes are reused. */
    ok = true;
    for (uint32_t ref = 1; ref <= n; ref++)
        if (!ids[ref])
            ok = ok && claim(&ix, ref, tags);
    tap_ok(ok && agrees(&ix, n, tags), "%s: removed ids can be claimed again", what);
    tap_ok(uidix_clear(&ix, 4) == 0, "%s: clear", what);
    for (uint32_t ref = 0; ref <= MAX; ref++)
        ids[ref] = 0;
    tap_ok(agrees(&ix, n, tags), "%s: a cleared index finds nothing", what);
    uidix_destroy(&ix);
}

/* An arena whose memory was all handed out, filled with nonzero bytes and
 * rewound: tables made in it must still start empty (arena_alloc_zeroed
 * clears what a rewind hands out again; fresh chunks are zero already). */
static void dirty_arena(struct arena *a)
{
    arena_init(a);
    for (int i = 0; i < 80; i++) {
        void *p = arena_alloc(a, 32 << 10);
        if (p)
            memset(p, 0xA5, 32 << 10);
    }
    arena_rewind(a);
}

int main(void)
{
    static const struct {
        uint32_t n, tags;
        const char *what;
    } cases[] = {{MAX, 1u << 30, "random tags"},
                 {MAX, 1500, "1500 tags (touching runs)"},
                 {MAX, 7, "7 tags (long runs)"},
                 {40, 1, "one tag"}};
    tap_plan(2 * 4 * 8);
    for (int i = 0; i < 4; i++)
        run(cases[i].n, cases[i].tags, cases[i].what, NULL);
    for (int i = 0; i < 4; i++) {
        struct arena a;
        char what[80];
        dirty_arena(&a);
        snprintf(what, sizeof(what), "%s, tables in a rewound arena", cases[i].what);
        run(cases[i].n, cases[i].tags, what, &a);
        arena_destroy(&a);
    }
    return tap_done();
}
