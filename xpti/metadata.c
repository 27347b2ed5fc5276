/* SPDX-License-Identifier: MIT */
#include "xpti/metadata.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s node of unordered_map<uint32_t, int32_t>: std::hash of an
 * integer is cheap, so the node caches no hash: next pointer, then the
 * pair. */
struct md_node {
    struct md_node *next;
    uint32_t key;
    int32_t value;
};
_Static_assert(sizeof(struct md_node) == 16, "libstdc++ _Hash_node<pair<const uint32, int32>>");

struct md_image {
    struct md_image *older;
    /* then the nodes, then the bucket array */
};

struct md_store *md_new(void)
{
    struct md_store *m = malloc(sizeof(*m));
    if (!m)
        return NULL;
    pthread_mutex_init(&m->lock, NULL);
    m->count = m->cap = m->cursor = 0;
    m->version = m->built = 0;
    m->items = NULL;
    m->images = NULL;
    return m;
}

void md_free(struct md_store *m)
{
    if (!m)
        return;
    free(m->items);
    for (struct md_image *im = m->images, *older; im; im = older) {
        older = im->older;
        free(im);
    }
    pthread_mutex_destroy(&m->lock);
    free(m);
}

xpti_result_t md_add(struct md_store *m, xpti_string_id_t key, const char *key_text,
                     xpti_object_id_t value)
{
    xpti_result_t rc = XPTI_RESULT_SUCCESS;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->count; i++) {
        if (m->items[i].key == key) {
            m->items[i].value = value;
            m->version++;
            rc = XPTI_RESULT_DUPLICATE;
            goto out;
        }
    }
    if (m->count == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 8;
        struct md_item *items = realloc(m->items, cap * sizeof(*items));
        if (!items) {
            rc = XPTI_RESULT_FAIL;
            goto out;
        }
        m->items = items;
        m->cap = cap;
    }
    m->items[m->count++] = (struct md_item){.key = key, .key_text = key_text, .value = value};
    m->version++;
out:
    pthread_mutex_unlock(&m->lock);
    return rc;
}

static xpti_result_t item_locked(const struct md_store *m, size_t index, const char **key_text,
                                 xpti_object_id_t *value)
{
    if (index >= m->count)
        return XPTI_RESULT_FALSE;
    if (key_text)
        *key_text = m->items[index].key_text;
    if (value)
        *value = m->items[index].value;
    return XPTI_RESULT_SUCCESS;
}

/* Primes of libstdc++'s own table, so the image looks like a map it made. */
static size_t bucket_count_for(size_t n)
{
    static const size_t primes[] = {13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273};
    for (size_t i = 0; i < sizeof(primes) / sizeof(*primes); i++)
        if (primes[i] >= n)
            return primes[i];
    return n | 1;
}

/* The list holds each bucket's nodes together; a bucket's entry points at
 * the node before its first one (the before-begin word for the head). */
static struct md_node *link_nodes(const struct md_store *m, struct md_node *nodes, void **buckets,
                                  size_t nb, void *before_begin)
{
    struct md_node *head = NULL, *tail = NULL;
    bool *placed = calloc(m->count, sizeof(*placed));
    if (!placed)
        return NULL;
    for (size_t i = 0; i < m->count; i++) {
        size_t b = m->items[i].key % nb;
        if (placed[i])
            continue;
        buckets[b] = tail ? (void *)tail : before_begin;
        for (size_t j = i; j < m->count; j++) {
            if (placed[j] || m->items[j].key % nb != b)
                continue;
            placed[j] = true;
            nodes[j] = (struct md_node){.key = m->items[j].key, .value = m->items[j].value};
            if (tail)
                tail->next = &nodes[j];
            else
                head = &nodes[j];
            tail = &nodes[j];
        }
    }
    free(placed);
    return head;
}

void md_build_map_image(struct md_store *m, unsigned char bytes[56])
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    if (m->count && m->built != m->version) {
        size_t nb = bucket_count_for(m->count);
        struct md_image *im =
            calloc(1, sizeof(*im) + m->count * sizeof(struct md_node) + nb * sizeof(void *));
        struct md_node *nodes = im ? (struct md_node *)(im + 1) : NULL;
        void **buckets = im ? (void **)(nodes + m->count) : NULL;
        struct md_node *head = im ? link_nodes(m, nodes, buckets, nb, bytes + 16) : NULL;
        if (head) {
            /* _Hashtable's seven words: buckets, bucket count, before-begin
             * (the first node), element count, rehash policy {max load 1.0f,
             * next resize}, single bucket (unused). */
            uint64_t words[7] = {
                (uint64_t)(uintptr_t)buckets, nb, (uint64_t)(uintptr_t)head, m->count, 0, nb, 0};
            const float max_load = 1.0f;
            memcpy(&words[4], &max_load, sizeof(max_load));
            memcpy(bytes, words, sizeof(words));
            im->older = m->images;
            m->images = im;
            m->built = m->version;
        } else {
            free(im);
        }
    }
    pthread_mutex_unlock(&m->lock);
}

xpti_result_t md_get(struct md_store *m, const char *key_text, xpti_object_id_t *value)
{
    xpti_result_t rc = XPTI_RESULT_NOTFOUND;
    if (!m)
        return rc;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->count; i++) {
        if (strcmp(m->items[i].key_text, key_text) == 0) {
            rc = item_locked(m, i, NULL, value);
            break;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

xpti_result_t md_at(struct md_store *m, size_t index, const char **key_text,
                    xpti_object_id_t *value)
{
    if (!m)
        return XPTI_RESULT_NOTFOUND;
    pthread_mutex_lock(&m->lock);
    xpti_result_t rc = item_locked(m, index, key_text, value);
    pthread_mutex_unlock(&m->lock);
    return rc == XPTI_RESULT_FALSE ? XPTI_RESULT_NOTFOUND : rc;
}

size_t md_count(struct md_store *m)
{
    if (!m)
        return 0;
    pthread_mutex_lock(&m->lock);
    size_t n = m->count;
    pthread_mutex_unlock(&m->lock);
    return n;
}

xpti_result_t md_first(struct md_store *m, const char **key_text, xpti_object_id_t *value)
{
    if (!m)
        return XPTI_RESULT_FALSE;
    pthread_mutex_lock(&m->lock);
    m->cursor = 0;
    xpti_result_t rc = item_locked(m, m->cursor, key_text, value);
    if (rc == XPTI_RESULT_SUCCESS)
        m->cursor++;
    pthread_mutex_unlock(&m->lock);
    return rc;
}

xpti_result_t md_next(struct md_store *m, const char **key_text, xpti_object_id_t *value)
{
    if (!m)
        return XPTI_RESULT_FALSE;
    pthread_mutex_lock(&m->lock);
    xpti_result_t rc = item_locked(m, m->cursor, key_text, value);
    if (rc == XPTI_RESULT_SUCCESS)
        m->cursor++;
    pthread_mutex_unlock(&m->lock);
    return rc;
}
