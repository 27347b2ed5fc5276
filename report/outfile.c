/* SPDX-License-Identifier: MIT */
/* The one way reports create their files (report/outfile.h). */
#include "report/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct outfile {
    int fd;
    FILE *stream;
    bool in_place;
    char *name, *partial; /* partial NULL when in place */
};

static const char partial_suffix[] = ".partial";

/* The reason in err, and in errno too: callers that print strerror(errno)
 * (dump_out_open's) see the same. */
static void say(char *err, size_t errlen, int e)
{
    if (errlen)
        snprintf(err, errlen, "%s", strerror(e));
    errno = e;
}

bool outfile_is_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

static void outfile_free(struct outfile *f)
{
    free(f->name);
    free(f->partial);
    free(f);
}

/* Whether NAME.partial is another live zestub's, being written: each
 * writer holds a flock on its partial until it is renamed or removed. A
 * file system without flock (some cluster mounts answer ENOSYS or
 * EINVAL) cannot tell, and the partial is taken for a stale one, as
 * before. */
static bool partial_in_use(const char *partial)
{
    int fd = open(partial, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    bool busy;
    if (fd < 0)
        return false;
    busy = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return busy;
}

/* NAME.partial made fresh: whatever is there (a stale partial, a symbolic
 * link someone planted) goes first, and O_EXCL|O_NOFOLLOW refuse anything
 * that appears in between; but another zestub's partial in the writing
 * is left alone (EBUSY): removing it would lose that writer's record
 * when it renames a file that is gone. The lock is taken right after the
 * create; a second writer looking in that instant takes the partial for
 * a stale one. */
static int create_partial(struct outfile *f)
{
    if (partial_in_use(f->partial)) {
        errno = EBUSY;
        return -1;
    }
    if (unlink(f->partial) != 0 && errno != ENOENT)
        return -1;
    f->fd = open(f->partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (f->fd < 0)
        return -1;
    (void)flock(f->fd, LOCK_EX | LOCK_NB); /* unsupported: as before */
    return 0;
}

struct outfile *outfile_open(const char *name, char *err, size_t errlen)
{
    struct outfile *f = calloc(1, sizeof(*f));
    size_t n = strlen(name);
    if (!f || !(f->name = strdup(name))) {
        free(f);
        say(err, errlen, ENOMEM);
        return NULL;
    }
    f->fd = -1;
    if (outfile_is_special(name)) {
        struct stat st;
        f->in_place = true;
        if ((f->fd = open(name, O_WRONLY | O_CLOEXEC)) < 0) {
            int e = errno;
            outfile_free(f);
            say(err, errlen, e);
            return NULL;
        }
        /* In place only onto a stream: a terminal, /dev/null, a pipe, a
         * socket. A block device (a link planted at NAME pointing at a
         * disk, with zestub run as root) or a name that became a regular
         * file since the check is refused before a byte is written. */
        if (fstat(f->fd, &st) != 0 || S_ISBLK(st.st_mode) || S_ISREG(st.st_mode)) {
            close(f->fd);
            outfile_free(f);
            if (errlen)
                snprintf(err, errlen,
                         "it is a block device (or changed while being opened): zestub writes "
                         "a report to a new file, a terminal, a pipe or a socket only");
            errno = EPERM;
            return NULL;
        }
        return f;
    }
    if (!(f->partial = malloc(n + sizeof(partial_suffix)))) {
        outfile_free(f);
        say(err, errlen, ENOMEM);
        return NULL;
    }
    memcpy(f->partial, name, n);
    memcpy(f->partial + n, partial_suffix, sizeof(partial_suffix));
    if (create_partial(f) != 0) {
        int e = errno;
        if (e == EBUSY && errlen)
            snprintf(err, errlen,
                     "another zestub is writing it (%s is locked): give each writer its own "
                     "name (%%p, %%r)",
                     f->partial);
        else
            say(err, errlen, e);
        errno = e;
        outfile_free(f);
        return NULL;
    }
    /* A report left by an earlier run under the same name would be taken
     * for this run's if this one never completes. */
    if (unlink(name) != 0 && errno != ENOENT)
        fprintf(stderr, "zestub: cannot remove the earlier %s: %s\n", name, strerror(errno));
    return f;
}

int outfile_fd(const struct outfile *f)
{
    return f->fd;
}

FILE *outfile_stream(struct outfile *f)
{
    if (!f->stream)
        f->stream = fdopen(f->fd, "w");
    return f->stream;
}

bool outfile_in_place(const struct outfile *f)
{
    return f->in_place;
}

const char *outfile_name(const struct outfile *f)
{
    return f->name;
}

const char *outfile_partial(const struct outfile *f)
{
    return f->partial ? f->partial : f->name;
}

/* Stream, fsync (of a regular file: a FIFO or /dev/null has nothing to
 * sync) and close, each checked; the first error's errno, 0 if none. */
static int close_all(struct outfile *f, int e)
{
    if (f->stream) {
        if (fflush(f->stream) != 0 && !e)
            e = errno;
        if (ferror(f->stream) && !e)
            e = EIO;
    }
    if (!e && !f->in_place && fsync(f->fd) != 0)
        e = errno;
    if (f->stream) {
        if (fclose(f->stream) != 0 && !e)
            e = errno;
    } else if (f->fd >= 0 && close(f->fd) != 0 && !e) {
        e = errno;
    }
    f->stream = NULL;
    f->fd = -1;
    return e;
}

int outfile_commit(struct outfile *f, int write_errno, char *err, size_t errlen)
{
    int e = close_all(f, write_errno);
    if (!e && f->partial && rename(f->partial, f->name) != 0)
        e = errno;
    if (e) {
        say(err, errlen, e);
        if (f->partial)
            unlink(f->partial);
    }
    outfile_free(f);
    return e ? -1 : 0;
}

int outfile_publish(struct outfile *f, char *err, size_t errlen)
{
    int e = 0;
    if (f->stream && fflush(f->stream) != 0)
        e = errno;
    if (!e && !f->in_place && fsync(f->fd) != 0)
        e = errno;
    if (!e && f->partial && rename(f->partial, f->name) != 0)
        e = errno;
    if (e) {
        say(err, errlen, e);
        return -1;
    }
    free(f->partial);
    f->partial = NULL;
    f->in_place = true; /* nothing left to rename or sync */
    return 0;
}

void outfile_discard(struct outfile *f)
{
    if (!f)
        return;
    (void)close_all(f, EIO);
    if (f->partial)
        unlink(f->partial);
    outfile_free(f);
}

void outfile_unlink_partial(const struct outfile *f)
{
    if (f && f->partial)
        unlink(f->partial);
}

int outfile_check_stream(FILE *f, char *err, size_t errlen)
{
    int e = 0;
    if (fflush(f) != 0)
        e = errno;
    if (!e && ferror(f))
        e = EIO;
    if (e)
        say(err, errlen, e);
    return e ? -1 : 0;
}
