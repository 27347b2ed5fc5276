/* SPDX-License-Identifier: MIT */
/* The object table: opaque byte blobs (metadata values) with a type hint,
 * ids from 1, copies owned by the table until objtab_clear. */
#ifndef ZESTUB_XPTI_OBJTAB_H
#define ZESTUB_XPTI_OBJTAB_H

#include <pthread.h>

#include "xpti/idvec.h"
#include "xpti/xpti.h"

struct objtab {
    pthread_mutex_t lock; /* serialises appends */
    struct idvec by_id;
};

void objtab_init(struct objtab *t);
void objtab_destroy(struct objtab *t);
void objtab_clear(struct objtab *t);
xpti_object_id_t objtab_add(struct objtab *t, const char *data, size_t size, uint8_t type);
/* {0, NULL, 0} for an unknown id. */
struct xpti_object_data objtab_get(const struct objtab *t, xpti_object_id_t id);

#endif
