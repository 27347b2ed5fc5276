/* SPDX-License-Identifier: MIT */
/* A few target descriptions kept as built, each with a copy of what it was
 * built from, so that a hit needs no trust in pointers: the entry's
 * registers and device attributes are compared with the target's. */
#include <stdlib.h>
#include <string.h>

#include "gdbstub/tdesc_cache.h"

/* A device has one description per sub-device model; four covers the
 * mock's three and a node of mixed GPUs without thrashing. */
#define NENTRIES 4

struct entry {
    bool used, has_dev;
    size_t n;
    struct regs_reg *regs; /* [n], copies */
    struct rsp_device_info dev;
    struct rsp_buf xml;
};

struct rsp_tdesc_cache {
    struct entry e[NENTRIES];
    size_t next; /* the entry to replace: the oldest */
};

static void entry_clear(struct entry *e)
{
    free(e->regs);
    rsp_buf_free(&e->xml);
    memset(e, 0, sizeof(*e));
}

void rsp_tdesc_cache_free(struct rsp_tdesc_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < NENTRIES; i++)
        entry_clear(&c->e[i]);
    free(c);
}

static bool matches(const struct entry *e, const struct regs_catalog *regs,
                    const struct rsp_device_info *dev)
{
    size_t n = regs_catalog_count(regs);
    if (!e->used || e->n != n || e->has_dev != (dev != NULL) ||
        (dev && memcmp(&e->dev, dev, sizeof(*dev)) != 0))
        return false;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&e->regs[i], regs_catalog_at(regs, i), sizeof(e->regs[i])) != 0)
            return false;
    return true;
}

const struct rsp_buf *rsp_tdesc_cache_find(const struct rsp_tdesc_cache *c,
                                           const struct regs_catalog *regs,
                                           const struct rsp_device_info *dev)
{
    for (size_t i = 0; c && i < NENTRIES; i++)
        if (matches(&c->e[i], regs, dev))
            return &c->e[i].xml;
    return NULL;
}

void rsp_tdesc_cache_store(struct rsp_tdesc_cache **c, const struct regs_catalog *regs,
                           const struct rsp_device_info *dev, const struct rsp_buf *xml)
{
    size_t n = regs_catalog_count(regs);
    struct entry *e;

    if (!*c && !(*c = calloc(1, sizeof(**c))))
        return;
    e = &(*c)->e[(*c)->next];
    (*c)->next = ((*c)->next + 1) % NENTRIES;
    entry_clear(e);
    e->regs = malloc((n ? n : 1) * sizeof(*e->regs));
    if (!e->regs)
        return;
    /* memcpy, not assignment: the padding too, for matches' memcmp */
    for (size_t i = 0; i < n; i++)
        memcpy(&e->regs[i], regs_catalog_at(regs, i), sizeof(e->regs[i]));
    rsp_buf_put(&e->xml, xml->data, xml->len);
    if (e->xml.oom) {
        entry_clear(e);
        return;
    }
    e->n = n;
    e->has_dev = dev != NULL;
    if (dev)
        memcpy(&e->dev, dev, sizeof(*dev));
    e->used = true;
}
