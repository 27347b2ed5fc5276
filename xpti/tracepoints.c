/* SPDX-License-Identifier: MIT */
#include "xpti/tracepoints.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "xpti/hash.h"

/* The placeholders hashed for a missing name or file, and what
 * xptiCreateTracepoint substitutes for a location with neither. */
#define UNKNOWN_NAME "unknown"
#define UNKNOWN_FILE "unknown-file"

#define LOCATION_FLAGS                                                                             \
    (XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE | XPTI_PAYLOAD_LINE_INFO_AVAILABLE |                       \
     XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE)

bool tp_payload_valid(const struct xpti_payload *p)
{
    return p && p->flags && (tp_payload_name(p) || tp_payload_file(p));
}

struct xpti_payload tp_payload_from_location(const char *func, const char *file, uint32_t line,
                                             uint32_t column, void *code_ptr)
{
    struct xpti_payload p = {.line_no = 0xFFFFFFFFu, .column_no = 0xFFFFFFFFu};
    bool has_name = func && *func, has_file = file && *file;
    if (!has_name && !has_file) {
        func = UNKNOWN_NAME;
        file = UNKNOWN_FILE;
        line = column = 0;
        has_name = has_file = true;
    }
    if (has_name) {
        p.name = func;
        p.flags |= XPTI_PAYLOAD_NAME_AVAILABLE;
    }
    if (has_file) {
        p.source_file = file;
        p.line_no = line;
        p.column_no = column;
        p.flags |= LOCATION_FLAGS;
    }
    if (code_ptr) {
        p.code_ptr_va = code_ptr;
        p.flags |= XPTI_PAYLOAD_CODE_POINTER_AVAILABLE;
    }
    return p;
}

struct key_parts {
    uint64_t p1, p2;
    uint32_t name_id, file_id;
    bool string_ids; /* strict mode: the ids are the strings' table ids */
};

/* The 128-bit key of section 5: p1 = file id << 32 | function id,
 * p2 = column << 32 | line (0 for fields the payload does not carry). */
static struct key_parts key_from_ids(uint32_t name_id, uint32_t file_id,
                                     const struct xpti_payload *p)
{
    return (struct key_parts){.p1 = (uint64_t)file_id << 32 | name_id,
                              .p2 = tp_key_p2(p),
                              .name_id = name_id,
                              .file_id = file_id};
}

static struct key_parts hashed_key(const struct xpti_payload *p)
{
    const char *name = tp_payload_name(p), *file = tp_payload_file(p);
    uint32_t name_id, file_id;
    xpti_fnv1a32_pair(name ? name : UNKNOWN_NAME, file ? file : UNKNOWN_FILE, &name_id, &file_id);
    return key_from_ids(name_id, file_id, p);
}

static bool strict_key(struct strtab *strings, const struct xpti_payload *p, struct key_parts *out)
{
    const char *name = tp_payload_name(p), *file = tp_payload_file(p);
    xpti_string_id_t n = strtab_intern(strings, name ? name : UNKNOWN_NAME, NULL);
    xpti_string_id_t f = strtab_intern(strings, file ? file : UNKNOWN_FILE, NULL);
    if (n == XPTI_INVALID_STRING_ID || f == XPTI_INVALID_STRING_ID)
        return false;
    *out = key_from_ids(n, f, p);
    out->string_ids = true;
    return true;
}

struct xpti_uid128 xpti_make_key(const char *func_name, const char *file_name, uint32_t line,
                                 uint32_t column)
{
    struct xpti_payload p = tp_payload_from_location(func_name, file_name, line, column, NULL);
    struct key_parts k = hashed_key(&p);
    return (struct xpti_uid128){.p1 = k.p1, .p2 = k.p2};
}

/* Inline for the registry, which derives an id per instance; the exported
 * function below would be a call through the PLT. */
static inline uint64_t uid64_derive(uint64_t p1, uint64_t p2, uint64_t instance, uint32_t attempt)
{
    uint64_t x = xpti_mix64(instance ^ (uint64_t)attempt * 0x9E3779B97F4A7C15u);
    x = xpti_mix64(p1 ^ xpti_mix64(p2 ^ x));
    /* Keep ids out of the small-integer range so a counter or a truncated
     * 32-bit value can never be mistaken for a live id. */
    while (x < ((uint64_t)1 << 32))
        x = xpti_mix64(x + 0x9E3779B97F4A7C15u);
    return x;
}

