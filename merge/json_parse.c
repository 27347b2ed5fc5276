/* SPDX-License-Identifier: MIT */
/* Recursive descent over the JSON grammar (RFC 8259); nesting is bounded
 * so a hostile file cannot exhaust the stack. */
#include "merge/json_parse.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A block of the pool: its header, then the values bump-allocated. */
struct jv_pool {
    struct jv_pool *next;
    size_t used, size;
};
#define POOL_HEAD ((sizeof(struct jv_pool) + 15) & ~(size_t)15)
#define POOL_BLOCK 65536

struct parser {
    const char *p;
    const char *start;
    char *err;
    size_t errlen;
    bool failed;
    struct jv_pool *pool;
};

static void pool_free(struct jv_pool *b)
{
    while (b) {
        struct jv_pool *next = b->next;
        free(b);
        b = next;
    }
}

/* n bytes from the parser's pool, 16-aligned; NULL when memory ran out. A
 * large request gets a block of its own behind the current one, which
 * keeps its room for what comes next. */
static void *pool_alloc(struct parser *ps, size_t n)
{
    struct jv_pool *b = ps->pool;
    n = (n + 15) & ~(size_t)15;
    if (!b || b->size - b->used < n) {
        size_t size = n > POOL_BLOCK / 4 ? n : POOL_BLOCK;
        struct jv_pool *c = malloc(POOL_HEAD + size);
        if (!c)
            return NULL;
        c->used = 0;
        c->size = size;
        if (b && size != POOL_BLOCK) {
            c->next = b->next;
            b->next = c;
        } else {
            c->next = b;
            ps->pool = c;
        }
        b = c;
    }
    b->used += n;
    return (char *)b + POOL_HEAD + b->used - n;
}

static void fail(struct parser *ps, const char *what)
{
    unsigned line = 1;
    if (ps->failed)
        return;
    for (const char *q = ps->start; q < ps->p; q++)
        line += *q == '\n';
    snprintf(ps->err, ps->errlen, "line %u: %s", line, what);
    ps->failed = true;
}

