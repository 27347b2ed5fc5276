/* SPDX-License-Identifier: MIT */
/* Subscriber shared objects named by XPTI_SUBSCRIBERS: loading them, and
 * calling their stream hooks. The list is built once, before the framework is
 * used, and is read-only afterwards, so callers need no lock. */
#ifndef ZESTUB_XPTI_SUBSCRIBERS_H
#define ZESTUB_XPTI_SUBSCRIBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*xpti_trace_init_fn)(unsigned maj, unsigned min, const char *version,
                                   const char *stream);
typedef void (*xpti_trace_finish_fn)(const char *stream);
typedef bool (*xpti_detail_level_fn)(const char *stream, uint8_t *level);

struct subscriber {
    void *handle;
    char *path;
    xpti_trace_init_fn init;
    xpti_trace_finish_fn finish;
    xpti_detail_level_fn detail_level; /* optional */
};

struct subscribers {
    size_t n;
    struct subscriber *v;
};

/* XPTI_TRACE_ENABLE: unset, empty, "1" or "true" enable; anything else disables. */
bool subs_env_allows_tracing(const char *trace_enable);
/* Load a comma-separated list (no trimming; a path listed twice loads once).
 * Prints "Failed to load <path> successfully" for each failure, as upstream. */
void subs_load(struct subscribers *s, const char *list);
void subs_unload(struct subscribers *s);
void subs_init_stream(const struct subscribers *s, unsigned maj, unsigned min, const char *version,
                      const char *stream);
void subs_finish_stream(const struct subscribers *s, const char *stream);
/* The maximum level any subscriber asks for on this stream; NORMAL if none. */
uint8_t subs_detail_level(const struct subscribers *s, const char *stream);

#endif
