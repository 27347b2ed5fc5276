/* SPDX-License-Identifier: MIT */
#ifndef ZESTUB_REPORT_JSON_H
#define ZESTUB_REPORT_JSON_H

#include <stdio.h>

/* Writes s as a JSON string with the escapes RFC 8259 requires ("null"
 * for NULL). */
void report_json_str(FILE *f, const char *s);

#endif
