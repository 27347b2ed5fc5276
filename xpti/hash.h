/* SPDX-License-Identifier: MIT */
/* Hashes whose values are part of the contract: FNV-1a-32 ids must equal what
 * the upstream framework computes, and the 64-bit mixer fixes our UIDs. */
#ifndef ZESTUB_XPTI_HASH_H
#define ZESTUB_XPTI_HASH_H

#include <stddef.h>
#include <stdint.h>

#define XPTI_FNV32_BASIS 2166136261u
#define XPTI_FNV32_PRIME 16777619u

static inline uint32_t xpti_fnv1a32(const char *s)
{
    uint32_t h = XPTI_FNV32_BASIS;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * XPTI_FNV32_PRIME;
    return h;
}

/* xpti_fnv1a32 of two strings at once. FNV-1a is one long dependency chain
 * (a multiply per byte), so hashing a payload's name and file one after the
 * other costs the sum of their latencies; interleaving the two chains lets
 * them overlap. The results are exactly xpti_fnv1a32(a) and (b). */
static inline void xpti_fnv1a32_pair(const char *a, const char *b, uint32_t *ha, uint32_t *hb)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    uint32_t x = XPTI_FNV32_BASIS, y = XPTI_FNV32_BASIS;
    for (; *p && *q; p++, q++) {
        x = (x ^ *p) * XPTI_FNV32_PRIME;
        y = (y ^ *q) * XPTI_FNV32_PRIME;
    }
    for (; *p; p++)
        x = (x ^ *p) * XPTI_FNV32_PRIME;
    for (; *q; q++)
        y = (y ^ *q) * XPTI_FNV32_PRIME;
    *ha = x;
    *hb = y;
}

/* 64-bit FNV-1a over a NUL-terminated string that also reports its length,
 * so the string table hashes and measures in one pass. */
static inline uint64_t xpti_fnv1a64_len(const char *s, size_t *len)
{
    uint64_t h = 14695981039346656037u;
    const unsigned char *p = (const unsigned char *)s;
    for (; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    *len = (size_t)(p - (const unsigned char *)s);
    return h;
}

/* A bijective 64-bit finalizer (the splitmix64 output function): every input
 * bit affects every output bit, so nearby keys land far apart. */
static inline uint64_t xpti_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 31;
    return x;
}

#endif
