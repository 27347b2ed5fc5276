/* SPDX-License-Identifier: MIT */
/* Ranks and output name patterns for zestub run by a job launcher. */
#include "cli/outpattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
