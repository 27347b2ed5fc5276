/* SPDX-License-Identifier: MIT */
/* The XPTI parts of a dump record (doc/dump-format.md): the table section,
 * a thread's `submitted_at`, a fault's `allocation`, in JSON or the human
 * format. Called by dump_out.c with its output lock held; they only read
 * the table (memory), never the device. */
#ifndef ZESTUB_CLI_DUMP_XPTI_H
#define ZESTUB_CLI_DUMP_XPTI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sessions/sess_xpti.h"

/* JSON: `,"xpti":{...}`. Human: one line. */
void dump_xpti_section(FILE *f, bool json, struct sess_xpti *x, const char *note);
/* JSON: `,"submitted_at":...` (null when s is NULL). Human: indented
 * lines, nothing when s is NULL. */
void dump_xpti_submission(FILE *f, bool json, const struct sess_xpti_submission *s);
/* JSON: `,"allocation":...` (null when unknown). Human: indented lines. */
void dump_xpti_allocation(FILE *f, bool json, struct sess_xpti *x, uint64_t addr);

#endif
