/* SPDX-License-Identifier: MIT */
#include "xpti/subscribers.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpti/xpti.h"

bool subs_env_allows_tracing(const char *v)
{
    return !v || !*v || strcmp(v, "1") == 0 || strcmp(v, "true") == 0;
}

static bool already_loaded(const struct subscribers *s, const char *path)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].path, path) == 0)
            return true;
    return false;
}

/* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
static void *symbol(void *handle, const char *name)
{
    return dlsym(handle, name);
}

static bool load_one(struct subscribers *s, const char *path)
{
    struct subscriber sub = {.handle = dlopen(path, RTLD_LAZY)};
    if (!sub.handle)
        return false;
    void *init = symbol(sub.handle, "xptiTraceInit");
    void *finish = symbol(sub.handle, "xptiTraceFinish");
    void *level = symbol(sub.handle, "xptiQuerySubscriberStreamDetailLevel");
    struct subscriber *v = realloc(s->v, (s->n + 1) * sizeof(*v));
    if (!init || !finish || !v || !(sub.path = strdup(path))) {
        if (v)
            s->v = v;
        dlclose(sub.handle);
        return false;
    }
    memcpy(&sub.init, &init, sizeof(init));
    memcpy(&sub.finish, &finish, sizeof(finish));
    memcpy(&sub.detail_level, &level, sizeof(level));
    s->v = v;
    s->v[s->n++] = sub;
    return true;
}

void subs_load(struct subscribers *s, const char *list)
{
    if (!list || !*list)
        return;
    char *copy = strdup(list), *save = NULL;
    for (char *path = copy ? strtok_r(copy, ",", &save) : NULL; path;
         path = strtok_r(NULL, ",", &save)) {
        if (already_loaded(s, path))
            continue;
        if (!load_one(s, path))
            printf("Failed to load %s successfully\n", path);
    }
    free(copy);
}

void subs_unload(struct subscribers *s)
{
    for (size_t i = 0; i < s->n; i++) {
        dlclose(s->v[i].handle);
        free(s->v[i].path);
    }
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

void subs_init_stream(const struct subscribers *s, unsigned maj, unsigned min, const char *version,
                      const char *stream)
{
    for (size_t i = 0; i < s->n; i++)
        s->v[i].init(maj, min, version, stream);
}

void subs_finish_stream(const struct subscribers *s, const char *stream)
{
    for (size_t i = 0; i < s->n; i++)
        s->v[i].finish(stream);
}

uint8_t subs_detail_level(const struct subscribers *s, const char *stream)
{
    uint8_t best = 0;
    bool asked = false;
    for (size_t i = 0; i < s->n; i++) {
        uint8_t level;
        if (s->v[i].detail_level && s->v[i].detail_level(stream, &level)) {
            asked = true;
            if (level > best)
                best = level;
        }
    }
    return asked ? best : XPTI_DETAIL_NORMAL;
}
