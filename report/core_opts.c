/* SPDX-License-Identifier: MIT */
/* The words of the core options (--core-memory, --core-size,
 * --core-threads), shared by zestub dump and monitor core. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/core_out.h"

int core_parse_size(const char *s, uint64_t *bytes)
{
    char *end;
    unsigned long long v;
    unsigned shift = 0;
    if (!strcmp(s, "none")) {
        *bytes = 0;
        return 0;
    }
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (*end || v > (UINT64_MAX >> shift))
        return -1;
    *bytes = (uint64_t)v << shift;
    return 0;
}

int core_parse_size_limit(const char *s, uint64_t *bytes)
{
    if (!strcmp(s, "unlimited")) {
        *bytes = 0;
        return 0;
    }
    /* Smaller than the headers and notes of any core: a typing error. */
    return core_parse_size(s, bytes) != 0 || *bytes < 4096 ? -1 : 0;
}

int core_parse_threads(const char *s, struct core_opts *opts)
{
    char *end;
    unsigned long n;
    opts->faulting_only = false;
    opts->max_threads = 0;
    if (!strcmp(s, "all"))
        return 0;
    if (!strcmp(s, "faulting")) {
        opts->faulting_only = true;
        return 0;
    }
    n = strtoul(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || n == 0 || n > 0x7fffffffUL)
        return -1;
    opts->max_threads = (size_t)n;
    return 0;
}
