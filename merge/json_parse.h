/* SPDX-License-Identifier: MIT */
/* A small JSON reader for zestub merge: the whole document becomes a tree
 * of values. Numbers keep their text too (64-bit ids do not fit a double). */
#ifndef ZESTUB_MERGE_JSON_PARSE_H
#define ZESTUB_MERGE_JSON_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* How deep arrays and objects may nest: the parser recurses once per level,
 * and a dump nests a handful of levels, a hostile file 100,000. */
#define JV_MAX_DEPTH 64

enum jv_type { JV_NULL, JV_BOOL, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT };

struct jv {
    enum jv_type type;
    bool b;
    double num;
    char *str;        /* string value, or a number's text */
    struct jv **item; /* array items or object values */
    char **key;       /* object keys */
    size_t n;
    /* A parsed document lives in one pool of large blocks, not one malloc
     * a value (merge reads thousands of dumps of ~100,000 values): every
     * value of it is pooled, and its root holds the pool, which jv_free
     * of the root frees. jv_free of any other pooled value does nothing. */
    bool pooled;
    struct jv_pool *pool;
};

/* Parses text (NUL-terminated; nothing past the NUL is read); NULL on
 * error with err set ("line N: what"). Numbers only as RFC 8259 writes
 * them, nesting at most JV_MAX_DEPTH. */
struct jv *jv_parse(const char *text, char *err, size_t errlen);
void jv_free(struct jv *v);
/* A deep copy of v (NULL for NULL, or when memory ran out): merge keeps a
 * class's representative after the rank's document is freed. */
struct jv *jv_clone(const struct jv *v);
/* A copy of object v with only the members whose key keep lists (a
 * NULL-terminated list), in their order; NULL when v is not an object or
 * memory ran out. */
struct jv *jv_clone_only(const struct jv *v, const char *const *keep);
/* Member of an object, NULL when v is not an object or has none. */
const struct jv *jv_get(const struct jv *v, const char *key);
/* Typed reads with a fallback when the member is missing or of another
 * type. jv_int truncates toward zero and saturates at LLONG_MIN/MAX. */
const char *jv_str(const struct jv *v, const char *key, const char *dflt);
long long jv_int(const struct jv *v, const char *key, long long dflt);
bool jv_is(const struct jv *v, const char *key, enum jv_type t);

#endif
