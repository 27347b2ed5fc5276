/* SPDX-License-Identifier: MIT */
/* Per-event metadata: (key string, object id) pairs in insertion order.
 * Upstream keeps a std::unordered_map inside the event; ours keeps the pairs
 * here, and the event's map bytes hold an empty-map image until
 * xptiQueryMetadata builds a real one from them (see xpti/README.md). */
#ifndef ZESTUB_XPTI_METADATA_H
#define ZESTUB_XPTI_METADATA_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xpti/xpti.h"

struct md_item {
    xpti_string_id_t key;
    const char *key_text; /* string-table copy */
    xpti_object_id_t value;
};

struct md_store {
    pthread_mutex_t lock; /* adders and readers of one event may race */
    size_t count, cap;
    struct md_item *items;
    size_t cursor;           /* for xpti_metadata_if first_item/next_item */
    uint64_t version, built; /* changes made; the change the map image shows */
    void *images;            /* the map images' memory, newest first; freed with the store */
};

/* Stores are made on an event's first metadata item, so the many events that
 * never get any cost neither the memory nor a mutex initialisation. The
 * readers below take NULL as the empty store. */
struct md_store *md_new(void); /* NULL without memory */
void md_free(struct md_store *m);
/* SUCCESS for a new key, DUPLICATE when the key existed (value replaced). */
xpti_result_t md_add(struct md_store *m, xpti_string_id_t key, const char *key_text,
                     xpti_object_id_t value);
xpti_result_t md_get(struct md_store *m, const char *key_text, xpti_object_id_t *value);
xpti_result_t md_at(struct md_store *m, size_t index, const char **key_text,
                    xpti_object_id_t *value);
size_t md_count(struct md_store *m);
/* The iteration protocol of xpti_metadata_t: FALSE when there is no item. */
xpti_result_t md_first(struct md_store *m, const char **key_text, xpti_object_id_t *value);
xpti_result_t md_next(struct md_store *m, const char **key_text, xpti_object_id_t *value);

/* Writes into `bytes` (an event's 56 map bytes) a libstdc++
 * std::unordered_map<string_id_t, object_id_t> holding the store's items,
 * for C++ subscribers that read xptiQueryMetadata(); rebuilt only when items
 * changed since the last call. Earlier images stay allocated until
 * md_free, so a reader still walking one never touches freed memory. */
void md_build_map_image(struct md_store *m, unsigned char bytes[56]);

/* The 56 bytes of an empty libstdc++ unordered_map, so C++ subscribers that
 * read xptiQueryMetadata() see "no metadata" instead of garbage. Inline:
 * every new instance writes it. */
static inline void md_write_empty_map_image(unsigned char bytes[56])
{
    /* libstdc++ _Hashtable, 7 words: bucket array pointer (to the embedded
     * single bucket), bucket count 1, before-begin node (no elements),
     * element count 0, rehash policy {max load 1.0f, next resize 0}, and the
     * single bucket itself (empty). */
    uint64_t words[7] = {0};
    const float max_load = 1.0f;
    words[0] = (uint64_t)(uintptr_t)(bytes + 48);
    words[1] = 1;
    memcpy(&words[4], &max_load, sizeof(max_load));
    memcpy(bytes, words, sizeof(words));
}

#endif
