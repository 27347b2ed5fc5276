/* SPDX-License-Identifier: MIT */
#include "gtsim/regfile.h"

#include <pthread.h>
#include <string.h>

/* Counts and sizes follow the debug system routine's state-save-area headers
 * of each generation (see level-zero-facts.md section 8). GRF holds 256
 * registers on Xe-HPG/Xe-HPC (large-GRF mode) but the device-level query
 * reports 128, as Intel's driver does. */
#define SET(t, c, rc, b, w)                                                                        \
    {                                                                                              \
        t, c, rc, b, w, 0                                                                          \
    }
static const struct {
    unsigned n;
    struct gtsim_regset_desc sets[13];
} tables[GTSIM_PLATFORM_COUNT] = {
    [GTSIM_GEN12LP] =
        {10,
         {SET(GTSIM_REGSET_GRF, 128, 128, 256, true), SET(GTSIM_REGSET_ADDR, 1, 1, 256, true),
          SET(GTSIM_REGSET_FLAG, 2, 2, 32, true), SET(GTSIM_REGSET_CE, 1, 1, 32, false),
          SET(GTSIM_REGSET_SR, 1, 1, 128, true), SET(GTSIM_REGSET_CR, 1, 1, 128, true),
          SET(GTSIM_REGSET_TDR, 1, 1, 128, false), SET(GTSIM_REGSET_ACC, 10, 10, 256, true),
          SET(GTSIM_REGSET_SP, 1, 1, 128, true), SET(GTSIM_REGSET_SBA, 9, 9, 64, false)}},
    [GTSIM_XEHPG] =
        {10,
         {SET(GTSIM_REGSET_GRF, 256, 128, 256, true), SET(GTSIM_REGSET_ADDR, 1, 1, 256, true),
          SET(GTSIM_REGSET_FLAG, 2, 2, 32, true), SET(GTSIM_REGSET_CE, 1, 1, 32, false),
          SET(GTSIM_REGSET_SR, 1, 1, 128, true), SET(GTSIM_REGSET_CR, 1, 1, 128, true),
          SET(GTSIM_REGSET_ACC, 4, 4, 256, true), SET(GTSIM_REGSET_MME, 8, 8, 256, true),
          SET(GTSIM_REGSET_SBA, 9, 9, 64, false), SET(GTSIM_REGSET_DBG, 1, 1, 64, true)}},
    [GTSIM_XEHPC] =
        {12,
         {SET(GTSIM_REGSET_GRF, 256, 128, 512, true), SET(GTSIM_REGSET_ADDR, 1, 1, 256, true),
          SET(GTSIM_REGSET_FLAG, 4, 4, 32, true), SET(GTSIM_REGSET_CE, 1, 1, 32, false),
          SET(GTSIM_REGSET_SR, 1, 1, 128, true), SET(GTSIM_REGSET_CR, 1, 1, 128, true),
          SET(GTSIM_REGSET_TDR, 1, 1, 128, false), SET(GTSIM_REGSET_ACC, 4, 4, 512, true),
          SET(GTSIM_REGSET_MME, 8, 8, 512, true), SET(GTSIM_REGSET_SP, 1, 1, 128, true),
          SET(GTSIM_REGSET_SBA, 9, 9, 64, false), SET(GTSIM_REGSET_DBG, 1, 1, 64, true)}},
};
#undef SET

/* Written once under pthread_once, read-only afterwards. */
static struct gtsim_regfile_layout layouts[GTSIM_PLATFORM_COUNT];
static pthread_once_t layouts_once = PTHREAD_ONCE_INIT;

static void build_all(void)
{
    for (unsigned p = 0; p < GTSIM_PLATFORM_COUNT; p++) {
        struct gtsim_regfile_layout *l = &layouts[p];
        size_t off = 0;
        memset(l, 0, sizeof(*l));
        l->platform = (enum gtsim_platform)p;
        l->nsets = tables[p].n;
        for (unsigned i = 0; i < l->nsets; i++) {
            l->sets[i] = tables[p].sets[i];
            l->sets[i].offset = off;
            off += (size_t)l->sets[i].count * (l->sets[i].bits / 8);
        }
        l->slot_size = (off + 63) & ~(size_t)63;
    }
}

const struct gtsim_regfile_layout *gtsim_regfile_layout(enum gtsim_platform p)
{
    if ((unsigned)p >= GTSIM_PLATFORM_COUNT)
        return NULL;
    pthread_once(&layouts_once, build_all);
    return &layouts[p];
}

const struct gtsim_regset_desc *gtsim_regfile_find(const struct gtsim_regfile_layout *l,
                                                   enum gtsim_regset_type type)
{
    for (unsigned i = 0; i < l->nsets; i++)
        if (l->sets[i].type == type)
            return &l->sets[i];
    return NULL;
}

uint8_t *gtsim_regfile_reg(const struct gtsim_regfile_layout *l, uint8_t *slot,
                           enum gtsim_regset_type type, uint32_t index)
{
    const struct gtsim_regset_desc *d = gtsim_regfile_find(l, type);
    if (!d || index >= d->count)
        return NULL;
    return slot + d->offset + (size_t)index * (d->bits / 8);
}

uint32_t gtsim_regfile_get32(const struct gtsim_regfile_layout *l, uint8_t *slot,
                             enum gtsim_regset_type type, uint32_t index, uint32_t dword)
{
    uint8_t *r = gtsim_regfile_reg(l, slot, type, index);
    uint32_t v = 0;
    const struct gtsim_regset_desc *d = gtsim_regfile_find(l, type);
    if (r && (dword + 1) * 4 <= d->bits / 8)
        memcpy(&v, r + dword * 4, 4);
    return v;
}

void gtsim_regfile_set32(const struct gtsim_regfile_layout *l, uint8_t *slot,
                         enum gtsim_regset_type type, uint32_t index, uint32_t dword,
                         uint32_t value)
{
    uint8_t *r = gtsim_regfile_reg(l, slot, type, index);
    const struct gtsim_regset_desc *d = gtsim_regfile_find(l, type);
    if (r && (dword + 1) * 4 <= d->bits / 8)
        memcpy(r + dword * 4, &value, 4);
}