uint64_t xpti_uid64_derive(uint64_t p1, uint64_t p2, uint64_t instance, uint32_t attempt)
{
    return uid64_derive(p1, p2, instance, attempt);
}

static uint64_t key_hash(uint64_t p1, uint64_t p2)
{
    return xpti_mix64(p1 ^ xpti_mix64(p2)) | 1; /* 0 would read as "no hash" */
}

static bool key_matches(const struct chash_node *n, const void *key)
{
    const struct tp_key *k = (const struct tp_key *)n;
    const struct key_parts *want = key;
    return k->p1 == want->p1 && k->p2 == want->p2;
}

/* Held for a few dozen ns per instance: a thread that finds it taken
 * does better to spin briefly than to sleep in the kernel and be woken
 * (two system calls, microseconds of CPU), which is what a plain mutex
 * does when two threads make instances at once. */
static void init_spinning_lock(pthread_mutex_t *lock)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
#ifdef PTHREAD_MUTEX_ADAPTIVE_NP
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    pthread_mutex_init(lock, &attr);
    pthread_mutexattr_destroy(&attr);
}

/* Each shard's index starts at 2^6 slots: the sixteen together hold what
 * the one index of 2^10 held. */
#define SHARD_INDEX_BITS 6

int tpreg_init(struct tpreg *r, struct strtab *strings, bool strict, tp_dress_fn dress)
{
    memset(r, 0, sizeof(*r));
    init_spinning_lock(&r->lock);
    init_spinning_lock(&r->pool.lock);
    tp_pool_init(&r->pool);
    pthread_mutex_init(&r->index_mem_lock, NULL);
    r->strings = strings;
    r->strict = strict;
    r->dress = dress;
    arena_init(&r->key_mem);
    arena_init(&r->index_mem);
    if (chash_init_in(&r->keys, 10, &r->index_mem) || chash_init_in(&r->sites, 10, &r->index_mem))
        return -1;
    r->keys.mem_lock = r->sites.mem_lock = &r->index_mem_lock;
    for (size_t i = 0; i < TP_SHARDS; i++) {
        struct tp_shard *s = &r->shard[i];
        if (uidix_init_in(&s->uids, SHARD_INDEX_BITS, &r->index_mem))
            return -1;
        s->uids.mem_lock = &r->index_mem_lock;
    }
    return 0;
}

/* keep_memory: the instance slabs stay (xptiReset), emptied. */
static void free_keys_and_instances(struct tpreg *r, bool keep_memory)
{
    size_t n = atomic_load_explicit(&r->pool.nslabs, memory_order_relaxed);
    for (size_t s = 0; s < n; s++)
        for (size_t i = 0; i < r->pool.slab[s].n; i++) {
            struct tp_inst *inst = &r->pool.slab[s].base[i];
            if (atomic_load_explicit(&inst->live, memory_order_relaxed)) {
                md_free(atomic_load_explicit(&inst->md, memory_order_relaxed));
                atomic_store_explicit(&inst->live, false, memory_order_relaxed);
            }
        }
    if (keep_memory) {
        tp_pool_empty(&r->pool);
        arena_rewind(&r->key_mem);
    } else {
        tp_pool_free_all(&r->pool);
        arena_destroy(&r->key_mem);
    }
}

void tpreg_destroy(struct tpreg *r)
{
    free_keys_and_instances(r, false);
    chash_destroy(&r->keys);
    chash_destroy(&r->sites);
    for (size_t i = 0; i < TP_SHARDS; i++)
        uidix_destroy(&r->shard[i].uids);
    arena_destroy(&r->index_mem);
    pthread_mutex_destroy(&r->index_mem_lock);
    pthread_mutex_destroy(&r->pool.lock);
    pthread_mutex_destroy(&r->lock);
}

int tpreg_clear(struct tpreg *r)
{
    free_keys_and_instances(r, true);
    if (chash_clear(&r->keys, 10) || chash_clear(&r->sites, 10))
        return -1;
    for (size_t i = 0; i < TP_SHARDS; i++)
        if (uidix_clear(&r->shard[i].uids, SHARD_INDEX_BITS))
            return -1;
    return 0;
}

/* A key's string and its id. In strict mode the key's id of a present
 * string already is its table id, so the string is not interned again. */
static xpti_string_id_t key_string(struct tpreg *r, const char *s, bool string_ids, uint32_t id,
                                   const char **copy)
{
    if (s && string_ids) {
        *copy = strtab_lookup(r->strings, id);
        return id;
    }
    return strtab_intern(r->strings, s, copy);
}

