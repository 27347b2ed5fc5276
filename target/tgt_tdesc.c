/* SPDX-License-Identifier: MIT */
/* Per-thread target descriptions (intelgt-remote-protocol.md 3.5): a
 * thread whose register sets differ from its device's (the driver's API
 * 1.5 per-thread answer, e.g. 256 GRF registers in large-GRF mode) gets a
 * description of its own, made once per device and set of sets; ids after
 * the devices' (1..n). The server sends the id in stop replies and thread
 * lists, serves it as target-id-<id>.xml, and sizes g/p/P by it. */
#include <stdlib.h>

#include "regsets/regs.h"
#include "sessions/sess.h"
#include "target/tgt_int.h"

uint32_t tgt_thread_tdesc(struct tgt *t, unsigned k, uint32_t th, bool ask)
{
    const struct zd_regset *sets;
    struct regs_catalog *cat;
    unsigned layout;
    size_t n;

    sets = sess_thread_regsets(t->m, k, th, ask, &n, &layout);
    if (!sets || layout == 0)
        return k + 1;
    for (size_t i = 0; i < t->nxdescs; i++)
        if (t->xdescs[i].k == k && t->xdescs[i].layout == layout)
            return (uint32_t)(t->n + 1 + i);
    if (t->nxdescs == t->cap_xdescs) {
        size_t cap = t->cap_xdescs ? t->cap_xdescs * 2 : 4;
        struct tgt_xdesc *x = realloc(t->xdescs, cap * sizeof(*x));
        if (!x)
            return k + 1;
        t->xdescs = x;
        t->cap_xdescs = cap;
    }
    if (!(cat = regs_catalog_new(sets, n)))
        return k + 1;
    t->xdescs[t->nxdescs] = (struct tgt_xdesc){k, layout, cat};
    return (uint32_t)(t->n + 1 + t->nxdescs++);
}

const struct regs_catalog *tgt_tdesc_catalog(const struct tgt *t, uint32_t id, uint32_t *pid)
{
    if (id >= 1 && id <= t->n && t->cats && t->cats[id - 1]) {
        *pid = id;
        return t->cats[id - 1];
    }
    if (id > t->n && id - t->n - 1 < t->nxdescs) {
        const struct tgt_xdesc *x = &t->xdescs[id - t->n - 1];
        *pid = x->k + 1;
        return x->cat;
    }
    return NULL;
}

void tgt_tdesc_clear(struct tgt *t)
{
    for (size_t i = 0; i < t->nxdescs; i++)
        regs_catalog_free(t->xdescs[i].cat);
    free(t->xdescs);
    t->xdescs = NULL;
    t->nxdescs = t->cap_xdescs = 0;
}
