/* SPDX-License-Identifier: MIT */
#include "xpti/metadata.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct md_store *md_new(void)
{
    struct md_store *m = malloc(sizeof(*m));
    if (!m)
        return NULL;
    pthread_mutex_init(&m->lock, NULL);
    m->count = m->cap = m->cursor = 0;
    m->items = NULL;
    return m;
}

void md_free(struct md_store *m)
{
    if (!m)
        return;
    free(m->items);
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
