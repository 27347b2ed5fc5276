/* SPDX-License-Identifier: MIT */
#include "gtsim/decode_cache.h"

#include <stdlib.h>
#include <string.h>

struct entry {
    uint64_t key; /* tile << 32 | ip, plus one: 0 is an empty slot */
    uint8_t raw[16];
    uint8_t len;
    bool ok;
    struct gtsim_xinsn x;
};

struct gtsim_decode_cache {
    enum gtsim_platform platform;
    struct entry *slots;
    size_t cap, used; /* cap is a power of two */
};

struct gtsim_decode_cache *gtsim_decode_cache_create(enum gtsim_platform p)
{
    struct gtsim_decode_cache *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->platform = p;
    c->cap = 1024;
    c->slots = calloc(c->cap, sizeof(*c->slots));
    if (!c->slots) {
        free(c);
        return NULL;
    }
    return c;
}

void gtsim_decode_cache_destroy(struct gtsim_decode_cache *c)
{
    if (!c)
        return;
    free(c->slots);
    free(c);
}

static size_t hash(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static struct entry *find(struct gtsim_decode_cache *c, uint64_t key)
{
    size_t i = hash(key, c->cap);
    while (c->slots[i].key && c->slots[i].key != key)
        i = (i + 1) & (c->cap - 1);
    return &c->slots[i];
}

static bool grow(struct gtsim_decode_cache *c)
{
    struct entry *old = c->slots;
    size_t oldcap = c->cap;
    struct entry *n = calloc(oldcap * 2, sizeof(*n));
    if (!n)
        return false;
    c->slots = n;
    c->cap = oldcap * 2;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].key)
            *find(c, old[i].key) = old[i];
    free(old);
    return true;
}

/* The instruction's bytes without the debugger's breakpoint bit. */
static size_t plain_bytes(const uint8_t *code, size_t avail, uint8_t out[16])
{
    size_t len = (code[3] & 0x20) ? 8 : 16;
    if (avail < len)
        return 0;
    memcpy(out, code, len);
    if (len == 8)
        out[0] &= 0x7f;
    else
        out[3] &= (uint8_t)~0x40;
    return len;
}

const struct gtsim_xinsn *gtsim_decode_cache_get(struct gtsim_decode_cache *c, uint32_t tile,
                                                 uint32_t ip, const uint8_t *code, size_t avail)
{
    uint8_t raw[16];
    size_t len;
    uint64_t key = ((uint64_t)tile << 32 | ip) + 1;

    if (!c || !code || avail < 4 || !(len = plain_bytes(code, avail, raw)))
        return NULL;
    struct entry *e = find(c, key);
    if (e->key && e->len == len && memcmp(e->raw, raw, len) == 0)
        return e->ok ? &e->x : NULL;
    if (!e->key) {
        if ((c->used + 1) * 2 > c->cap) {
            if (!grow(c))
                return NULL;
            e = find(c, key);
        }
        c->used++;
    }
    e->key = key;
    e->len = (uint8_t)len;
    memcpy(e->raw, raw, len);
    e->ok = gtsim_iga_decode(c->platform, raw, len, &e->x) == 0;
    return e->ok ? &e->x : NULL;
}
