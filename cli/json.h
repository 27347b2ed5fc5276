/* SPDX-License-Identifier: MIT */
#ifndef ZESTUB_CLI_JSON_H
#define ZESTUB_CLI_JSON_H

#include <stdio.h>

/* Writes s as a JSON string with the escapes RFC 8259 requires ("null"
 * for NULL). */
void cli_json_str(FILE *f, const char *s);

#endif