static void skip_ws(struct parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

static struct jv *value(struct parser *ps, int depth);

/* Appends c (a code point) as UTF-8. */
static void put_utf8(char *out, size_t *n, unsigned c)
{
    if (c < 0x80) {
        out[(*n)++] = (char)c;
    } else if (c < 0x800) {
        out[(*n)++] = (char)(0xc0 | (c >> 6));
        out[(*n)++] = (char)(0x80 | (c & 0x3f));
    } else {
        out[(*n)++] = (char)(0xe0 | (c >> 12));
        out[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (c & 0x3f));
    }
}

static char *string(struct parser *ps)
{
    const char *q = ++ps->p;
    size_t n = 0;
    char *out;
    while (*q && *q != '"')
        q += *q == '\\' && q[1] ? 2 : 1;
    if (*q != '"') {
        fail(ps, "unterminated string");
        return NULL;
    }
    /* No escape writes more bytes than it takes (\uXXXX: 6 for at most
     * 3). */
    out = pool_alloc(ps, (size_t)(q - ps->p) + 1);
    while (out && ps->p < q) {
        char c = *ps->p++;
        unsigned u;
        if (c != '\\') {
            out[n++] = c;
            continue;
        }
        c = *ps->p++;
        switch (c) {
        case 'n':
            out[n++] = '\n';
            break;
        case 't':
            out[n++] = '\t';
            break;
        case 'r':
            out[n++] = '\r';
            break;
        case 'b':
            out[n++] = '\b';
            break;
        case 'f':
            out[n++] = '\f';
            break;
        case 'u':
            /* Exactly four hex digits (sscanf's %4x would take a sign,
             * spaces, "0x" or fewer digits, and step past the string). */
            u = 0;
            for (int i = 0; i < 4 && out; i++, ps->p++) {
                char h = *ps->p;
                if (!isxdigit((unsigned char)h)) {
                    fail(ps, "bad \\u escape");
                    out = NULL;
                    break;
                }
                u = u * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
            }
            if (!out)
                return NULL;
            put_utf8(out, &n, u);
            break;
        default:
            out[n++] = c;
            break;
        }
    }
    if (out)
        out[n] = '\0';
    ps->p = q + 1;
    return out;
}

static struct jv *new_value(enum jv_type t)
{
    struct jv *v = calloc(1, sizeof(*v));
    if (v)
        v->type = t;
    return v;
}

static struct jv *pooled_value(struct parser *ps, enum jv_type t)
{
    struct jv *v = pool_alloc(ps, sizeof(*v));
    if (v) {
        memset(v, 0, sizeof(*v));
        v->type = t;
        v->pooled = true;
    }
    return v;
}

/* The arrays grow to 4, 8, 16... items, full when n is one of those: a
 * realloc for every item made merge's time mostly malloc's. */
static bool push(struct parser *ps, struct jv *v, char *key, struct jv *item)
{
    size_t cap = v->n < 4 ? 4 : v->n * 2;
    bool full = v->n == 0 || (v->n >= 4 && (v->n & (v->n - 1)) == 0);
    if (full) {
        struct jv **items = pool_alloc(ps, cap * sizeof(*items));
        char **keys = v->type == JV_OBJECT ? pool_alloc(ps, cap * sizeof(*keys)) : NULL;
        if (!items || (v->type == JV_OBJECT && !keys))
            return false;
        if (v->n) {
            memcpy(items, v->item, v->n * sizeof(*items));
            if (keys)
                memcpy(keys, v->key, v->n * sizeof(*keys));
        }
        v->item = items;
        v->key = keys;
    }
    if (v->type == JV_OBJECT)
        v->key[v->n] = key;
    v->item[v->n++] = item;
    return true;
}

/* An array (obj false) or object body after its opening bracket. */
static struct jv *container(struct parser *ps, bool obj, int depth)
{
    struct jv *v = pooled_value(ps, obj ? JV_OBJECT : JV_ARRAY);
    char close = obj ? '}' : ']';
    ps->p++;
    skip_ws(ps);
    if (*ps->p == close) {
        ps->p++;
        return v;
    }
    while (v && !ps->failed) {
        char *key = NULL;
        struct jv *item;
        skip_ws(ps);
        if (obj) {
            if (*ps->p != '"' || !(key = string(ps)))
                break;
            skip_ws(ps);
            /* Never past the text's NUL: a file cut short ends here. */
            if (*ps->p != ':')
                break;
            ps->p++;
        }
        item = value(ps, depth + 1);
        if (!item || !push(ps, v, key, item))
            break;
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == close) {
            ps->p++;
            return v;
        }
        break;
    }
    fail(ps, obj ? "bad object" : "bad array");
    return NULL;
}

static const char *digits(const char *p)
{
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

/* The end of the number RFC 8259 writes at p, or NULL. Nothing else that
 * strtod takes ("nan", "inf", hex, a '+', a leading '.' or zero): merge
 * copies a number's text into its own JSON report, which must stay JSON. */
static const char *number_end(const char *p)
{
    const char *q;
    p += *p == '-';
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        p = digits(p);
    else
        return NULL;
    if (*p == '.') {
        if ((q = digits(p + 1)) == p + 1)
            return NULL;
        p = q;
    }
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        if ((q = digits(p)) == p)
            return NULL;
        p = q;
    }
    return p;
}

static struct jv *number(struct parser *ps)
{
    const char *end = number_end(ps->p);
    struct jv *v;
    if (!end) {
        fail(ps, *ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9') ? "bad number"
                                                                   : "unexpected character");
        return NULL;
    }
    v = pooled_value(ps, JV_NUMBER);
    if (v && (v->str = pool_alloc(ps, (size_t)(end - ps->p) + 1)) != NULL) {
        memcpy(v->str, ps->p, (size_t)(end - ps->p));
        v->str[end - ps->p] = '\0';
        v->num = strtod(v->str, NULL);
    } else
        v = NULL;
    ps->p = end;
    return v;
}

static struct jv *value(struct parser *ps, int depth)
{
    struct jv *v;
    skip_ws(ps);
    /* The document is depth 0: at most JV_MAX_DEPTH levels of arrays and
     * objects, each a level of recursion here. */
    if (depth >= JV_MAX_DEPTH && (*ps->p == '[' || *ps->p == '{')) {
        char what[64];
        snprintf(what, sizeof(what), "nested deeper than %d", JV_MAX_DEPTH);
        fail(ps, what);
        return NULL;
    }
    switch (*ps->p) {
    case '{':
        return container(ps, true, depth);
    case '[':
        return container(ps, false, depth);
    case '"':
        v = pooled_value(ps, JV_STRING);
        if (v && !(v->str = string(ps)))
            return NULL;
        return v;
    }
    if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
        v = pooled_value(ps, JV_BOOL);
        if (v)
            v->b = *ps->p == 't';
        ps->p += *ps->p == 't' ? 4 : 5;
        return v;
    }
    if (!strncmp(ps->p, "null", 4)) {
        ps->p += 4;
        return pooled_value(ps, JV_NULL);
    }
    return number(ps);
}

