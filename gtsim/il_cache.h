/* SPDX-License-Identifier: MIT */
/* The per-user cache of modules gtsim compiled from SPIR-V, keyed by a
 * hash of everything the result depends on (the IL after specialization,
 * the options, the platform, the compiler). Compiling with ocloc takes a
 * second or more; an application that loads the same module every run,
 * as test suites do, pays it once. $XDG_CACHE_HOME/gtsim (absolute), else
 * $HOME/.cache/gtsim: a directory of mode 0700 owned by the user (refused
 * otherwise), entries opened without following links, written under a
 * temporary name and renamed, so a reader never sees half an entry. */
#ifndef GTSIM_IL_CACHE_H
#define GTSIM_IL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GTSIM_IL_KEY_LEN 33 /* 32 hex digits and the NUL */

/* A descriptor of the cache directory, or -1 with the reason in why. */
int gtsim_il_cache_open(char *why, size_t whylen);
/* key: hex of a 128-bit hash of the n parts. */
void gtsim_il_cache_key(const void *const *parts, const size_t *lens, int n,
                        char key[GTSIM_IL_KEY_LEN]);
/* The entry key+suffix (malloc'd, *size bytes; a NUL follows them), or
 * NULL when absent or not a regular file of the user. */
/* A whole regular file at name (relative to dirfd, or AT_FDCWD), links not
 * followed; with own_only, only a file of our own user. malloc'd, with a
 * NUL after its bytes, or NULL. */
void *gtsim_il_read_at(int dirfd, const char *name, bool own_only, size_t *size);
/* Writes a new file at name (relative to dirfd, or AT_FDCWD), 0600, never
 * through a link nor over an existing file. 0, or -1 (a partial file may
 * be left for the caller to remove). */
int gtsim_il_write_at(int dirfd, const char *name, const void *data, size_t size);
void *gtsim_il_cache_get(int dirfd, const char *key, const char *suffix, size_t *size);
/* Stores an entry; failures only mean the next build compiles again. */
void gtsim_il_cache_put(int dirfd, const char *key, const char *suffix, const void *data,
                        size_t size);

#endif
