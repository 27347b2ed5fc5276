/* SPDX-License-Identifier: MIT */
/* Terminal-safe writing of a dump's strings (safe_text.h). */
#include "report/safe_text.h"

#include <stddef.h>

/* The length of the UTF-8 character s starts with (1 for ASCII), or 0 when
 * s does not start a well-formed one (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF). Stops at a NUL, as it is not a
 * continuation byte. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned lo = 0x80, hi = 0xBF;
    size_t n;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        n = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        n = 3;
        lo = s[0] == 0xE0 ? 0xA0 : lo;
        hi = s[0] == 0xED ? 0x9F : hi;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        n = 4;
        lo = s[0] == 0xF0 ? 0x90 : lo;
        hi = s[0] == 0xF4 ? 0x8F : hi;
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

void report_put_safe(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        size_t n = utf8_len(s);
        if (n == 0 || *s < 0x20 || *s == 0x7F) {
            fprintf(f, "\\x%02x", *s);
            n = 1;
        } else if (n == 2 && s[0] == 0xC2 && s[1] <= 0x9F)
            fprintf(f, "\\u%04x", s[1]);
        else
            fwrite(s, 1, n, f);
        s += n;
    }
}
