/* SPDX-License-Identifier: MIT */
/* Strings that came from a debuggee or a file (kernel, file and function
 * names, the program's path, a host name, a dump read back by merge)
 * written for a terminal: a name holding an escape sequence must not reach
 * the terminal as one. The human dump and `zestub merge` both write
 * through here; JSON has its own escaping (report/json.h). */
#ifndef ZESTUB_REPORT_SAFE_TEXT_H
#define ZESTUB_REPORT_SAFE_TEXT_H

#include <stdio.h>

/* Writes s with every control character escaped: C0 (newline and tab
 * too: a name must not start a line of its own) and DEL as \xNN, C1
 * (U+0080-U+009F, the UTF-8 pairs C2 80 to C2 9F) as \u00NN, and each byte
 * that is not part of a UTF-8 character as \xNN (a terminal in 8-bit mode
 * takes a lone 0x9B for CSI). Everything else, backslashes included, as it
 * is. */
void report_put_safe(FILE *f, const char *s);

#endif
