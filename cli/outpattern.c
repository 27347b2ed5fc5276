/* SPDX-License-Identifier: MIT */
/* Ranks and output name patterns for zestub run by a job launcher. */
#include "cli/outpattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/outfile.h"

long out_rank(const char **from)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                       "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        char *end;
        long r;
        if (!v || !*v)
            continue;
        r = strtol(v, &end, 10);
        if (*end || r < 0)
            continue;
        if (from)
            *from = vars[i];
        return r;
    }
    if (from)
        *from = NULL;
    return -1;
}

void out_host(char *buf, size_t len)
{
    if (gethostname(buf, len) != 0 || !buf[0])
        snprintf(buf, len, "unknown");
    buf[len - 1] = '\0';
}

int out_expand(const char *pattern, long rank, long pid, char *buf, size_t len, char *err,
               size_t errlen)
{
    size_t n = 0;
    char host[256];
    for (const char *p = pattern; *p; p++) {
        char piece[300];
        if (*p != '%') {
            piece[0] = *p;
            piece[1] = '\0';
        } else if (p[1] == 'r') {
            snprintf(piece, sizeof(piece), "%ld", rank < 0 ? 0 : rank);
        } else if (p[1] == 'p') {
            snprintf(piece, sizeof(piece), "%ld", pid);
        } else if (p[1] == 'h') {
            out_host(host, sizeof(host));
            snprintf(piece, sizeof(piece), "%s", host);
        } else if (p[1] == '%') {
            snprintf(piece, sizeof(piece), "%%");
        } else {
            snprintf(err, errlen, "'%s': %%%c is not %%r (rank), %%p (pid), %%h (host) or %%%%",
                     pattern, p[1] ? p[1] : ' ');
            return -1;
        }
        if (*p == '%')
            p++;
        if (n + strlen(piece) >= len) {
            snprintf(err, errlen, "'%s': the file name is too long", pattern);
            return -1;
        }
        memcpy(buf + n, piece, strlen(piece) + 1);
        n += strlen(piece);
    }
    if (n == 0)
        buf[0] = '\0';
    return 0;
}

/* A non-negative number from the environment variable name, else -1. */
static long env_number(const char *name)
{
    const char *v = getenv(name);
    char *end;
    long n;
    if (!v || !*v)
        return -1;
    n = strtol(v, &end, 10);
    return *end || n < 0 ? -1 : n;
}

long out_job_size(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
                                       "SLURM_NPROCS"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        long n = env_number(vars[i]);
        if (n >= 0)
            return n;
    }
    return -1;
}

bool out_varies_by_rank(const char *pattern)
{
    for (const char *p = pattern; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == 'r' || p[1] == 'p')
            return true;
        if (p[1])
            p++; /* %% and the rest: the next character is not a '%' */
    }
    return false;
}

/* Whether the file name (its last component) has rank's number as a run
 * of digits of its own: "dump-3.json" for rank 3, made by Slurm's %t in a
 * --multi-prog file before zestub saw it. */
static bool names_rank(const char *path, long rank)
{
    const char *p = strrchr(path, '/');
    for (p = p ? p + 1 : path; *p; p++) {
        char *end;
        if (*p < '0' || *p > '9')
            continue;
        if (strtol(p, &end, 10) == rank && (end - p) < 19)
            return true;
        p = end - 1;
    }
    return false;
}

/* Says once per pattern (the core's is expanded more than once) that this
 * rank's file has another name than the one given. */
static void note_renamed(const char *what, const char *pattern, const char *name, long rank,
                         long size, const char *var)
{
    static const char *noted[4];
    for (size_t i = 0; i < sizeof(noted) / sizeof(noted[0]); i++) {
        if (noted[i] && !strcmp(noted[i], pattern))
            return;
        if (!noted[i]) {
            noted[i] = pattern;
            break;
        }
    }
    fprintf(stderr,
            "zestub dump: %s %s has no %%r, and every rank of the job would write that one "
            "file; rank %ld",
            what, pattern, rank);
    if (size > 0)
        fprintf(stderr, " of %ld", size);
    fprintf(stderr, " (%s) writes %s\n", var, name);
}

int out_rank_name(const char *what, const char *pattern, long pid, char *buf, size_t len, char *err,
                  size_t errlen)
{
    const char *var;
    long rank = out_rank(&var), size = out_job_size();
    char tag[32];
    const char *base, *dot;
    size_t n, at, taglen;
    if (out_expand(pattern, rank, pid, buf, len, err, errlen) != 0)
        return -1;
    /* One of several ranks: a size above one, or a rank above zero when
     * the launcher says no size. */
    if (rank < 0 || (size >= 0 ? size <= 1 : rank == 0) || out_varies_by_rank(pattern) || !buf[0] ||
        names_rank(buf, rank) || outfile_is_special(buf))
        return 0;
    n = strlen(buf);
    base = strrchr(buf, '/');
    base = base ? base + 1 : buf;
    dot = strrchr(base, '.');
    /* Before the extension; a name with none, or only a leading dot
     * (".dump"), gets the tag at its end. */
    at = dot && dot > base ? (size_t)(dot - buf) : n;
    taglen = (size_t)snprintf(tag, sizeof(tag), ".r%ld", rank);
    if (n + taglen >= len) {
        snprintf(err, errlen, "'%s': the file name is too long", pattern);
        return -1;
    }
    memmove(buf + at + taglen, buf + at, n - at + 1);
    memcpy(buf + at, tag, taglen);
    note_renamed(what, pattern, buf, rank, size, var);
    return 0;
}
