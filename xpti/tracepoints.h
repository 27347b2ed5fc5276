/* SPDX-License-Identifier: MIT */
/* The tracepoint registry: one key record per distinct 128-bit key (with its
 * canonical strings and instance counter) and one instance object per
 * registration, findable by its 64-bit id.
 *
 * A key is also found from the address of the payload's strings (its site),
 * so a repeated tracepoint does not hash its strings again: see tp_site.c.
 *
 * Concurrency: lookups by key, site and id are lock-free. Creating a key
 * takes `lock`; a new instance takes only the lock of its id's shard (its
 * slot and the id's place in the shard's index), so threads making
 * instances of known keys rarely wait for each other; a release takes
 * `lock` and then the shard's. Instances live in a pool whose memory is
 * only returned at tpreg_clear, so a lock-free reader that races with a
 * release never touches freed memory. */
#ifndef ZESTUB_XPTI_TRACEPOINTS_H
#define ZESTUB_XPTI_TRACEPOINTS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "xpti/arena.h"
#include "xpti/chash.h"
#include "xpti/metadata.h"
#include "xpti/spin.h"
#include "xpti/strtab.h"
#include "xpti/uidix.h"
#include "xpti/xpti.h"

/* A key is read by every repeat of its site (the payload compared with
 * its first line) and written by each new instance (`instances`, in its
 * second line with the site index's node, which only a lookup of this
 * site or of a neighbour in its bucket reads). Keys start on a cache line:
 * keys made by two threads at once sit side by side in key_mem, and one
 * thread's increments must not take a line from under the other thread's
 * repeats (that false sharing cost the two-thread rows more than the
 * lock did). */
struct tp_key {
    _Alignas(64) struct chash_node node; /* first: the node is the record */
    uint64_t p1, p2;
    const char *name, *file; /* string-table copies, NULL when absent */
    xpti_string_id_t name_sid, file_sid;
    uint32_t name_id, file_id;   /* the hash (or strict) ids inside p1 */
    struct tpreg *owner;         /* kept here, not in each instance */
    struct chash_node site_node; /* in the site index, under the creating payload's site */
    _Atomic uint64_t instances;  /* the instance numbers handed out */
    /* Under tpreg.lock: this key's live instances whose task has ended,
     * oldest first, as pool references (0: none; tp_ended.c). */
    uint32_t ended_oldest, ended_newest;
    uint32_t ended_count;
};
_Static_assert(sizeof(struct tp_key) == 128, "the key's lines are a decision (above)");

struct tpreg;

/* One registration. The four C++ interface sub-objects come first so their
 * addresses are fixed offsets of the instance.
 *
 * 288 bytes, of which the ABI's payload and event and the four vtable
 * pointers are 240: every byte here is written for each new instance (a
 * repeated tracepoint too), and the instances are most of what a tracing
 * process's memory grows by, so the rest is kept to 48. The 128-bit key
 * lives in the key, the 64-bit id is index_id, links are 32-bit pool
 * references and the registry is reached through the key. */
struct tp_inst {
    struct xpti_payload_if payload_if;
    struct xpti_metadata_if metadata_if;
    struct xpti_event_if event_if;
    struct xpti_tracepoint_if tracepoint_if;
    struct xpti_payload payload;
    struct xpti_event event;
    /* The instance's 64-bit id, and what the id index matches a hit
     * against: written before the instance is indexed, atomic because a
     * lock-free finder may read it while a recycled slot is being reused.
     * Beside `live` (16 bytes at a 16-byte offset, and a 16-aligned
     * stride: one cache line for every slot): a lookup by id reads both. */
    _Alignas(16) _Atomic uint64_t index_id;
    atomic_bool live;
    bool ended;   /* under tpreg.lock: in key->ended_* */
    uint32_t ref; /* the pool's name for this slot, what the id index stores */
    struct tp_key *key;
    _Atomic(struct md_store *) md; /* NULL until the first metadata item */
    union {                        /* a free slot is never live, so never ended */
        uint32_t next_free;        /* pool references, 0: none */
        uint32_t ended_next;
    };
    uint32_t ended_prev; /* under tpreg.lock */
    uint64_t instance;   /* the key's instance number, 1, 2, ... */
};
_Static_assert(sizeof(struct tp_inst) == 288, "the instance's size is a decision (above)");

/* The instance's 64-bit id (its uid64). */
static inline uint64_t tp_inst_uid64(const struct tp_inst *inst)
{
    return atomic_load_explicit(&inst->index_id, memory_order_relaxed);
}

