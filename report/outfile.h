/* SPDX-License-Identifier: MIT */
/* Every file zestub's reports write (the JSON dump, the GPU cores) is made
 * here, so that each gives the same guarantees: NAME exists afterwards only
 * when it is whole, and a failure says why.
 *
 *  - The bytes go to NAME.partial, created with O_CREAT|O_EXCL|O_NOFOLLOW:
 *    a NAME.partial left by an earlier run, or a link planted there, is
 *    removed first (unlink never follows a link) and never written through.
 *    The writer holds a flock on its NAME.partial; one another live
 *    zestub holds is not removed: the open fails with EBUSY and says so
 *    (on a file system without flock, nothing is told apart).
 *  - An earlier NAME is removed at open: a run that never completes must
 *    not leave an older report that looks like its own.
 *  - Every write, flush, fsync and close is checked; NAME.partial is
 *    renamed to NAME only when all succeeded. On any failure the partial is
 *    removed and the reason (strerror, e.g. "No space left on device") is
 *    returned.
 *  - A NAME that exists and is not a regular file (/dev/null, a FIFO, a
 *    terminal) is written in place, never removed or replaced: as root,
 *    `--json /dev/null` would otherwise delete /dev/null. A block device
 *    (a link planted at NAME pointing at a disk) is refused, checked on
 *    the opened descriptor before anything is written. */
#ifndef ZESTUB_REPORT_OUTFILE_H
#define ZESTUB_REPORT_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct outfile;

/* The name exists and is not a regular file (after symbolic links). */
bool outfile_is_special(const char *path);

/* Opens NAME for writing as above. NULL with the reason in err. */
struct outfile *outfile_open(const char *name, char *err, size_t errlen);
/* The descriptor (pwrite at offsets: the cores). */
int outfile_fd(const struct outfile *f);
/* A stdio stream on the descriptor (the JSON document), made once; NULL
 * when out of memory. outfile_commit flushes and closes it. */
FILE *outfile_stream(struct outfile *f);
/* Written in place (outfile_is_special): no partial, no rename. */
bool outfile_in_place(const struct outfile *f);
/* NAME, and where the bytes go until the commit. */
const char *outfile_name(const struct outfile *f);
const char *outfile_partial(const struct outfile *f);

/* Finishes the file: write_errno is the first error the writer met on the
 * descriptor (0: none). Flushes the stream, fsyncs, closes, renames
 * NAME.partial to NAME. 0; or -1 with the reason in err and the partial
 * removed. Frees f either way. */
int outfile_commit(struct outfile *f, int write_errno, char *err, size_t errlen);
/* From a watchdog about to end the process, the writer's lock held: the
 * stream flushed and synced, NAME.partial renamed to NAME now; f stays
 * open (the process exits next). 0, or -1 with the reason in err. */
int outfile_publish(struct outfile *f, char *err, size_t errlen);
/* Gives up: closes, removes the partial, frees f. */
void outfile_discard(struct outfile *f);
/* From another thread while f is being written (a watchdog about to end
 * the process): only removes the partial, frees nothing. */
void outfile_unlink_partial(const struct outfile *f);

/* The end of a stream the caller owns (stdout for `--json -`): fflush and
 * ferror checked. 0, or -1 with the reason in err. */
int outfile_check_stream(FILE *f, char *err, size_t errlen);

#endif
