/* SPDX-License-Identifier: MIT */
/* The XPTI parts of a dump (doc/dump-format.md): the table section, a
 * thread's `submitted_at`, a fault's `allocation`; one set of functions per
 * format, each in its own file. They only format what the pass joined. */
#ifndef ZESTUB_REPORT_XPTI_TEXT_H
#define ZESTUB_REPORT_XPTI_TEXT_H

#include <stdio.h>

#include "report/record.h"

/* json_xpti.c: `,"xpti":{...}` (st NULL: no table, note says why),
 * `,"submitted_at":...` (null when s is NULL), `,"allocation":...`. */
void json_xpti_section(FILE *f, const struct xtab_stats *st, const char *note);
void json_xpti_submission(FILE *f, const struct sess_xpti_submission *s);
void json_xpti_allocation(FILE *f, const struct report_fault *fa);

/* human_xpti.c: one line; indented lines (nothing when s is NULL);
 * indented lines (nothing when unknown). */
void human_xpti_section(FILE *f, const struct xtab_stats *st, const char *note);
void human_xpti_submission(FILE *f, const struct sess_xpti_submission *s);
void human_xpti_allocation(FILE *f, const struct report_fault *fa);

#endif