/* The instance's metadata, NULL (which the md_* readers take as empty) when
 * none was ever added. */
static inline struct md_store *tp_md(struct tp_inst *inst)
{
    return atomic_load_explicit(&inst->md, memory_order_acquire);
}

#define TP_POOL_SLABS 40
/* A slot's reference: (slab << 20 | index) + 1; slabs hold fewer than 2^20. */
#define TP_REF_SLAB_SHIFT 20

struct tp_slab {
    struct tp_inst *base;
    size_t n;
    size_t bytes; /* as xpti_huge_map returned it */
};

/* The slabs and the free slots. Fresh slots go to threads in runs
 * (tp_pool_take) under `lock`, a leaf lock, which also guards the free
 * list; `gen` tells a thread's run from before an xptiReset (or from
 * another registry at the same address). */
struct tp_pool {
    pthread_mutex_t lock;
    uint64_t gen;
    /* First free slot, 0: none. Written under lock; read without it only
     * to skip the lock when there is none (a program that never releases). */
    _Atomic uint32_t free;
    struct tp_slab slab[TP_POOL_SLABS];
    _Atomic size_t nslabs; /* slabs below this are published */
    size_t cur;            /* the slab handing out fresh slots; later ones are
                              kept, empty, from before an xptiReset */
    size_t used_in_cur;
};

/* A part of the id index, chosen by the low bits of an id: its own lock
 * and the index of its ids. Why: with one lock for every new instance, two
 * threads making instances at full speed queued on it (bench/README.md,
 * issue 14 night); ids are spread evenly, so two threads rarely want one
 * shard. Everything a new instance touches in its shard is one cache line
 * (spin.h), and shards share none. The free slots are not sharded: a
 * program that recycles (the SYCL runtime's ended tasks) would take its
 * new instance from another shard's list than the one its last release
 * went to, which measured twice as slow per submission (issue 14 night). */
#define TP_SHARDS 16
struct tp_shard {
    _Alignas(64) _Atomic uint32_t lock; /* spin.h */
    struct uidix uids;                  /* written under lock */
};
_Static_assert(sizeof(struct tp_shard) == 64, "a shard is one cache line");

/* Dresses a new instance before it is published: points its C++ interface
 * sub-objects at their tables. The registry takes it at tpreg_init from
 * whoever assembles the framework, so it never calls up into the layer that
 * implements those interfaces (cxx_interfaces.c calls down into us). */
typedef void (*tp_dress_fn)(struct tp_inst *inst);

struct tpreg {
    pthread_mutex_t lock; /* key creation, releases, the ended lists */
    struct chash keys;
    struct chash sites; /* keys by their creating payload's string addresses */
    struct tp_shard shard[TP_SHARDS];
    struct tp_pool pool;
    struct arena key_mem; /* the keys, under lock; rewound by tpreg_clear */
    /* The indexes' tables (index_mem_lock); never rewound (a reset keeps
     * each index's grown table, emptied), freed by tpreg_destroy. */
    struct arena index_mem;
    /* Taken around every table allocation from index_mem: the shards' id
     * indexes grow under their own locks, the keys and sites under `lock`.
     * One arena for all, so small tables share pages already touched. */
    pthread_mutex_t index_mem_lock;
    struct strtab *strings;
    bool strict;       /* XPTI_USE_STRICT_HASH: string-table ids instead of FNV-1a */
    tp_dress_fn dress; /* set once at init, may be NULL */
};

int tpreg_init(struct tpreg *r, struct strtab *strings, bool strict, tp_dress_fn dress);
void tpreg_destroy(struct tpreg *r);
int tpreg_clear(struct tpreg *r);

/* A payload may serve as a tracepoint: flags set and a name or a file. */
bool tp_payload_valid(const struct xpti_payload *p);
/* A payload as the 5-argument upstream constructor builds it, with the
 * "unknown"/"unknown-file" substitution xptiCreateTracepoint applies. */
struct xpti_payload tp_payload_from_location(const char *func, const char *file, uint32_t line,
                                             uint32_t column, void *code_ptr);

/* A new instance of p's key (instance numbers 1, 2, ...), NULL if p is
 * invalid or memory ran out. */
struct tp_inst *tpreg_create(struct tpreg *r, const struct xpti_payload *p, uint16_t event_type,
                             uint16_t activity);
struct tp_inst *tpreg_find(struct tpreg *r, uint64_t uid);
/* The live instance whose member at `offset` is at `p`, or NULL: validates
 * pointers handed back by callers without dereferencing foreign memory. */
