/* SPDX-License-Identifier: MIT */
/* What a confined client may write (see confine.h). */
#include "gdbstub/confine.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True when path equals dir or lies below it (both resolved). */
static bool below(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    if (strcmp(dir, "/") == 0)
        return true;
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Splits path into its directory (".", when it has none) and last name. */
static void split_path(const char *path, char *dir, size_t dirlen, const char **name)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dirlen, ".");
        *name = path;
    } else if (slash == path) {
        snprintf(dir, dirlen, "/");
        *name = slash + 1;
    } else {
        snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
        *name = slash + 1;
    }
}

int rsp_path_inside(const char *dir, const char *path, char *why, size_t whylen)
{
    char base[PATH_MAX], parent[PATH_MAX], rbase[PATH_MAX], rparent[PATH_MAX];
    const char *name;

    snprintf(base, sizeof(base), "%s", dir ? dir : ".");
    if (strlen(path) >= sizeof(parent) || !realpath(base, rbase)) {
        snprintf(why, whylen, "cannot resolve the directory %s", base);
        return -ENAMETOOLONG;
    }
    split_path(path, parent, sizeof(parent), &name);
    if (!name[0] || !strcmp(name, ".") || !strcmp(name, "..")) {
        snprintf(why, whylen, "'%s' does not name a file", path);
        return -EACCES;
    }
    /* The file need not exist yet; its directory must. Resolving the
     * directory follows every link and "..": what is left is where the
     * file lands. A link in the last component is not followed by the
     * writer (report/outfile.c renames over it), so it cannot lead out. */
    char joined[PATH_MAX * 2];
    if (parent[0] != '/' && dir)
        snprintf(joined, sizeof(joined), "%s/%s", rbase, parent);
    else
        snprintf(joined, sizeof(joined), "%s", parent);
    if (!realpath(joined, rparent)) {
        int e = errno;
        snprintf(why, whylen, "cannot resolve the directory of '%s': %s", path, strerror(e));
        return -e;
    }
    if (!below(rbase, rparent)) {
        snprintf(why, whylen, "'%s' is outside %s (it resolves to %s)", path, rbase, rparent);
        return -EACCES;
    }
    return 0;
}

int rsp_confine_check_write(bool confined, uid_t uid, const char *cmd, const char *path, char *why,
                            size_t whylen)
{
    char sentence[PATH_MAX + 256];
    int rc;

    if (!confined)
        return 0;
    rc = rsp_path_inside(NULL, path, sentence, sizeof(sentence));
    if (rc == 0)
        return 0;
    snprintf(why, whylen,
             "%s: refused: %s; a client of another user (uid %u, let in by --allow-any-user) "
             "may write files only inside the server's working directory "
             "(--allow-any-user-unconfined lifts this)",
             cmd, sentence, (unsigned)uid);
    return rc;
}
