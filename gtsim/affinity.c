/* SPDX-License-Identifier: MIT */
/* ZE_AFFINITY_MASK: which devices and tiles an application sees, as
 * Intel's runtime reads it (level-zero-facts / compute-runtime's
 * Device::genericSubDevicesAllowed): a comma-separated list of root
 * devices ("1") and tiles ("0.1"); roots not listed are hidden, a root
 * listed alone keeps every tile, and a root left with exactly one tile is
 * shown as a root device without sub-devices that covers only that tile.
 * Entries that name no existing device or tile are skipped, as the runtime
 * skips them. The devices themselves are not rebuilt: a tile shown as a
 * root is still the tile inside, so launches, modules and debug sessions
 * behave as on that tile. */
#include <stdlib.h>
#include <string.h>

#include "gtsim/gtsim.h"

/* Tiles of each root the mask selects (bit per tile), 0 for a root not
 * listed. */
static void parse(const char *mask, struct gtsim_driver *drv, uint32_t *tiles)
{
    char *copy = strdup(mask), *save = NULL;
    if (!copy)
        return;
    for (char *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        char *end;
        unsigned long root = strtoul(e, &end, 10), tile;
        struct gtsim_device *d;
        if (end == e || root >= drv->ndevices || (*end && *end != '.'))
            continue;
        d = drv->devices[root];
        if (!*end) {
            tiles[root] = d->nsub ? (1u << d->nsub) - 1 : 1;
            continue;
        }
        tile = strtoul(end + 1, &end, 10);
        /* A root without tiles has the one "tile" 0 (ccs indices after a
         * second dot are not modelled and ignored). */
        if ((*end && *end != '.') || tile >= (d->nsub ? d->nsub : 1))
            continue;
        tiles[root] |= 1u << tile;
    }
    free(copy);
}

int gtsim_affinity_apply(struct gtsim_driver *drv, const char *mask)
{
    uint32_t *tiles;
    drv->visible = calloc(drv->ndevices ? drv->ndevices : 1, sizeof(*drv->visible));
    if (!drv->visible)
        return -1;
    drv->nvisible = 0;
    if (!mask || !*mask) {
        for (uint32_t i = 0; i < drv->ndevices; i++)
            drv->visible[drv->nvisible++] = drv->devices[i];
        return 0;
    }
    tiles = calloc(drv->ndevices, sizeof(*tiles));
    if (!tiles)
        return -1;
    parse(mask, drv, tiles);
    for (uint32_t i = 0; i < drv->ndevices; i++) {
        struct gtsim_device *d = drv->devices[i];
        uint32_t all = d->nsub ? (1u << d->nsub) - 1 : 1;
        if (!tiles[i])
            continue;
        d->tile_mask = tiles[i] & all;
        if (d->nsub && __builtin_popcount(d->tile_mask) == 1) {
            struct gtsim_device *t = d->sub[__builtin_ctz(d->tile_mask)];
            t->shown_as_root = true;
            drv->visible[drv->nvisible++] = t;
        } else {
            drv->visible[drv->nvisible++] = d;
        }
    }
    free(tiles);
    return 0;
}