struct tp_inst *tpreg_validate(struct tpreg *r, const void *p, size_t offset);
void tpreg_release(struct tpreg *r, struct tp_inst *inst);
/* A task_end notification about `event` was delivered. If the framework made
 * it, it joins its key's ended instances; the oldest of those beyond
 * TP_ENDED_KEEP is released, so a program that makes an instance per
 * submission and never releases it (the SYCL runtime) holds memory bounded
 * by its sites, not its submissions. */
void tpreg_task_ended(struct tpreg *r, const struct xpti_event *event);
/* xptiAddMetadata's rules: INVALIDARG for a NULL/empty key, DUPLICATE when
 * the key existed (the value is replaced anyway), SUCCESS otherwise. */
xpti_result_t tp_add_metadata(struct tp_inst *inst, const char *key, xpti_object_id_t value);

/* Ended instances kept per key before the oldest is recycled: what a
 * reader that still holds an ended event (the runtime printing it, a
 * subscriber reading it later) has as its grace, counted in submissions of
 * the same site. */
#define TP_ENDED_KEEP 64

/* The key's list of ended instances (tp_ended.c); under the registry lock.
 * tp_ended_add returns the instance to release, or NULL. */
struct tp_inst *tp_ended_add(struct tp_pool *pool, struct tp_key *k, struct tp_inst *inst);
void tp_ended_unlink(struct tp_pool *pool, struct tp_key *k, struct tp_inst *inst);

/* The site index (tp_site.c). tp_site_hash mixes the payload's string
 * addresses and the line and column it flags; tp_site_find returns the key
 * recorded under that site whose strings and location equal the payload's
 * (compared, not assumed: an address may be reused for other text), or
 * NULL. tp_site_add records a new key under its creating payload's site;
 * under the lock, and a failure only costs later lookups the slow path. */
uint64_t tp_site_hash(const struct xpti_payload *p);
struct tp_key *tp_site_find(struct tpreg *r, const struct xpti_payload *p, uint64_t site);
void tp_site_add(struct tpreg *r, struct tp_key *k, uint64_t site);

/* The payload's name and file as its key sees them: NULL when not flagged
 * or empty (the key then hashes a placeholder). */
static inline const char *tp_payload_name(const struct xpti_payload *p)
{
    return (p->flags & XPTI_PAYLOAD_NAME_AVAILABLE) && p->name && *p->name ? p->name : NULL;
}

static inline const char *tp_payload_file(const struct xpti_payload *p)
{
    return (p->flags & XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE) && p->source_file && *p->source_file
               ? p->source_file
               : NULL;
}

/* p2 of the payload's key: column << 32 | line, each only when flagged. */
static inline uint64_t tp_key_p2(const struct xpti_payload *p)
{
    uint64_t line = (p->flags & XPTI_PAYLOAD_LINE_INFO_AVAILABLE) ? p->line_no : 0;
    uint64_t column = (p->flags & XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE) ? p->column_no : 0;
    return column << 32 | line;
}

/* The shard of an id (the id index's home slot uses the high half). */
static inline struct tp_shard *tp_shard_of(struct tpreg *r, uint64_t uid)
{
    return &r->shard[uid & (TP_SHARDS - 1)];
}

/* The instance pool (tp_pool.c); lock-free but for `lock` (a free slot, a
 * new run). A slot is the first free one, else the next of the calling
 * thread's run of fresh slots: a thread writes its new instances one after another
 * in memory, and never on a cache line another thread's new instance
 * shares. A thread that ends leaves the rest of its run unused (at most
 * RUN_MAX slots; a thread's first runs are 1, 2, 4, ... slots). */
struct tp_inst *tp_pool_take(struct tp_pool *pool);
void tp_pool_give(struct tp_pool *pool, struct tp_inst *inst);
/* The slot a reference names (refs come from tp_pool_take; lock-free). */
static inline struct tp_inst *tp_pool_at(const struct tp_pool *pool, uint32_t ref)
{
    ref--;
    return &pool->slab[ref >> TP_REF_SLAB_SHIFT].base[ref & ((1u << TP_REF_SLAB_SHIFT) - 1)];
}
/* Lock-free: is p the start of an instance slot of this pool? */
bool tp_pool_owns(const struct tp_pool *pool, uintptr_t p);
void tp_pool_free_all(struct tp_pool *pool);
/* Every slot unused again (none may be live), the memory kept: after an
 * xptiReset new instances land in memory already faulted in. Every
 * thread's run is forgotten (a new gen). tp_pool_init: before first use. */
void tp_pool_init(struct tp_pool *pool);
void tp_pool_empty(struct tp_pool *pool);

#endif