/* A new key's strings, interned before the registry lock is taken (the
 * string table has its own), so that lock is held only to make the key. */
struct key_text {
    const char *name, *file;
    xpti_string_id_t name_sid, file_sid;
};

static void key_text_of(struct tpreg *r, const struct xpti_payload *p,
                        const struct key_parts *parts, struct key_text *t)
{
    t->name = t->file = NULL;
    t->name_sid = key_string(r, tp_payload_name(p), parts->string_ids, parts->name_id, &t->name);
    t->file_sid = key_string(r, tp_payload_file(p), parts->string_ids, parts->file_id, &t->file);
}

/* Called with r->lock held. */
static struct tp_key *new_key(struct tpreg *r, const struct key_parts *parts,
                              const struct key_text *text, uint64_t hash, uint64_t site)
{
    /* From the arena: keys are never freed one by one, and new keys then
     * share warm pages instead of each touching malloc's next fresh one. A
     * key whose index insert fails stays in the arena until tpreg_clear. */
    struct tp_key *k = arena_alloc_zeroed(&r->key_mem, sizeof(*k)); /* 64-aligned */
    if (!k)
        return NULL;
    /* Instance 1 is the creator's (tpreg_create): numbered before the key
     * is published, so without a locked increment. */
    *k = (struct tp_key){.p1 = parts->p1,
                         .p2 = parts->p2,
                         .instances = 1,
                         .name_id = parts->name_id,
                         .file_id = parts->file_id,
                         .name = text->name,
                         .file = text->file,
                         .name_sid = text->name_sid,
                         .file_sid = text->file_sid,
                         .owner = r};
    if (chash_insert(&r->keys, &k->node, hash) != 0)
        return NULL;
    tp_site_add(r, k, site);
    return k;
}

static bool key_of(struct tpreg *r, const struct xpti_payload *p, struct key_parts *out)
{
    if (r->strict)
        return strict_key(r->strings, p, out);
    *out = hashed_key(p);
    return true;
}

static void init_payload(struct tp_inst *inst, const struct xpti_payload *p)
{
    const struct tp_key *k = inst->key;
    inst->payload = (struct xpti_payload){
        .name = k->name,
        .source_file = k->file,
        .line_no = p->line_no,
        .column_no = p->column_no,
        .code_ptr_va = p->code_ptr_va,
        .internal = tp_inst_uid64(inst),
        .flags = (p->flags & ~(uint64_t)XPTI_PAYLOAD_STACK_TRACE_AVAILABLE) |
                 XPTI_PAYLOAD_REGISTERED | XPTI_PAYLOAD_HASH_AVAILABLE,
        /* Legacy uid: name id in p2's low half, file id in p1's high half. */
        .uid = {.p1 = (uint64_t)k->file_id << 32 | (uint32_t)k->p2, .p2 = k->name_id, .p3 = 1},
    };
    /* A payload with a name only gets the placeholder file (the one its
     * key was hashed with) and its flag, as upstream does, so readers
     * never print a NULL file. */
    if (!inst->payload.source_file) {
        inst->payload.source_file = UNKNOWN_FILE;
        inst->payload.flags |= XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE;
    }
}

static void init_event(struct tp_inst *inst, uint16_t event_type, uint16_t activity)
{
    /* Field by field rather than a compound literal: that one zero-fills
     * the whole event first (a `rep stos`, slow to start for 128 bytes)
     * and then writes most of it again. */
    struct xpti_event *e = &inst->event;
    e->unique_id = tp_inst_uid64(inst);
    e->data_id = inst->instance;
    e->instance_id = inst->instance;
    e->event_type = event_type;
    e->activity_type = activity;
    e->unused = 0;
    e->source_id = 0;
    e->target_id = 0;
    e->reserved.payload = &inst->payload;
    md_write_empty_map_image(e->reserved.metadata);
    e->global_user_data = NULL;
    e->flags = XPTI_EVENT_UID_AVAILABLE | XPTI_EVENT_TYPE_AVAILABLE |
               XPTI_EVENT_ACTIVITY_TYPE_AVAILABLE | XPTI_EVENT_PAYLOAD_AVAILABLE;
}

/* Is ref the live instance with this id? The id index's confirmation of a
 * tag match; lock-free (a slot being reused reads as not live or another id). */
