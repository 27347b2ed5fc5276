/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <string.h>

#include "gdbstub/log.h"

static const char *const names[] = {"error", "warning", "info", "debug"};

bool rsp_log_parse_level(const char *name, enum rsp_log_level *out)
{
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (enum rsp_log_level)i;
            return true;
        }
    return false;
}

void rsp_logf(const struct rsp_log *l, enum rsp_log_level lv, const char *fmt, ...)
{
    va_list ap;
    if (!rsp_log_on(l, lv))
        return;
    /* One fprintf per part, then a flush: a line may interleave with the
     * application's output on a shared terminal but is never held back.
     * The stream is locked around the parts: event reader threads log too
     * (a detach the driver refused late), and a line stays whole. */
    flockfile(l->f);
    fprintf(l->f, "zestub: %s: ", names[lv]);
    va_start(ap, fmt);
    vfprintf(l->f, fmt, ap);
    va_end(ap);
    fputc('\n', l->f);
    fflush(l->f);
    funlockfile(l->f);
}
