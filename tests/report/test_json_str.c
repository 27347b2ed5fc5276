/* SPDX-License-Identifier: MIT */
/* report_json_str, the one writer of every JSON string a dump holds: the
 * text exactly as given, except '"', '\\' and C0 control characters,
 * which are escaped (\" \\ \u00NN); bytes from 0x20 up, UTF-8 included,
 * pass as they are; NULL is null. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "tests/lib/tap.h"

static char *json_of(const char *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return NULL;
    report_json_str(mem, s);
    fclose(mem);
    return text;
}

static void check(const char *in, const char *want, const char *what)
{
    char *got = json_of(in);
    tap_ok(got && strcmp(got, want) == 0, "%s: %s", what, got ? got : "(no memory)");
    free(got);
}

int main(void)
{
    static const char ctl[] = {'a', 0x01, 'b', 0x1f, '\n', '\t', 0x7f, 0};
    char big[5000];
    char *want, *got;

    tap_plan(8);
    check(NULL, "null", "NULL is null");
    check("", "\"\"", "the empty string");
    check("tests/kernels/oob.cl", "\"tests/kernels/oob.cl\"", "a path, as it is");
    check("say \"hi\"", "\"say \\\"hi\\\"\"", "quotes escaped, also at the end");
    check("a\\b\\", "\"a\\\\b\\\\\"", "backslashes escaped");
    check(ctl, "\"a\\u0001b\\u001f\\u000a\\u0009\x7f\"", "C0 controls as \\u00NN, DEL as it is");
    check("caf\xc3\xa9 \xe2\x82\xac", "\"caf\xc3\xa9 \xe2\x82\xac\"", "UTF-8 as it is");
    /* A long run with an escape every 997 bytes: runs are written whole. */
    for (size_t i = 0; i < sizeof(big) - 1; i++)
        big[i] = i % 997 == 996 ? '"' : (char)('a' + i % 26);
    big[sizeof(big) - 1] = 0;
    want = malloc(2 * sizeof(big) + 3);
    got = json_of(big);
    if (want) {
        char *q = want;
        *q++ = '"';
        for (const char *p = big; *p; p++) {
            if (*p == '"')
                *q++ = '\\';
            *q++ = *p;
        }
        *q++ = '"';
        *q = 0;
    }
    tap_ok(want && got && strcmp(got, want) == 0, "4,999 bytes with 5 quotes, byte for byte");
    free(want);
    free(got);
    return tap_done();
}
