/* SPDX-License-Identifier: MIT */
#include "xpti/strtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xpti/hash.h"

struct str_entry {
    struct chash_node node; /* first: the node is the entry */
    xpti_string_id_t id;
    size_t len;
    char text[];
};

struct text_key {
    const char *s;
    size_t len;
};

static bool text_matches(const struct chash_node *n, const void *key)
{
    const struct str_entry *e = (const struct str_entry *)n;
    const struct text_key *k = key;
    return e->len == k->len && memcmp(e->text, k->s, k->len) == 0;
}

int strtab_init(struct strtab *t)
{
    pthread_mutex_init(&t->lock, NULL);
    idvec_init(&t->by_id);
    arena_init(&t->mem);
    return chash_init(&t->by_text, 10);
}

void strtab_destroy(struct strtab *t)
{
    arena_destroy(&t->mem);
    idvec_destroy(&t->by_id);
    chash_destroy(&t->by_text);
    pthread_mutex_destroy(&t->lock);
}

int strtab_clear(struct strtab *t)
{
    arena_rewind(&t->mem);
    idvec_destroy(&t->by_id);
    return chash_clear(&t->by_text, 10);
}

xpti_string_id_t strtab_intern(struct strtab *t, const char *s, const char **copy)
{
    if (!s || !*s)
        return XPTI_INVALID_STRING_ID;
    struct text_key key = {.s = s};
    uint64_t hash = xpti_fnv1a64_len(s, &key.len);
    struct chash_node *n = chash_find(&t->by_text, hash, text_matches, &key, CHASH_READER_HOPS);
    if (!n) {
        pthread_mutex_lock(&t->lock);
        n = chash_find(&t->by_text, hash, text_matches, &key, CHASH_UNBOUNDED);
        if (!n) {
            /* Entries are never freed one by one: the arena packs them
             * on warm pages (arena.h says why that matters). */
            struct str_entry *e = arena_alloc(&t->mem, sizeof(*e) + key.len + 1);
            if (e) {
                /* Filled before publication: readers never see half an entry. */
                e->id = (xpti_string_id_t)(t->by_id.count + 1);
                e->len = key.len;
                memcpy(e->text, s, key.len + 1);
            }
            if (!e || e->id >= XPTI_INVALID_STRING_ID || idvec_push(&t->by_id, e) == (size_t)-1) {
                pthread_mutex_unlock(&t->lock);
                return XPTI_INVALID_STRING_ID;
            }
            if (chash_insert(&t->by_text, &e->node, hash) != 0) {
                pthread_mutex_unlock(&t->lock);
                return XPTI_INVALID_STRING_ID;
            }
            n = &e->node;
        }
        pthread_mutex_unlock(&t->lock);
    }
    const struct str_entry *e = (const struct str_entry *)n;
    if (copy)
        *copy = e->text;
    return e->id;
}

const char *strtab_lookup(const struct strtab *t, xpti_string_id_t id)
{
    if (id == 0 || id == XPTI_INVALID_STRING_ID)
        return NULL;
    const struct str_entry *e = idvec_get(&t->by_id, (size_t)id - 1);
    return e ? e->text : NULL;
}
