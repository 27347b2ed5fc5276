/* SPDX-License-Identifier: MIT */
/* Copying one record out of the table and checking it. Records are copied
 * under their seqlock (xtab_format.h) and only the copy is examined, so a
 * writer changing a record while we look cannot move a checked value. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "xpti/xtab_int.h"

#define READ_TRIES 4 /* a record seen mid-write this often is reported busy */

static size_t clamp(uint64_t counter, uint32_t capacity)
{
    return counter < capacity ? (size_t)counter : capacity;
}

size_t xtab_count(struct xtab *t, enum xtab_kind kind)
{
    if (t->broken)
        return 0;
    switch (kind) {
    case XTAB_SITES:
        return clamp(xtab_counter(t, offsetof(struct xtab_counters, sites)), t->g.sites.capacity);
    case XTAB_TASKS:
        return clamp(xtab_counter(t, offsetof(struct xtab_counters, task_ticket)),
                     t->g.tasks.capacity);
    case XTAB_ALLOCS:
        return clamp(xtab_counter(t, offsetof(struct xtab_counters, allocs)), t->g.allocs.capacity);
    }
    return 0;
}

/* Record i of area a (i < capacity, checked by the caller) into `out`. */
static int copy_record(const struct xtab *t, const struct xtab_area *a, size_t i, void *out)
{
    const unsigned char *p = t->base + a->offset + i * a->record_size;
    for (int tries = 0; tries < READ_TRIES; tries++) {
        uint64_t seq = __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
        if (seq == 0)
            return -ENOENT;
        if (seq & 1)
            continue;
        xtab_words_load(out, p, a->record_size);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n((const uint64_t *)p, __ATOMIC_RELAXED) == seq)
            return 0;
    }
    return -ENOENT;
}

static int bad(struct xtab *t)
{
    t->bad_records++;
    return -ENOENT;
}

/* A bounded copy of a string; false if it lies outside the string area or
 * is not followed by its NUL. Strings are written before the record that
 * names them is published and never rewritten by an honest writer. */
static bool copy_string(const struct xtab *t, struct xtab_str s, char *out, size_t cap)
{
    out[0] = 0;
    if (s.offset == XTAB_STR_LOST)
        return true;
    if (s.length > XTAB_STRING_MAX || (uint64_t)s.offset + s.length >= t->g.strings_size)
        return false;
    const char *src = (const char *)t->base + t->g.strings_offset + s.offset;
    if (src[s.length] != 0)
        return false;
    size_t n = s.length < cap - 1 ? s.length : cap - 1;
    memcpy(out, src, n);
    out[n] = 0;
    /* An embedded NUL just ends the copy early; nothing reads past out[n]. */
    return true;
}

int xtab_site_at(struct xtab *t, size_t i, struct xtab_site *out)
{
    struct xtab_site_rec r;
    if (i >= xtab_count(t, XTAB_SITES))
        return -ERANGE;
    if (copy_record(t, &t->g.sites, i, &r))
        return -ENOENT;
    out->index = (uint32_t)i;
    out->uid = r.uid;
    out->key1 = r.key1;
    out->key2 = r.key2;
    out->line = r.line;
    out->column = r.column;
    if (!copy_string(t, r.kernel, out->kernel, sizeof(out->kernel)) ||
        !copy_string(t, r.function, out->function, sizeof(out->function)) ||
        !copy_string(t, r.file, out->file, sizeof(out->file)) ||
        !copy_string(t, r.device, out->device, sizeof(out->device)))
        return bad(t);
    return 0;
}

static bool site_ok(const struct xtab *t, uint32_t site)
{
    return site == XTAB_NONE || site < t->g.sites.capacity;
}

int xtab_task_at(struct xtab *t, size_t i, struct xtab_task *out)
{
    struct xtab_task_rec r;
    if (i >= xtab_count(t, XTAB_TASKS))
        return -ERANGE;
    if (copy_record(t, &t->g.tasks, i, &r))
        return -ENOENT;
    if (r.ticket % t->g.tasks.capacity != i || !site_ok(t, r.site))
        return bad(t);
    *out = (struct xtab_task){.ticket = r.ticket,
                              .uid = r.uid,
                              .instance = r.instance,
                              .queue = r.queue,
                              .begin_ns = r.begin_ns,
                              .end_ns = r.end_ns,
                              .site = r.site,
                              .tid = r.tid};
    return 0;
}

int xtab_alloc_at(struct xtab *t, size_t i, struct xtab_alloc *out)
{
    struct xtab_alloc_rec r;
    if (i >= xtab_count(t, XTAB_ALLOCS))
        return -ERANGE;
    if (copy_record(t, &t->g.allocs, i, &r))
        return -ENOENT;
    if ((r.state != XTAB_ALLOC_LIVE && r.state != XTAB_ALLOC_FREED) || !site_ok(t, r.alloc_site) ||
        !site_ok(t, r.free_site))
        return bad(t);
    *out = (struct xtab_alloc){.base = r.base,
                               .size = r.size,
                               .guard = r.guard,
                               .mem_object = r.mem_object,
                               .live = r.state == XTAB_ALLOC_LIVE,
                               .alloc_uid = r.alloc_uid,
                               .free_uid = r.free_uid,
                               .alloc_ns = r.alloc_ns,
                               .free_ns = r.free_ns,
                               .alloc_site = r.alloc_site,
                               .free_site = r.free_site};
    return 0;
}
