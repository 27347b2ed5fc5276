/* SPDX-License-Identifier: MIT */
/* The site index: a key found from where its payload's strings live.
 *
 * Why: a repeated tracepoint used to hash its name and file with FNV-1a
 * again (a multiply per byte, one long dependency chain) only to find the
 * key it found last time. A runtime passes the same string literals from
 * the same call site every time, so the key is recorded under the addresses
 * of its creating payload's strings and its line and column. An address
 * alone proves nothing (a caller may reuse a buffer for other text), so a
 * hit is confirmed by comparing the strings with the key's own copies and
 * the location with the key's: equal strings hash equally, so a confirmed
 * hit is exactly the key the hashing path would find. Anything else (other
 * addresses, changed text) falls back to that path. */
#include <string.h>

#include "xpti/hash.h"
#include "xpti/tracepoints.h"

uint64_t tp_site_hash(const struct xpti_payload *p)
{
    uint64_t where = (uint64_t)(uintptr_t)p->name ^
                     (uint64_t)(uintptr_t)p->source_file * 0x9E3779B97F4A7C15u ^
                     ((uint64_t)p->column_no << 32 | p->line_no) * 0xC2B2AE3D27D4EB4Fu;
    return xpti_mix64(where ^ p->flags) | 1; /* 0 would read as "no hash" */
}

/* Both absent, or both present and equal. */
static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

struct site_want {
    const struct xpti_payload *p;
};

static bool site_matches(const struct chash_node *n, const void *want)
{
    const struct tp_key *k =
        (const struct tp_key *)((const char *)n - offsetof(struct tp_key, site_node));
    const struct xpti_payload *p = ((const struct site_want *)want)->p;
    return k->p2 == tp_key_p2(p) && same_text(tp_payload_name(p), k->name) &&
           same_text(tp_payload_file(p), k->file);
}

struct tp_key *tp_site_find(struct tpreg *r, const struct xpti_payload *p, uint64_t site)
{
    struct site_want want = {.p = p};
    struct chash_node *n = chash_find(&r->sites, site, site_matches, &want, CHASH_READER_HOPS);
    return n ? (struct tp_key *)((char *)n - offsetof(struct tp_key, site_node)) : NULL;
}

void tp_site_add(struct tpreg *r, struct tp_key *k, uint64_t site)
{
    /* Out of memory the key is still found by hashing, only slower. */
    (void)chash_insert(&r->sites, &k->site_node, site);
}
