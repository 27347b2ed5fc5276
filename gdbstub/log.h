/* SPDX-License-Identifier: MIT */
/* --log-level: what the server tells the person running it, on stderr.
 * error: only failures; warning (default): also what was lost or refused;
 * info: connections, attach/detach, interrupts, module loads; debug: every
 * resume and every target event. The packet trace is --debug-rsp. */
#ifndef ZESTUB_GDBSTUB_LOG_H
#define ZESTUB_GDBSTUB_LOG_H

#include <stdbool.h>
#include <stdio.h>

enum rsp_log_level { RSP_LOG_ERROR, RSP_LOG_WARNING, RSP_LOG_INFO, RSP_LOG_DEBUG };

struct rsp_log {
    FILE *f; /* NULL: nothing is logged */
    enum rsp_log_level level;
};

/* "error", "warning", "info", "debug"; false for anything else. */
bool rsp_log_parse_level(const char *name, enum rsp_log_level *out);

static inline bool rsp_log_on(const struct rsp_log *l, enum rsp_log_level lv)
{
    return l && l->f && lv <= l->level;
}

/* One line "zestub: <level>: <text>" when lv is enabled. */
void rsp_logf(const struct rsp_log *l, enum rsp_log_level lv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
