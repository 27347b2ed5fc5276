/* SPDX-License-Identifier: MIT */
#include "xpti/objtab.h"

#include <stdlib.h>
#include <string.h>

struct obj_entry {
    struct xpti_object_data view; /* data points at bytes[] */
    char bytes[];
};

void objtab_init(struct objtab *t)
{
    pthread_mutex_init(&t->lock, NULL);
    idvec_init(&t->by_id);
}

void objtab_clear(struct objtab *t)
{
    for (size_t i = 0; i < t->by_id.count; i++)
        free(idvec_get(&t->by_id, i));
    idvec_destroy(&t->by_id);
}

void objtab_destroy(struct objtab *t)
{
    objtab_clear(t);
    pthread_mutex_destroy(&t->lock);
}

xpti_object_id_t objtab_add(struct objtab *t, const char *data, size_t size, uint8_t type)
{
    if (!data)
        return XPTI_INVALID_OBJECT_ID;
    /* One spare byte keeps string objects NUL-terminated for C readers. */
    struct obj_entry *e = malloc(sizeof(*e) + size + 1);
    if (!e)
        return XPTI_INVALID_OBJECT_ID;
    memcpy(e->bytes, data, size);
    e->bytes[size] = 0;
    e->view = (struct xpti_object_data){.size = size, .data = e->bytes, .type = type};
    pthread_mutex_lock(&t->lock);
    size_t index =
        t->by_id.count < (size_t)XPTI_INVALID_OBJECT_ID ? idvec_push(&t->by_id, e) : (size_t)-1;
    pthread_mutex_unlock(&t->lock);
    if (index == (size_t)-1) {
        free(e);
        return XPTI_INVALID_OBJECT_ID;
    }
    /* Ids are the indices, from 0, as upstream numbers objects. */
    return (xpti_object_id_t)index;
}

struct xpti_object_data objtab_get(const struct objtab *t, xpti_object_id_t id)
{
    const struct obj_entry *e = id >= 0 ? idvec_get(&t->by_id, (size_t)id) : NULL;
    return e ? e->view : (struct xpti_object_data){0};
}
