/* SPDX-License-Identifier: MIT */
/* A small name -> uint8 id table (stream names, tool vendors): ids from 1,
 * 255 means invalid. Lookups are rare (start-up), so one mutex suffices. */
#ifndef ZESTUB_XPTI_NAMETAB_H
#define ZESTUB_XPTI_NAMETAB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define NAMETAB_INVALID 0xFFu
#define NAMETAB_MAX 254

struct nametab {
    pthread_mutex_t lock;
    unsigned count;
    char *name[NAMETAB_MAX]; /* id = index + 1 */
};

void nametab_init(struct nametab *t);
void nametab_destroy(struct nametab *t);
/* Same name -> same id; NAMETAB_INVALID for NULL/empty or a full table. */
uint8_t nametab_register(struct nametab *t, const char *name);
/* NAMETAB_INVALID when the name was never registered. */
uint8_t nametab_find(struct nametab *t, const char *name);

#endif
