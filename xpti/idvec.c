/* SPDX-License-Identifier: MIT */
#include "xpti/idvec.h"

#include <stdlib.h>

/* Index i lives in chunk k where 2^(k+FIRST) <= i + 2^FIRST < 2^(k+FIRST+1). */
static void locate(size_t index, size_t *chunk, size_t *offset)
{
    size_t biased = index + ((size_t)1 << IDVEC_FIRST_BITS);
    unsigned top = 63u - (unsigned)__builtin_clzll((unsigned long long)biased);
    *chunk = top - IDVEC_FIRST_BITS;
    *offset = biased - ((size_t)1 << top);
}

void idvec_init(struct idvec *v)
{
    for (size_t k = 0; k < IDVEC_CHUNKS; k++)
        atomic_init(&v->chunk[k], NULL);
    v->count = 0;
}

void idvec_destroy(struct idvec *v)
{
    for (size_t k = 0; k < IDVEC_CHUNKS; k++) {
        free((void *)atomic_load_explicit(&v->chunk[k], memory_order_relaxed));
        atomic_store_explicit(&v->chunk[k], NULL, memory_order_relaxed);
    }
    v->count = 0;
}

void *idvec_get(const struct idvec *v, size_t index)
{
    size_t k, off;
    if (index > ((size_t)1 << 40))
        return NULL;
    locate(index, &k, &off);
    if (k >= IDVEC_CHUNKS)
        return NULL;
    _Atomic(void *) *c = atomic_load_explicit(&v->chunk[k], memory_order_acquire);
    return c ? atomic_load_explicit(&c[off], memory_order_acquire) : NULL;
}

size_t idvec_push(struct idvec *v, void *item)
{
    size_t k, off, index = v->count;
    locate(index, &k, &off);
    if (k >= IDVEC_CHUNKS)
        return (size_t)-1;
    _Atomic(void *) *c = atomic_load_explicit(&v->chunk[k], memory_order_relaxed);
    if (!c) {
        size_t n = (size_t)1 << (k + IDVEC_FIRST_BITS);
        c = malloc(n * sizeof(*c));
        if (!c)
            return (size_t)-1;
        for (size_t i = 0; i < n; i++)
            atomic_init(&c[i], NULL);
        atomic_store_explicit(&v->chunk[k], c, memory_order_release);
    }
    atomic_store_explicit(&c[off], item, memory_order_release);
    v->count++;
    return index;
}