static bool holds_id(uint32_t ref, uint64_t id, const void *ctx)
{
    const struct tpreg *r = ctx;
    struct tp_inst *inst = tp_pool_at(&r->pool, ref);
    return atomic_load_explicit(&inst->live, memory_order_acquire) &&
           atomic_load_explicit(&inst->index_id, memory_order_relaxed) == id;
}

/* The shard lock holder's view: under it the shard's index holds exactly
 * the shard's ids taken, including those of instances another thread is
 * still filling in (not live yet), so membership alone decides. */
static bool id_taken(uint32_t ref, uint64_t id, const void *ctx)
{
    const struct tpreg *r = ctx;
    return atomic_load_explicit(&tp_pool_at(&r->pool, ref)->index_id, memory_order_relaxed) == id;
}

/* Called with r->lock held: the key of p, found again (a lock-free miss
 * may be a reader that raced with a resize; under the lock a miss is
 * final) or made, with instance 1 taken (*made). */
static struct tp_key *key_locked(struct tpreg *r, const struct key_parts *parts,
                                 const struct key_text *text, uint64_t hash, uint64_t site,
                                 bool *made)
{
    struct chash_node *n = chash_find(&r->keys, hash, key_matches, parts, CHASH_UNBOUNDED);
    *made = !n;
    return n ? (struct tp_key *)n : new_key(r, parts, text, hash, site);
}

/* A slot for instance number `instance` of k, with its id taken (indexed
 * in its shard, so no other new instance can pick it), or NULL without
 * memory. Deterministic collision handling: the first attempt whose id no
 * live instance holds wins, so two processes with the same history agree.
 * Each attempt holds only its id's shard's lock, under which that shard's
 * index is complete. */
static struct tp_inst *claim_instance(struct tpreg *r, const struct tp_key *k, uint64_t instance)
{
    struct tp_inst *inst = tp_pool_take(&r->pool);
    if (!inst)
        return NULL;
    for (uint32_t attempt = 0;; attempt++) {
        uint64_t uid = uid64_derive(k->p1, k->p2, instance, attempt);
        struct tp_shard *s = tp_shard_of(r, uid);
        spin_lock(&s->lock);
        /* Set before the entry is published, for finders that hit it. */
        atomic_store_explicit(&inst->index_id, uid, memory_order_relaxed);
        int rc = uidix_claim(&s->uids, uid, inst->ref, id_taken, r);
        spin_unlock(&s->lock);
        if (rc == 0)
            return inst;
        if (rc < 0) {
            tp_pool_give(&r->pool, inst);
            return NULL;
        }
    }
}

struct tp_inst *tpreg_create(struct tpreg *r, const struct xpti_payload *p, uint16_t event_type,
                             uint16_t activity)
{
    if (!tp_payload_valid(p))
        return NULL;
    /* A repeat from the same site (the common case: a runtime's string
     * literals) finds its key by address and a string compare, without
     * hashing the strings again. */
    uint64_t site = tp_site_hash(p);
    struct tp_key *k = tp_site_find(r, p, site);
    struct key_parts parts;
    uint64_t hash = 0;
    if (!k) {
        if (!key_of(r, p, &parts))
            return NULL;
        hash = key_hash(parts.p1, parts.p2);
        k = (struct tp_key *)chash_find(&r->keys, hash, key_matches, &parts, CHASH_READER_HOPS);
    }

    bool made = false;
    if (!k) {
        struct key_text text;
        key_text_of(r, p, &parts, &text);
        pthread_mutex_lock(&r->lock);
        k = key_locked(r, &parts, &text, hash, site, &made);
        pthread_mutex_unlock(&r->lock);
        if (!k)
            return NULL;
    }
    /* An atomic increment of the key's own, not the registry lock: a
     * repeat then takes no lock but its id's shard's. A number is used up
     * even when the instance cannot be made. */
    uint64_t instance =
        made ? 1 : atomic_fetch_add_explicit(&k->instances, 1, memory_order_relaxed) + 1;
    struct tp_inst *inst = claim_instance(r, k, instance);
    if (!inst)
        return NULL;

    /* Outside the lock: the instance's five cache lines are the cold part
     * of a new instance, and other threads' creations need not wait for
     * them. Nobody reaches the slot before `live` is set: finders and
     * validators check it first, and the lock holder's id check looks only
     * at the index. */
    inst->key = k;
    inst->instance = instance;
    /* A slot keeps its vtable pointers when recycled (and after a reset):
     * only fresh, zeroed memory needs dressing. */
    if (r->dress && !inst->tracepoint_if.vptr)
        r->dress(inst);
    init_payload(inst, p);
    init_event(inst, event_type, activity);
    atomic_store_explicit(&inst->md, NULL, memory_order_relaxed);
    inst->ended = false;
    inst->ended_prev = inst->ended_next = 0;
    /* Release: whoever sees it live sees it filled. */
    atomic_store_explicit(&inst->live, true, memory_order_release);
    return inst;
}