struct jv *jv_parse(const char *text, char *err, size_t errlen)
{
    struct parser ps = {text, text, err, errlen, false, NULL};
    struct jv *v = value(&ps, 0);
    /* Only after a whole document: a failed one may have left p on the
     * text's NUL, and nothing may be read past it. */
    if (v)
        skip_ws(&ps);
    if (v && *ps.p) {
        fail(&ps, "text after the document");
        v = NULL;
    }
    if (!v) {
        fail(&ps, "not a JSON document");
        pool_free(ps.pool);
        return NULL;
    }
    v->pool = ps.pool;
    return v;
}

void jv_free(struct jv *v)
{
    if (!v)
        return;
    if (v->pooled) {
        pool_free(v->pool);
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        jv_free(v->item[i]);
        if (v->key)
            free(v->key[i]);
    }
    free(v->item);
    free(v->key);
    free(v->str);
    free(v);
}

static char *dup_or_null(const char *s, bool *failed)
{
    char *d = s ? strdup(s) : NULL;
    *failed |= s && !d;
    return d;
}

struct jv *jv_clone(const struct jv *v)
{
    struct jv *c;
    bool failed = false;
    if (!v || !(c = new_value(v->type)))
        return NULL;
    c->b = v->b;
    c->num = v->num;
    c->str = dup_or_null(v->str, &failed);
    if (v->n) {
        c->item = calloc(v->n, sizeof(*c->item));
        c->key = v->key ? calloc(v->n, sizeof(*c->key)) : NULL;
        failed |= !c->item || (v->key && !c->key);
    }
    for (size_t i = 0; !failed && i < v->n; i++) {
        c->n = i + 1;
        c->item[i] = jv_clone(v->item[i]);
        if (v->key)
            c->key[i] = dup_or_null(v->key[i], &failed);
        failed |= !c->item[i];
    }
    if (failed) {
        jv_free(c);
        return NULL;
    }
    return c;
}

struct jv *jv_clone_only(const struct jv *v, const char *const *keep)
{
    struct jv *c;
    size_t n = 0;
    if (!v || v->type != JV_OBJECT || !(c = new_value(JV_OBJECT)))
        return NULL;
    c->item = calloc(v->n + 1, sizeof(*c->item));
    c->key = calloc(v->n + 1, sizeof(*c->key));
    for (size_t i = 0; c->item && c->key && i < v->n; i++) {
        const char *const *k = keep;
        while (*k && strcmp(*k, v->key[i]) != 0)
            k++;
        if (!*k)
            continue;
        c->n = n + 1;
        c->key[n] = strdup(v->key[i]);
        c->item[n] = jv_clone(v->item[i]);
        if (!c->key[n] || !c->item[n])
            break;
        n++;
    }
    if (!c->item || !c->key || c->n != n) {
        jv_free(c);
        return NULL;
    }
    return c;
}

const struct jv *jv_get(const struct jv *v, const char *key)
{
    if (!v || v->type != JV_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->n; i++)
        if (!strcmp(v->key[i], key))
            return v->item[i];
    return NULL;
}

const char *jv_str(const struct jv *v, const char *key, const char *dflt)
{
    const struct jv *m = jv_get(v, key);
    return m && m->type == JV_STRING ? m->str : dflt;
}

long long jv_int(const struct jv *v, const char *key, long long dflt)
{
    const struct jv *m = jv_get(v, key);
    if (!m || m->type != JV_NUMBER || isnan(m->num))
        return dflt;
    /* Saturated: a 64-bit id, or 1e300, is no undefined conversion. */
    if (m->num >= 0x1p63)
        return LLONG_MAX;
    if (m->num < -0x1p63)
        return LLONG_MIN;
    return (long long)m->num;
}

bool jv_is(const struct jv *v, const char *key, enum jv_type t)
{
    const struct jv *m = jv_get(v, key);
    return m && m->type == t;
}
