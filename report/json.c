/* SPDX-License-Identifier: MIT */
#include "report/json.h"

#include <string.h>

void report_json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    while (*s) {
        /* Runs that need no escape go out whole: one call (and one stream
         * lock) per run, not per byte; a hang dump of 65,536 threads
         * writes some 13 million bytes of strings. */
        size_t run = 0;
        while (s[run] && s[run] != '"' && s[run] != '\\' && (unsigned char)s[run] >= 0x20)
            run++;
        if (run) {
            fwrite(s, 1, run, f);
            s += run;
            continue;
        }
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else
            fprintf(f, "\\u%04x", (unsigned char)*s);
        s++;
    }
    fputc('"', f);
}