/* A miss may be a reader that raced with a resize or a removal's shift:
 * confirm under the lock. Out of line, so the lock-free hit saves no
 * registers. */
static __attribute__((noinline)) struct tp_inst *find_locked(struct tpreg *r, uint64_t uid)
{
    struct tp_shard *s = tp_shard_of(r, uid);
    spin_lock(&s->lock);
    uint32_t ref = uidix_find(&s->uids, uid, holds_id, r);
    spin_unlock(&s->lock);
    return ref ? tp_pool_at(&r->pool, ref) : NULL;
}

struct tp_inst *tpreg_find(struct tpreg *r, uint64_t uid)
{
    if (uid == XPTI_INVALID_UID)
        return NULL;
    uint32_t ref = uidix_find(&tp_shard_of(r, uid)->uids, uid, holds_id, r);
    if (ref)
        return tp_pool_at(&r->pool, ref);
    return find_locked(r, uid);
}

struct tp_inst *tpreg_validate(struct tpreg *r, const void *p, size_t offset)
{
    uintptr_t base = (uintptr_t)p - offset;
    if (!p || !tp_pool_owns(&r->pool, base))
        return NULL;
    struct tp_inst *inst = (struct tp_inst *)base;
    return atomic_load_explicit(&inst->live, memory_order_acquire) ? inst : NULL;
}

/* Called with r->lock held (which orders releases and the ended lists);
 * the id's shard's lock is taken for its index. */
static void release_locked(struct tpreg *r, struct tp_inst *inst)
{
    if (!atomic_load_explicit(&inst->live, memory_order_relaxed))
        return;
    atomic_store_explicit(&inst->live, false, memory_order_release);
    md_free(atomic_exchange_explicit(&inst->md, NULL, memory_order_relaxed));
    tp_ended_unlink(&r->pool, inst->key, inst);
    uint64_t uid = tp_inst_uid64(inst);
    struct tp_shard *s = tp_shard_of(r, uid);
    spin_lock(&s->lock);
    uidix_remove(&s->uids, uid, inst->ref);
    spin_unlock(&s->lock);
    tp_pool_give(&r->pool, inst);
}

void tpreg_release(struct tpreg *r, struct tp_inst *inst)
{
    pthread_mutex_lock(&r->lock);
    release_locked(r, inst);
    pthread_mutex_unlock(&r->lock);
}

void tpreg_task_ended(struct tpreg *r, const struct xpti_event *event)
{
    struct tp_inst *inst = tpreg_validate(r, event, offsetof(struct tp_inst, event));
    if (!inst)
        return; /* not ours, or already released */
    uint64_t uid = tp_inst_uid64(inst);
    pthread_mutex_lock(&r->lock);
    /* Re-checked under the lock: another thread may have released it, and
     * its slot may even hold a newer instance by now. */
    if (atomic_load_explicit(&inst->live, memory_order_relaxed) && tp_inst_uid64(inst) == uid) {
        struct tp_inst *oldest = tp_ended_add(&r->pool, inst->key, inst);
        if (oldest)
            release_locked(r, oldest);
    }
    pthread_mutex_unlock(&r->lock);
}

xpti_result_t tp_add_metadata(struct tp_inst *inst, const char *key, xpti_object_id_t value)
{
    const char *text;
    if (!key || !*key)
        return XPTI_RESULT_INVALIDARG;
    xpti_string_id_t sid = strtab_intern(inst->key->owner->strings, key, &text);
    if (sid == XPTI_INVALID_STRING_ID)
        return XPTI_RESULT_FAIL;
    struct md_store *m = tp_md(inst);
    if (!m) {
        /* First item: publish a store; if another adder won the race, use
         * theirs (the CAS leaves it in m) and drop ours. */
        struct md_store *fresh = md_new();
        if (!fresh)
            return XPTI_RESULT_FAIL;
        if (atomic_compare_exchange_strong_explicit(&inst->md, &m, fresh, memory_order_acq_rel,
                                                    memory_order_acquire))
            m = fresh;
        else
            md_free(fresh);
    }
    return md_add(m, sid, text, value);
}
