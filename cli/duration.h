/* SPDX-License-Identifier: MIT */
/* Durations on the command line, one syntax for every option that takes
 * one (--timeout, --on hang=, --library-ack-timeout): a number, plain or
 * with a unit ms, s, m or h (500ms, 1.5, 10s, 2m, 1h). */
#ifndef ZESTUB_CLI_DURATION_H
#define ZESTUB_CLI_DURATION_H

#include <stdbool.h>

/* text as seconds in *seconds: 0 when it is a duration above 0 (or equal
 * to 0 when zero_ok) and at most max_s, -1 (and *seconds untouched) when
 * not. No sign, no spaces, nothing after the unit. */
int cli_parse_duration(const char *text, double max_s, bool zero_ok, double *seconds);

/* The syntax, for error messages: "such as 500ms, 10s, 2m or 1h (a plain
 * number is seconds)". */
#define CLI_DURATION_SYNTAX "such as 500ms, 10s, 2m or 1h (a plain number is seconds)"

#endif
