/* SPDX-License-Identifier: MIT */
/* The string table: interns strings, hands out ids from 1 and framework-owned
 * copies that live until strtab_clear. Lookups by id and by text are lock-free;
 * only the first registration of a text takes the table's lock. */
#ifndef ZESTUB_XPTI_STRTAB_H
#define ZESTUB_XPTI_STRTAB_H

#include <pthread.h>

#include "xpti/arena.h"
#include "xpti/chash.h"
#include "xpti/idvec.h"
#include "xpti/xpti.h"

struct strtab {
    pthread_mutex_t lock; /* serialises inserts into both indexes */
    struct chash by_text;
    struct idvec by_id;
    struct arena mem; /* the entries, under lock; rewound by strtab_clear */
};

int strtab_init(struct strtab *t);
void strtab_destroy(struct strtab *t);
int strtab_clear(struct strtab *t);
/* XPTI_INVALID_STRING_ID for NULL, empty or out of memory. */
xpti_string_id_t strtab_intern(struct strtab *t, const char *s, const char **copy);
const char *strtab_lookup(const struct strtab *t, xpti_string_id_t id);

#endif
