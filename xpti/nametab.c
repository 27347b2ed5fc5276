/* SPDX-License-Identifier: MIT */
#include "xpti/nametab.h"

#include <stdlib.h>
#include <string.h>

void nametab_init(struct nametab *t)
{
    pthread_mutex_init(&t->lock, NULL);
    t->count = 0;
}

void nametab_destroy(struct nametab *t)
{
    for (unsigned i = 0; i < t->count; i++)
        free(t->name[i]);
    t->count = 0;
    pthread_mutex_destroy(&t->lock);
}

static uint8_t find_locked(const struct nametab *t, const char *name)
{
    for (unsigned i = 0; i < t->count; i++)
        if (strcmp(t->name[i], name) == 0)
            return (uint8_t)(i + 1);
    return NAMETAB_INVALID;
}

static uint8_t lookup(struct nametab *t, const char *name, bool add)
{
    if (!name || !*name)
        return NAMETAB_INVALID;
    pthread_mutex_lock(&t->lock);
    uint8_t id = find_locked(t, name);
    if (id == NAMETAB_INVALID && add && t->count < NAMETAB_MAX) {
        char *copy = strdup(name);
        if (copy) {
            t->name[t->count++] = copy;
            id = (uint8_t)t->count;
        }
    }
    pthread_mutex_unlock(&t->lock);
    return id;
}

uint8_t nametab_register(struct nametab *t, const char *name)
{
    return lookup(t, name, true);
}

uint8_t nametab_find(struct nametab *t, const char *name)
{
    return lookup(t, name, false);
}
