/* SPDX-License-Identifier: MIT */
/* An append-only vector indexed by small integer ids, readable without locks.
 * Storage grows in chunks of doubling size that never move, so a reader can
 * index it while a writer (serialised by the owner's lock) appends. */
#ifndef ZESTUB_XPTI_IDVEC_H
#define ZESTUB_XPTI_IDVEC_H

#include <stdatomic.h>
#include <stddef.h>

#define IDVEC_FIRST_BITS 6 /* the first chunk holds 64 entries */
#define IDVEC_CHUNKS 26    /* enough for more than 2^31 entries */

struct idvec {
    _Atomic(void *) *_Atomic chunk[IDVEC_CHUNKS];
    size_t count; /* writer only */
};

void idvec_init(struct idvec *v);
/* Frees the chunks, not the items. */
void idvec_destroy(struct idvec *v);
/* NULL when index was never appended. */
void *idvec_get(const struct idvec *v, size_t index);
/* Writer side. Returns the new item's index, or (size_t)-1 without memory. */
size_t idvec_push(struct idvec *v, void *item);

#endif
